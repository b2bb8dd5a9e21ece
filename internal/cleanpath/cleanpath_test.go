package cleanpath

import (
	"path"
	"testing"
)

// paths is every string of up to n bytes over 'a', '.' and '/'.
func paths(n int) []string {
	var all []string
	var gen func(prefix []byte)
	gen = func(prefix []byte) {
		all = append(all, string(prefix))
		if len(prefix) == n {
			return
		}
		for _, c := range []byte{'a', '.', '/'} {
			gen(append(prefix, c))
		}
	}
	gen(nil)
	return all
}

// TestJoinIsPathJoin: Join answers as path.Join for every pair of short
// paths over 'a', '.' and '/', clean or not, absolute or not.
func TestJoinIsPathJoin(t *testing.T) {
	all := paths(5)
	for _, d := range all {
		for _, e := range all {
			if got, want := Join(d, e), path.Join(d, e); got != want {
				t.Fatalf("Join(%q, %q) = %q, path.Join gives %q", d, e, got, want)
			}
		}
	}
}

// TestCleanAndDirArePath: Clean, Dir and IsClean answer as package path.
func TestCleanAndDirArePath(t *testing.T) {
	for _, p := range paths(7) {
		if got, want := IsClean(p), p != "" && path.Clean(p) == p; got != want {
			t.Errorf("IsClean(%q) = %v, path.Clean gives %q", p, got, path.Clean(p))
		}
		if p != "" && Clean(p) != path.Clean(p) {
			t.Errorf("Clean(%q) = %q, want %q", p, Clean(p), path.Clean(p))
		}
		if Dir(p) != path.Dir(p) {
			t.Errorf("Dir(%q) = %q, want %q", p, Dir(p), path.Dir(p))
		}
	}
}
