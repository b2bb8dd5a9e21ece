package sandbox

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/policy"
)

// deriveCached is derive with a folder of kept walks; it returns the
// profile and the kept walk's key (one file in cache).
func (w *world) deriveCached(pol *policy.Policy, cache string) (*Profile, string) {
	w.t.Helper()
	p, _, err := Derive(Input{Cwd: w.proj, Home: w.home, TempDir: w.tmp, Getenv: func(string) string { return "" },
		Policy: pol, CacheDir: cache})
	if err != nil {
		w.t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(cache, "walk-*.json"))
	if len(files) == 0 {
		return p, ""
	}
	data, err := os.ReadFile(files[len(files)-1])
	if err != nil {
		w.t.Fatal(err)
	}
	var kept walkResult
	if err := json.Unmarshal(data, &kept); err != nil {
		w.t.Fatal(err)
	}
	return p, kept.Key
}

// TestKeptWalkHoldsWhileNothingChanged: a kept walk answers while every
// folder it listed has the same entries (a placeholder made and removed
// again in the project changes the folder's times, not its entries), and
// is walked again as soon as an entry is added, removed, or a link is led
// elsewhere; a changed policy is another walk.
func TestKeptWalkHoldsWhileNothingChanged(t *testing.T) {
	w := newWorld(t)
	cache := filepath.Join(w.home, ".toolgate-cache")
	pol := w.policy(`{"permission": {"path": {"*.pem": "deny"}}}`)
	p, key := w.deriveCached(pol, cache)
	if key == "" || !strings.Contains(pathList(p.Hidden), "certs/key.pem") {
		t.Fatalf("key %q; hidden:\n%s", key, pathList(p.Hidden))
	}
	if _, ok := loadWalk(cache, key); !ok {
		t.Fatal("the walk just kept does not hold")
	}
	// A placeholder made and removed: same entries.
	must(t, os.Mkdir(filepath.Join(w.proj, ".toolgate"), 0o755))
	must(t, os.Remove(filepath.Join(w.proj, ".toolgate")))
	if _, ok := loadWalk(cache, key); !ok {
		t.Error("a folder whose entries came back as they were no longer holds")
	}
	// A new denied file: walked again, and hidden.
	w.write(filepath.Join(w.proj, "certs", "new.pem"), "NEW SECRET\n")
	if _, ok := loadWalk(cache, key); ok {
		t.Error("a kept walk holds after a denied file was added")
	}
	p, _ = w.deriveCached(pol, cache)
	if !strings.Contains(pathList(p.Hidden), "certs/new.pem") {
		t.Errorf("the new file is not hidden:\n%s", pathList(p.Hidden))
	}
	// A link led to a denied file outside the project.
	outside := filepath.Join(w.home, "elsewhere")
	must(t, os.MkdirAll(outside, 0o755))
	w.write(filepath.Join(outside, "plain.txt"), "plain\n")
	w.write(filepath.Join(outside, "real.pem"), "SECRET\n")
	target := filepath.Join(outside, "dir")
	must(t, os.Symlink(filepath.Join(outside, "plain.txt"), target))
	must(t, os.Symlink(target, filepath.Join(w.proj, "notes.txt")))
	p, key = w.deriveCached(pol, cache)
	if strings.Contains(pathList(p.Hidden), "notes.txt") {
		t.Fatalf("a link to a plain file is hidden:\n%s", pathList(p.Hidden))
	}
	// The link in the project is not touched; the one it leads through is.
	must(t, os.Remove(target))
	must(t, os.Symlink(filepath.Join(outside, "real.pem"), target))
	if _, ok := loadWalk(cache, key); ok {
		t.Error("a kept walk holds after a link on its way was led elsewhere")
	}
	p, _ = w.deriveCached(pol, cache)
	if !strings.Contains(pathList(p.Hidden), "elsewhere/real.pem") {
		t.Errorf("the denied file a link now leads to is not hidden (as its real path):\n%s", pathList(p.Hidden))
	}
	// Another policy: another walk (an allow can make a denied file readable).
	before, _ := filepath.Glob(filepath.Join(cache, "walk-*.json"))
	w.deriveCached(w.policy(`{"permission": {"path": {"*.pem": "deny", "certs/new.pem": "allow"}}}`), cache)
	after, _ := filepath.Glob(filepath.Join(cache, "walk-*.json"))
	if len(after) != len(before)+1 {
		t.Errorf("two policies share a kept walk: %d files before, %d after", len(before), len(after))
	}
}

// TestKeptWalkNotToolgates: a kept walk that is not a private file of
// this user is no answer.
func TestKeptWalkNotToolgates(t *testing.T) {
	w := newWorld(t)
	cache := filepath.Join(w.home, ".toolgate-cache")
	_, key := w.deriveCached(w.policy(`{"permission": {"path": {"*.pem": "deny"}}}`), cache)
	file := walkFile(cache, key)
	must(t, os.Chmod(file, 0o644))
	if _, ok := loadWalk(cache, key); ok {
		t.Error("a kept walk others may read holds")
	}
	must(t, os.Chmod(file, 0o600))
	must(t, os.WriteFile(file, []byte(`{"version": 1, "key": "`+key+`", "dirs": {}, "hidden": []}`+"\n"), 0o600))
	if k, ok := loadWalk(cache, key); !ok || len(k.Hidden) != 0 {
		t.Fatal("the rewritten file does not load (the next check needs it to)")
	}
	// The file's own folder list is what it is checked by: with none, it
	// holds. That is why the folder is toolgate's own, read-only to a
	// confined command (hook's TestSandboxFolderIsOwn).
}

// TestKeptWalkSeesAGitfileEdited: a gitfile below the top of the project
// names the git folder whose hooks are kept read-only; edited in place
// (its folder's entries unchanged) to name another, the kept walk no
// longer holds, and the other folder's hooks are protected.
func TestKeptWalkSeesAGitfileEdited(t *testing.T) {
	w := newWorld(t)
	cache := filepath.Join(w.home, ".toolgate-cache")
	sub := filepath.Join(w.proj, "sub")
	first, second := filepath.Join(w.proj, "store", "one"), filepath.Join(w.proj, "store", "two")
	for _, d := range []string{sub, filepath.Join(first, "hooks"), filepath.Join(second, "hooks")} {
		must(t, os.MkdirAll(d, 0o755))
	}
	w.write(filepath.Join(sub, ".git"), "gitdir: "+first+"\n")
	pol := w.policy(`{}`)
	p, key := w.deriveCached(pol, cache)
	if !strings.Contains(pathList(p.ReadOnly)+"\n", filepath.Join(first, "hooks")+"\n") {
		t.Fatalf("the first git folder's hooks are not read-only:\n%s", pathList(p.ReadOnly))
	}
	f, err := os.OpenFile(filepath.Join(sub, ".git"), os.O_WRONLY|os.O_TRUNC, 0)
	must(t, err)
	_, err = f.WriteString("gitdir: " + second + "\n")
	must(t, err)
	must(t, f.Close())
	if _, ok := loadWalk(cache, key); ok {
		t.Error("a kept walk holds after a gitfile was edited")
	}
	p, _ = w.deriveCached(pol, cache)
	if !strings.Contains(pathList(p.ReadOnly)+"\n", filepath.Join(second, "hooks")+"\n") {
		t.Errorf("the git folder the gitfile now names is not protected:\n%s", pathList(p.ReadOnly))
	}
}
