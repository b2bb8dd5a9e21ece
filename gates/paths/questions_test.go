package paths

import (
	"os"
	"path/filepath"
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
