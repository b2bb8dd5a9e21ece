package shell

import (
	"archive/tar"
	"os"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"
)

// allRows are the commands of every analysis table.
func allRows() []row {
	var out []row
	for _, rows := range [][]row{analyzeRows, injectionRows, callbackRows, programOptionRows, noParanoiaRows, toolProgramRows} {
		out = append(out, rows...)
	}
	return out
}

// TestCacheIsAnalyze: the cache gives exactly Analyze's analysis, on the
// first call (a miss) and on the second (a hit), for every table row and
// the realistic statements.
func TestCacheIsAnalyze(t *testing.T) {
	for _, c := range cacheSetups() {
		testCacheIsAnalyze(t, c)
	}
}

// cacheSetups are the ways a Cache is set up: without help, with Known,
// with Known and Peek (as the server does).
func cacheSetups() []cacheSetup {
	return []cacheSetup{{}, {known: truthfulKnown}, {known: truthfulKnown, peek: truthfulKnown}}
}

type cacheSetup struct {
	known, peek func(string) (bool, bool, bool)
}

func testCacheIsAnalyze(t *testing.T, setup cacheSetup) {
	fx := newFixture(t)
	c := Cache{Known: setup.known, Peek: setup.peek}
	cmds := append([]string(nil), realisticStatements...)
	for _, r := range allRows() {
		cmds = append(cmds, fx.expand(r.cmd))
	}
	for round := 0; round < 3; round++ { // seen once, kept, a hit
		for _, cmd := range cmds {
			want := Analyze(cmd, fx.options())
			if got := c.Analyze(cmd, fx.options()); !reflect.DeepEqual(got, want) {
				t.Errorf("round %d, %q:\n cache   %+v\n Analyze %+v", round, cmd, got, want)
			}
		}
	}
	if len(c.m) == 0 {
		t.Fatal("nothing was cached")
	}
}

// TestCacheSeesFileSystemChange: an analysis that read the file system is
// not given again once the file system answers otherwise: a word that
// names a file that now exists, a glob's directory with a new file, a cd
// into a directory replaced by a link to outside, a directory that can no
// longer be entered.
func TestCacheSeesFileSystemChange(t *testing.T) {
	for _, c := range cacheSetups() {
		testCacheSeesFileSystemChange(t, c)
	}
}

func testCacheSeesFileSystemChange(t *testing.T, setup cacheSetup) {
	fx := newFixture(t)
	opt := fx.options()
	in := func(p string) string { return filepath.Join(fx.cwd, p) }
	cases := []struct {
		cmd    string
		change func() error
	}{
		{"git add newfile", func() error { return os.WriteFile(in("newfile"), nil, 0o644) }},
		{"for f in src/*.ts; do wc -l \"$f\"; done", func() error { return os.WriteFile(in("src/c.ts"), nil, 0o644) }},
		{"cd sub && rm y", func() error {
			if err := os.RemoveAll(in("sub")); err != nil {
				return err
			}
			return os.Symlink(filepath.Join(fx.root, "outside"), in("sub"))
		}},
		{"cd build; cat README.md", func() error { return os.Chmod(in("build"), 0o600) }},
		{"tar xf x.tar", func() error {
			return os.WriteFile(in("x.tar"), tarBytes(t, tarEntry{name: ".git/hooks/pre-commit", typ: tar.TypeReg}), 0o644)
		}},
		{"git -C link checkout y", func() error {
			if err := os.Remove(in("link")); err != nil {
				return err
			}
			return os.Mkdir(in("link"), 0o755)
		}},
	}
	c := Cache{Known: setup.known, Peek: setup.peek}
	for _, tc := range cases {
		before := c.Analyze(tc.cmd, opt)
		if kept := c.Analyze(tc.cmd, opt); !reflect.DeepEqual(kept, before) {
			t.Errorf("%q: the analysis kept differs from the first", tc.cmd)
		}
		if again := c.Analyze(tc.cmd, opt); !reflect.DeepEqual(again, before) {
			t.Errorf("%q: a hit differs from the miss", tc.cmd)
		}
		if err := tc.change(); err != nil {
			t.Fatal(err)
		}
		want := Analyze(tc.cmd, opt)
		if reflect.DeepEqual(want, before) {
			t.Errorf("%q: the change does not change the analysis, so this case proves nothing", tc.cmd)
		}
		if got := c.Analyze(tc.cmd, opt); !reflect.DeepEqual(got, want) {
			t.Errorf("%q after the change:\n cache   %+v\n Analyze %+v", tc.cmd, got, want)
		}
	}
	if err := os.Chmod(in("build"), 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestCacheKeyedByOptions: the same command in another directory or home
// is another analysis.
func TestCacheKeyedByOptions(t *testing.T) {
	fx := newFixture(t)
	var c Cache
	for _, opt := range []Options{fx.options(), {Cwd: filepath.Join(fx.cwd, "src"), Home: fx.home}, {Cwd: fx.cwd, Home: fx.root}, {Cwd: fx.cwd, Home: fx.home, MaxDepth: 1}} {
		for _, cmd := range []string{"cat ~/notes.txt a.ts", "bash -c 'bash -c \"rm x\"'"} {
			for range 2 { // seen once, then kept: the next options' first sighting finds it
				if got, want := c.Analyze(cmd, opt), Analyze(cmd, opt); !reflect.DeepEqual(got, want) {
					t.Errorf("%q with %+v: cache %+v, Analyze %+v", cmd, opt, got, want)
				}
			}
		}
	}
}

// truthfulKnown is a Known that asks the file system now: known for an
// absolute clean path with no link on the way (a missing one below a
// directory that is its own real path included).
func truthfulKnown(p string) (exists, isDir, known bool) {
	if !filepath.IsAbs(p) || filepath.Clean(p) != p {
		return false, false, false
	}
	if info, err := os.Lstat(p); err == nil {
		if info.Mode()&os.ModeSymlink != 0 {
			return false, false, false
		}
		if real, err := filepath.EvalSymlinks(p); err != nil || real != p {
			return false, false, false
		}
		return true, info.IsDir(), true
	} else if !os.IsNotExist(err) {
		return false, false, false
	}
	parent := filepath.Dir(p)
	if real, err := filepath.EvalSymlinks(parent); err != nil || real != parent {
		return false, false, false
	}
	return false, false, true
}

// TestCacheKnownIsUsed: with Known, a hit takes what Known knows instead
// of asking the file system, and gives the same analysis.
func TestCacheKnownIsUsed(t *testing.T) {
	fx := newFixture(t)
	asked := 0
	c := Cache{Known: func(p string) (bool, bool, bool) { asked++; return truthfulKnown(p) }}
	cmd := "git add nothere"
	c.Analyze(cmd, fx.options()) // seen once: not kept
	first := c.Analyze(cmd, fx.options())
	if got := c.Analyze(cmd, fx.options()); !reflect.DeepEqual(got, first) || asked == 0 {
		t.Fatalf("a hit did not consult Known (asked %d) or differs", asked)
	}
}

// TestCachePeekIsUsed: with Peek, an analysis made afresh takes what Peek
// holds instead of asking the file system, and is Analyze's analysis;
// what Peek answers is what decides (a Peek that says a missing file
// exists makes it a path of the command).
func TestCachePeekIsUsed(t *testing.T) {
	fx := newFixture(t)
	asked := 0
	c := Cache{Peek: func(p string) (bool, bool, bool) { asked++; return truthfulKnown(p) }}
	cmd := "git add nothere"
	if got, want := c.Analyze(cmd, fx.options()), Analyze(cmd, fx.options()); !reflect.DeepEqual(got, want) || asked == 0 {
		t.Fatalf("a fresh analysis did not consult Peek (asked %d) or differs:\n %+v\n %+v", asked, got, want)
	}
	lying := Cache{Peek: func(p string) (bool, bool, bool) { return true, false, true }}
	got, want := lying.Analyze(cmd+" ", fx.options()), Analyze(cmd+" ", fx.options())
	if reflect.DeepEqual(got, want) {
		t.Fatalf("an analysis with a Peek that says every file exists is the same as without: Peek is not used")
	}
}

// TestCacheStamps: a hit gives the stamp of the analysis it re-uses; an
// analysis made afresh (the file system answered otherwise, or other
// options) gets a new one; a command the cache does not keep, or has seen
// only once, gets 0.
func TestCacheStamps(t *testing.T) {
	fx := newFixture(t)
	opt := fx.options()
	c := Cache{}
	cmd := "for f in src/*.ts; do wc -l \"$f\"; done"
	if a0, s0 := c.AnalyzeStamped(cmd, opt); s0 != 0 || !reflect.DeepEqual(a0, Analyze(cmd, opt)) {
		t.Fatalf("a command seen once has stamp %d (or another analysis)", s0)
	}
	a1, s1 := c.AnalyzeStamped(cmd, opt)
	a2, s2 := c.AnalyzeStamped(cmd, opt)
	if s1 == 0 || s2 != s1 || !reflect.DeepEqual(a1, a2) {
		t.Fatalf("stamps %d, %d of one analysis", s1, s2)
	}
	if err := os.WriteFile(filepath.Join(fx.cwd, "src", "d.ts"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	a3, s3 := c.AnalyzeStamped(cmd, opt)
	if s3 == 0 || s3 == s1 || reflect.DeepEqual(a3, a1) {
		t.Fatalf("after a change: stamp %d (was %d), analysis changed %v", s3, s1, !reflect.DeepEqual(a3, a1))
	}
	other := opt
	other.Home = fx.root
	if _, s := c.AnalyzeStamped(cmd, other); s != 0 {
		t.Fatalf("other options, seen once: stamp %d", s)
	}
	if _, s := c.AnalyzeStamped(cmd, other); s == 0 || s == s3 || s == s1 {
		t.Fatalf("other options: stamp %d", s)
	}
	long := "echo " + string(make([]byte, maxCachedBytes))
	if _, s := c.AnalyzeStamped(long, opt); s != 0 {
		t.Fatalf("a command not kept has stamp %d", s)
	}
}

// TestCacheKeepsVouchedReads: with a watch, a read asked again (the same)
// after the watch vouched for its directory is not asked again within the
// generation (a change the watch did not report is not seen: the watch's
// word is what it rests on), and is asked again in the next one. A read
// through a symbolic link (its answer is the target's, anywhere) is asked
// every time.
func TestCacheKeepsVouchedReads(t *testing.T) {
	fx := newFixture(t)
	opt := fx.options()
	gen := uint64(1)
	vouched := map[string]int{}
	c := Cache{
		// As the policy watch does: no for a link on the way.
		Vouch: func(dir string) (uint64, bool) {
			vouched[dir]++
			var st syscall.Stat_t
			if real, err := filepath.EvalSymlinks(dir); err != nil || real != dir || syscall.Lstat(dir, &st) != nil {
				return 0, false
			}
			return uint64(st.Dev), true
		},
		Generation: func() uint64 { return gen },
	}
	in := func(p string) string { return filepath.Join(fx.cwd, p) }
	glob := `for f in src/*.ts; do wc -l "$f"; done`
	link := "cat link/*"
	for i := 0; i < 3; i++ { // seen once, kept, then vouched for
		c.Analyze(glob, opt)
		c.Analyze(link, opt)
	}
	if vouched[in("src")] == 0 {
		t.Fatalf("the glob's directory was not vouched for: %v", vouched)
	}
	if err := os.WriteFile(in("src/c.ts"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, want := c.Analyze(glob, opt), Analyze(glob, opt); reflect.DeepEqual(got, want) {
		t.Fatal("a kept listing was asked again within the generation")
	}
	gen++
	if got, want := c.Analyze(glob, opt), Analyze(glob, opt); !reflect.DeepEqual(got, want) {
		t.Fatalf("a new generation did not ask again:\n cache   %+v\n Analyze %+v", got, want)
	}
	// A file created in the link's target: no event in a watched
	// directory, seen all the same.
	before := c.Analyze(link, opt)
	if err := os.WriteFile(filepath.Join(fx.root, "outside", "new.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	got, want := c.Analyze(link, opt), Analyze(link, opt)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("a read through a link was kept:\n cache   %+v\n Analyze %+v", got, want)
	}
	if reflect.DeepEqual(before, want) {
		t.Fatal("the change to the link's target changed no analysis")
	}
}
