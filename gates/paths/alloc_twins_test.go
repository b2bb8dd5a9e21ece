package paths

import (
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestSysLstatIsOSLstat keeps sysLstat (the view's lstat, without os's
// allocations) equal to osLstat (os.Lstat's answer) on every kind of
// entry, mode bit and failure.
func TestSysLstatIsOSLstat(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	must(t, os.WriteFile(file, []byte("x"), 0o640))
	odd := filepath.Join(dir, "odd")
	must(t, os.WriteFile(odd, nil, 0o600))
	must(t, os.Chmod(odd, 0o755|os.ModeSetuid|os.ModeSetgid|os.ModeSticky))
	sub := filepath.Join(dir, "d")
	must(t, os.Mkdir(sub, 0o711))
	link := filepath.Join(dir, "l")
	must(t, os.Symlink("f", link))
	dangling := filepath.Join(dir, "dl")
	must(t, os.Symlink("missing", dangling))
	fifo := filepath.Join(dir, "p")
	must(t, syscall.Mkfifo(fifo, 0o600))
	sock := filepath.Join(dir, "s")
	if l, err := net.Listen("unix", sock); err == nil {
		defer l.Close()
	} else {
		t.Logf("no unix socket (%v): that kind is not compared", err)
	}
	for _, p := range []string{
		dir, file, odd, sub, link, dangling, fifo, sock, "/dev/null", "/",
		filepath.Join(dir, "missing"), filepath.Join(file, "below"), // ENOENT, ENOTDIR
		dir + "/a\x00b", "", // EINVAL, ENOENT
	} {
		got, gerr := sysLstat(p)
		want, werr := osLstat(p)
		if got != want || errKind(gerr) != errKind(werr) {
			t.Errorf("%q: sysLstat = %+v, %v; osLstat = %+v, %v", p, got, gerr, want, werr)
		}
	}
}

// TestLstatSetKeepsEvery keeps the view's list of lstats, and the map it
// becomes past lstatList, answering what was put and nothing else.
func TestLstatSetKeepsEvery(t *testing.T) {
	var s lstatSet
	for n := 0; n < 3*lstatList; n++ {
		p := "/p/" + itoa(n)
		if _, ok := s.get(p); ok {
			t.Fatalf("%s found before it was put", p)
		}
		s.put(p, lstatEntry{ino: uint64(n)})
		for k := 0; k <= n; k++ {
			e, ok := s.get("/p/" + itoa(k))
			if !ok || e.ino != uint64(k) {
				t.Fatalf("after %d puts, /p/%d = %+v, %v", n+1, k, e, ok)
			}
		}
	}
	if s.m == nil {
		t.Errorf("%d entries and still a list", 3*lstatList)
	}
}

// TestWalkerHintIsJoin keeps the walk's strings taken from its hint equal
// to the ones it would build: join to joinAbs, result to the joined tail,
// for hints that spell them, that spell them in part and that do not.
func TestWalkerHintIsJoin(t *testing.T) {
	dirs := []string{"/", "/a", "/a/b", "/ab", "/b"}
	names := []string{"a", "b", "ab", "c"}
	hints := []string{"", "/", "/a", "/a/b", "/a/b/c", "/ab/c", "/a/bc", "/b/a", "/a//b", "/a/b/ab/c"}
	for _, h := range hints {
		for _, d := range dirs {
			w := walker{dir: d, hint: h}
			for _, c := range names {
				if got, want := w.join(c), joinAbs(d, c); got != want {
					t.Errorf("hint %q dir %q: join(%q) = %q, want %q", h, d, c, got, want)
				}
				for _, c2 := range names {
					w.tail = []string{c, c2}
					if got, want := w.result(), joinAbs(d, c+"/"+c2); got != want {
						t.Errorf("hint %q dir %q tail %q: result %q, want %q", h, d, w.tail, got, want)
					}
				}
			}
		}
	}
}

// TestViewKeepsCwdState keeps paths placed through one view, from working
// directories that change between them (a link among them), equal to the
// same paths placed without a view.
func TestViewKeepsCwdState(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	must(t, os.MkdirAll(filepath.Join(real, "sub"), 0o755))
	must(t, os.WriteFile(filepath.Join(real, "f"), nil, 0o644))
	link := filepath.Join(dir, "link")
	must(t, os.Symlink("real", link))
	v := NewView()
	for _, cwd := range []string{real, link, real, link + "/sub", link, filepath.Join(dir, "missing"), real} {
		for _, in := range []string{"f", "sub/../f", "../link/f", "new/file", "/etc/passwd", "."} {
			got, want := v.New(in, "", cwd, "/home/u"), newPath(nil, in, "", cwd, "/home/u")
			if got.Abs != want.Abs || got.Real != want.Real || got.RealKnown != want.RealKnown || got.RealRel != want.RealRel ||
				got.Outside(cwd) != want.Outside(cwd) {
				t.Errorf("cwd %s, %q: view %+v, plain %+v", cwd, in, got, want)
			}
		}
	}
}
