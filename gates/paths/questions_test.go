package paths

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestQuestionsStillAnswered: what a view asked while it recorded is
// answered the same while nothing changes, and otherwise after any change
// of an answer (a file replaced by a link, a link retargeted, a listing
// grown, a mode changed).
func TestQuestionsStillAnswered(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(root, "d")
	must(os.MkdirAll(filepath.Join(dir, "sub"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "f"), nil, 0o644))
	must(os.Symlink(filepath.Join(dir, "f"), filepath.Join(dir, "l")))
	ask := func() *Questions {
		q := &Questions{}
		v := NewView()
		v.Record(q)
		v.New("f", "", dir, root)
		v.New("l", "", dir, root)
		v.New("sub/x", "", dir, root)
		if _, err := v.ReadDir(dir, 100); err != nil {
			t.Fatal(err)
		}
		v.Stat(filepath.Join(dir, "sub"))
		return q
	}
	changes := []func(){
		func() { // a file replaced by a link
			must(os.Remove(filepath.Join(dir, "f")))
			must(os.Symlink(root, filepath.Join(dir, "f")))
		},
		func() { // a link retargeted
			must(os.Remove(filepath.Join(dir, "l")))
			must(os.Symlink(filepath.Join(dir, "sub"), filepath.Join(dir, "l")))
		},
		func() { must(os.WriteFile(filepath.Join(dir, "new"), nil, 0o644)) }, // a listing grown
		func() { must(os.Chmod(filepath.Join(dir, "sub"), 0o700)) },          // a mode changed
		func() { // a directory replaced by a link
			must(os.RemoveAll(filepath.Join(dir, "sub")))
			must(os.Symlink(root, filepath.Join(dir, "sub")))
		},
	}
	for i, change := range changes {
		q := ask()
		if q.Len() == 0 || q.Over() {
			t.Fatalf("change %d: %d questions recorded, over %v", i, q.Len(), q.Over())
		}
		if !q.StillAnswered(nil, false) {
			t.Fatalf("change %d: not answered the same with nothing changed", i)
		}
		change()
		if q.StillAnswered(nil, false) {
			t.Errorf("change %d: answered the same after the change", i)
		}
	}
}

// fakeWatcher vouches for every directory it is asked about (with its
// device), as a watch that sees everything would; it counts the asks.
type fakeWatcher struct{ asked map[string]int }

func (f *fakeWatcher) Canonical(dir string) (string, bool, bool) { return "", false, false }

func (f *fakeWatcher) Vouch(dir string) (uint64, bool) {
	f.asked[dir]++
	var st syscall.Stat_t
	if err := syscall.Lstat(dir, &st); err != nil {
		return 0, true
	}
	return uint64(st.Dev), true
}

// TestQuestionsKeepOnlyWhatTheWatchVouchesFor: answered the same after
// the watch vouched for their directory, the answers about entries of it
// (an lstat, a listing, a stat of a file that is no link) are kept and
// not asked again within the generation; a stat through a link (the
// target's answer, anywhere), an lstat of a mount point (another file
// system's root) and a relative path are asked every time; and none is
// kept when the caller does not vouch for the generation.
func TestQuestionsKeepOnlyWhatTheWatchVouchesFor(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "d")
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "elsewhere"), filepath.Join(dir, "l")); err != nil {
		t.Fatal(err)
	}
	q := &Questions{}
	v := NewView()
	v.Record(q)
	v.lstat(filepath.Join(dir, "f"))
	v.Stat(filepath.Join(dir, "sub"))
	if _, err := v.ReadDir(dir, 100); err != nil {
		t.Fatal(err)
	}
	v.Stat(filepath.Join(dir, "l")) // a dangling link: its target may appear anywhere
	var rootSt, procSt syscall.Stat_t
	mountPoint := syscall.Lstat("/", &rootSt) == nil && syscall.Lstat("/proc", &procSt) == nil && rootSt.Dev != procSt.Dev
	if mountPoint {
		v.lstat("/proc") // a mount point (Linux)
	}
	v.lstat("relative")
	w := &fakeWatcher{asked: map[string]int{}}
	if !q.StillAnswered(w, false) || len(w.asked) != 0 {
		t.Fatalf("vouching asked without the generation: %v", w.asked)
	}
	for i := range q.list {
		if q.list[i].kept {
			t.Fatalf("%s kept without the generation", q.list[i].path)
		}
	}
	if !q.StillAnswered(w, true) {
		t.Fatal("not answered the same")
	}
	want := map[string]bool{filepath.Join(dir, "f"): true, filepath.Join(dir, "sub"): true, dir: true,
		filepath.Join(dir, "l"): false, "/proc": false, "relative": false}
	for _, r := range q.list {
		if r.kept != want[r.path] {
			t.Errorf("%s (op %d): kept %v, want %v", r.path, r.op, r.kept, want[r.path])
		}
	}
	// The link's target appears: asked again, seen.
	if err := os.Mkdir(filepath.Join(root, "elsewhere"), 0o755); err != nil {
		t.Fatal(err)
	}
	if q.StillAnswered(w, true) {
		t.Fatal("a stat through a link was kept")
	}
}
