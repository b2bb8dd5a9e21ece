package gates

import (
	"fmt"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/gates/paths"
	"github.com/toolgate/toolgate/gates/shell"
	"github.com/toolgate/toolgate/policy"
)

// countingResolver counts the questions put to the policy, by surface and
// values.
type countingResolver struct {
	testResolver
	asked map[string]int
}

func (c *countingResolver) Resolve(q policy.Query) policy.Result {
	c.asked[fmt.Sprintf("%s %q", q.Surface, q.Values)]++
	return c.testResolver.Resolve(q)
}

// TestPathQuestionsAskedOnce: a path whose real forms are its spelled ones
// (no link on the way) puts one question to the policy per surface, not
// two; a path through a link still puts both, and the more restrictive
// answer decides, as it did when both were always asked.
func TestPathQuestionsAskedOnce(t *testing.T) {
	s := newSandbox(t)
	base := compose(t, s.home, s.expand(`{"permission": {"*": "allow", "read": {"*": "allow", "$OUTSIDE/*": "deny"},
		"path": {"*.env": "deny"}, "external_directory": {"*": "ask", "$OUTSIDE/*": "allow"}}}`))
	for _, c := range []struct {
		input        string
		surface      string
		wantAsked    int
		wantAction   policy.Action
		wantExplicit bool
	}{
		{"src/a.ts", "read", 1, policy.Allow, false},
		{"link/x.txt", "read", 2, policy.Deny, false},
		{".env", "path", 1, policy.Deny, true},
		{"link/x.txt", "path", 2, policy.Allow, false},
		{s.outside + "/x.txt", "external_directory", 1, policy.Allow, false},
		{"link/x.txt", "external_directory", 2, policy.Ask, false},
	} {
		r := &countingResolver{testResolver: base, asked: map[string]int{}}
		p := paths.NewView().New(c.input, "", s.work, s.home)
		var res policy.Result
		if c.surface == "path" {
			var ok bool
			res, ok = explicitPath(r, p)
			if ok != c.wantExplicit {
				t.Errorf("%s: explicit %v, want %v", c.input, ok, c.wantExplicit)
			}
			if !ok {
				res.Action = policy.Allow // no explicit rule: the path surface says nothing
			}
		} else {
			res, _ = resolvePath(r, c.surface, p)
		}
		total := 0
		for q, n := range r.asked {
			if n > 1 {
				t.Errorf("%s on %s: %s asked %d times", c.input, c.surface, q, n)
			}
			total += n
		}
		if total != c.wantAsked {
			t.Errorf("%s on %s: %d questions (%v), want %d", c.input, c.surface, total, r.asked, c.wantAsked)
		}
		if res.Action != c.wantAction {
			t.Errorf("%s on %s: %v, want %v", c.input, c.surface, res.Action, c.wantAction)
		}
	}
}

// TestBashOutsidePathAskedOnce: a path word of a command outside the
// working directory, its location known, is decided on
// external_directory by its identities alone (one question when it has
// no link), not also as a word of unknown location.
func TestBashOutsidePathAskedOnce(t *testing.T) {
	s := newSandbox(t)
	base := compose(t, s.home, s.expand(`{"permission": {"*": "allow", "external_directory": {"*": "ask", "$OUTSIDE/*": "allow"}}}`))
	r := &countingResolver{testResolver: base, asked: map[string]int{}}
	cmd := "cat " + s.outside + "/x.txt"
	c := s.call("bash", map[string]any{"command": cmd})
	c.Shell = &ShellCommand{Command: cmd, Analysis: shell.Analyze(cmd, shell.Options{Cwd: s.work, Home: s.home})}
	o := BashExternalDirectory(c, r)
	if o.Kind != Checked || o.D.State != policy.Allow {
		t.Fatalf("outcome %+v", o)
	}
	n := 0
	for q, k := range r.asked {
		if strings.HasPrefix(q, "external_directory ") {
			n += k
		}
	}
	if n != 1 {
		t.Errorf("%d external_directory questions, want 1: %v", n, r.asked)
	}
}
