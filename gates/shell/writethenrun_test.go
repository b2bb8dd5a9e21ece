package shell

import (
	"testing"
)

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
