package paths

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// twinTree builds, under a symlink-free temp root R, a tree of
// directories, files and links of every kind the walk meets:
//
//	R/a/b/c/, R/a/b/f (a file), R/a/g (a file), R/d/
//	R/a/rel     -> b                 R/a/abs    -> R/d
//	R/a/up      -> ..                R/a/upup   -> ../../..
//	R/a/b/back  -> ../../a           R/a/b/ch0  -> ch1 -> ch2 -> c
//	R/a/dang    -> nothere/x         R/a/dangabs -> R/gone/y
//	R/a/loop1   -> loop2 -> loop1    R/a/self   -> self
//	R/a/toroot  -> /                 R/a/tofile -> b/f
//	R/a/viaup   -> ../a/b            R/lnA      -> a
//	R/long0 -> long1 -> … -> long41 -> a (42 links: past maxLinks)
func twinTree(t *testing.T) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"a/b/c", "d"} {
		must(t, os.MkdirAll(filepath.Join(root, d), 0o755))
	}
	for _, f := range []string{"a/b/f", "a/g"} {
		must(t, os.WriteFile(filepath.Join(root, f), []byte("x\n"), 0o644))
	}
	links := map[string]string{
		"a/rel":     "b",
		"a/abs":     root + "/d",
		"a/up":      "..",
		"a/upup":    "../../..",
		"a/b/back":  "../../a",
		"a/b/ch0":   "ch1",
		"a/b/ch1":   "ch2",
		"a/b/ch2":   "c",
		"a/dang":    "nothere/x",
		"a/dangabs": root + "/gone/y",
		"a/loop1":   "loop2",
		"a/loop2":   "loop1",
		"a/self":    "self",
		"a/toroot":  "/",
		"a/tofile":  "b/f",
		"a/viaup":   "../a/b",
		"lnA":       "a",
		"long41":    "a",
	}
	for i := range 41 {
		links["long"+itoa(i)] = "long" + itoa(i+1)
	}
	for name, target := range links {
		must(t, os.Symlink(target, filepath.Join(root, name)))
	}
	return root
}

// TestResolverResumesAsWalkFromRoot holds resolver.canonical, which resumes
// from the working directory's walk, equal to canonical walked from "/":
// the same real form and the same knowing for relative and absolute paths
// through every kind of link, missing entries and "..". The working
// directories are plain, reached by a link, missing, a file, a loop or
// spelled with "..", with no view and with one.
func TestResolverResumesAsWalkFromRoot(t *testing.T) {
	root := twinTree(t)
	cwds := []string{
		root, root + "/a", root + "/a/b", root + "/a/b/c", root + "/d", root + "/lnA", root + "/lnA/b",
		root + "/a/rel", root + "/a/abs", root + "/a/up", root + "/a/b/back", root + "/a/b/ch0",
		root + "/a/viaup", root + "/a/toroot", root + "/a/upup",
		root + "/missing", root + "/missing/deeper", root + "/a/dang", root + "/a/dangabs",
		root + "/a/b/f", root + "/a/tofile", root + "/a/loop1", root + "/a/self", root + "/long0", root + "/long1",
		root + "/a/../a/b", root + "/a/./b/", root + "//a//b", root + "/a/b/..", root + "/missing/../a",
		"/",
	}
	edge := []string{
		".", "..", "../..", "../../../../..", "", "/", "//", "/..", root, root + "/", root + "/a/b/c/../../g",
		"b/c", "b/f", "b/f/x", "b/f/..", "rel/c", "rel/../g", "abs/x", "up/a/b", "upup/x", "b/back/b/c",
		"b/ch0", "b/ch0/../f", "dang", "dang/../z", "dangabs/q/..", "loop1", "loop1/x", "self/..", "toroot/" + strings.TrimPrefix(root, "/"),
		"tofile", "tofile/x", "viaup/c", "missing/../../a", "x/y/../../..", "a\x00b",
		root + "/long0", root + "/long1/b", root + "/lnA/rel/c", root + "/a/up/a/up/d",
		"../lnA", "b/back", root + "/lnA/../lnA", // a link the cwd's walk followed, reached again
	}
	pool := []string{"a", "b", "c", "d", "f", "g", "rel", "abs", "up", "upup", "back", "ch0", "ch1", "ch2",
		"dang", "dangabs", "loop1", "self", "toroot", "tofile", "viaup", "lnA", "long0", "long1", "long40",
		"..", "..", ".", "", "missing", "nothere"}
	rng := rand.New(rand.NewPCG(11, 17))
	inputs := append([]string(nil), edge...)
	for range 400 {
		n := 1 + rng.IntN(6)
		comps := make([]string, n)
		for i := range comps {
			comps[i] = pool[rng.IntN(len(pool))]
		}
		in := strings.Join(comps, "/")
		switch rng.IntN(3) {
		case 0:
			in = root + "/" + in
		case 1:
			in = root + "/a/" + in
		}
		inputs = append(inputs, in)
	}
	compared := 0
	for _, cwd := range cwds {
		for _, view := range []*View{nil, NewView()} {
			for _, in := range inputs {
				raw, _ := literalRaw(in, "")
				if raw == "" {
					continue
				}
				full := raw
				if !filepath.IsAbs(raw) {
					full = joinAbs(cwd, raw)
				}
				if IsSafeDevice(Clean(full)) {
					continue
				}
				p := view.New(in, "", cwd, "")
				want, wantOK := canonical(nil, full)
				if p.Real != want || p.RealKnown != wantOK {
					t.Fatalf("cwd %q, input %q (view %v): resumed walk %q, %v; walk from / of %q: %q, %v",
						cwd, in, view != nil, p.Real, p.RealKnown, full, want, wantOK)
				}
				compared++
			}
		}
	}
	if compared < 10000 {
		t.Fatalf("only %d paths compared", compared)
	}
}
