package gates

import (
	"strings"
	"testing"

	"github.com/toolgate/toolgate/gates/shell"
	"github.com/toolgate/toolgate/policy"
)

// Foreign code: a unit that runs code in another language is
// asked, with the code in the prompt, unless a rule names the program
// with its code option; a wildcard that merely covers it, the fallback and
// yolo do not lift the floor; an exact session approval does; a deny
// still denies, inside awk's system() too.
func TestForeignCodeFloor(t *testing.T) {
	s := newSandbox(t)
	const code = `python3 -c 'import os; os.system("touch marker")'`
	const unit = `python3 -c import os; os.system("touch marker")`
	for _, c := range []struct {
		name, policy, cmd string
		session           string // an exact session approval of this unit
		want              policy.Action
		sentinel          string
	}{
		{"catch-all allow", `{"permission": {"bash": {"*": "allow"}}}`, code, "", policy.Ask, shell.SentinelForeign},
		{"program wildcard", `{"permission": {"bash": {"*": "allow", "python3 *": "allow"}}}`, code, "", policy.Ask, shell.SentinelForeign},
		{"wildcard program name", `{"permission": {"bash": {"*": "allow", "python* -c *": "allow"}}}`, code, "", policy.Ask, shell.SentinelForeign},
		{"yolo", `{"yoloMode": true, "permission": {"bash": {"*": "ask"}}}`, code, "", policy.Ask, shell.SentinelForeign},
		{"named with its code option", `{"permission": {"bash": {"*": "ask", "python3 -c *": "allow"}}}`, code, "", policy.Allow, ""},
		{"named, by path", `{"permission": {"bash": {"*": "allow", "python3 -c *": "allow"}}}`, `/usr/bin/python3 -c 'print(1)'`, "", policy.Allow, ""},
		{"named, asked as written", `{"permission": {"bash": {"*": "allow", "python3 -c *": "ask"}}}`, code, "", policy.Ask, ""},
		{"named with another option", `{"permission": {"bash": {"*": "ask", "python3 -m *": "allow"}}}`, code, "", policy.Ask, ""},
		{"a cluster ending in the code option", `{"permission": {"bash": {"*": "ask", "perl -ne *": "allow"}}}`, `perl -ne 'print' f`, "", policy.Allow, ""},
		{"deny still denies", `{"permission": {"bash": {"*": "allow", "python3 *": "deny"}}}`, code, "", policy.Deny, ""},
		{"exact session approval", `{"permission": {"bash": {"*": "allow"}}}`, code, unit, policy.Allow, ""},
		{"stdin code: no rule names it", `{"permission": {"bash": {"*": "ask", "python3 -c *": "allow", "python3 *": "allow"}}}`, "python3 - <<'EOF'\nprint(1)\nEOF", "", policy.Ask, shell.SentinelForeign},
		{"awk system(): a deny inside", `{"permission": {"bash": {"*": "allow", "rm -rf *": "deny"}}}`, `awk 'BEGIN{system("rm -rf ~/x")}'`, "", policy.Deny, ""},
		{"awk system(): asked", `{"permission": {"bash": {"*": "allow"}}}`, `awk 'BEGIN{system("touch marker")}'`, "", policy.Ask, shell.SentinelForeign},
		{"plain awk", `{"permission": {"bash": {"*": "allow"}}}`, `awk '{print $1}' src/a.ts`, "", policy.Allow, ""},
		{"write then run", `{"permission": {"bash": {"*": "allow"}}}`, `echo 'touch m' > h.sh; chmod +x h.sh; prog --hook=./h.sh`, "", policy.Ask, shell.SentinelForeign},
		{"build output then run", `{"permission": {"bash": {"*": "allow"}}}`, `go build -o bin/app . && ./bin/app`, "", policy.Allow, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := compose(t, s.home, c.policy)
			if c.session != "" {
				sr := policy.NewRuleFrom(policy.Rule{Surface: "bash", Pattern: c.session, Action: policy.Allow,
					Layer: policy.LayerSession, Origin: policy.Origin{Scope: policy.ScopeSession}, Exact: true}, s.home)
				r.session = []*policy.Rule{&sr}
			}
			o := Tool(s.bash(c.cmd), r)
			if o.D.State != c.want || o.D.Sentinel != c.sentinel {
				t.Fatalf("%s: %v %q, want %v %q", c.cmd, o.D.State, o.D.Sentinel, c.want, c.sentinel)
			}
			if o.D.State == policy.Ask && !strings.Contains(o.D.Prompt.Message, "touch marker") && strings.Contains(c.cmd, "touch marker") {
				t.Errorf("the prompt does not show the code: %s", o.D.Prompt.Message)
			}
		})
	}
}
