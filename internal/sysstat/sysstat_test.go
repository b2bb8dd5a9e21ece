//go:build linux

package sysstat

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestIsSyscall keeps Lstat and Stat equal to syscall's on every kind of
// answer: a file, a directory, a link and a dangling one, a missing path,
// one below a file, a NUL in the path, the empty path, and paths just
// shorter and longer than the buffer.
func TestIsSyscall(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, l := range [][2]string{{"f", "l"}, {"missing", "dl"}} {
		if err := os.Symlink(l[0], filepath.Join(dir, l[1])); err != nil {
			t.Fatal(err)
		}
	}
	long := func(n int) string { // a path of n bytes naming dir
		p := dir
		for len(p) < n-2 {
			p += "/."
		}
		return p + strings.Repeat("/", n-len(p))
	}
	paths := []string{file, dir, filepath.Join(dir, "l"), filepath.Join(dir, "dl"), filepath.Join(dir, "missing"),
		filepath.Join(file, "below"), dir + "/a\x00b", "", "/", long(pathBuf - 1), long(pathBuf), long(pathBuf + 1)}
	for _, p := range paths {
		for _, f := range []struct {
			name       string
			fast, slow func(string, *syscall.Stat_t) error
		}{{"Lstat", Lstat, syscall.Lstat}, {"Stat", Stat, syscall.Stat}} {
			var got, want syscall.Stat_t
			gerr, werr := f.fast(p, &got), f.slow(p, &want)
			if !errors.Is(gerr, werr) && gerr != werr {
				t.Errorf("%s(%.40q…): error %v, syscall's %v", f.name, p, gerr, werr)
				continue
			}
			got.Atim, want.Atim = syscall.Timespec{}, syscall.Timespec{}
			if got != want {
				t.Errorf("%s(%.40q…) = %+v, syscall's %+v", f.name, p, got, want)
			}
		}
	}
}
