package paths

import (
	"path/filepath"
	"reflect"
	"testing"
)

// One View shared by many paths answers exactly as the file system does
// path by path: the same forms for every input of the fixture, from both
// working directories, through links, loops, dangling links and ".." after
// a link.
func TestViewMatchesFileSystem(t *testing.T) {
	root := fixture(t)
	inputs := []string{"src/a.ts", "inlink/a.ts", "lnabsdir/secret.txt", "lnreldir/../x", "lnabsfile", "lnrelfile",
		"dangling", "danglingrel/new", "loop1/x", "self", "c0/a.ts", "c1/a.ts", "'q'/secret.txt", "@evil/secret.txt",
		"locked/x", "../outside/x", root + "/outside/dir/../x", "~/.ssh/id_rsa", "/dev/null", "nothere/../src/a.ts", "."}
	v := NewView()
	for _, cwd := range []string{filepath.Join(root, "proj"), filepath.Join(root, "cwdlink")} {
		for _, in := range inputs {
			want := New(in, "", cwd, filepath.Join(root, "home", "u"))
			got := v.New(in, "", cwd, filepath.Join(root, "home", "u"))
			if !reflect.DeepEqual(got, want) {
				t.Errorf("cwd %s, %q:\n view %+v\n fs   %+v", cwd, in, got, want)
			}
			if a, b := got.Outside(cwd), want.Outside(cwd); a != b {
				t.Errorf("cwd %s, %q: outside %v through the view, %v without", cwd, in, a, b)
			}
		}
		wantC, okW := Canonical(cwd + "/lnreldir/../x")
		gotC, okG := v.Canonical(cwd + "/lnreldir/../x")
		if gotC != wantC || okG != okW {
			t.Errorf("Canonical through the view %q %v, without %q %v", gotC, okG, wantC, okW)
		}
	}
	var nilView *View
	if got, want := nilView.New("src/a.ts", "", filepath.Join(root, "proj"), ""), New("src/a.ts", "", filepath.Join(root, "proj"), ""); !reflect.DeepEqual(got, want) {
		t.Errorf("nil view: %+v, want %+v", got, want)
	}
}

// knownDirs answers like a cross-call cache that knows every directory.
type knownDirs struct{}

func (knownDirs) Canonical(dir string) (string, bool, bool) {
	real, ok := Canonical(dir)
	return real, ok, true
}

// A view that takes the working directory's real path from a cache of
// known directories gives the same forms as resolving it.
func TestViewWithKnownDirs(t *testing.T) {
	root := fixture(t)
	for _, cwd := range []string{filepath.Join(root, "proj"), filepath.Join(root, "cwdlink")} {
		v := NewView()
		v.Dirs = knownDirs{}
		for _, in := range []string{"src/a.ts", "inlink/a.ts", "lnreldir/../x", "dangling", "../outside/x", "."} {
			want := New(in, "", cwd, filepath.Join(root, "home", "u"))
			if got := v.New(in, "", cwd, filepath.Join(root, "home", "u")); !reflect.DeepEqual(got, want) {
				t.Errorf("cwd %s, %q:\n known %+v\n fs    %+v", cwd, in, got, want)
			}
		}
	}
}
