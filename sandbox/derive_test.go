package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/gates"
	"github.com/toolgate/toolgate/policy"
)

func (w *world) policy(text string) *policy.Policy {
	f := policy.ParseFile("/etc/tg/global.json", []byte(text))
	if len(f.Errors) > 0 {
		w.t.Fatal(f.Errors)
	}
	return policy.Compose([]policy.ScopeFile{{Scope: policy.ScopeGlobal, Path: "/etc/tg/global.json", Trusted: true, Exists: true, File: f}}, w.home)
}

func (w *world) derive(pol *policy.Policy, cwd string, env map[string]string) (*Profile, []string) {
	w.t.Helper()
	getenv := func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		if k == "PATH" {
			return "/usr/bin:/bin"
		}
		return ""
	}
	p, notes, err := Derive(Input{Cwd: cwd, Home: w.home, TempDir: w.tmp, Getenv: getenv, Policy: pol,
		Own: gates.OwnFiles([]string{filepath.Join(cwd, ".toolgate")}, filepath.Join(w.home, ".pi/agent"), cwd)})
	if err != nil {
		w.t.Fatal(err)
	}
	return p, notes
}

func pathList(es []Entry) string {
	var out []string
	for _, e := range es {
		out = append(out, e.Path)
	}
	return strings.Join(out, "\n")
}

func TestDeriveFromThePolicy(t *testing.T) {
	w := newWorld(t)
	must(t, os.MkdirAll(filepath.Join(w.home, ".npm"), 0o755))
	must(t, os.MkdirAll(filepath.Join(w.home, "extra"), 0o755))
	run := filepath.Join(w.tmp, "run")
	must(t, os.MkdirAll(run, 0o700))
	pol := w.policy(`{"sandbox": "on", "sandboxWrite": ["~/extra"], "sandboxNetwork": "off",
		"permission": {"path": {"*.pem": "deny"}, "read": {"~/.ssh/id_*": {"action": "deny", "reason": "keys"}}}}`)
	p, notes := w.derive(pol, w.proj, map[string]string{"XDG_RUNTIME_DIR": run, "PATH": filepath.Join(w.proj, "bin") + ":/usr/bin"})
	if len(notes) != 0 {
		t.Errorf("notes: %v", notes)
	}
	must(t, p.Validate())
	write := pathList(p.Write)
	for _, want := range []string{w.proj, w.tmp, filepath.Join(w.home, ".npm"), w.cache, filepath.Join(w.home, "extra")} {
		if !strings.Contains(write+"\n", want+"\n") {
			t.Errorf("write roots lack %s:\n%s", want, write)
		}
	}
	ro := pathList(p.ReadOnly)
	for _, want := range []string{".git/hooks", ".git/config", "/.toolgate", "/.pi"} {
		if !strings.Contains(ro, w.proj+"/"+strings.TrimPrefix(want, "/")) {
			t.Errorf("read-only lacks %s:\n%s", want, ro)
		}
	}
	hidden := pathList(p.Hidden)
	for _, want := range []string{filepath.Join(w.home, ".ssh/id_rsa"), filepath.Join(w.proj, "certs/key.pem")} {
		if !strings.Contains(hidden, want) {
			t.Errorf("hidden lacks %s:\n%s", want, hidden)
		}
	}
	if strings.Contains(hidden, "readme.txt") {
		t.Errorf("hidden holds a file no rule denies:\n%s", hidden)
	}
	for _, e := range p.Hidden {
		if strings.HasSuffix(e.Path, "key.pem") && !strings.Contains(e.Why, `path deny "*.pem" (/etc/tg/global.json:2)`) {
			t.Errorf("why: %q", e.Why)
		}
	}
	if !strings.Contains(pathList(p.Sockets), run) || !p.NetworkOff {
		t.Errorf("sockets %v, network off %v", p.Sockets, p.NetworkOff)
	}
	// The derived profile holds, run for real: the walk's hidden file
	// cannot be read, the missing .pi folder is read-only while the
	// command runs and gone afterwards.
	code, stdout, stderr := w.run(p, "grep -r SECRET certs; mkdir -p .pi/agents && echo '{}' > .pi/agents/a.md")
	if code == 0 || strings.Contains(stdout, "SECRET") || w.exists(filepath.Join(w.proj, ".pi")) {
		t.Errorf("exit %d\n%s\n%s", code, stdout, stderr)
	}
}

func TestDeriveSocketsListedStayOpen(t *testing.T) {
	w := newWorld(t)
	run := filepath.Join(w.tmp, "run")
	must(t, os.MkdirAll(run, 0o700))
	p, _ := w.derive(w.policy(`{"sandboxSockets": ["`+run+`"]}`), w.proj, map[string]string{"XDG_RUNTIME_DIR": run})
	if len(p.Sockets) != 0 {
		t.Errorf("sockets: %v", p.Sockets)
	}
}

func TestDeriveNoProjectRootAtHome(t *testing.T) {
	w := newWorld(t)
	for _, cwd := range []string{w.home, filepath.Dir(w.home), "/"} {
		p, notes := w.derive(w.policy(`{}`), cwd, nil)
		if strings.Contains(pathList(p.Write)+"\n", cwd+"\n") || len(notes) == 0 || !strings.Contains(notes[0], "no project write root") {
			t.Errorf("%s: write %v, notes %v", cwd, p.Write, notes)
		}
	}
}

func TestDeriveWalkBoundIsSaid(t *testing.T) {
	w := newWorld(t)
	p, _ := w.derive(w.policy(`{"permission": {"path": {"*.pem": "deny"}}}`), w.proj, nil)
	if len(p.Unenforced) > 0 && strings.Contains(strings.Join(p.Unenforced, " "), "walk bound") {
		t.Fatalf("a small project was not walked whole: %v", p.Unenforced)
	}
	p, _, err := Derive(Input{Cwd: w.proj, Home: w.home, TempDir: w.tmp, Getenv: func(string) string { return "" },
		Policy: w.policy(`{"permission": {"path": {"*.pem": "deny"}}}`), WalkEntries: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(p.Unenforced, " "), "walk bound") {
		t.Errorf("unenforced: %v", p.Unenforced)
	}
	code, _, stderr := w.run(p, "true")
	if code != 0 || !strings.Contains(stderr, "not kernel-enforced for this command: files under "+w.proj) {
		t.Errorf("exit %d, stderr %s", code, stderr)
	}
}

// TestDerivePathFolders: a PATH folder under a cache stays read-only, one
// in the project does not (the build writes node_modules/.bin).
func TestDerivePathFolders(t *testing.T) {
	w := newWorld(t)
	cacheBin := filepath.Join(w.cache, "tool/bin")
	projBin := filepath.Join(w.proj, "node_modules/.bin")
	must(t, os.MkdirAll(cacheBin, 0o755))
	must(t, os.MkdirAll(projBin, 0o755))
	p, _ := w.derive(w.policy(`{}`), w.proj, map[string]string{"PATH": cacheBin + ":" + projBin + ":/usr/bin"})
	ro := pathList(p.ReadOnly)
	if !strings.Contains(ro, cacheBin) || strings.Contains(ro, projBin) {
		t.Errorf("read-only:\n%s", ro)
	}
}

// TestDeriveWorktree: in a git worktree the repository's real git folder
// is a write root (a commit writes its objects and refs) with its hooks
// and config read-only.
func TestDeriveWorktree(t *testing.T) {
	w := newWorld(t)
	w.plain("git", "add", "main.txt")
	w.plain("git", "commit", "-q", "-m", "one")
	wt := filepath.Join(w.home, "wt")
	w.plain("git", "worktree", "add", "-q", wt)
	p, _ := w.derive(w.policy(`{}`), wt, nil)
	common := filepath.Join(w.proj, ".git")
	if !strings.Contains(pathList(p.Write)+"\n", common+"\n") {
		t.Fatalf("write roots lack %s:\n%s", common, pathList(p.Write))
	}
	ro := pathList(p.ReadOnly)
	for _, want := range []string{filepath.Join(common, "hooks"), filepath.Join(common, "config")} {
		if !strings.Contains(ro, want) {
			t.Errorf("read-only lacks %s:\n%s", want, ro)
		}
	}
	p.Cwd = wt
	gitfile := w.read(filepath.Join(wt, ".git"))
	code, stdout, stderr := w.run(p, "echo two > f && git add f && git commit -q -m two && git log --oneline | wc -l; echo x > "+filepath.Join(common, "hooks/pre-commit")+
		"; echo 'gitdir: /elsewhere' > .git; mv .git moved")
	if code == 0 || !strings.Contains(stdout, "2") || w.exists(filepath.Join(common, "hooks/pre-commit")) {
		t.Errorf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	// The worktree's gitfile (which git folder it uses) stays as it was.
	if got := w.read(filepath.Join(wt, ".git")); got != gitfile || w.exists(filepath.Join(wt, "moved")) {
		t.Errorf("the gitfile was changed: %q (was %q); moved there: %v\n%s", got, gitfile, w.exists(filepath.Join(wt, "moved")), stderr)
	}
}

// TestDeriveDecidedWrites: the paths a decision lets the command write
// outside the project become write roots (a missing file as its folder),
// never / or $HOME; protected paths in them stay read-only.
func TestDeriveDecidedWrites(t *testing.T) {
	w := newWorld(t)
	other := filepath.Join(w.home, "other")
	must(t, os.MkdirAll(filepath.Join(other, ".git/hooks"), 0o755))
	w.write(filepath.Join(other, "old.txt"), "old\n")
	p, _, err := Derive(Input{Cwd: w.proj, Home: w.home, TempDir: w.tmp, Getenv: func(string) string { return "" },
		Policy: w.policy(`{}`), Writes: []string{filepath.Join(other, "old.txt"), filepath.Join(other, "new.txt"), w.home, "/", filepath.Join(w.home, "x.txt")}})
	if err != nil {
		t.Fatal(err)
	}
	write := pathList(p.Write) + "\n"
	if !strings.Contains(write, other+"\n") || strings.Contains(write, w.home+"\n") || strings.Contains(write, "/\n/") || strings.HasPrefix(write, "/\n") {
		t.Errorf("write roots:\n%s", write)
	}
	if !strings.Contains(strings.Join(p.Unenforced, "\n"), "x.txt is not there yet") {
		t.Errorf("unenforced: %v", p.Unenforced)
	}
	code, _, stderr := w.run(p, "echo new > "+filepath.Join(other, "new.txt")+" && echo x > "+filepath.Join(other, ".git/hooks/pre-commit"))
	if code == 0 || w.read(filepath.Join(other, "new.txt")) != "new\n" || w.exists(filepath.Join(other, ".git/hooks/pre-commit")) {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

// TestDeriveNestedRepositories: a repository below the top of the
// project (a clone inside it, not a submodule) keeps its hooks and
// configuration read-only too, whether or not the policy denies any
// reading (the project walk finds it either way).
func TestDeriveNestedRepositories(t *testing.T) {
	for _, pol := range []string{`{}`, `{"permission": {"path": {"*.pem": "deny"}}}`} {
		w := newWorld(t)
		nested := filepath.Join(w.proj, "vendor", "lib")
		must(t, os.MkdirAll(nested, 0o755))
		w.plain("git", "init", "-q", nested)
		p, _ := w.derive(w.policy(pol), w.proj, nil)
		ro := pathList(p.ReadOnly)
		for _, want := range []string{filepath.Join(nested, ".git/hooks"), filepath.Join(nested, ".git/config")} {
			if !strings.Contains(ro+"\n", want+"\n") {
				t.Errorf("%s: read-only lacks %s:\n%s", pol, want, ro)
			}
		}
		hook := filepath.Join(nested, ".git/hooks/pre-commit")
		code, _, stderr := w.run(p, "echo x > "+hook+"; echo tg-marker >> "+filepath.Join(nested, ".git/config")+"; mv "+filepath.Join(nested, ".git")+" "+filepath.Join(nested, "moved"))
		if code == 0 || w.exists(hook) || strings.Contains(w.read(filepath.Join(nested, ".git/config")), "tg-marker") || w.exists(filepath.Join(nested, "moved")) {
			t.Errorf("%s: exit %d: %s", pol, code, stderr)
		}
	}
}

// TestAbsentProtectedFileMovedAside: a protected file that is not there
// and has no placeholder (.envrc at the top of the project) may be
// written while the command runs, but it does not outlast the command:
// it is moved aside, and stderr says where.
func TestAbsentProtectedFileMovedAside(t *testing.T) {
	w := newWorld(t)
	p, _ := w.derive(w.policy(`{}`), w.proj, nil)
	envrc := filepath.Join(w.proj, ".envrc")
	if !strings.Contains(pathList(p.Absent)+"\n", envrc+"\n") {
		t.Fatalf("absent lacks %s:\n%s", envrc, pathList(p.Absent))
	}
	code, _, stderr := w.run(p, "echo 'touch marker' > .envrc; (sleep 0.3; echo late > .npmrc) & echo ok > made.txt")
	if code != 0 || w.read(filepath.Join(w.proj, "made.txt")) != "ok\n" {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if w.exists(envrc) || !strings.Contains(stderr, envrc+" (") || !strings.Contains(stderr, "moved aside to "+envrc+".toolgate-blocked-") {
		t.Errorf(".envrc there: %v; stderr:\n%s", w.exists(envrc), stderr)
	}
	matches, _ := filepath.Glob(envrc + ".toolgate-blocked-*")
	if len(matches) != 1 || w.read(matches[0]) != "touch marker\n" {
		t.Errorf("moved aside: %v", matches)
	}
	// The background writer was ended with the command: nothing came later.
	time.Sleep(500 * time.Millisecond)
	if w.exists(filepath.Join(w.proj, ".npmrc")) {
		t.Error(".npmrc was written after the command ended")
	}
}

// TestDeriveUntrustedAllowHidesStill: an untrusted project file's allow
// loosens nothing, in the kernel's view too: a file a global deny covers
// stays hidden though the project file allows reading it.
func TestDeriveUntrustedAllowHidesStill(t *testing.T) {
	w := newWorld(t)
	global := policy.ParseFile("/etc/tg/global.json", []byte(`{"permission": {"path": {"*.pem": "deny"}}}`))
	project := policy.ParseFile(filepath.Join(w.proj, ".toolgate/config.json"), []byte(`{"permission": {"path": {"certs/*.pem": "allow", "*/key.pem": "allow"}}}`))
	pol := policy.ComposeSides([]policy.ScopeFile{
		{Scope: policy.ScopeGlobal, Path: "/etc/tg/global.json", Trusted: true, Exists: true, File: global},
		{Scope: policy.ScopeProject, Path: filepath.Join(w.proj, ".toolgate/config.json"), Root: w.proj, Untrusted: true, Exists: true, File: project},
	}, w.home)
	if pol.Without() == nil {
		t.Fatal("the policy has no side without the untrusted file (the test needs one)")
	}
	p, _ := w.derive(pol, w.proj, nil)
	if !strings.Contains(pathList(p.Hidden), "certs/key.pem") {
		t.Errorf("the untrusted allow unhid the denied file:\n%s", pathList(p.Hidden))
	}
}

// TestDeriveManagedDenyHides: a deny only the managed file holds hides
// the files it covers, as one of the person's own does.
func TestDeriveManagedDenyHides(t *testing.T) {
	w := newWorld(t)
	managed := policy.ParseFile("/etc/toolgate/managed.json", []byte(`{"permission": {"path": {"*.pem": "deny"}}}`))
	pol := policy.Compose([]policy.ScopeFile{
		{Scope: policy.ScopeManaged, Path: "/etc/toolgate/managed.json", Trusted: true, Exists: true, File: managed},
	}, w.home)
	p, _ := w.derive(pol, w.proj, nil)
	if !strings.Contains(pathList(p.Hidden), "certs/key.pem") {
		t.Errorf("the managed deny hid nothing:\n%s", pathList(p.Hidden))
	}
}
