package paths

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestResetForgetsEverything: a view Reset answers as a new view does,
// whatever it answered before (kept in its list of answers, or in its
// map once there are more), and keeps no Dirs, recording or working
// directory of before.
func TestResetForgetsEverything(t *testing.T) {
	for _, others := range []int{0, 40} {
		t.Run(fmt.Sprint(others), func(t *testing.T) {
			dir := t.TempDir()
			a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
			if err := os.WriteFile(a, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			v := NewView()
			v.Record(&Questions{})
			for i := range others {
				_, _ = v.Lstat(filepath.Join(dir, "x", fmt.Sprint(i)))
			}
			if _, err := v.Lstat(a); err != nil {
				t.Fatal(err)
			}
			_, _ = v.Lstat(b)
			_ = v.New("a", "", dir, dir)
			if err := os.Remove(a); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(b, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			v.Reset()
			if v.Recording() || v.Dirs != nil || v.cwd != nil {
				t.Errorf("after Reset: recording %v, Dirs %v, cwd %v", v.Recording(), v.Dirs, v.cwd)
			}
			if _, err := v.Lstat(a); !os.IsNotExist(err) {
				t.Errorf("a removed: Lstat after Reset says %v", err)
			}
			if _, err := v.Lstat(b); err != nil {
				t.Errorf("b written: Lstat after Reset says %v", err)
			}
		})
	}
}

// TestCwdLexicalIsPlain: the kept lexical state of a working directory is
// what Clean and components make of it, for one asked again and for one
// asked after another.
func TestCwdLexicalIsPlain(t *testing.T) {
	for _, cwd := range []string{"/w/p", "/w/p", "/w//p/./q/", "/", "", "rel/x", "/w/p", "/a/../b"} {
		clean, comps := cwdLexical(cwd)
		if want := Clean(cwd); clean != want {
			t.Errorf("%q: clean %q, want %q", cwd, clean, want)
		}
		if want := components(cwd); fmt.Sprint(comps) != fmt.Sprint(want) {
			t.Errorf("%q: components %q, want %q", cwd, comps, want)
		}
	}
}
