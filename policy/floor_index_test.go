package policy

import (
	"fmt"
	"strings"
	"testing"
)

// TestFloorIndexedDecidesAsScan: the trust floor, looked up in the
// trusted rules' index of the surface (resolveFiles), decides every query
// as the plain scan of every trusted rule (Evaluate over trustedRules)
// did: the same floored deny, rule and value, on bash and a path surface,
// with lists long enough to be indexed and short ones.
func TestFloorIndexedDecidesAsScan(t *testing.T) {
	for _, n := range []int{8, 300} {
		var g strings.Builder
		g.WriteString(`{"permission": {"bash": {"*": "allow", "rm *": "deny", "git push --force *": "deny"`)
		for i := 0; i < n; i++ {
			fmt.Fprintf(&g, `, "tool%d sub%d *": "deny", "tool%d ok*": "ask"`, i, i, i)
		}
		g.WriteString(`}, "read": {"*": "allow", "*.env": "deny"`)
		for i := 0; i < n; i++ {
			fmt.Fprintf(&g, `, "/srv/data%d/*": "deny", "/srv/open%d/*": "allow"`, i, i)
		}
		g.WriteString(`}}}`)
		p := composeOK(t, scopeFile(t, ScopeGlobal, g.String()),
			scopeFile(t, ScopeProject, `{"permission": {"bash": {"*": "allow", "tool3 *": "allow"}, "read": {"*": "allow", "/srv/*": "allow"}}}`))
		if !p.floor {
			t.Fatal("the project file contributed no rules: no floor to test")
		}
		queries := []struct {
			surface string
			values  []string
		}{
			{"bash", vals("rm -rf x")}, {"bash", vals("tool3 sub3 go")}, {"bash", vals("tool3 okay")},
			{"bash", vals("git push --force origin")}, {"bash", vals("ls")}, {"bash", vals("tool7 sub8 x")},
			{"read", vals("/srv/data5/x", "data5/x")}, {"read", vals("/srv/open5/x")}, {"read", vals("/p/.env", ".env")},
			{"read", vals("/elsewhere")}, {"read", vals(fmt.Sprintf("/srv/data%d/y", n-1))},
		}
		for round := 0; round < indexAfterUses+1; round++ { // before and after the lists are indexed
			for _, q := range queries {
				got := p.resolveFiles(p.surfaceSet(q.surface), q.surface, q.values, nil)
				plain := p.resolveFilesPlainFloor(q.surface, q.values)
				if got.Floored != plain.Floored || got.Action != plain.Action || got.Rule != plain.Rule || got.Value != plain.Value {
					t.Errorf("n=%d round %d %s %q: got %v %v %q floored=%v, the scan %v %v %q floored=%v", n, round, q.surface, q.values,
						got.Action, got.Rule, got.Value, got.Floored, plain.Action, plain.Rule, plain.Value, plain.Floored)
				}
			}
		}
	}
}

// resolveFilesPlainFloor is resolveFiles without the canonical pass, its
// trust floor found by scanning every trusted rule (as it once was).
func (p *Policy) resolveFilesPlainFloor(surface string, values []string) Result {
	set := p.surfaceSet(surface)
	at, v := evaluateOnAt(surface, values, set.rules)
	r := set.rules[at]
	res := Result{Action: r.Action, Rule: r, Value: v}
	if p.floor && res.Action != Deny {
		if t, tv := Evaluate(surface, values, p.trustedRules()); t != nil && t.Action == Deny {
			res = Result{Action: Deny, Rule: t, Value: tv, Floored: true}
		}
	}
	return res
}
