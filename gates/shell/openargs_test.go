package shell

import (
	"os"
	"path/filepath"
	"testing"
)

// TestOpenArgs: a unit is marked when a word after its name (before "--")
// is only known at run time and could start with "-" (so it may be options
// no rule saw); a word whose literal start is not "-" cannot be an option.
func TestOpenArgs(t *testing.T) {
	fx := newFixture(t)
	if err := os.WriteFile(filepath.Join(fx.cwd, "-rf"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	rows := []struct {
		cmd  string
		open bool
	}{
		{`rm $o x`, true},
		{`rm "$@" x`, true},
		{`rm $(echo -rf) x`, true},
		{"rm `echo -rf` x", true},
		{`rm -$X x`, true},
		{`rm ${X}-rf x`, true},
		{`rm -- "$f"`, false},
		{`rm ./"$f"`, false},
		{`rm "src/$f"`, false},
		{`rm -rf x`, false},
		{`O=-rf; rm $O x`, false}, // a known value: the unit reads rm -rf x
		{`rm *`, true},            // the fixture holds a file named -rf
		{`rm -- *`, false},
		{`rm *.txt`, false},
	}
	for _, r := range rows {
		a := Analyze(r.cmd, fx.options())
		found := false
		for _, u := range a.Units {
			if len(u.Args) == 0 || u.Args[0] != "rm" {
				continue
			}
			found = true
			if u.OpenArgs != r.open {
				t.Errorf("%q: unit %q OpenArgs %t, want %t", r.cmd, u.Text, u.OpenArgs, r.open)
			}
		}
		if !found {
			t.Errorf("%q: no rm unit: %+v", r.cmd, a.Units)
		}
	}
}
