//go:build unix

package shell

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
)

// osNames is fsNames as os.Stat and os.File.Readdirnames answer it.
func osNames(real string) ([]string, bool) {
	if info, err := os.Stat(real); err != nil || !info.IsDir() {
		return nil, true
	}
	f, err := os.Open(real)
	if err != nil {
		return nil, true
	}
	defer f.Close()
	names, _ := f.Readdirnames(maxDirEntries + 1)
	return sortedNames(names)
}

// TestFSNamesIsOS: the direct system calls list what os lists (and answer
// fsIsDir, fsEnterable and fsExists as os.Stat and os.Lstat do), for a
// directory, an empty one, a link to one, a file, a FIFO (which must not
// block), a dangling link, a missing path, an unreadable directory and a
// directory past the entry budget.
func TestFSNamesIsOS(t *testing.T) {
	dir := t.TempDir()
	mk := func(p string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{"b", "a", ".hidden", "c\rd", "sub/x"} {
		mk(filepath.Join(dir, "d", n))
	}
	if err := os.Mkdir(filepath.Join(dir, "empty"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "d"), filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "nowhere"), filepath.Join(dir, "dangling")); err != nil {
		t.Fatal(err)
	}
	mk(filepath.Join(dir, "file"))
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "closed"), 0o000); err != nil {
		t.Fatal(err)
	}
	// The 8,193 names of the two big directories are links to one file:
	// a name each is what fsNames lists, and a link is one system call
	// (creating a file is three, and a busy /tmp made them take seconds).
	mk(filepath.Join(dir, "one"))
	for _, c := range []struct {
		name string
		n    int
	}{{"big", maxDirEntries + 1}, {"full", maxDirEntries}} {
		if err := os.Mkdir(filepath.Join(dir, c.name), 0o700); err != nil {
			t.Fatal(err)
		}
		for i := range c.n {
			if err := os.Link(filepath.Join(dir, "one"), filepath.Join(dir, c.name, fmt.Sprint(i))); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "open"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(dir, "open"), 0o755); err != nil { // past the umask
		t.Fatal(err)
	}
	for _, n := range []string{"d", "empty", "link", "dangling", "file", "fifo", "missing", "closed", "big", "full", "d/sub", "open", "d/a"} {
		p := filepath.Join(dir, n)
		info, err := os.Stat(p)
		if got, want := fsIsDir(p), err == nil && info.IsDir(); got != want {
			t.Errorf("%s: fsIsDir = %v, os: %v", n, got, want)
		}
		if got, want := fsEnterable(p), err == nil && info.IsDir() && info.Mode().Perm()&0o111 == 0o111; got != want {
			t.Errorf("%s: fsEnterable = %v, os: %v", n, got, want)
		}
		_, err = os.Lstat(p)
		if got, want := fsExists(p), err == nil; got != want {
			t.Errorf("%s: fsExists = %v, os: %v", n, got, want)
		}
		got, gotOK := fsNames(p)
		want, wantOK := osNames(p)
		if !slices.Equal(got, want) || gotOK != wantOK || (got == nil) != (want == nil) {
			t.Errorf("%s: fsNames = %d names %v (nil %v), ok %v; os: %d names %v (nil %v), ok %v", n, len(got), got[:min(len(got), 5)], got == nil, gotOK, len(want), want[:min(len(want), 5)], want == nil, wantOK)
		}
	}
}
