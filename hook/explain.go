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
	Wins    bool             `json:"wins"`
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
	params := map[string]any{"toolCallId": "explain", "toolName": tool, "input": input}
	raw, err := json.Marshal(params)
	if err != nil {
		return Explanation{}, err
	}
	var gc *gatesCall
	var res gates.Resolver
	if prof, ok := profileFor(s.opts.Host); ok {
		// A hook host's call, as its adapter recorded it: the engine tool
		// and input, with the host's values and built-in allows.
		ec, err := hostEngineCall(s.opts.Host, tool, input)
		if err != nil {
			return Explanation{}, err
		}
		if gc, err = s.prepareEngineCall(prof, "explain", ec); err != nil {
			return Explanation{}, err
		}
		res = hostResolver{Resolver: resolver{p: gc.policy}, pol: gc.policy, builtin: prof.builtinAllow}
	} else {
		if gc, _, err = s.decodeCall(raw); err != nil {
			return Explanation{}, fmt.Errorf("the call cannot be read: %w", err)
		}
		res = resolver{p: gc.policy}
	}
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
		rules := gc.policy.Matching(e.Surface, values)
		for i, r := range rules {
			o := r.Origin
			m := Match{Surface: r.Surface, Pattern: r.Pattern, Action: r.Action.String(),
				Origin: &protocol.Origin{Scope: o.Scope, Path: o.Path, Line: o.Line}, Wins: i == len(rules)-1}
			if r.IsFallback() {
				m.Pattern = "(fallback \"*\")"
			}
			gm.Rules = append(gm.Rules, m)
		}
		ex.Matches = append(ex.Matches, gm)
	}
	return ex, nil
}

// PolicySources lists the policy files a session in cwd would read.
func PolicySources(opts Options) protocol.PolicyInfo {
	s := New(opts)
	return s.policyInfo(s.currentPolicy())
}
