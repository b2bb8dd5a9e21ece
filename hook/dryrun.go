package hook

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/toolgate/toolgate/gates"
	"github.com/toolgate/toolgate/internal/jsonobj"
	"github.com/toolgate/toolgate/policy"
	"github.com/toolgate/toolgate/protocol"
	"github.com/toolgate/toolgate/sandbox"
)

// DryRun decides calls as a session with its options would, without a
// connection: no prompt, no session approval, no audit record. It is the
// one way the policy authors' tools (package author) reach the session, so
// that what they show is what a host would get.
type DryRun struct{ s *Server }

// NewDryRun is a dry run of a session with opts (opts.Host: decide as
// that host's adapter does).
func NewDryRun(opts Options) *DryRun { return &DryRun{s: New(opts)} }

// Prepared is one call read as a session reads it, with the composed
// policy it is decided under and the resolver that answers its questions.
type Prepared struct {
	Call     *gates.Call
	Policy   *policy.Policy
	Resolver gates.Resolver
}

// Decided is one call decided as a dry run (the check method's result),
// with what it was decided on.
type Decided struct {
	protocol.CheckResult
	Prepared
	// Warnings are the composed policy's warnings (broken files, ignored
	// knobs).
	Warnings []protocol.Warning
	// Confinement is what confinement can do here.
	Confinement *protocol.Confinement
	// Profile is, for a bash call under "sandbox" on or required, what
	// confinement would give it (and what it would not enforce).
	Profile *sandbox.Profile
}

// at puts the dry run's session in cwd ("" for the options' Cwd) as agent.
func (d *DryRun) at(cwd, agent string) {
	if cwd == "" {
		cwd = d.s.opts.Cwd
	}
	d.s.st.cwd, d.s.st.agentName = cwd, agent
}

// Read reads one call of tool with input, in cwd by agent, as a session
// reads a tool_call (a host's adapter aside).
func (d *DryRun) Read(tool string, input json.RawMessage, cwd, agent string) (Prepared, error) {
	d.at(cwd, agent)
	gc, err := d.read(tool, input)
	if err != nil {
		return Prepared{}, err
	}
	return Prepared{Call: gc.call, Policy: gc.policy, Resolver: resolver{p: gc.policy}}, nil
}

func (d *DryRun) read(tool string, input json.RawMessage) (*gatesCall, error) {
	raw, err := json.Marshal(map[string]any{"toolCallId": "explain", "toolName": tool, "input": input})
	if err != nil {
		return nil, err
	}
	gc, _, err := d.s.decodeCall(raw)
	if err != nil {
		return nil, fmt.Errorf("the call cannot be read: %w", err)
	}
	return gc, nil
}

// Decide decides one call of tool with input, in cwd ("" for the
// options' Cwd) by agent, as the options' host sends it: a hook host's
// call as its adapter maps it, the most restrictive of its engine calls
// deciding, as it answers the host.
func (d *DryRun) Decide(tool string, input json.RawMessage, cwd, agent string) (Decided, error) {
	s := d.s
	d.at(cwd, agent)
	if prof, ok := profileFor(s.opts.Host); ok {
		calls, err := prof.Calls(tool, input)
		if err != nil {
			return Decided{}, err
		}
		rank := map[string]int{"allow": 0, "ask": 1, "deny": 2}
		var best Decided
		for i, ec := range calls {
			gc, err := s.prepareEngineCall(prof, "explain", ec)
			if err != nil {
				return Decided{}, err
			}
			dc := s.decideDry(gc, hostResolver{Resolver: resolver{p: gc.policy}, pol: gc.policy, builtin: prof.BuiltinAllow})
			if i == 0 || rank[dc.State] > rank[best.State] {
				best = dc
			}
		}
		return best, nil
	}
	gc, err := d.read(tool, input)
	if err != nil {
		return Decided{}, err
	}
	return s.decideDry(gc, resolver{p: gc.policy}), nil
}

// decideDry decides one decoded call with res as the check method does,
// with the confinement a required sandbox adds.
func (s *Server) decideDry(gc *gatesCall, res gates.Resolver) Decided {
	req := gates.Request{Call: gc.call, Gates: gates.ToolGates, Resolver: res}
	info := s.policyInfo(gc.policy)
	dc := Decided{CheckResult: gates.Check(req), Prepared: Prepared{Call: gc.call, Policy: gc.policy, Resolver: res},
		Warnings: info.Warnings, Confinement: info.Confinement}
	if gc.call.Shell != nil && gc.policy.Sandbox.Mode == policy.SandboxRequired {
		r := s.unconfinedResult(gc)
		dc.State, dc.Reason, dc.Decision = "deny", r.Reason, r.Decision
	}
	if gc.call.Shell != nil && gc.policy.Sandbox.Mode != policy.SandboxOff {
		if prof, _, err := s.deriveProfile(gc.policy, gc.call.Cwd, os.Getenv, shellWrites(gc)); err == nil {
			dc.Profile = prof
		}
	}
	return dc
}

// PolicyAt is the composed policy a session in cwd ("" for the options'
// Cwd) by agent reads.
func (d *DryRun) PolicyAt(cwd, agent string) *policy.Policy {
	d.at(cwd, agent)
	return d.s.currentPolicy()
}

// PolicyInfo is what initialize answers of p: its sources, warnings and
// confinement.
func (d *DryRun) PolicyInfo(p *policy.Policy) protocol.PolicyInfo { return d.s.policyInfo(p) }

// AuditLog is the audit log a session under p writes: --audit-log, else
// the policy's auditLog, else the default.
func (d *DryRun) AuditLog(p *policy.Policy) string { return d.s.auditPath(p) }

// Confinement is what confinement can do for a session under p
// in cwd.
func (d *DryRun) Confinement(p *policy.Policy, cwd string) *protocol.Confinement {
	return d.s.confinement(p, cwd)
}

// DoctorConfinement are doctor's lines on confinement beyond the
// machine's report c: how each host runs bash confined, and the socket
// folders a confined command is kept from (or not).
func (d *DryRun) DoctorConfinement(p *policy.Policy, cwd string, c *protocol.Confinement) []string {
	return d.s.doctorConfinement(p, cwd, c)
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
		return fmt.Errorf("must be a JSON object (the tool's input), not %s", jsonobj.Kind(v))
	}
	return nil
}
