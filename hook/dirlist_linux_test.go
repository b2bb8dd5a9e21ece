//go:build linux

package hook

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestListNames: a folder of the test's file system is listed whole; one
// with more names than asked for, and a folder of a file system that is
// not known to match names byte for byte (/proc), are not.
func TestListNames(t *testing.T) {
	dir := realTempDir(t)
	var st statfsType
	if !st.byteExact(dir) {
		t.Skipf("%s is on a file system listNames does not list (not ext4, f2fs, tmpfs or btrfs)", dir)
	}
	for _, n := range []string{"a", "b.ts", ".hidden"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	names, ok := listNames(dir, 3)
	slices.Sort(names)
	if !ok || !slices.Equal(names, []string{".hidden", "a", "b.ts"}) {
		t.Fatalf("listNames(%s, 3) = %q, %v", dir, names, ok)
	}
	if names, ok := listNames(dir, 2); ok {
		t.Errorf("three names listed with a bound of two: %q", names)
	}
	if names, ok := listNames("/proc/self", maxListNames); ok {
		t.Errorf("/proc/self listed: %d names", len(names))
	}
	if _, ok := listNames(filepath.Join(dir, "a"), maxListNames); ok {
		t.Error("a regular file listed")
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	if _, ok := listNames(link, maxListNames); ok {
		t.Error("a link to a folder listed")
	}
}

// TestDirCacheListingIsLstat: what the cache says of the entries of a
// watched folder (Entry, and Peek for a fresh shell analysis) is what an
// lstat says, for names that exist, names that do not, and after names
// were created and removed; with the folder listed and, as where a folder
// cannot be listed, without.
func TestDirCacheListingIsLstat(t *testing.T) {
	for _, listed := range []bool{true, false} {
		t.Run(fmt.Sprintf("listed=%v", listed), func(t *testing.T) {
			_, l, loc := armedPolicyWatch(t)
			work := loc.Cwd
			mkdirs(t, work)
			l.Policy(loc)
			d := newDirCache(l)
			if !listed {
				// As on a file system whose folders cannot be listed.
				listFolder = func(string, int) ([]string, bool) { return nil, false }
				t.Cleanup(func() { listFolder = listNames })
			}
			names := []string{"a", "b", "c", "run", "--fix", "1102", "x.ts"}
			exist := map[string]bool{"a": true, "run": true}
			for n := range exist {
				if err := os.WriteFile(filepath.Join(work, n), nil, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			l.Policy(loc)
			check := func(round string) {
				t.Helper()
				for _, n := range names {
					p := filepath.Join(work, n)
					_, err := os.Lstat(p)
					want := err == nil
					if e, _, known := d.Peek(p); known && e != want {
						t.Errorf("%s: Peek(%s) exists %v, lstat %v", round, n, e, want)
					}
					e, _, known := d.Entry(p)
					if !known {
						t.Errorf("%s: Entry(%s) not known in a watched folder", round, n)
					} else if e != want {
						t.Errorf("%s: Entry(%s) exists %v, lstat %v", round, n, e, want)
					}
					if e, _, known := d.Peek(p); known && e != want {
						t.Errorf("%s: Peek(%s) after Entry exists %v, lstat %v", round, n, e, want)
					}
				}
			}
			check("first")
			if got := d.lists[work].ok; got != listed {
				t.Errorf("the working directory listed %v, want %v", got, listed)
			}
			// Names created and removed: the next call sees them.
			if err := os.WriteFile(filepath.Join(work, "1102"), nil, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(filepath.Join(work, "--fix"), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(filepath.Join(work, "run")); err != nil {
				t.Fatal(err)
			}
			l.Policy(loc)
			check("after changes")
			if err := os.Rename(filepath.Join(work, "a"), filepath.Join(work, "b")); err != nil {
				t.Fatal(err)
			}
			l.Policy(loc)
			check("after a rename")
		})
	}
}

// TestListNamesOfLargeFolders: a folder whose entries take several reads
// of listNames's buffer is listed whole, each name once, as os.ReadDir
// lists it; with a bound one short of its names it is not listed.
func TestListNamesOfLargeFolders(t *testing.T) {
	dir := realTempDir(t)
	var st statfsType
	if !st.byteExact(dir) {
		t.Skipf("%s is on a file system listNames does not list (not ext4, f2fs, tmpfs or btrfs)", dir)
	}
	for i := range 600 {
		name := fmt.Sprintf("entry-%04d-with-a-long-name-to-fill-the-buffer.ts", i)
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, e := range entries {
		want = append(want, e.Name())
	}
	if size := len(want) * 64; size <= direntBuf {
		t.Fatalf("%d names fit one read of %d bytes: the test needs more", len(want), direntBuf)
	}
	names, ok := listNames(dir, len(want))
	slices.Sort(names)
	if !ok || !slices.Equal(names, want) {
		t.Fatalf("listNames(%s, %d) = %d names, %v; os.ReadDir lists %d", dir, len(want), len(names), ok, len(want))
	}
	if names, ok := listNames(dir, len(want)-1); ok {
		t.Errorf("%d names listed with a bound of %d", len(names), len(want)-1)
	}
}
