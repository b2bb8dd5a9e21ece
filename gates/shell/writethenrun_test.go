package shell

import (
	"path/filepath"
	"testing"
)

// TestNamesNotedIsAbsForms: namesNoted (the scratch-buffer lookup and its
// base-name gate, mayNameWritten) finds a written or executable file for
// exactly the words whose absolute forms (absForms) name one, in clean
// and unclean directories, for clean, climbing, dotted and absolute words.
func TestNamesNotedIsAbsForms(t *testing.T) {
	files := []string{"/w/run.sh", "/w/sub/a.py", "/a.sh", "/w/x/../y.sh", "/w/Makefile"}
	words := []string{"run.sh", "./run.sh", "sub/a.py", "sub/../run.sh", "../w/run.sh", "a.sh", "/a.sh", "//a.sh",
		"/w/run.sh", "/w/./run.sh", "y.sh", "Makefile", "sub/", "sub/a.py/", ".", "..", "run", "a.py", "x/../y.sh"}
	dirSets := [][]string{{"/w"}, {"/w/sub"}, {"/"}, {"/w", "/w/sub"}, {"", "/w"}, {"/w/"}, {"/w/./sub/.."}, {"/x/../w"}}
	for _, exec := range []bool{false, true} {
		a := newAnalyzer(Options{})
		for _, f := range files {
			p := filepath.Clean(f)
			if exec {
				if a.executable == nil {
					a.executable = map[string]bool{}
				}
				a.executable[p] = true
				a.noteName(p, nameExecutable)
			} else {
				if a.written == nil {
					a.written = map[string]bool{}
				}
				a.written[p] = true
				a.noteName(p, nameWritten)
			}
		}
		for _, dirs := range dirSets {
			sc := &scope{dirs: dirs}
			for _, v := range words {
				for _, written := range []bool{true, false} {
					want := false
					for _, p := range absForms(v, sc) {
						if written && a.written[p] || a.executable[p] {
							want = true
						}
					}
					got := a.mayNameWritten(v) && a.namesNoted(v, sc, written)
					if got != want {
						t.Errorf("exec=%v dirs %q word %q written=%v: got %v, absForms say %v", exec, dirs, v, written, got, want)
					}
				}
			}
		}
	}
}

// TestWriteThenRunFloors: a command that writes a file and then runs it,
// or gives it to a program that runs it, is floored as foreign code by
// every spelling of the file's name; a file it did not write is not.
func TestWriteThenRunFloors(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		cmd    string
		floors bool
	}{
		{"echo x > run.sh && bash run.sh", true},
		{"echo x > run.sh && bash ./run.sh", true},
		{"echo x > run.sh && bash " + dir + "/run.sh", true},
		{"echo x > sub/run.sh && cd sub && sh run.sh", true},
		{"echo x > sub/run.sh && sh sub/../sub/run.sh", true},
		{"echo x > run.sh && chmod +x run.sh && ./run.sh", true},
		{"cp a.py b.py && python3 b.py", true},
		{"echo x > run.sh && bash other.sh", false},
		{"echo x > run.sh && cat run.sh", false},
	}
	for _, c := range cases {
		a := Analyze(c.cmd, Options{Cwd: dir, Home: "/home/u"})
		got := false
		for _, u := range a.Units {
			if u.Floor == SentinelForeign && u.Lang == "a file this command wrote" {
				got = true
			}
		}
		if got != c.floors {
			t.Errorf("%q: floored as running a written file = %v, want %v (units %+v)", c.cmd, got, c.floors, a.Units)
		}
	}
}
