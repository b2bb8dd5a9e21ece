package hook

import (
	"sync"

	"github.com/toolgate/toolgate/gates"
	"github.com/toolgate/toolgate/policy"
	"github.com/toolgate/toolgate/protocol"
)

// approvals are the "allow for this session" rules, in the order given.
type approvals struct {
	mu    sync.RWMutex
	home  string
	rules []*policy.Rule
}

// Record implements gates.SessionRecorder.
func (a *approvals) Record(ps []protocol.SessionPattern) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, p := range ps {
		if a.has(p) {
			continue
		}
		r := policy.Rule{Surface: p.Surface, Pattern: p.Pattern, Action: policy.Allow, Layer: policy.LayerSession,
			Origin: policy.Origin{Scope: policy.ScopeSession}, Exact: p.Exact}
		compiled := policy.NewRuleFrom(r, a.home)
		a.rules = append(a.rules, &compiled)
	}
}

func (a *approvals) has(p protocol.SessionPattern) bool {
	for _, r := range a.rules {
		if r.Surface == p.Surface && r.Pattern == p.Pattern && r.Exact == p.Exact {
			return true
		}
	}
	return false
}

// snapshot returns the rules recorded so far (the slice is never mutated
// in place, so callers may keep it).
func (a *approvals) snapshot() []*policy.Rule {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return a.rules[:len(a.rules):len(a.rules)]
}

func (a *approvals) list() []protocol.SessionRule {
	out := []protocol.SessionRule{}
	for _, r := range a.snapshot() {
		out = append(out, protocol.SessionRule{Surface: r.Surface, Pattern: r.Pattern, Action: "allow", Exact: r.Exact})
	}
	return out
}

func (a *approvals) reset(home string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.rules, a.home = nil, home
}

// resolver applies one policy and the session approvals of the moment.
type resolver struct {
	p       *policy.Policy
	session []*policy.Rule
}

func (r resolver) Resolve(q policy.Query) policy.Result {
	q.Session = r.session
	return r.p.Resolve(q)
}

func (r resolver) HasExplicitPathRule(a policy.Action) bool { return r.p.HasExplicitPathRule(a) }

// BrokenNote says which policy file is broken, for every prompt and block
// reason (gates.noteBroken).
func (r resolver) BrokenNote() string { return r.p.BrokenNote() }

// HasCommandRule reports whether a bash rule of the policy files names the
// command (args[0], with its words) with an action more restrictive than
// above.
func (r resolver) HasCommandRule(args []string, above policy.Action) bool {
	return r.p.HasCommandRule(args, above)
}

func (r resolver) HasNarrowRule(surface string, a policy.Action) bool {
	return r.p.HasNarrowRule(surface, a)
}

// Without is the resolver of the policy without its untrusted project
// files (gates.Sided), nil when there are none.
func (r resolver) Without() gates.Resolver {
	if w := r.p.Without(); w != nil {
		return resolver{p: w, session: r.session}
	}
	return nil
}

// TrustCommand is the command that trusts the untrusted project files.
func (r resolver) TrustCommand() string { return r.p.TrustCommand() }
