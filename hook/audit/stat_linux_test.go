//go:build linux

package audit

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestStatPathIsStat: the statx look at the log names the file stat(2)
// names, with its size, for a file, a link to it and a file replaced at
// the path; it agrees with fstatID of the open file; a missing path is
// ErrNotExist; and the stat(2) fallback answers the same.
func TestStatPathIsStat(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "audit.jsonl")
	if err := os.WriteFile(p, []byte("0123456789"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(p, link); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	mine, err := fstatID(f)
	if err != nil {
		t.Fatal(err)
	}
	old, err := fstatIDOld(f)
	if err != nil || old != mine {
		t.Fatalf("fstatIDOld %v %v, fstatID %v", old, err, mine)
	}
	for _, path := range []string{p, link} {
		var st syscall.Stat_t
		if err := syscall.Stat(path, &st); err != nil {
			t.Fatal(err)
		}
		id, size, err := statPath(path)
		if err != nil || size != st.Size || id.ino != st.Ino || !id.same(mine) {
			t.Fatalf("%s: statPath %v %d %v; stat ino %d size %d; fstatID %v", path, id, size, err, st.Ino, st.Size, mine)
		}
		oid, osize, err := statPathOld(path)
		if err != nil || oid != id || osize != size {
			t.Fatalf("%s: statPathOld %v %d %v, statPath %v %d", path, oid, osize, err, id, size)
		}
	}
	// Replaced at the path: another file.
	if err := os.WriteFile(p+".new", []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(p+".new", p); err != nil {
		t.Fatal(err)
	}
	id, size, err := statPath(p)
	if err != nil || size != 1 || id.same(mine) {
		t.Fatalf("replaced: statPath %v %d %v, the open file %v", id, size, err, mine)
	}
	if _, _, err := statPath(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing: %v", err)
	}
	if _, _, err := statPathOld(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing (stat): %v", err)
	}
}
