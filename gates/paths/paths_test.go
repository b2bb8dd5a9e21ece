package paths

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// fixture builds, under a symlink-free temp root R:
//
//	R/proj                      the working directory
//	R/proj/src/a.ts
//	R/proj/inlink        -> src                       (relative, stays inside)
//	R/proj/lnabsdir      -> R/outside/dir             (absolute)
//	R/proj/lnreldir      -> ../outside/dir            (relative)
//	R/proj/lnabsfile     -> R/outside/dir/secret.txt
//	R/proj/lnrelfile     -> ../outside/dir/secret.txt
//	R/proj/dangling      -> R/outside/nothere
//	R/proj/danglingrel   -> ../outside/nothere
//	R/proj/loop1 -> loop2 -> loop1, R/proj/self -> self
//	R/proj/c0 -> c1 -> … -> c40 -> src                (41 links)
//	R/proj/c1                                         (40 links)
//	R/proj/'q'           -> R/outside/dir             (a name with quotes)
//	R/proj/@evil         -> R/outside/dir             (a name with '@')
//	R/proj/locked/x                                   (mode 0 dir)
//	R/outside/dir/secret.txt, R/outside/x
//	R/cwdlink            -> proj                      (cwd through a symlink)
//	R/home/u/.ssh/id_rsa                              (home)
func fixture(t testing.TB) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"proj/src", "proj/locked", "outside/dir", "home/u/.ssh"} {
		must(t, os.MkdirAll(filepath.Join(root, d), 0o755))
	}
	for _, f := range []string{"proj/src/a.ts", "proj/locked/x", "outside/dir/secret.txt", "outside/x", "home/u/.ssh/id_rsa"} {
		must(t, os.WriteFile(filepath.Join(root, f), []byte("x\n"), 0o644))
	}
	links := map[string]string{
		"proj/inlink":      "src",
		"proj/lnabsdir":    root + "/outside/dir",
		"proj/lnreldir":    "../outside/dir",
		"proj/lnabsfile":   root + "/outside/dir/secret.txt",
		"proj/lnrelfile":   "../outside/dir/secret.txt",
		"proj/dangling":    root + "/outside/nothere",
		"proj/danglingrel": "../outside/nothere",
		"proj/loop1":       "loop2",
		"proj/loop2":       "loop1",
		"proj/self":        "self",
		"proj/c40":         "src",
		"proj/'q'":         root + "/outside/dir",
		"proj/@evil":       root + "/outside/dir",
		"cwdlink":          "proj",
	}
	for i := 0; i < 40; i++ {
		links["proj/c"+itoa(i)] = "c" + itoa(i+1)
	}
	for name, target := range links {
		must(t, os.Symlink(target, filepath.Join(root, name)))
	}
	must(t, os.Chmod(filepath.Join(root, "proj/locked"), 0))
	t.Cleanup(func() { os.Chmod(filepath.Join(root, "proj/locked"), 0o755) })
	return root
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

type want struct {
	Literal, Abs, Rel, Real, RealRel string
	RealKnown, Outside               bool
}

func TestNew(t *testing.T) {
	root := fixture(t)
	r := func(s string) string { return strings.ReplaceAll(s, "{R}", root) }
	const P, O = "{R}/proj", "{R}/outside"
	home := r("{R}/home/u")

	in := func(lit, rel string) want { // a path inside the project, no symlinks
		abs := P + "/" + rel
		if rel == "." {
			abs = P
		}
		return want{lit, abs, rel, abs, rel, true, false}
	}
	tests := []struct {
		name, input, base, cwd string
		want                   want
	}{
		// spelled forms
		{"relative", "src/a.ts", "", P, in("src/a.ts", "src/a.ts")},
		{"dot-dot cleaned", "./src/../src/a.ts", "", P, in("src/a.ts", "src/a.ts")},
		{"dot", ".", "", P, in(".", ".")},
		{"dot slash", "./", "", P, in(".", ".")},
		{"absolute inside", P + "/src/a.ts", "", P, want{P + "/src/a.ts", P + "/src/a.ts", "src/a.ts", P + "/src/a.ts", "src/a.ts", true, false}},
		{"absolute with dot-dot back in", O + "/../proj/src", "", P, want{P + "/src", P + "/src", "src", P + "/src", "src", true, false}},
		{"double slashes", P + "//src///a.ts", "", P, want{P + "/src/a.ts", P + "/src/a.ts", "src/a.ts", P + "/src/a.ts", "src/a.ts", true, false}},
		{"parent outside", "../outside/x", "", P, want{"../outside/x", O + "/x", "", O + "/x", "", true, true}},
		{"absolute outside", "/etc/hostname-not-here", "", P, want{"/etc/hostname-not-here", "/etc/hostname-not-here", "", "/etc/hostname-not-here", "", true, true}},
		{"root", "/", "", P, want{"/", "/", "", "/", "", true, true}},

		// home forms
		{"tilde", "~", "", P, want{"{R}/home/u", "{R}/home/u", "", "{R}/home/u", "", true, true}},
		{"tilde slash", "~/.ssh/id_rsa", "", P, want{"{R}/home/u/.ssh/id_rsa", "{R}/home/u/.ssh/id_rsa", "", "{R}/home/u/.ssh/id_rsa", "", true, true}},
		{"$HOME", "$HOME", "", P, want{"{R}/home/u", "{R}/home/u", "", "{R}/home/u", "", true, true}},
		{"$HOME slash", "$HOME/.ssh/id_rsa", "", P, want{"{R}/home/u/.ssh/id_rsa", "{R}/home/u/.ssh/id_rsa", "", "{R}/home/u/.ssh/id_rsa", "", true, true}},
		{"${HOME}", "${HOME}", "", P, want{"{R}/home/u", "{R}/home/u", "", "{R}/home/u", "", true, true}},
		{"${HOME} slash", "${HOME}/.ssh/../.ssh/id_rsa", "", P, want{"{R}/home/u/.ssh/id_rsa", "{R}/home/u/.ssh/id_rsa", "", "{R}/home/u/.ssh/id_rsa", "", true, true}},
		{"tilde in quotes", "'~/.ssh/id_rsa'", "", P, want{"{R}/home/u/.ssh/id_rsa", "{R}/home/u/.ssh/id_rsa", "", "{R}/home/u/.ssh/id_rsa", "", true, true}},
		{"~user not expanded", "~user/x", "", P, in("~user/x", "~user/x")},
		{"$HOMEX not expanded", "$HOMEX/y", "", P, in("$HOMEX/y", "$HOMEX/y")},
		{"${HOME}x not expanded", "${HOME}x", "", P, in("${HOME}x", "${HOME}x")},

		// quotes and '@'
		{"double quotes", `"src/a.ts"`, "", P, in("src/a.ts", "src/a.ts")},
		{"single quotes", `'src/a.ts'`, "", P, in("src/a.ts", "src/a.ts")},
		{"at prefix", "@src/a.ts", "", P, in("src/a.ts", "src/a.ts")},
		{"at inside quotes", `"@src/a.ts"`, "", P, in("src/a.ts", "src/a.ts")},
		{"at absolute outside", "@" + O + "/x", "", P, want{O + "/x", O + "/x", "", O + "/x", "", true, true}},
		{"only one at", "@@x", "", P, in("@x", "@x")},
		{"unbalanced quote kept", `"src/a.ts`, "", P, in(`"src/a.ts`, `"src/a.ts`)},
		{"mixed quotes kept", `"src/a.ts'`, "", P, in(`"src/a.ts'`, `"src/a.ts'`)},

		// base
		{"base absolute", "a.ts", P + "/src", P, want{"a.ts", P + "/src/a.ts", "src/a.ts", P + "/src/a.ts", "src/a.ts", true, false}},
		{"base relative to cwd", "a.ts", "src", P, want{"a.ts", P + "/src/a.ts", "src/a.ts", P + "/src/a.ts", "src/a.ts", true, false}},
		{"base outside", "x", O, P, want{"x", O + "/x", "", O + "/x", "", true, true}},
		{"base ignored for absolute", P + "/src", O, P, want{P + "/src", P + "/src", "src", P + "/src", "src", true, false}},

		// symlinks inside cwd pointing outside
		{"abs dir link", "lnabsdir/secret.txt", "", P, want{"lnabsdir/secret.txt", P + "/lnabsdir/secret.txt", "lnabsdir/secret.txt", O + "/dir/secret.txt", "", true, true}},
		{"rel dir link", "lnreldir/secret.txt", "", P, want{"lnreldir/secret.txt", P + "/lnreldir/secret.txt", "lnreldir/secret.txt", O + "/dir/secret.txt", "", true, true}},
		{"abs file link", "lnabsfile", "", P, want{"lnabsfile", P + "/lnabsfile", "lnabsfile", O + "/dir/secret.txt", "", true, true}},
		{"rel file link", "lnrelfile", "", P, want{"lnrelfile", P + "/lnrelfile", "lnrelfile", O + "/dir/secret.txt", "", true, true}},
		{"abs dir link, absolute input", P + "/lnabsdir/secret.txt", "", P, want{P + "/lnabsdir/secret.txt", P + "/lnabsdir/secret.txt", "lnabsdir/secret.txt", O + "/dir/secret.txt", "", true, true}},
		{"dir link, missing tail", "lnabsdir/new/file", "", P, want{"lnabsdir/new/file", P + "/lnabsdir/new/file", "lnabsdir/new/file", O + "/dir/new/file", "", true, true}},
		{"link inside stays inside", "inlink/a.ts", "", P, want{"inlink/a.ts", P + "/inlink/a.ts", "inlink/a.ts", P + "/src/a.ts", "src/a.ts", true, false}},

		// a symlink is followed before a ".." after it
		{"abs link then dot-dot", "lnabsdir/../x", "", P, want{"x", P + "/x", "x", O + "/x", "", true, true}},
		{"rel link then dot-dot", "lnreldir/../x", "", P, want{"x", P + "/x", "x", O + "/x", "", true, true}},
		{"link then dot-dot back to cwd", "lnabsdir/../../proj/src", "", P, want{"../proj/src", "{R}/proj/src", "src", P + "/src", "src", true, false}},

		// dangling symlinks: their target is used
		{"dangling abs", "dangling", "", P, want{"dangling", P + "/dangling", "dangling", O + "/nothere", "", true, true}},
		{"dangling rel", "danglingrel", "", P, want{"danglingrel", P + "/danglingrel", "danglingrel", O + "/nothere", "", true, true}},
		{"dangling then dot-dot", "dangling/../y", "", P, want{"y", P + "/y", "y", O + "/y", "", true, true}},

		// unknown real forms
		{"loop", "loop1", "", P, want{"loop1", P + "/loop1", "loop1", "", "", false, true}},
		{"loop below", "loop1/x", "", P, want{"loop1/x", P + "/loop1/x", "loop1/x", "", "", false, true}},
		{"self loop", "self", "", P, want{"self", P + "/self", "self", "", "", false, true}},
		{"41 links", "c0", "", P, want{"c0", P + "/c0", "c0", "", "", false, true}},
		{"40 links", "c1/a.ts", "", P, want{"c1/a.ts", P + "/c1/a.ts", "c1/a.ts", P + "/src/a.ts", "src/a.ts", true, false}},
		{"NUL byte", "src/\x00a", "", P, want{"src/\x00a", P + "/src/\x00a", "src/\x00a", "", "", false, true}},

		// missing tails
		{"missing tail", "missing/deeper/f", "", P, in("missing/deeper/f", "missing/deeper/f")},
		{"missing then dot-dot resumes", "missing/../lnabsdir/secret.txt", "", P, want{"lnabsdir/secret.txt", P + "/lnabsdir/secret.txt", "lnabsdir/secret.txt", O + "/dir/secret.txt", "", true, true}},
		{"missing then dot-dot out", "missing/../../outside", "", P, want{"../outside", O, "", O, "", true, true}},
		{"below a file", "src/a.ts/x", "", P, in("src/a.ts/x", "src/a.ts/x")},
		{"below a file then dot-dot", "src/a.ts/x/../y", "", P, in("src/a.ts/y", "src/a.ts/y")},

		// cwd reached through a symlink
		{"cwd via link, relative", "src/a.ts", "", "{R}/cwdlink", want{"src/a.ts", "{R}/cwdlink/src/a.ts", "src/a.ts", P + "/src/a.ts", "src/a.ts", true, false}},
		{"cwd via link, dot", ".", "", "{R}/cwdlink", want{".", "{R}/cwdlink", ".", P, ".", true, false}},
		{"cwd via link, real spelling is spelled outside", P + "/src/a.ts", "", "{R}/cwdlink", want{P + "/src/a.ts", P + "/src/a.ts", "", P + "/src/a.ts", "src/a.ts", true, true}},
		{"cwd via link, link outside", "lnabsdir/x", "", "{R}/cwdlink", want{"lnabsdir/x", "{R}/cwdlink/lnabsdir/x", "lnabsdir/x", O + "/dir/x", "", true, true}},
		{"cwd with dot-dot after link", "src/a.ts", "", "{R}/cwdlink/../proj", want{"src/a.ts", P + "/src/a.ts", "src/a.ts", P + "/src/a.ts", "src/a.ts", true, false}},

		// safe devices
		{"/dev/null", "/dev/null", "", P, want{"/dev/null", "/dev/null", "", "/dev/null", "", true, false}},
		{"/dev/stdin", "/dev/stdin", "", P, want{"/dev/stdin", "/dev/stdin", "", "/dev/stdin", "", true, false}},
		{"/dev/stdout", "/dev/stdout", "", P, want{"/dev/stdout", "/dev/stdout", "", "/dev/stdout", "", true, false}},
		{"/dev/stderr", "/dev/stderr", "", P, want{"/dev/stderr", "/dev/stderr", "", "/dev/stderr", "", true, false}},
		{"/dev/./null", "/dev/./null", "", P, want{"/dev/null", "/dev/null", "", "/dev/null", "", true, false}},

		// verbatim reading: a real file named like the unstripped input
		{"quoted name links outside", "'q'/secret.txt", "", P, want{"'q'/secret.txt", P + "/'q'/secret.txt", "'q'/secret.txt", O + "/dir/secret.txt", "", true, true}},
		{"quotes stripped, verbatim links outside", "'q'", "", P, want{"q", P + "/q", "q", P + "/q", "q", true, true}},
		{"at stripped, verbatim links outside", "@evil", "", P, want{"evil", P + "/evil", "evil", P + "/evil", "evil", true, true}},

		// cannot be placed
		{"empty", "", "", P, want{}},
		{"empty quotes", `""`, "", P, want{}},
		{"lone at", "@", "", P, want{}},
		{"no cwd", "src/a.ts", "", "", want{Literal: "src/a.ts"}},
		{"relative cwd", "src/a.ts", "", "proj", want{Literal: "src/a.ts"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cwd := r(tt.cwd)
			p := New(r(tt.input), r(tt.base), cwd, home)
			w := want{r(tt.want.Literal), r(tt.want.Abs), tt.want.Rel, r(tt.want.Real), tt.want.RealRel, tt.want.RealKnown, tt.want.Outside || tt.want == (want{}) || tt.want.Abs == ""}
			got := want{p.Literal, p.Abs, p.Rel, p.Real, p.RealRel, p.RealKnown, p.Outside(cwd)}
			if got != w {
				t.Errorf("New(%q, %q, %q)\n got %+v\nwant %+v", tt.input, tt.base, tt.cwd, got, w)
			}
			if p.Input != r(tt.input) {
				t.Errorf("Input = %q, want %q", p.Input, r(tt.input))
			}
		})
	}
}

func TestNewDevices(t *testing.T) {
	root := fixture(t)
	cwd := root + "/proj"
	for _, tt := range []struct {
		input   string
		outside bool
	}{
		{"/dev/null", false},
		{"/dev/stdin", false},
		{"/dev/stdout", false},
		{"/dev/stderr", false},
		{"//dev//null", false},
		{"/dev/../dev/stderr", false},
		{"'/dev/null'", false},
		{"@/dev/null", false},
		{"/dev/urandom", true},
		{"/dev/zero", true},
		{"/dev/tty", true},
		{"/dev/null/x", true},
		{"/dev", true},
	} {
		if got := New(tt.input, "", cwd, root+"/home/u").Outside(cwd); got != tt.outside {
			t.Errorf("New(%q).Outside = %v, want %v", tt.input, got, tt.outside)
		}
	}
	// Relative to a base of /dev, "null" is the device too.
	if New("null", "/dev", cwd, "").Outside(cwd) {
		t.Error(`New("null", "/dev").Outside = true`)
	}
}

func TestNewHomeUnknown(t *testing.T) {
	for _, home := range []string{"", "relative/home"} {
		p := New("~/x", "", "/work", home)
		if p.Literal != "~/x" || p.Abs != "" || !p.Outside("/work") || p.RealForms() != nil {
			t.Errorf("home %q: %+v", home, p)
		}
	}
}

func TestNewLocked(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root ignores directory permissions")
	}
	root := fixture(t)
	cwd := root + "/proj"
	p := New("locked/x", "", cwd, "")
	if p.RealKnown || p.Real != "" || !p.Outside(cwd) {
		t.Errorf("permission error: %+v, outside %v", p, p.Outside(cwd))
	}
	if _, ok := Canonical(cwd + "/locked/x"); ok {
		t.Error("Canonical through an unreadable dir is known")
	}
}

func TestOutsideOtherCwd(t *testing.T) {
	root := fixture(t)
	cwd := root + "/proj"
	p := New("src/a.ts", "", cwd, "")
	if p.Outside(cwd + "/src") {
		t.Error("outside of a parent of it")
	}
	if !p.Outside(root + "/outside") {
		t.Error("inside an unrelated dir")
	}
	if !p.Outside(cwd + "/sr") {
		t.Error("inside a sibling prefix")
	}
	// Spelled, R/proj/src/a.ts is not below R/cwdlink.
	if !p.Outside(root + "/cwdlink") {
		t.Error("spelled-outside of a symlinked cwd is inside")
	}
	if !p.Outside("") || !p.Outside("proj") {
		t.Error("empty or relative cwd is not outside")
	}
	q := New("src", "", root+"/cwdlink", "")
	if q.Outside(root + "/cwdlink") {
		t.Error("inside a symlinked cwd is outside")
	}
}

func TestLiteralOnly(t *testing.T) {
	home := "/home/u"
	for _, tt := range []struct {
		input, literal string
		outside        bool
	}{
		{"src/a.ts", "src/a.ts", true},
		{"'./a/../b'", "b", true},
		{"@x", "x", true},
		{"~/x", "/home/u/x", true},
		{"/dev/null", "/dev/null", false},
		{"", "", true},
	} {
		p := LiteralOnly(tt.input, home)
		if p.Input != tt.input || p.Literal != tt.literal || p.Abs != "" || p.Rel != "" || p.Real != "" || p.RealKnown {
			t.Errorf("LiteralOnly(%q) = %+v", tt.input, p)
		}
		if got := p.Outside("/work"); got != tt.outside {
			t.Errorf("LiteralOnly(%q).Outside = %v", tt.input, got)
		}
		if p.RealForms() != nil {
			t.Errorf("LiteralOnly(%q).RealForms = %q", tt.input, p.RealForms())
		}
		want := []string{tt.literal}
		if tt.literal == "" {
			want = []string{}
		}
		if got := p.Spelled(); !reflect.DeepEqual(got, want) {
			t.Errorf("LiteralOnly(%q).Spelled = %q, want %q", tt.input, got, want)
		}
	}
}

func TestForms(t *testing.T) {
	root := fixture(t)
	P, O := root+"/proj", root+"/outside"
	home := root + "/home/u"
	for _, tt := range []struct {
		input         string
		spelled, real []string
	}{
		{"src/a.ts", []string{P + "/src/a.ts", "src/a.ts"}, []string{P + "/src/a.ts", "src/a.ts"}},
		{"./src/a.ts", []string{P + "/src/a.ts", "src/a.ts"}, []string{P + "/src/a.ts", "src/a.ts"}},
		{".", []string{P, "."}, []string{P, "."}},
		{P + "/src", []string{P + "/src", "src"}, []string{P + "/src", "src"}},
		{"../outside/x", []string{O + "/x", "../outside/x"}, []string{O + "/x"}},
		{"~/.ssh", []string{home + "/.ssh"}, []string{home + "/.ssh"}},
		{"inlink/a.ts", []string{P + "/inlink/a.ts", "inlink/a.ts"}, []string{P + "/src/a.ts", "src/a.ts"}},
		{"lnabsdir/../x", []string{P + "/x", "x"}, []string{O + "/x"}},
		{"loop1", []string{P + "/loop1", "loop1"}, nil},
		{"*", []string{"*"}, []string{P + "/*", "*"}},
		{"'*'", []string{"*"}, []string{P + "/*", "*"}},
		{"/dev/null", []string{"/dev/null"}, []string{"/dev/null"}},
	} {
		p := New(tt.input, "", P, home)
		if got := p.Spelled(); !reflect.DeepEqual(got, tt.spelled) {
			t.Errorf("New(%q).Spelled = %q, want %q", tt.input, got, tt.spelled)
		}
		if got := p.RealForms(); !reflect.DeepEqual(got, tt.real) {
			t.Errorf("New(%q).RealForms = %q, want %q", tt.input, got, tt.real)
		}
	}
}

func TestCanonical(t *testing.T) {
	root := fixture(t)
	P, O := root+"/proj", root+"/outside"
	for _, tt := range []struct {
		in, want string
		ok       bool
	}{
		{"/", "/", true},
		{"//", "/", true},
		{"/..", "/", true},
		{P, P, true},
		{P + "/", P, true},
		{P + "/./src/", P + "/src", true},
		{P + "/lnabsdir", O + "/dir", true},
		{P + "/lnreldir/secret.txt", O + "/dir/secret.txt", true},
		{P + "/lnabsdir/../x", O + "/x", true},
		{P + "/lnreldir/../../proj/inlink", P + "/src", true},
		{P + "/dangling", O + "/nothere", true},
		{P + "/dangling/a/b/../c", O + "/nothere/a/c", true},
		{P + "/missing/../..", root, true},
		{P + "/a/b/../../../outside/x", O + "/x", true},
		{root + "/cwdlink/src/a.ts", P + "/src/a.ts", true},
		{P + "/loop1", "", false},
		{P + "/c0", "", false},
		{P + "/c1", P + "/src", true},
		{"relative", "", false},
		{"", "", false},
		{"/a\x00b", "", false},
		{"/" + strings.Repeat("n", 300), "", false}, // ENAMETOOLONG
	} {
		got, ok := Canonical(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Canonical(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestWithin(t *testing.T) {
	for _, tt := range []struct {
		p, dir string
		want   bool
	}{
		{"/a/b", "/a/b", true},
		{"/a/b/c", "/a/b", true},
		{"/a/bc", "/a/b", false},
		{"/a", "/a/b", false},
		{"/a/b/", "/a/b", true},
		{"/a/b", "/a/b/", true},
		{"/a/b/c/", "/a/b//", true},
		{"/a/b/../c", "/a/b", false},
		{"/a/b/./c", "/a/b", true},
		{"/", "/", true},
		{"/x", "/", true},
		{"/", "/a", false},
		{"x", "/", false},
		{"a/b", "a", true},
		{"ab", "a", false},
		{"x", ".", true},
		{".", ".", true},
		{"..", ".", false},
		{"../x", ".", false},
		{"/x", ".", false},
		{"", "/", false},
		{"/", "", false},
		{"", "", false},
	} {
		if got := Within(tt.p, tt.dir); got != tt.want {
			t.Errorf("Within(%q, %q) = %v, want %v", tt.p, tt.dir, got, tt.want)
		}
	}
}

func TestIsSafeDevice(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want bool
	}{
		{"/dev/null", true},
		{"/dev/stdin", true},
		{"/dev/stdout", true},
		{"/dev/stderr", true},
		{"/dev//null", true},
		{"/dev/null/", true},
		{"/dev/x/../null", true},
		// the spellings that clean to a device still reach it past the
		// quick look for "dev/"
		{"//dev/null", true},
		{"/./dev/null", true},
		{"/../dev/stdout", true},
		{"///dev///stderr//", true},
		{"/a/../dev/./stdin", true},
		{"/devnull", false},
		{"/dev/null.txt", false},
		{"/dev/null/x", false},
		{"/dev/tty", false},
		{"/dev/zero", false},
		{"/dev/urandom", false},
		{"dev/null", false},
		{"/dev", false},
		{"", false},
	} {
		if got := IsSafeDevice(tt.in); got != tt.want {
			t.Errorf("IsSafeDevice(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestParentPattern(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		// the original extension's behavior
		{"/other/project/src/foo.ts", "/other/project/src/*"},
		{"/other/project/src/", "/other/project/src/*"},
		{"/other/project/src", "/other/project/*"},
		{"/foo", "/*"},
		{"/", "/*"},
		// the original extension's behavior (cwd /test/project)
		{"/test/project/index.html", "/test/project/*"},
		{"/test/project/src/foo.ts", "/test/project/src/*"},
		// more
		{"/a//b///", "/a/b/*"},
		{"/a/b/../c", "/a/*"},
		{"src/foo.ts", "src/*"},
		{"foo", ""},
		{"", ""},
	} {
		if got := ParentPattern(tt.in); got != tt.want {
			t.Errorf("ParentPattern(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestExpandHome(t *testing.T) {
	const home = "/home/u"
	for _, tt := range []struct{ in, home, want string }{
		{"~", home, "/home/u"},
		{"~/", home, "/home/u"},
		{"~/x", home, "/home/u/x"},
		{"~/dev/*", home, "/home/u/dev/*"},
		{"~/.ssh/*", home, "/home/u/.ssh/*"},
		{"~/a/../b", home, "/home/u/b"},
		{"~//a", home, "/home/u/a"},
		{"$HOME", home, "/home/u"},
		{"$HOME/.ssh/*", home, "/home/u/.ssh/*"},
		{"${HOME}", home, "/home/u"},
		{"${HOME}/x", home, "/home/u/x"},
		{"~/x", "/home/u/", "/home/u/x"},
		{"~/x", "/", "/x"},
		{"~/bin/run.sh ../y *", home, "/home/u/bin/run.sh ../y *"},
		{"~user/x", home, "~user/x"},
		{"$HOMEX/y", home, "$HOMEX/y"},
		{"${HOME}x", home, "${HOME}x"},
		{"${HOME", home, "${HOME"},
		{"x/~/y", home, "x/~/y"},
		{"/abs/~", home, "/abs/~"},
		{"git *", home, "git *"},
		{"*", home, "*"},
		{"", home, ""},
		{"~/x", "", "~/x"},
		{"~/x", "rel", "~/x"},
	} {
		if got := ExpandHome(tt.in, tt.home); got != tt.want {
			t.Errorf("ExpandHome(%q, %q) = %q, want %q", tt.in, tt.home, got, tt.want)
		}
	}
}

// TestNoPanic feeds hostile inputs through every entry point.
func TestNoPanic(t *testing.T) {
	root := fixture(t)
	long := strings.Repeat("a/", 5000) + "x"
	inputs := []string{"", "\x00", "/\x00", "~\x00", "\"", "'", "@", "@@", `"'`, "..", "../..", "/../..",
		long, "/" + long, strings.Repeat("../", 3000), strings.Repeat("n", 100000), "~", "$HOME", "${HOME}",
		"/dev/null\x00", "\xff\xfe", "lnabsdir/" + long}
	cwds := []string{"", "/", root + "/proj", "rel", "/\x00", root + "/cwdlink", root + "/proj/loop1"}
	for _, in := range inputs {
		for _, cwd := range cwds {
			for _, base := range []string{"", "/", "rel", "\x00"} {
				p := New(in, base, cwd, root+"/home/u")
				p.Spelled()
				p.RealForms()
				p.Outside(cwd)
			}
			p := LiteralOnly(in, "\x00")
			p.Spelled()
			p.Outside(cwd)
			Within(in, cwd)
		}
		Canonical(in)
		IsSafeDevice(in)
		ParentPattern(in)
		ExpandHome(in, "/h")
	}
	// A cwd that is a loop makes everything outside.
	cwd := root + "/proj/loop1"
	if !New("x", "", cwd, "").Outside(cwd) {
		t.Error("path below an unresolvable cwd is not outside")
	}
}

func FuzzNew(f *testing.F) {
	for _, s := range []string{"src/a.ts", "../x", "~/x", "'@a'", "/dev/null", "a/../../b", "\x00", ""} {
		f.Add(s, "")
	}
	f.Add("x", "/tmp")
	f.Fuzz(func(t *testing.T, input, base string) {
		cwd := "/nonexistent-toolgate/proj"
		p := New(input, base, cwd, "/nonexistent-toolgate/home")
		if !p.Outside(cwd) && !IsSafeDevice(p.Abs) && !Within(p.Abs, cwd) {
			t.Errorf("New(%q, %q): inside but Abs %q is not within cwd", input, base, p.Abs)
		}
		if p.Rel != "" && !Within(p.Abs, cwd) {
			t.Errorf("New(%q, %q): Rel %q set for Abs %q outside", input, base, p.Rel, p.Abs)
		}
		p.Spelled()
		p.RealForms()
	})
}

func BenchmarkNew(b *testing.B) {
	root := fixture(b)
	cwd, home := root+"/proj", root+"/home/u"
	b.ReportAllocs()
	for b.Loop() {
		p := New("src/a.ts", "", cwd, home)
		if p.Outside(cwd) {
			b.Fatal("outside")
		}
	}
}

func TestHostSpelling(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		differs  bool
	}{
		{"src/a.ts", "src/a.ts", false},
		{"my file.txt", "my file.txt", false},
		{"my\u00a0file.txt", "my file.txt", true},
		{"a\u2000b\u200ac\u202fd\u205fe\u3000f", "a b c d e f", true},
		{"@~/x\u00a0y", "@~/x y", true},
		{"tab\tstays", "tab\tstays", false},
		{"zero\u200bwidth", "zero\u200bwidth", false}, // not a space: pi keeps it
	} {
		got, differs := HostSpelling(tc.in)
		if got != tc.want || differs != tc.differs {
			t.Errorf("HostSpelling(%q) = %q, %t; want %q, %t", tc.in, got, differs, tc.want, tc.differs)
		}
	}
}

// A path the host opens with plain spaces is checked in that spelling too:
// a link named with a plain space that leads outside makes the no-break
// spelling outside, and its forms are the host's.
func TestNewForHost(t *testing.T) {
	r := fixture(t)
	proj := filepath.Join(r, "proj")
	must(t, os.Symlink(filepath.Join(r, "outside", "dir"), filepath.Join(proj, "out link")))
	home := filepath.Join(r, "home", "u")
	for _, tc := range []struct {
		in       string
		outside  bool
		hostAbs  string // "" = no host spelling
		hostReal string
	}{
		{"src/a.ts", false, "", ""},
		{"out\u00a0link/secret.txt", true, proj + "/out link/secret.txt", r + "/outside/dir/secret.txt"},
		{"@out\u2009link/secret.txt", true, proj + "/out link/secret.txt", r + "/outside/dir/secret.txt"},
		{"src\u00a0/a.ts", false, proj + "/src /a.ts", proj + "/src /a.ts"},
		{"~/.ssh\u3000x", true, home + "/.ssh x", home + "/.ssh x"},
	} {
		p := NewForHost(tc.in, "", proj, home)
		if got := p.Outside(proj); got != tc.outside {
			t.Errorf("%q: Outside = %t, want %t", tc.in, got, tc.outside)
		}
		if plain := New(tc.in, "", proj, home); tc.hostAbs != "" && plain.Outside(proj) && !tc.outside {
			t.Errorf("%q: the plain reading is outside but the host reading is not", tc.in)
		}
		h, ok := p.Host()
		if ok != (tc.hostAbs != "") {
			t.Fatalf("%q: Host() ok = %t", tc.in, ok)
		}
		if ok && (h.Abs != tc.hostAbs || h.Real != tc.hostReal) {
			t.Errorf("%q: host Abs %q Real %q, want %q %q", tc.in, h.Abs, h.Real, tc.hostAbs, tc.hostReal)
		}
	}
	// Without the host spelling the no-break name is a new file inside.
	if New("out\u00a0link/secret.txt", "", proj, home).Outside(proj) {
		t.Errorf("the plain reading of a no-break name should be inside (the host reading is what leads outside)")
	}
}

// A chain of maxLinks distinct links resolves, one more does not; a cycle
// of links (which the walk finds as soon as it reaches a link a second
// time with the same rest to walk) does not either, whatever its length.
func TestLinkChainsAndCycles(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "target"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	link := func(name, to string) {
		if err := os.Symlink(to, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	// long0 -> long1 -> … -> long<maxLinks> -> target: maxLinks+1 links.
	for i := range maxLinks + 1 {
		to := fmt.Sprintf("long%d", i+1)
		if i == maxLinks {
			to = "target"
		}
		link(fmt.Sprintf("long%d", i), to)
	}
	for i := range 5 { // cyc0 -> cyc1 -> … -> cyc4 -> cyc0
		link(fmt.Sprintf("cyc%d", i), fmt.Sprintf("cyc%d", (i+1)%5))
	}
	link("down", "sub/../down") // a cycle through a directory that does not exist
	for _, c := range []struct {
		name string
		want string // "" = not known
	}{
		{"long1", filepath.Join(dir, "target")}, // maxLinks links
		{"long0", ""},                           // one more
		{"cyc0", ""}, {"cyc3/x", ""},
		{"down", ""},
	} {
		got, ok := Canonical(filepath.Join(dir, c.name))
		if c.want == "" && ok || c.want != "" && (!ok || got != c.want) {
			t.Errorf("Canonical(%s) = %q, %v; want %q", c.name, got, ok, c.want)
		}
	}
}
