// Package hoste2e is what the end-to-end suites of the real hosts
// (examples/claude-code, examples/gemini-cli, ...) share: the switch that
// turns them on, finding Node and npm,
// installing the pinned CLI from the example's lock file, building
// toolgate, a scrubbed environment, running a CLI with a deadline, and
// the policy, marker-file and audit-log checks the suites make alike.
package hoste2e

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// NPMCITimeout bounds installing a pinned CLI (15-25 s here, from the
// registry; a second or two from npm's cache).
const NPMCITimeout = 5 * time.Minute

// Switch is the environment variable that turns the real-host suites on.
// They install a pinned CLI from npm (about 1 GB for all of them) and take
// minutes, so `go test ./...` leaves them out unless it is set to 1;
// .ci/run sets it.
const Switch = "TOOLGATE_E2E"

// RequireE2E skips the test unless the real-host switch is on. Every
// real-host suite calls it first (RequireNode does).
func RequireE2E(t *testing.T) {
	t.Helper()
	if os.Getenv(Switch) != "1" {
		t.Skipf("a real-host suite: it runs only with %s=1 (e.g. `%s=1 go test ./examples/...`)", Switch, Switch)
	}
}

// RequireNode finds node and npm (at least minMajor.minMinor), after
// RequireE2E. Without them the suite cannot run: that fails under CI (the
// suite must not silently vanish there) and skips elsewhere.
func RequireNode(t *testing.T, minMajor, minMinor int) (node, npm string) {
	t.Helper()
	RequireE2E(t)
	missing := func(format string, args ...any) {
		msg := fmt.Sprintf(format, args...) + fmt.Sprintf("; this end-to-end suite needs Node >= %d.%d and npm", minMajor, minMinor)
		if os.Getenv("CI") != "" {
			t.Fatal(msg + " (CI is set, so this is a failure, not a skip)")
		}
		t.Skip(msg)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node not found on PATH")
	}
	npm, err = exec.LookPath("npm")
	if err != nil {
		missing("npm not found on PATH")
	}
	out, err := exec.Command(node, "--version").Output()
	if err != nil {
		missing("%s --version: %v", node, err)
	}
	m := regexp.MustCompile(`^v(\d+)\.(\d+)\.`).FindSubmatch(out)
	if m == nil {
		missing("unexpected node version %q", out)
	}
	major, _ := strconv.Atoi(string(m[1]))
	minor, _ := strconv.Atoi(string(m[2]))
	if major < minMajor || major == minMajor && minor < minMinor {
		missing("node %s is too old", bytes.TrimSpace(out))
	}
	return node, npm
}

// ModuleRoot is the repository root, two directories above an example.
func ModuleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd() // go test runs in the package directory
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "..", "..")
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found two directories up: %v", err)
	}
	return root
}

// RecordInputs opens every file of the module except node_modules and
// hidden directories. The CLIs read them from child processes, which go
// test's result cache cannot see; opening them here makes an edit to any
// of them invalidate a cached pass.
func RecordInputs(t *testing.T, root string) {
	t.Helper()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		return f.Close()
	})
	if err != nil {
		t.Fatalf("listing the module's files: %v", err)
	}
}

// BuildToolgate builds toolgate (statically, as the README does) into a
// directory of its own, which a test puts on PATH or leaves off it.
func BuildToolgate(t *testing.T, root string) (binDir string) {
	t.Helper()
	binDir = filepath.Join(t.TempDir(), "bin")
	cmd := exec.Command("go", "build", "-o", filepath.Join(binDir, "toolgate"), ".")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build (in %s): %v\n%s", root, err, out)
	}
	return binDir
}

// NPMCI installs the example's lock file with `npm ci` unless node_modules
// already holds it (npm records what it installed in
// node_modules/.package-lock.json) and probe exists. Install scripts are
// not run: the suites start the CLIs' own files directly.
func NPMCI(t *testing.T, dir, npm, probe string) {
	t.Helper()
	npmInstall(t, dir, npm, probe, "ci", false)
}

// NPMInstallLocked is NPMCI for a package whose lock cannot name every
// platform's optional binary (the registry this project reaches serves
// only some of them, and npm ci refuses a lock without them): `npm
// install`, which installs the locked versions, and the lock file must come
// out unchanged — anything else would be an unpinned install.
func NPMInstallLocked(t *testing.T, dir, npm, probe string) {
	t.Helper()
	npmInstall(t, dir, npm, probe, "install", true)
}

// NPMCIOmitOptional is NPMCI without the optional dependencies (`npm ci
// --omit=optional`), for a CLI that needs none of them where a suite runs
// it.
func NPMCIOmitOptional(t *testing.T, dir, npm, probe string) {
	t.Helper()
	npmInstall(t, dir, npm, probe, "ci", false, "--omit=optional")
}

// npmInstall runs `npm verb` with the flags every install takes and extra
// (after --ignore-scripts), unless dir is up to date.
func npmInstall(t *testing.T, dir, npm, probe, verb string, lockMustStay bool, extra ...string) {
	t.Helper()
	if upToDate(dir, probe) {
		return
	}
	lock := filepath.Join(dir, "package-lock.json")
	before, err := os.ReadFile(lock)
	if err != nil {
		t.Fatalf("the lock file: %v", err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), NPMCITimeout)
	defer cancel()
	args := append(append([]string{verb, "--ignore-scripts"}, extra...), "--prefer-offline", "--no-audit", "--no-fund")
	cmd := exec.CommandContext(ctx, npm, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("npm %s (in %s): %v", verb, dir, err)
	}
	t.Logf("npm %s took %s", verb, time.Since(start).Round(time.Millisecond))
	if after, err := os.ReadFile(lock); lockMustStay && (err != nil || !bytes.Equal(before, after)) {
		_ = os.WriteFile(lock, before, 0o644)
		t.Fatalf("npm %s changed %s: the installed versions are not the pinned ones (lock restored)", verb, lock)
	}
	if _, err := os.Stat(filepath.Join(dir, probe)); err != nil {
		t.Fatalf("npm %s did not install %s: %v", verb, probe, err)
	}
}

func upToDate(dir, probe string) bool {
	installed, err := os.Stat(filepath.Join(dir, "node_modules", ".package-lock.json"))
	if err != nil {
		return false
	}
	if _, err := os.Stat(filepath.Join(dir, probe)); err != nil {
		return false
	}
	for _, f := range []string{"package.json", "package-lock.json"} {
		fi, err := os.Stat(filepath.Join(dir, f))
		if err != nil || fi.ModTime().After(installed.ModTime()) {
			return false
		}
	}
	return true
}

// Env is a scrubbed environment: only PATH, a temporary HOME and TMPDIR,
// and the given variables, so that no CLI reads or writes the real home.
func Env(path, home, tmp string, extra ...string) []string {
	return append([]string{"PATH=" + path, "HOME=" + home, "TMPDIR=" + tmp, "LANG=C.UTF-8"}, extra...)
}

// SystemPath is the PATH for the CLIs without toolgate: the system's own
// directories and the one node is in.
func SystemPath(node string) string {
	dirs := []string{filepath.Dir(node), "/usr/local/bin", "/usr/bin", "/bin"}
	return strings.Join(dirs, string(os.PathListSeparator))
}

// Dirs makes a run's temporary home, tmp and project directories (no
// symlinks in their paths, so the paths toolgate sees are these).
func Dirs(t *testing.T) (home, tmp, proj string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home, tmp, proj = filepath.Join(base, "home"), filepath.Join(base, "tmp"), filepath.Join(base, "proj")
	for _, d := range []string{home, tmp, proj} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return home, tmp, proj
}

// WriteFile writes a file, making its directory.
func WriteFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Exists reports whether path exists.
func Exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// CrashingToolgate is a directory holding a `toolgate` that dies the way
// a crash would (script: e.g. `kill -9 $$`, or `exit 1`), for PATH.
func CrashingToolgate(t *testing.T, script string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "crashing-bin")
	WriteFile(t, filepath.Join(dir, "toolgate"), "#!/bin/sh\ncat >/dev/null\n"+script+"\n")
	if err := os.Chmod(filepath.Join(dir, "toolgate"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Serve serves h on a free port of 127.0.0.1 — the only address a fake
// model may listen on — until the test ends, and returns its base URL.
func Serve(t *testing.T, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + ln.Addr().String()
}
