//go:build linux

package policy

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/toolgate/toolgate/internal/testmount"
)

// realTempDir is a fresh folder of the test by its real path (no link on
// the way), as the watch sees the paths below it.
func realTempDir(t *testing.T) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// fatalOn is a check that ends the test t on an error.
func fatalOn(t *testing.T) func(error) {
	return func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
}

// The watch answers quiet only while nothing that could change a policy
// file has happened: every kind of change below must make it say so on the
// very next question, and a file it cannot watch is never quiet.
func TestChangeWatch(t *testing.T) {
	root := realTempDir(t)
	global := filepath.Join(root, "agent", "extensions", "pi-permission-system", "config.json")
	project := filepath.Join(root, "work", ".pi", "extensions", "pi-permission-system", "config.json")
	must := fatalOn(t)
	must(os.MkdirAll(filepath.Dir(global), 0o700))
	must(os.MkdirAll(filepath.Join(root, "work"), 0o700))
	must(os.WriteFile(global, []byte(`{}`), 0o600))
	w := newChangeWatch()
	if w == nil {
		t.Fatal("inotify unavailable on Linux")
	}
	paths := []string{global, project}
	// settle checks the change was seen, arms the watch and checks it is
	// quiet then. An entry made in a directory above the test's (the
	// machine's temporary one) and a mount anywhere in the namespace are
	// news to the watch, rightly, and other processes make both while this
	// runs (other packages' tests mount tmpfs: go test runs packages side
	// by side): armed again while they did, as TestWatchVouches does.
	settle := func(step string) {
		t.Helper()
		if w.quiet(paths) {
			t.Fatalf("%s: quiet before it was armed", step)
		}
		for try := 0; ; try++ {
			w.arm(paths)
			if w.quiet(paths) {
				return
			}
			if try == 50 {
				t.Fatalf("%s: not quiet right after arming, 50 times", step)
			}
		}
	}
	changed := func(step string, change func()) {
		t.Helper()
		change()
		if w.quiet(paths) {
			t.Fatalf("%s: the watch did not see it", step)
		}
		settle(step)
	}
	settle("start")
	changed("edit in place", func() { must(os.WriteFile(global, []byte(`{"permission": {}}`), 0o600)) })
	changed("mtime only", func() { must(os.Chtimes(global, time.Now(), time.Now().Add(2*time.Second))) })
	changed("chmod", func() { must(os.Chmod(global, 0o400)) })
	changed("replace by rename", func() {
		must(os.WriteFile(global+".tmp", []byte(`{}`), 0o600))
		must(os.Rename(global+".tmp", global))
	})
	changed("project file created with its directories", func() {
		must(os.MkdirAll(filepath.Dir(project), 0o700))
		must(os.WriteFile(project, []byte(`{}`), 0o600))
	})
	changed("project file edited", func() { must(os.WriteFile(project, []byte(`{"permission": {}}`), 0o600)) })
	changed("an ancestor renamed away and back", func() {
		dir := filepath.Join(root, "work", ".pi")
		must(os.Rename(dir, dir+".old"))
		must(os.Rename(dir+".old", dir))
	})
	changed("removed", func() { must(os.Remove(project)) })
	changed("the agent directory replaced", func() {
		must(os.Rename(filepath.Join(root, "agent"), filepath.Join(root, "agent.old")))
		must(os.MkdirAll(filepath.Dir(global), 0o700))
		must(os.WriteFile(global, []byte(`{}`), 0o600))
	})
	// The directories below the one replaced are new ones too: the file
	// in the new one is watched, not the old one's.
	changed("edited after the agent directory was replaced", func() { must(os.WriteFile(global, []byte(`{"permission": {"*": "ask"}}`), 0o600)) })
	changed("the old one's file edited, then the new one", func() {
		must(os.WriteFile(filepath.Join(root, "agent.old", "extensions", "pi-permission-system", "config.json"), []byte(`{"x": 1}`), 0o600))
		must(os.WriteFile(global, []byte(`{}`), 0o600))
	})
	// A symlinked policy file is stat'ed on every call: its target can
	// change without an event in the watched directory.
	target := filepath.Join(root, "dotfiles", "config.json")
	must(os.MkdirAll(filepath.Dir(target), 0o700))
	must(os.WriteFile(target, []byte(`{}`), 0o600))
	must(os.Remove(global))
	must(os.Symlink(target, global))
	w.quiet(paths)
	w.arm(paths)
	if w.quiet(paths) {
		t.Fatal("a symlinked policy file was trusted to the watch")
	}
	// Paths never armed are never quiet.
	if w.quiet([]string{filepath.Join(root, "other.json")}) {
		t.Fatal("quiet for a path that was never armed")
	}
}

// Through the loader: every edit between two calls is in the second one's
// policy, however it was made, while unchanged files are not read again.
func TestLoaderSeesEveryEdit(t *testing.T) {
	root := realTempDir(t)
	agentDir := filepath.Join(root, "agent")
	loc := Locations{Home: root, AgentDir: agentDir, Cwd: filepath.Join(root, "work"), ProjectTrusted: true}
	global := GlobalPath(agentDir)
	project := ProjectPath(loc.Cwd)
	for _, d := range []string{filepath.Dir(global), loc.Cwd} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	l := NewLoader()
	state := func() string {
		res := l.Policy(loc).Resolve(Query{Surface: "bash", Values: []string{"git status"}})
		return res.Action.String()
	}
	write := func(path, action string, viaRename bool) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		data := []byte(`{"permission": {"bash": {"git status": "` + action + `"}}}`)
		target := path
		if viaRename {
			target = path + ".new"
		}
		if err := os.WriteFile(target, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if viaRename {
			if err := os.Rename(target, path); err != nil {
				t.Fatal(err)
			}
		}
	}
	steps := []struct {
		path, action string
		rename       bool
		want         string
	}{
		{global, "allow", false, "allow"},
		{global, "deny", false, "deny"},
		{global, "ask", true, "ask"},
		{global, "allow", true, "allow"},
		{project, "deny", false, "deny"},
		{project, "ask", true, "ask"},
		{global, "deny", false, "deny"}, // the trust floor: a global deny holds
		{project, "allow", false, "deny"},
	}
	if got := state(); got != "ask" {
		t.Fatalf("no files: %s", got)
	}
	for i, st := range steps {
		// Calls with nothing changed between the edits.
		for j := 0; j < 3; j++ {
			state()
		}
		write(st.path, st.action, st.rename)
		if got := state(); got != st.want {
			t.Fatalf("step %d (%s = %s): the next call decided %s, want %s", i, st.path, st.action, got, st.want)
		}
	}
}

// vouch: once the watch vouched for a directory, every kind of change to
// its entries, to it, to the directories above it, and any mount, makes
// the very next question not quiet; and it vouches for nothing it cannot
// watch.
func TestWatchVouches(t *testing.T) {
	root := realTempDir(t)
	must := fatalOn(t)
	global := filepath.Join(root, "agent", "config.json")
	work := filepath.Join(root, "work")
	src := filepath.Join(work, "src")
	outside := filepath.Join(root, "outside")
	for _, d := range []string{filepath.Dir(global), src, outside} {
		must(os.MkdirAll(d, 0o700))
	}
	must(os.WriteFile(global, []byte(`{}`), 0o600))
	must(os.WriteFile(filepath.Join(src, "a.ts"), nil, 0o600))
	must(os.WriteFile(filepath.Join(outside, "in.ts"), nil, 0o600))
	gaveAway := false
	if os.Geteuid() == 0 {
		// An ancestor root does not own: its permissions are watched too.
		// Root without CAP_CHOWN (confined, in a user namespace) cannot
		// give a folder away, and runs the test as any other user does.
		err := os.Chown(work, 4242, 4242)
		if err != nil && !errors.Is(err, syscall.EPERM) && !errors.Is(err, syscall.EINVAL) {
			t.Fatal(err)
		}
		gaveAway = err == nil
	}
	w := newChangeWatch()
	if w == nil {
		t.Fatal("inotify unavailable on Linux")
	}
	paths := []string{global}
	if _, ok := w.vouch(src); ok {
		t.Fatal("vouched before the watch was ever armed (no mount notification yet)")
	}
	// settle arms the watch and vouches for src, and checks the watch is
	// quiet then. The test's directory is below the machine's temporary
	// one, which other processes change: again while they did.
	settle := func(step string) {
		t.Helper()
		for try := 0; ; try++ {
			w.quiet(paths)
			w.arm(paths)
			quiet := true
			// Quiet calls between two changes: no directory here is noisy.
			for range noisyCalls {
				quiet = quiet && w.quiet(paths)
			}
			var st unix.Stat_t
			must(unix.Lstat(src, &st))
			if dev, ok := w.vouch(src); quiet && (!ok || dev != uint64(st.Dev)) {
				t.Fatalf("%s: vouch(src) = %d, %v; want its device %d", step, dev, ok, st.Dev)
			}
			if quiet && w.quiet(paths) {
				return
			}
			if try == 50 {
				t.Fatalf("%s: never quiet after arming and vouching", step)
			}
		}
	}
	changed := func(step string, change func()) {
		t.Helper()
		settle(step)
		change()
		if w.quiet(paths) {
			t.Fatalf("%s: the watch did not see it", step)
		}
	}
	entry := filepath.Join(src, "a.ts")
	changed("file created", func() { must(os.WriteFile(filepath.Join(src, "b.ts"), nil, 0o600)) })
	changed("file removed", func() { must(os.Remove(filepath.Join(src, "b.ts"))) })
	changed("file renamed in", func() { must(os.Rename(filepath.Join(outside, "in.ts"), filepath.Join(src, "in.ts"))) })
	changed("file renamed out", func() { must(os.Rename(filepath.Join(src, "in.ts"), filepath.Join(outside, "in.ts"))) })
	changed("file renamed within", func() { must(os.Rename(entry, entry+".x")) })
	changed("file renamed back over", func() {
		must(os.WriteFile(entry, nil, 0o600))
		must(os.Rename(entry+".x", entry))
	})
	changed("entry's permissions", func() { must(os.Chmod(entry, 0o644)) })
	changed("entry's times (touch)", func() { must(os.Chtimes(entry, time.Now(), time.Now().Add(time.Hour))) })
	changed("entry replaced by a link", func() {
		must(os.Remove(entry))
		must(os.Symlink(filepath.Join(outside, "in.ts"), entry))
	})
	changed("directory made: an entry", func() { must(os.Mkdir(filepath.Join(src, "sub"), 0o700)) })
	changed("the directory's own permissions", func() { must(os.Chmod(src, 0o755)) })
	if gaveAway {
		changed("permissions of a directory above, not root's", func() { must(os.Chmod(work, 0o755)) })
	}
	changed("a directory above replaced", func() {
		must(os.Rename(work, filepath.Join(root, "work.old")))
		must(os.MkdirAll(src, 0o700))
	})
	// The new src is watched, not the old one (moved with its parent).
	changed("created in the new directory", func() { must(os.WriteFile(filepath.Join(src, "new.ts"), nil, 0o600)) })
	changed("the directory replaced by a link", func() {
		must(os.Rename(src, filepath.Join(root, "src.old")))
		must(os.Symlink(filepath.Join(root, "src.old"), src))
	})
	if _, ok := w.vouch(src); ok {
		t.Fatal("vouched for a symbolic link to a directory")
	}
	if _, ok := w.vouch(filepath.Join(src, "sub")); ok {
		t.Fatal("vouched for a directory below a symbolic link")
	}
	must(os.Remove(src))
	must(os.Rename(filepath.Join(root, "src.old"), src))
	// Mounts (root, allowed to mount, only: a first mount tells).
	if err := testmount.Tmpfs(outside); err != nil {
		t.Logf("no mounts tried: %v", err)
	} else {
		must(testmount.Unmount(outside, false))
		changed("a file system mounted over the directory", func() {
			must(testmount.Tmpfs(src))
			t.Cleanup(func() { _ = testmount.Unmount(src, true) })
		})
		changed("and unmounted", func() { must(testmount.Unmount(src, false)) })
		changed("a mount elsewhere", func() {
			must(testmount.Tmpfs(outside))
			t.Cleanup(func() { _ = testmount.Unmount(outside, true) })
		})
	}
	settle("end")
	// A directory that does not exist is vouched for through the deepest
	// one that does (its creation is an event there), with no device.
	missing := filepath.Join(src, "no", "such")
	if dev, ok := w.vouch(missing); !ok || dev != 0 {
		t.Fatalf("vouch(missing) = %d, %v", dev, ok)
	}
	must(os.Mkdir(filepath.Join(src, "no"), 0o700))
	if w.quiet(paths) {
		t.Fatal("the creation of a missing directory vouched for was not seen")
	}
	settle("after the missing directory")
	// Never vouched for: a file system inotify does not see all of, a
	// relative path.
	for _, d := range []string{"/proc/self", "/proc/1/fd", "work"} {
		if _, ok := w.vouch(d); ok {
			t.Errorf("vouched for %s", d)
		}
	}
	// Past the bound the watch starts over: every watch removed, not quiet.
	for i := 0; i <= maxVouched; i++ {
		d := filepath.Join(root, "many", strconv.Itoa(i))
		must(os.MkdirAll(d, 0o700))
		w.vouch(d)
	}
	if w.vouched > maxVouched || w.added > maxVouchWatches {
		t.Fatalf("%d directories vouched for, %d watches added", w.vouched, w.added)
	}
	if w.quiet(paths) {
		t.Fatal("quiet after the watch started over")
	}
	settle("after starting over")
}

// A directory vouched for whose entries change call after call is given
// up (every event forgets everything kept): no longer watched, vouched
// for no more, its changes no events. A policy file's directory never is.
func TestWatchGivesUpNoisyDirectories(t *testing.T) {
	root := realTempDir(t)
	must := fatalOn(t)
	global := filepath.Join(root, "agent", "config.json")
	busy := filepath.Join(root, "work", "out")
	must(os.MkdirAll(filepath.Dir(global), 0o700))
	must(os.MkdirAll(busy, 0o700))
	must(os.WriteFile(global, []byte(`{}`), 0o600))
	w := newChangeWatch()
	paths := []string{global}
	w.quiet(paths)
	w.arm(paths)
	for i := 0; i < noisyFired; i++ {
		for !w.quiet(paths) { // the machine's temporary directory changed
			w.arm(paths)
		}
		if _, ok := w.vouch(busy); !ok {
			t.Fatalf("call %d: busy not vouched for", i)
		}
		must(os.WriteFile(filepath.Join(busy, strconv.Itoa(i)), nil, 0o600))
		if w.quiet(paths) {
			t.Fatalf("call %d: the change was not seen", i)
		}
		w.arm(paths)
	}
	if _, ok := w.vouch(busy); ok {
		t.Fatal("a noisy directory still vouched for")
	}
	if _, ok := w.vouch(filepath.Join(busy, "sub")); ok {
		t.Fatal("a directory below a noisy one vouched for")
	}
	// Its changes are no events (again while the machine's temporary
	// directory changed).
	for try := 0; ; try++ {
		w.quiet(paths)
		w.arm(paths)
		must(os.WriteFile(filepath.Join(busy, "more"+strconv.Itoa(try)), nil, 0o600))
		if w.quiet(paths) {
			break
		}
		if try == 50 {
			t.Fatal("a noisy directory is still watched")
		}
	}
	for i := 0; i < 2*noisyFired; i++ {
		must(os.WriteFile(global, []byte(`{"permission": {}}`), 0o600))
		if w.quiet(paths) {
			t.Fatalf("policy edit %d not seen", i)
		}
		w.arm(paths)
	}
}

// A call at other locations reads no event of the watch: its generation
// is another all the same, so that nothing vouched for under the last one
// is trusted while an event of a change to it waits unread.
func TestLoaderGenerationOnOtherLocations(t *testing.T) {
	root := realTempDir(t)
	agentDir := filepath.Join(root, "agent")
	a := Locations{Home: root, AgentDir: agentDir, Cwd: filepath.Join(root, "a"), ProjectTrusted: true}
	b := a
	b.Cwd = filepath.Join(root, "b")
	src := filepath.Join(a.Cwd, "src")
	for _, d := range []string{filepath.Dir(GlobalPath(agentDir)), src, b.Cwd} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	l := NewLoader()
	l.Policy(a)
	l.Policy(a)
	if _, ok := l.Vouch(src); !ok {
		t.Fatal("src not vouched for")
	}
	gen := l.Generation()
	if err := os.WriteFile(filepath.Join(src, "new"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	l.Policy(b)
	if l.Generation() == gen {
		t.Fatal("a call at other locations kept the generation while an event waited")
	}
	if _, ok := l.Vouch(src); ok {
		t.Fatal("vouched for on a call whose events were not read")
	}
}

// TestDeepestWatchedIsPlain: deepestWatched answers as the chain of
// filepath.Dir from the directory up to the root, checked from the root
// down, for watches with and without the root, gaps on the way, and
// directories spelled clean and not.
func TestDeepestWatchedIsPlain(t *testing.T) {
	plain := func(w *changeWatch, dir string) string {
		if !filepath.IsAbs(dir) {
			return ""
		}
		var chain []string
		for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
			chain = append(chain, d)
			if d == "/" {
				break
			}
		}
		best := ""
		for i := len(chain) - 1; i >= 0; i-- {
			if _, ok := w.dirs[chain[i]]; !ok {
				break
			}
			best = chain[i]
		}
		return best
	}
	watches := [][]string{
		nil,
		{"/"},
		{"/", "/home"},
		{"/", "/home", "/home/u", "/home/u/w", "/home/u/w/src"},
		{"/", "/home", "/home/u/w"},                // a gap: /home/u
		{"/home", "/home/u", "/home/u/w"},          // no root
		{"/", "/h", "/h/ab", "/h/a", "/h/a/b/c"},   // a name that is a prefix of another
		{"/", "/tmp", "/tmp/x y", "/tmp/x y/z..."}, // odd names
	}
	dirs := []string{"/", "/home", "/home/", "/home/u/w", "/home/u/w/src/m1", "/home//u/./w/src", "/home/u/w/../w/src",
		"/h/a/b", "/h/ab/c", "/h/a", "/h", "/tmp/x y/z.../q", "relative/dir", "", "/home/u/w/src/", "/homes/u"}
	for _, list := range watches {
		w := &changeWatch{dirs: map[string]*watchedDir{}}
		for _, d := range list {
			w.dirs[d] = &watchedDir{}
		}
		for _, d := range dirs {
			if got, want := w.deepestWatched(d), plain(w, d); got != want {
				t.Errorf("watching %q: deepestWatched(%q) = %q, plain %q", list, d, got, want)
			}
		}
	}
	var none *changeWatch
	if got := none.deepestWatched("/home"); got != "" {
		t.Errorf("no watch: %q", got)
	}
}
