package sandbox

import (
	"archive/tar"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// world is a throwaway home with a project (a git repository) in it, a
// start-up file, and two files the policy denies reading; every payload
// below tries something confinement must stop, on these harmless copies.
type world struct {
	t                      *testing.T
	home, proj, tmp, cache string
	env                    []string
}

func newWorld(t *testing.T) *world {
	t.Helper()
	if rep := probe("", landlockABI(), nsAllowed); !rep.ProtectedEnforced() {
		t.Fatalf("this test needs Landlock ABI 2+ and user and mount namespaces: %v", rep.Missing)
	}
	dir := t.TempDir()
	dir, _ = filepath.EvalSymlinks(dir)
	w := &world{t: t, home: filepath.Join(dir, "home"), tmp: filepath.Join(dir, "tmp")}
	w.proj = filepath.Join(w.home, "proj")
	w.cache = filepath.Join(w.home, ".cache")
	for _, d := range []string{w.proj, w.tmp, w.cache, filepath.Join(w.home, ".ssh"), filepath.Join(w.proj, "certs")} {
		must(t, os.MkdirAll(d, 0o755))
	}
	w.env = []string{"HOME=" + w.home, "TMPDIR=" + w.tmp, "PATH=" + os.Getenv("PATH"), "LC_ALL=C",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.invalid"}
	w.write(filepath.Join(w.home, ".bashrc"), "original\n")
	w.write(filepath.Join(w.home, ".ssh", "id_rsa"), "SECRET-KEY\n")
	w.write(filepath.Join(w.proj, "certs", "key.pem"), "SECRET-PEM\n")
	w.write(filepath.Join(w.proj, "certs", "readme.txt"), "nothing secret\n")
	w.write(filepath.Join(w.proj, "main.txt"), "hello\n")
	w.plain("git", "init", "-q", w.proj)
	return w
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func (w *world) write(path, text string) { must(w.t, os.WriteFile(path, []byte(text), 0o644)) }

func (w *world) read(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

func (w *world) exists(path string) bool { _, err := os.Lstat(path); return err == nil }

// plain runs a command unconfined (to set the world up).
func (w *world) plain(argv ...string) {
	w.t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env, cmd.Dir = w.env, w.proj
	if out, err := cmd.CombinedOutput(); err != nil {
		w.t.Fatalf("%v: %v\n%s", argv, err, out)
	}
}

// profile is what toolgate would derive for the world's project: writes in
// the project, the temp dir and the cache; git's and toolgate's files and
// the start-up files read-only; the denied keys hidden.
func (w *world) profile() *Profile {
	return &Profile{Version: ProfileVersion, Mode: "on", Cwd: w.proj,
		Write: []Entry{{Path: w.proj, Why: "the project"}, {Path: w.tmp, Why: "the temp dir"}, {Path: w.cache, Why: "a cache"}},
		ReadOnly: []Entry{
			{Path: filepath.Join(w.proj, ".git/hooks"), Dir: true, Why: "git hooks (built-in protected path)"},
			{Path: filepath.Join(w.proj, ".git/config"), Why: "git configuration (built-in protected path)"},
			{Path: filepath.Join(w.proj, ".toolgate"), Dir: true, Why: "toolgate's own policy files"},
			{Path: filepath.Join(w.proj, ".envrc"), Why: "direnv start-up file (built-in protected path)"},
		},
		Hidden: []Entry{
			{Path: filepath.Join(w.home, ".ssh/id_rsa"), Why: `read deny "~/.ssh/id_*" (/etc/x.json:3)`},
			{Path: filepath.Join(w.proj, "certs/key.pem"), Why: `path deny "*.pem" (/etc/x.json:4)`},
		}}
}

// run runs script with sh, confined by p, in the project.
func (w *world) run(p *Profile, script string) (code int, stdout, stderr string) {
	w.t.Helper()
	return w.runWith(p, script, options{})
}

// runWith is run with the confinement's internal options (a kernel
// feature taken away, as where it is missing).
func (w *world) runWith(p *Profile, script string, o options) (code int, stdout, stderr string) {
	w.t.Helper()
	var out, errb bytes.Buffer
	code, err := run(p, Command{Argv: []string{"sh", "-c", script}, Env: w.env, Stdout: &out, Stderr: &errb}, o)
	if err != nil {
		w.t.Fatalf("Run: %v", err)
	}
	return code, out.String(), errb.String()
}

func python(t *testing.T) string {
	for _, p := range []string{"/usr/bin/python3", "/usr/local/bin/python3"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Fatal("no python3 binary")
	return ""
}

// TestForbiddenTakesNoEffect tries, for real, each thing confinement must
// stop: none takes effect, the command fails, and stderr says why.
func TestForbiddenTakesNoEffect(t *testing.T) {
	cases := []struct {
		name   string
		setup  func(w *world)
		script func(w *world) string
		// held reports what must still be true afterwards.
		held func(w *world) string
		// why is what stderr must name.
		why string
	}{
		{name: "start-up file in home",
			script: func(w *world) string { return "echo pwned >> $HOME/.bashrc" },
			held: func(w *world) string {
				return check(w.read(filepath.Join(w.home, ".bashrc")) == "original\n", ".bashrc changed")
			},
			why: "refused by the kernel"},
		{name: "existing git hook",
			setup:  func(w *world) { w.write(filepath.Join(w.proj, ".git/hooks/pre-commit"), "#!/bin/sh\nexit 0\n") },
			script: func(w *world) string { return "printf '#!/bin/sh\\ntouch marker\\n' > .git/hooks/pre-commit" },
			held: func(w *world) string {
				return check(w.read(filepath.Join(w.proj, ".git/hooks/pre-commit")) == "#!/bin/sh\nexit 0\n", "hook changed")
			},
			why: ".git/hooks being read-only (git hooks"},
		{name: "git hook not there yet",
			setup:  func(w *world) { must(w.t, os.RemoveAll(filepath.Join(w.proj, ".git/hooks"))) },
			script: func(w *world) string { return "mkdir -p .git/hooks; echo 'touch marker' > .git/hooks/pre-commit" },
			held: func(w *world) string {
				return check(!w.exists(filepath.Join(w.proj, ".git/hooks")), ".git/hooks left behind")
			},
			why: ".git/hooks being read-only"},
		{name: "hooks folder renamed away",
			script: func(w *world) string {
				return "mv .git/hooks .git/h2 || mv .git .g2; mkdir -p .git/hooks; echo 'touch marker' > .git/hooks/pre-commit"
			},
			held: func(w *world) string {
				return check(!w.exists(filepath.Join(w.proj, ".git/hooks/pre-commit")) && !w.exists(filepath.Join(w.proj, ".g2")) && !w.exists(filepath.Join(w.proj, ".git/h2")), "hooks moved")
			},
			why: ".git/hooks being read-only"},
		{name: "git config",
			script: func(w *world) string { return "git config core.hooksPath /tmp/evil" },
			held: func(w *world) string {
				return check(!strings.Contains(w.read(filepath.Join(w.proj, ".git/config")), "hooksPath"), ".git/config changed")
			},
			why: ".git/config being read-only"},
		{name: "project policy file created",
			script: func(w *world) string {
				return `mkdir -p .toolgate && echo '{"permission":{"*":"allow"}}' > .toolgate/config.json`
			},
			held: func(w *world) string {
				return check(!w.exists(filepath.Join(w.proj, ".toolgate")), ".toolgate created")
			},
			why: ".toolgate being read-only"},
		{name: "project policy file changed",
			setup: func(w *world) {
				must(w.t, os.MkdirAll(filepath.Join(w.proj, ".toolgate"), 0o755))
				w.write(filepath.Join(w.proj, ".toolgate/config.json"), "{}\n")
			},
			script: func(w *world) string {
				return `echo '{"permission":{"*":"allow"}}' > .toolgate/config.json || rm -f .toolgate/config.json`
			},
			held: func(w *world) string {
				return check(w.read(filepath.Join(w.proj, ".toolgate/config.json")) == "{}\n", "policy file changed")
			},
			why: ".toolgate being read-only"},
		{name: "denied key read by cat",
			script: func(w *world) string { return "cat $HOME/.ssh/id_rsa" },
			why:    "id_rsa being hidden (read deny"},
		{name: "denied key read by foreign code",
			script: func(w *world) string {
				return python(w.t) + ` -c 'import os; print(open(os.environ["HOME"]+"/.ssh/id_rsa").read())'`
			},
			why: "id_rsa being hidden"},
		{name: "grep -r over a folder holding a denied file",
			script: func(w *world) string { return "grep -r SECRET certs" },
			why:    "key.pem being hidden (path deny"},
		{name: "archive extracted onto the hooks",
			setup: func(w *world) {
				var buf bytes.Buffer
				tw := tar.NewWriter(&buf)
				body := "#!/bin/sh\ntouch marker\n"
				must(w.t, tw.WriteHeader(&tar.Header{Name: ".git/hooks/pre-commit", Mode: 0o755, Size: int64(len(body))}))
				tw.Write([]byte(body))
				must(w.t, tw.Close())
				must(w.t, os.WriteFile(filepath.Join(w.tmp, "evil.tar"), buf.Bytes(), 0o644))
			},
			script: func(w *world) string { return "tar -xf " + filepath.Join(w.tmp, "evil.tar") },
			held: func(w *world) string {
				return check(!w.exists(filepath.Join(w.proj, ".git/hooks/pre-commit")), "hook extracted")
			},
			why: ".git/hooks being read-only"},
		{name: "write outside the write roots",
			script: func(w *world) string { return "touch " + filepath.Join(w.home, "marker") },
			held:   func(w *world) string { return check(!w.exists(filepath.Join(w.home, "marker")), "marker written") },
			why:    "are refused by the kernel"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			if tc.setup != nil {
				tc.setup(w)
			}
			code, stdout, stderr := w.run(w.profile(), tc.script(w))
			if code == 0 {
				t.Errorf("exit 0, want a failure\nstdout: %s\nstderr: %s", stdout, stderr)
			}
			if strings.Contains(stdout, "SECRET") {
				t.Errorf("the command read a hidden file: %s", stdout)
			}
			if tc.held != nil {
				if msg := tc.held(w); msg != "" {
					t.Error(msg)
				}
			}
			if w.exists(filepath.Join(w.proj, "marker")) {
				t.Error("a marker was written")
			}
			if !strings.Contains(stderr, tc.why) {
				t.Errorf("stderr does not say %q:\n%s", tc.why, stderr)
			}
		})
	}
}

func check(ok bool, msg string) string {
	if ok {
		return ""
	}
	return msg
}

// TestEverydayWorkWorks: what a coding agent does all day runs confined.
func TestEverydayWorkWorks(t *testing.T) {
	// Go's own build cache, as toolgate grants it; a fresh one (slow: the
	// standard library is built again) when this user has none.
	out, _ := exec.Command("go", "env", "GOCACHE").Output()
	gocache := strings.TrimSpace(string(out))
	if unix.Access(gocache, unix.W_OK) != nil {
		gocache = filepath.Join(t.TempDir(), "go-build")
		must(t, os.MkdirAll(gocache, 0o755))
	}
	cases := []struct {
		name   string
		script string
		held   func(w *world) string
	}{
		{name: "git commit in the project's repository",
			script: "git add main.txt && git commit -q -m first && git log --oneline",
			held: func(w *world) string {
				return check(w.exists(filepath.Join(w.proj, ".git/refs/heads")) && w.exists(filepath.Join(w.proj, ".git/index")), "no index or refs")
			}},
		{name: "git init, add and commit of a new repository",
			script: "git init -q sub && cd sub && echo x > f && git add f && git commit -q -m one && git rev-parse HEAD",
			held:   func(w *world) string { return check(w.exists(filepath.Join(w.proj, "sub/.git/HEAD")), "no repository") }},
		{name: "edit and mkdir in the project",
			script: "mkdir -p a/b/c && echo changed > main.txt && sed -i s/changed/edited/ main.txt && mv main.txt a/b/c/",
			held: func(w *world) string {
				return check(w.read(filepath.Join(w.proj, "a/b/c/main.txt")) == "edited\n", "edit lost")
			}},
		{name: "make",
			script: "printf 'out.txt:\\n\\techo built > out.txt\\n' > Makefile && make -s",
			held: func(w *world) string {
				return check(w.read(filepath.Join(w.proj, "out.txt")) == "built\n", "make did not build")
			}},
		{name: "go build",
			script: "mkdir m && cd m && printf 'module m\\n\\ngo 1.21\\n' > go.mod && printf 'package main\\nfunc main(){}\\n' > main.go && GOCACHE=" +
				strings.TrimSpace(string(gocache)) + " GOTOOLCHAIN=local GOFLAGS=-mod=mod GOPATH=$TMPDIR/gopath go build -o app . && ./app",
			held: func(w *world) string { return check(w.exists(filepath.Join(w.proj, "m/app")), "no binary") }},
		{name: "devices and the temp dir",
			script: "echo x > /dev/null && mktemp && echo y > $TMPDIR/t && cat $TMPDIR/t",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			p := w.profile()
			if tc.name == "go build" {
				p.Write = append(p.Write, Entry{Path: gocache, Why: "Go's build cache"})
			}
			code, stdout, stderr := w.run(p, tc.script)
			if code != 0 {
				t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
			}
			if tc.held != nil {
				if msg := tc.held(w); msg != "" {
					t.Error(msg)
				}
			}
		})
	}
}

// TestPlaceholderSharedWhileInUse: a placeholder the first confined
// command made is not removed when it ends while a second one, whose
// mount sits on it, still runs (removing it would undo that mount).
func TestPlaceholderSharedWhileInUse(t *testing.T) {
	w := newWorld(t)
	hooks := filepath.Join(w.proj, ".git/hooks")
	must(t, os.RemoveAll(hooks))
	p := w.profile()
	wait := func(name string) string {
		return "touch " + filepath.Join(w.tmp, name+".started") + "; while [ ! -e " + filepath.Join(w.tmp, name+".go") + " ]; do sleep 0.05; done; "
	}
	await := func(name string) {
		for i := 0; i < 400 && !w.exists(filepath.Join(w.tmp, name+".started")); i++ {
			time.Sleep(25 * time.Millisecond)
		}
	}
	release := func(name string) { must(t, os.WriteFile(filepath.Join(w.tmp, name+".go"), nil, 0o644)) }
	results := make(chan string, 2)
	start := func(name, script string) {
		go func() {
			var errb bytes.Buffer
			code, err := Run(p, Command{Argv: []string{"sh", "-c", script}, Env: w.env, Stderr: &errb})
			results <- fmt.Sprintf("%s %d %v %s", name, code, err, errb.String())
		}()
	}
	start("first", wait("first")+"true")
	await("first") // its placeholder stands
	start("second", wait("second")+"echo x > .git/hooks/pre-commit")
	await("second")
	release("first")
	if r := <-results; !strings.HasPrefix(r, "first 0 ") {
		t.Fatalf("first: %s", r)
	}
	if !w.exists(hooks) {
		t.Error("the placeholder was removed while the second command's mount sat on it")
	}
	release("second")
	if r := <-results; !strings.HasPrefix(r, "second 2 ") || w.exists(filepath.Join(hooks, "pre-commit")) {
		t.Errorf("second: %s", r)
	}
}
