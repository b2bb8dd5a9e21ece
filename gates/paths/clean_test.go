package paths

import (
	"path"
	"testing"
)

// TestIsCleanIsPathClean: IsClean says exactly whether path.Clean leaves a
// path as it is, for every string of up to 7 bytes over "a", ".", "/";
// Within and WithinClean agree on them.
func TestIsCleanIsPathClean(t *testing.T) {
	alphabet := []byte{'a', '.', '/'}
	var all []string
	var gen func(prefix []byte)
	gen = func(prefix []byte) {
		all = append(all, string(prefix))
		if len(prefix) == 7 {
			return
		}
		for _, c := range alphabet {
			gen(append(prefix, c))
		}
	}
	gen(nil)
	for _, p := range all {
		if got, want := IsClean(p), p != "" && path.Clean(p) == p; got != want {
			t.Errorf("IsClean(%q) = %v, path.Clean gives %q", p, got, path.Clean(p))
		}
		if got := Clean(p); p != "" && got != path.Clean(p) {
			t.Errorf("Clean(%q) = %q, want %q", p, got, path.Clean(p))
		}
		if got := Dir(p); got != path.Dir(p) {
			t.Errorf("Dir(%q) = %q, want %q", p, got, path.Dir(p))
		}
	}
	for _, p := range all[:400] {
		for _, d := range all[:400] {
			want := false
			if p != "" && d != "" {
				want = WithinClean(path.Clean(p), path.Clean(d))
			}
			if Within(p, d) != want {
				t.Errorf("Within(%q, %q) = %v", p, d, !want)
			}
		}
	}
}
