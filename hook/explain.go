package hook

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/toolgate/toolgate/gates"
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
	// Confinement is what SPEC §9's confinement can do here.
	Confinement *protocol.Confinement `json:"confinement"`
	// Profile is, for a bash call under "sandbox" on or required, what
	// confinement would give it (and what it would not enforce).
	Profile *sandbox.Profile `json:"profile,omitempty"`
}

// CheckInputJSON says what is wrong with a tool input given as JSON text
// (explain --input, a test case): not JSON, or not an object.
func CheckInputJSON(data []byte) error {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return fmt.Errorf("not valid JSON: %v (at byte %d)", err, se.Offset)
		}
		return fmt.Errorf("not valid JSON: %v", err)
	}
	if _, ok := v.(map[string]any); !ok {
		return fmt.Errorf("must be a JSON object (the tool's input), not %s", jsonKind(v))
	}
	return nil
}

// Explain decides one call as a dry run (the check method) without a
// connection: what `toolgate explain` prints.
func Explain(opts Options, tool string, input json.RawMessage, agent string) (protocol.CheckResult, error) {
	ex, err := ExplainAll(opts, tool, input, agent)
	return ex.CheckResult, err
}

// ExplainAll is Explain with, for every applied gate, each rule that
// matched its value in evaluation order.
func ExplainAll(opts Options, tool string, input json.RawMessage, agent string) (Explanation, error) {
	s := New(opts)
	s.st.agentName = agent
	return s.explain(tool, input)
}

// explain decides one call with the server's state as a dry run.
func (s *Server) explain(tool string, input json.RawMessage) (Explanation, error) {
	if prof, ok := profileFor(s.opts.Host); ok {
		// A host's call, as its adapter maps it: the engine calls, with
		// the host's values and built-in allows; the most restrictive
		// decides, as it answers the host.
		calls, err := prof.calls(tool, input)
		if err != nil {
			return Explanation{}, err
		}
		rank := map[string]int{"allow": 0, "ask": 1, "deny": 2}
		var best Explanation
		for i, ec := range calls {
			gc, err := s.prepareEngineCall(prof, "explain", ec)
			if err != nil {
				return Explanation{}, err
			}
			ex := s.explainCall(gc, hostResolver{Resolver: resolver{p: gc.policy}, pol: gc.policy, builtin: prof.builtinAllow})
			if i == 0 || rank[ex.State] > rank[best.State] {
				best = ex
			}
		}
		return best, nil
	}
	params := map[string]any{"toolCallId": "explain", "toolName": tool, "input": input}
	raw, err := json.Marshal(params)
	if err != nil {
		return Explanation{}, err
	}
	gc, _, err := s.decodeCall(raw)
	if err != nil {
		return Explanation{}, fmt.Errorf("the call cannot be read: %w", err)
	}
	return s.explainCall(gc, resolver{p: gc.policy}), nil
}

// explainCall decides one decoded call with res and lists, for every
// applied gate, the rules that matched its value.
func (s *Server) explainCall(gc *gatesCall, res gates.Resolver) Explanation {
	req := gates.Request{Call: gc.call, Gates: gates.ToolGates, Resolver: res}
	info := s.policyInfo(gc.policy)
	ex := Explanation{CheckResult: gates.Check(req), Matches: []GateMatches{}, Warnings: info.Warnings, Confinement: info.Confinement}
	if gc.call.Shell != nil && gc.policy.Sandbox.Mode == policy.SandboxRequired {
		r := s.unconfinedResult(gc)
		ex.State, ex.Reason, ex.Decision = "deny", r.Reason, r.Decision
	}
	if gc.call.Shell != nil && gc.policy.Sandbox.Mode != policy.SandboxOff {
		if prof, _, err := s.deriveProfile(gc.policy, gc.call.Cwd, os.Getenv, shellWrites(gc)); err == nil {
			ex.Profile = prof
		}
	}
	for _, e := range ex.Trace {
		if !e.Applied || e.Surface == "" {
			continue
		}
		values := e.Forms
		if len(values) == 0 {
			values = []string{e.Value}
		}
		gm := GateMatches{Gate: e.Gate, Surface: e.Surface, Values: values, Rules: []Match{}}
		canon := canonicalSpelling(gc, res, e)
		ps := policy.IsPathSurface(e.Surface)
		for _, r := range gc.policy.SurfaceRules(e.Surface) {
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
func canonicalSpelling(gc *gatesCall, res gates.Resolver, e protocol.TraceEntry) string {
	if e.Gate != protocol.GateTool || e.Surface != "bash" || gc.call.Shell == nil {
		return ""
	}
	for _, u := range gc.call.Shell.Analysis.Units {
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
func PolicySources(opts Options) protocol.PolicyInfo {
	s := New(opts)
	return s.policyInfo(s.currentPolicy())
}
