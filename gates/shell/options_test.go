package shell

import (
	"slices"
	"strings"
	"testing"
)

// scanArgs finds the same options and operands whether the operands stand
// together (a window of the words) or are split by options (a copy), and
// an append to the operands never writes into the words.
func TestScanArgs(t *testing.T) {
	o := opts{arg: "n", long: []string{"--max"}}
	for _, c := range []struct{ words, options, operands string }{
		{"", "", ""},
		{"a b", "", "a b"},
		{"-la x y", "-l -a", "x y"},
		{"x -n 3 y", "-n=3", "x y"},
		{"x -l y -a z", "-l -a", "x y z"},
		{"-l -- -a b", "-l", "-a b"},
		{"x -- -a b", "", "x -a b"},
		{"x -l y -- -a", "-l", "x y -a"},
		{"--max 2 x --all", "--max=2 --all", "x"},
		{"x --", "", "x"},
		{"a b -l", "-l", "a b"},
	} {
		var args []field
		for _, w := range strings.Fields(c.words) {
			args = append(args, literalField(w))
		}
		before := slices.Clone(args)
		list, ops := scanArgs(o, args)
		var names, values []string
		for _, op := range list {
			n := op.name
			if op.has {
				n += "=" + op.value.value
			}
			names = append(names, n)
		}
		for _, f := range ops {
			values = append(values, f.value)
		}
		if got := strings.Join(names, " "); got != c.options {
			t.Errorf("%q: options %q, want %q", c.words, got, c.options)
		}
		if got := strings.Join(values, " "); got != c.operands {
			t.Errorf("%q: operands %q, want %q", c.words, got, c.operands)
		}
		_ = append(ops, literalField("appended"))
		if !slices.EqualFunc(args, before, func(a, b field) bool { return a.value == b.value }) {
			t.Errorf("%q: appending to the operands changed the words", c.words)
		}
	}
}
