package shell

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"testing"
)

// mapVars is the plain twin of varTable: one map and the same undo log.
type mapVars struct {
	vals map[string]string
	log  []varChange
}

func (t *mapVars) set(name, value string) {
	old, had := t.vals[name]
	t.log = append(t.log, varChange{name, old, had})
	t.vals[name] = value
}

func (t *mapVars) unset(name string) {
	old, had := t.vals[name]
	if !had {
		return
	}
	t.log = append(t.log, varChange{name, old, had})
	delete(t.vals, name)
}

func (t *mapVars) rollback(mark int) {
	for i := len(t.log) - 1; i >= mark; i-- {
		c := t.log[i]
		if c.had {
			t.vals[c.name] = c.old
		} else {
			delete(t.vals, c.name)
		}
	}
	t.log = t.log[:mark]
}

// TestVarTableIsItsMapTwin runs random sequences of every varTable
// operation, below and past smallVars variables, against a plain map
// with the same undo log: every value, name list and log length must
// agree after each step.
func TestVarTableIsItsMapTwin(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 28))
	for run := range 300 {
		names := 3 + run%20 // few names stay small; many cross smallVars
		var mem topScopeMem
		got := &mem.vars
		got.small = mem.small[:0]
		if run%2 == 1 {
			got = &varTable{} // a child shell's table starts empty
		}
		want := &mapVars{vals: map[string]string{}}
		var marks []int
		for step := range 200 {
			name := fmt.Sprintf("v%d", rng.IntN(names))
			switch op := rng.IntN(10); {
			case op < 5:
				v := fmt.Sprintf("x%d", step)
				got.set(name, v)
				want.set(name, v)
			case op < 7:
				got.unset(name)
				want.unset(name)
			case op == 7:
				marks = append(marks, got.mark())
				if got.mark() != len(want.log) {
					t.Fatalf("run %d step %d: mark %d, twin's log %d", run, step, got.mark(), len(want.log))
				}
			case op == 8 && len(marks) > 0:
				m := marks[len(marks)-1]
				marks = marks[:len(marks)-1]
				got.rollback(m)
				want.rollback(m)
			case op == 9 && rng.IntN(8) == 0:
				got.clear()
				for _, n := range sortedKeys(want.vals) {
					want.unset(n)
				}
				marks = marks[:0]
			}
			if len(got.log) != len(want.log) {
				t.Fatalf("run %d step %d: log %d, twin's %d", run, step, len(got.log), len(want.log))
			}
			for i := range names {
				n := fmt.Sprintf("v%d", i)
				gv, gok := got.get(n)
				wv, wok := want.vals[n]
				if gv != wv || gok != wok {
					t.Fatalf("run %d step %d: %s = %q %v, twin has %q %v", run, step, n, gv, gok, wv, wok)
				}
			}
			if g, w := got.names(), sortedKeys(want.vals); fmt.Sprint(g) != fmt.Sprint(w) {
				t.Fatalf("run %d step %d: names %v, twin's %v", run, step, g, w)
			}
		}
	}
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range maps.Keys(m) {
		keys = append(keys, k)
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}
