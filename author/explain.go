// Package author holds the policy authors' tools (explain, test, suggest,
// replay, validate, doctor): they decide calls through a dry run of the
// session (hook.DryRun) and say why, apart from the code that serves a
// host.
package author

import (
	"encoding/json"

	"github.com/toolgate/toolgate/gates"
	"github.com/toolgate/toolgate/hook"
	"github.com/toolgate/toolgate/policy"
	"github.com/toolgate/toolgate/protocol"
	"github.com/toolgate/toolgate/sandbox"
)

// Match is one rule that matched a gate's value, for explain.
type Match struct {
	Surface string           `json:"surface"`
	Pattern string           `json:"pattern"`
	Action  string           `json:"action"`
	Origin  *protocol.Origin `json:"origin"`
	// Wins marks the rule that decided the gate's value (none when a
	// session approval or a floor did).
	Wins bool `json:"wins"`
	// MatchedAs is the spelling the rule matched when it is not the value
	// as written: the canonical spelling of a bash unit's options.
	MatchedAs string `json:"matchedAs,omitempty"`
}

// GateMatches lists the rules that matched one applied gate's value.
type GateMatches struct {
	Gate    string   `json:"gate"`
	Surface string   `json:"surface"`
	Values  []string `json:"values"`
	Rules   []Match  `json:"rules"`
}

// Explanation is a check result with every matching rule.
type Explanation struct {
	protocol.CheckResult
	Matches []GateMatches `json:"matches"`
	// Warnings are the composed policy's warnings (broken files, ignored
	// knobs), which explain shows first.
	Warnings []protocol.Warning `json:"warnings"`
	// Confinement is what confinement can do here.
	Confinement *protocol.Confinement `json:"confinement"`
	// Profile is, for a bash call under "sandbox" on or required, what
	// confinement would give it (and what it would not enforce).
	Profile *sandbox.Profile `json:"profile,omitempty"`
}

// Explain decides one call as a dry run (the check method) without a
// connection: what `toolgate explain` prints.
func Explain(opts hook.Options, tool string, input json.RawMessage, agent string) (protocol.CheckResult, error) {
	ex, err := ExplainAll(opts, tool, input, agent)
	return ex.CheckResult, err
}

// ExplainAll is Explain with, for every applied gate, each rule that
// matched its value in evaluation order.
func ExplainAll(opts hook.Options, tool string, input json.RawMessage, agent string) (Explanation, error) {
	return explain(hook.NewDryRun(opts), tool, input, "", agent)
}

// explain decides one call with dr and lists the rules that matched.
func explain(dr *hook.DryRun, tool string, input json.RawMessage, cwd, agent string) (Explanation, error) {
	dc, err := dr.Decide(tool, input, cwd, agent)
	if err != nil {
		return Explanation{}, err
	}
	return explanation(dc), nil
}

// explanation is a decided call with, for every applied gate, the rules
// that matched its value.
func explanation(dc hook.Decided) Explanation {
	ex := Explanation{CheckResult: dc.CheckResult, Matches: []GateMatches{}, Warnings: dc.Warnings, Confinement: dc.Confinement, Profile: dc.Profile}
	for _, e := range ex.Trace {
		if !e.Applied || e.Surface == "" {
			continue
		}
		values := e.Forms
		if len(values) == 0 {
			values = []string{e.Value}
		}
		gm := GateMatches{Gate: e.Gate, Surface: e.Surface, Values: values, Rules: []Match{}}
		canon := canonicalSpelling(dc.Call, dc.Resolver, e)
		ps := policy.IsPathSurface(e.Surface)
		for _, r := range dc.Policy.SurfaceRules(e.Surface) {
			wins := decided(r, e)
			matches := false
			for _, v := range values {
				matches = matches || r.MatchesValue(v, ps)
			}
			if !matches && !wins {
				continue
			}
			o := r.Origin
			m := Match{Surface: r.Surface, Pattern: r.Pattern, Action: r.Action.String(),
				Origin: &protocol.Origin{Scope: o.Scope, Path: o.Path, Line: o.Line}, Wins: wins}
			if wins && !matches {
				m.MatchedAs = canon
			}
			if r.IsFallback() {
				m.Pattern = "(fallback \"*\")"
			}
			gm.Rules = append(gm.Rules, m)
		}
		ex.Matches = append(ex.Matches, gm)
	}
	return ex
}

// decided reports whether r is the rule the trace entry names as deciding
// (by its pattern and origin; the fallback has no pattern).
func decided(r *policy.Rule, e protocol.TraceEntry) bool {
	if e.Origin == nil || r.Origin.Scope != e.Origin.Scope || r.Origin.Path != e.Origin.Path || r.Origin.Line != e.Origin.Line {
		return false
	}
	if e.MatchedPattern == nil {
		return r.IsFallback()
	}
	return r.Pattern == *e.MatchedPattern && !r.IsFallback()
}

// canonicalSpelling is the spelling the tool gate's bash unit e was
// decided in when that is the canonical spelling of its options, else "".
func canonicalSpelling(call *gates.Call, res gates.Resolver, e protocol.TraceEntry) string {
	if e.Gate != protocol.GateTool || e.Surface != "bash" || call.Shell == nil {
		return ""
	}
	for _, u := range call.Shell.Analysis.Units {
		if u.Text != e.Value {
			continue
		}
		if r := res.Resolve(policy.Query{Surface: "bash", Values: []string{u.Text}, Args: u.Args}); r.Canonical {
			return r.Value
		}
	}
	return ""
}

// PolicySources lists the policy files a session in cwd would read.
func PolicySources(opts hook.Options) protocol.PolicyInfo {
	dr := hook.NewDryRun(opts)
	return dr.PolicyInfo(dr.PolicyAt("", ""))
}
