package sandbox

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestKeptWalkIsFreshWalk holds the profile derived from the kept walk
// equal to the one derived from a fresh walk (no folder of kept walks),
// after each of a table of edge steps and a random sequence of changes to
// the project and to folders outside it: denied and plain files added,
// removed, renamed and turned into folders, folders made and removed,
// links (through links outside) made and led elsewhere, placeholders,
// nested repositories, gitfiles, and a working directory below the top.
func TestKeptWalkIsFreshWalk(t *testing.T) {
	w := newWorld(t)
	cache := filepath.Join(w.home, ".toolgate-cache")
	outside := filepath.Join(w.home, "elsewhere")
	must(t, os.MkdirAll(filepath.Join(outside, "dir"), 0o755))
	w.write(filepath.Join(outside, "plain.txt"), "plain\n")
	w.write(filepath.Join(outside, "real.pem"), "SECRET\n")
	w.write(filepath.Join(outside, "dir", "in.key"), "SECRET\n")
	pol := w.policy(fmt.Sprintf(`{"permission": {"path": {"*.pem": "deny", "secret/*": "deny", "%s/*.key": "deny", "a/b/*": "deny"},
		"read": {"*.env": "deny", "certs/*.key": "deny"}}}`, outside))
	dirs := []string{w.proj, filepath.Join(w.proj, "a"), filepath.Join(w.proj, "a", "b"), filepath.Join(w.proj, "certs"),
		filepath.Join(w.proj, "secret"), filepath.Join(w.proj, "sub"), outside, filepath.Join(outside, "dir")}
	names := []string{"x.pem", "y.env", "k.key", "plain.txt", "notes.md"}
	// hop is a folder no walk lists: a link in the project may lead
	// through one of its links, which is led elsewhere unseen by any
	// listing.
	hop := filepath.Join(w.home, "hop")
	must(t, os.MkdirAll(hop, 0o755))
	targets := []string{filepath.Join(outside, "plain.txt"), filepath.Join(outside, "real.pem"), filepath.Join(outside, "dir"),
		filepath.Join(w.proj, "certs", "key.pem"), filepath.Join(w.home, "missing"), "x.pem", "../a",
		filepath.Join(hop, "ln.txt"), filepath.Join(hop, "ln.pem"), filepath.Join(hop, "lndir")}
	stores := []string{filepath.Join(w.proj, "store", "one"), filepath.Join(w.proj, "store", "two")}
	for _, s := range stores {
		must(t, os.MkdirAll(filepath.Join(s, "hooks"), 0o755))
	}
	derive := func(cwd, cacheDir string) *Profile {
		t.Helper()
		p, _, err := Derive(Input{Cwd: cwd, Home: w.home, TempDir: w.tmp, Getenv: func(string) string { return "" },
			Policy: pol, CacheDir: cacheDir})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	// holds counts the steps at which a kept walk was there to answer.
	holds := 0
	keptHolds := func() bool {
		files, _ := filepath.Glob(filepath.Join(cache, "walk-*.json"))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				continue
			}
			var kept walkResult
			if json.Unmarshal(data, &kept) == nil {
				if _, ok := loadWalk(cache, kept.Key); ok {
					return true
				}
			}
		}
		return false
	}
	cwd := w.proj
	check := func(step int, what string) {
		t.Helper()
		if keptHolds() {
			holds++
		}
		kept, fresh := derive(cwd, cache), derive(cwd, "")
		if !reflect.DeepEqual(kept, fresh) {
			t.Fatalf("step %d (%s), in %s: from the kept walk\n%+v\nfrom a fresh walk\n%+v", step, what, cwd, kept, fresh)
		}
	}
	relink := func(link, target string) {
		os.Remove(link + ".new")
		must(t, os.Symlink(target, link+".new"))
		must(t, os.Rename(link+".new", link))
	}
	a := filepath.Join(w.proj, "a")
	must(t, os.MkdirAll(a, 0o755))
	for i, e := range []struct {
		what string
		do   func()
	}{
		{"nothing yet", func() {}},
		{"nothing changed", func() {}},
		{"a link through a link outside to a plain file", func() {
			relink(filepath.Join(hop, "ln.txt"), filepath.Join(outside, "plain.txt"))
			relink(filepath.Join(a, "ln.txt"), filepath.Join(hop, "ln.txt"))
		}},
		{"the link outside led to a denied file", func() { relink(filepath.Join(hop, "ln.txt"), filepath.Join(outside, "real.pem")) }},
		{"and back", func() { relink(filepath.Join(hop, "ln.txt"), filepath.Join(outside, "plain.txt")) }},
		{"a placeholder made and removed", func() {
			must(t, os.Mkdir(filepath.Join(w.proj, ".toolgate"), 0o755))
			must(t, os.Remove(filepath.Join(w.proj, ".toolgate")))
		}},
		{"a denied file added", func() { w.write(filepath.Join(a, "new.pem"), "x\n") }},
		{"a denied file removed", func() { must(t, os.Remove(filepath.Join(a, "new.pem"))) }},
		{"a denied file turned into a folder", func() {
			must(t, os.Remove(filepath.Join(w.proj, "certs", "key.pem")))
			must(t, os.MkdirAll(filepath.Join(w.proj, "certs", "key.pem", "in"), 0o755))
		}},
		{"a gitfile", func() {
			must(t, os.MkdirAll(filepath.Join(w.proj, "sub"), 0o755))
			w.write(filepath.Join(w.proj, "sub", ".git"), "gitdir: "+stores[0]+"\n")
		}},
		{"the gitfile edited in place", func() {
			f, err := os.OpenFile(filepath.Join(w.proj, "sub", ".git"), os.O_WRONLY|os.O_TRUNC, 0)
			must(t, err)
			_, err = f.WriteString("gitdir: " + stores[1] + "\n")
			must(t, err)
			must(t, f.Close())
		}},
		{"a denied file in the folder outside", func() { w.write(filepath.Join(outside, "dir", "new.key"), "x\n") }},
	} {
		e.do()
		check(i, e.what)
	}
	rng := rand.New(rand.NewPCG(12, 12))
	pick := func(list []string) string { return list[rng.IntN(len(list))] }
	for step := range 200 {
		dir := pick(dirs)
		var what string
		switch rng.IntN(12) {
		case 0, 1:
			what = "add " + filepath.Join(dir, pick(names))
			os.MkdirAll(dir, 0o755)
			os.WriteFile(filepath.Join(dir, pick(names)), []byte("x\n"), 0o644)
		case 2:
			p := filepath.Join(dir, pick(names))
			what = "remove " + p
			os.RemoveAll(p)
		case 3:
			what = "make the folder " + dir
			os.MkdirAll(dir, 0o755)
		case 4:
			if dir == w.proj || dir == outside {
				dir = filepath.Join(w.proj, "secret")
			}
			what = "remove the folder " + dir
			os.RemoveAll(dir)
		case 5:
			if rng.IntN(3) == 0 {
				dir = hop
			}
			link, target := filepath.Join(dir, pick([]string{"ln.txt", "ln.pem", "lndir"})), pick(targets)
			what = "link " + link + " to " + target
			os.MkdirAll(dir, 0o755)
			os.Remove(link + ".new")
			if os.Symlink(target, link+".new") == nil {
				os.Rename(link+".new", link)
			}
		case 6:
			what = "a placeholder made and removed"
			os.Mkdir(filepath.Join(w.proj, ".toolgate"), 0o755)
			os.Remove(filepath.Join(w.proj, ".toolgate"))
		case 7:
			sub := filepath.Join(w.proj, "sub")
			os.MkdirAll(sub, 0o755)
			os.RemoveAll(filepath.Join(sub, ".git"))
			if rng.IntN(2) == 0 {
				what = "a nested repository"
				os.MkdirAll(filepath.Join(sub, ".git", "hooks"), 0o755)
			} else {
				what = "a gitfile"
				os.WriteFile(filepath.Join(sub, ".git"), []byte("gitdir: "+pick(stores)+"\n"), 0o644)
			}
		case 8:
			from, to := filepath.Join(dir, pick(names)), filepath.Join(dir, pick(names))
			what = "rename " + from + " to " + to
			os.Rename(from, to)
		case 9:
			p := filepath.Join(dir, pick(names))
			what = "turn " + p + " into a folder"
			os.RemoveAll(p)
			os.MkdirAll(filepath.Join(p, "inner"), 0o755)
		case 10:
			what = "edit the gitfile in place"
			if f, err := os.OpenFile(filepath.Join(w.proj, "sub", ".git"), os.O_WRONLY|os.O_TRUNC, 0); err == nil {
				f.WriteString("gitdir: " + pick(stores) + "\n")
				f.Close()
			}
		case 11:
			cwd = pick([]string{w.proj, w.proj, filepath.Join(w.proj, "a"), filepath.Join(w.proj, "certs")})
			what = "work in " + cwd
			if _, err := os.Stat(cwd); err != nil {
				cwd = w.proj
			}
		}
		check(step, what)
	}
	if holds < 20 {
		t.Fatalf("a kept walk held at only %d of 200 steps", holds)
	}
}
