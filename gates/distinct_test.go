package gates

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/policy"
)

// distinct keeps the first of each value, in order, before and after it
// starts keeping an index.
func TestDistinct(t *testing.T) {
	var d distinct[string]
	var want []string
	for i := range 3 * distinctIndexAt {
		v := fmt.Sprint(i % (2 * distinctIndexAt))
		if got, first := d.add(v), !slices.Contains(want, v); got != first {
			t.Fatalf("add(%q) = %v, want %v", v, got, first)
		}
		if !slices.Contains(want, v) {
			want = append(want, v)
		}
	}
	if !slices.Equal(d.list, want) {
		t.Fatalf("list %v, want %v", d.list, want)
	}
}

// The bash gates' work grows with the number of units and path words of
// a command, not with its square: a 64 KiB command of distinct commands
// that ask, inside and outside the project, took seconds when every unit
// of the prompt looked at every unit again. Allocations count the work,
// not the clock: twice the units may cost at most 2.5 times as much.
func TestBashGatesLinearInUnits(t *testing.T) {
	s := newSandbox(t)
	r := compose(t, s.home, `{"permission": {"*": "ask", "bash": {"*": "ask"}, "external_directory": {"*": "ask"}, "path": {"*": "ask"}}}`)
	gates := []struct {
		name string
		gate func(*Call, Resolver) Outcome
	}{{"tool", Tool}, {"external directory", BashExternalDirectory}, {"path", BashPath}}
	call := func(n int) *Call {
		var sb strings.Builder
		for i := range n {
			fmt.Fprintf(&sb, "echo w%d; cat %s\n", i, filepath.Join(s.outside, fmt.Sprintf("f%d", i)))
		}
		cmd := sb.String()
		c := s.bash(cmd)
		if len(c.Shell.Analysis.Units) != 2*n {
			t.Fatalf("%d units, want %d", len(c.Shell.Analysis.Units), 2*n)
		}
		return c
	}
	small, large := call(300), call(600)
	for _, g := range gates {
		o := g.gate(large, r)
		if o.D.State != policy.Ask {
			t.Fatalf("%s gate: %s, want ask", g.name, o.D.State)
		}
		cost := func(c *Call) float64 { return testing.AllocsPerRun(3, func() { g.gate(c, r) }) }
		if a, b := cost(small), cost(large); b > 2.5*a {
			t.Errorf("%s gate: %.0f allocations for 600 units, %.0f for 300: more than linear", g.name, b, a)
		}
	}
	// The prompt still names every unit that asks, and the session
	// patterns are there, each once.
	o := Tool(large, r)
	if n := strings.Count(o.D.Prompt.Message, "\n  - "); n != 1200 {
		t.Errorf("the prompt names %d units that ask, want 1200", n)
	}
	ps := o.D.SessionPatterns
	if len(ps) == 0 || len(slices.Compact(slices.Clone(ps))) != len(ps) {
		t.Errorf("session patterns %v: want some, none repeated", ps)
	}
}
