package hook

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/toolgate/toolgate/gates"
	"github.com/toolgate/toolgate/hook/hosts"
	"github.com/toolgate/toolgate/policy"
	"github.com/toolgate/toolgate/protocol"
)

// Host names, as the audit log records them.
const (
	HostClaudeCode = hosts.ClaudeCode
	HostGeminiCLI  = hosts.GeminiCLI
	HostCodex      = hosts.Codex
	HostCopilotCLI = hosts.CopilotCLI
	HostQwenCode   = hosts.QwenCode
	HostOpenCode   = hosts.OpenCode
)

// IsHost reports whether name is a host toolgate maps the tool calls of
// (the hook hosts, and OpenCode, whose plugin maps them the same way).
func IsHost(name string) bool { _, ok := profileFor(name); return ok }

// HostNames are the hosts a call can be decided as (explain --host, a
// test case's "host"): the hook hosts, and the hosts that speak the
// protocol.
var HostNames = []string{"pi", HostClaudeCode, HostGeminiCLI, HostOpenCode, HostCodex, HostCopilotCLI, HostQwenCode}

// KnownHost reports whether name is one of HostNames.
func KnownHost(name string) bool { return slices.Contains(HostNames, name) }

func profileFor(host string) (hosts.Profile, bool) {
	switch host {
	case HostClaudeCode:
		return hosts.ClaudeProfile, true
	case HostGeminiCLI:
		return hosts.GeminiProfile, true
	case HostCodex:
		return hosts.CodexProfile, true
	case HostCopilotCLI:
		return hosts.CopilotProfile, true
	case HostQwenCode:
		return hosts.QwenProfile, true
	case HostOpenCode:
		return hosts.OpenCodeProfile, true
	}
	return hosts.Profile{}, false
}

// hostResolver decides a hook host's queries: MCP candidates as forms of
// one target, and a host's built-in allow where the policy has nothing to
// say (the winning rule is the fallback, no trust floor decided, and no
// broken file clamped the policy).
type hostResolver struct {
	gates.Resolver
	pol     *policy.Policy
	builtin map[string]bool
}

// BrokenNote says which policy file is broken, for every ask and block
// reason a host gets while one is (the embedded Resolver's own method is
// not promoted through the interface).
func (r hostResolver) BrokenNote() string { return r.pol.BrokenNote() }

func (r hostResolver) Resolve(q policy.Query) policy.Result {
	// MCP targets are forms of one target: the last rule that
	// matches any of them wins, so "github:delete_repo": "deny" holds
	// after an "*" that asks.
	q.FirstCandidate = false
	res := r.Resolver.Resolve(q)
	if !r.builtin[q.Surface] || !res.Rule.IsFallback() || res.Floored || r.pol.Clamped {
		return res
	}
	b := policy.NewRule(q.Surface, "*", policy.Allow, policy.LayerBaseline, policy.Origin{Scope: policy.ScopeBuiltin}, r.pol.Home())
	return policy.Result{Action: policy.Allow, Rule: &b, Value: res.Value}
}

// Without is the host resolver of the policy without its untrusted
// project files (gates.Sided), nil when there are none.
func (r hostResolver) Without() gates.Resolver {
	w := r.pol.Without()
	if w == nil {
		return nil
	}
	// The without side resolves on the policy without the untrusted
	// files, whatever the inner resolver is (never on the side with them).
	var inner gates.Resolver = resolver{p: w}
	if s, ok := r.Resolver.(gates.Sided); ok {
		if x := s.Without(); x != nil {
			inner = x
		}
	}
	return hostResolver{Resolver: inner, pol: w, builtin: r.builtin}
}

// TrustCommand is the command that trusts the untrusted project files.
func (r hostResolver) TrustCommand() string { return r.pol.TrustCommand() }

// hostDecision is the engine's answer to one engine call.
type hostDecision struct {
	call hosts.Call
	id   string
	res  protocol.CheckResult
	gc   *gatesCall
	// confined is the command line that runs the call confined (set by
	// confine); unconfined is set for a bash call that runs without
	// confinement although the policy's sandbox is on (the audit log
	// says so).
	confined   string
	unconfined bool
}

// decideEngineCall decides one engine call of a host, as a dry run: a hook
// host shows the ask itself.
func (s *Server) decideEngineCall(prof hosts.Profile, id string, ec hosts.Call) (hostDecision, error) {
	gc, err := s.prepareEngineCall(prof, id, ec)
	if err != nil {
		return hostDecision{}, err
	}
	res := gates.Check(gates.Request{Call: gc.call, Gates: gates.ToolGates,
		Resolver: hostResolver{Resolver: resolver{p: gc.policy}, pol: gc.policy, builtin: prof.BuiltinAllow}})
	if res.State != "allow" && res.State != "ask" && res.State != "deny" {
		return hostDecision{}, fmt.Errorf("no decision for %s", ec.Tool)
	}
	if res.State != "allow" && res.Reason == "" {
		res.Reason = fmt.Sprintf("toolgate: the %s call is blocked (fail-closed): no gate gave a reason", ec.Tool)
	}
	if gc.call.Shell != nil && gc.policy.Sandbox.Mode == policy.SandboxRequired && res.State != "deny" &&
		!s.hostConfines(prof, ec) {
		r := s.unconfinedResult(gc)
		res.State, res.Reason, res.Decision = "deny", r.Reason, r.Decision
	}
	return hostDecision{call: ec, id: id, res: res, gc: gc}, nil
}

// audit writes the decision with the action the host was given (which a
// host's mode may have made stricter than the engine's state).
func (s *Server) auditHostDecision(d hostDecision, action, reason string) error {
	dec := d.res.Decision
	if dec == nil {
		dec = &protocol.Decision{}
	}
	return (reporter{s: s}).Audit(gates.AuditRecord{Event: "decision", ToolCallID: d.id, ToolName: d.call.Tool,
		Action: action, Reason: reason, Resolution: dec.Resolution, Gate: dec.Gate, Surface: dec.Surface, Value: dec.Value,
		State: d.res.State, MatchedPattern: dec.MatchedPattern, Origin: dec.Origin, Trace: d.res.Trace, Input: d.gc.input, Cwd: d.gc.call.Cwd,
		Unconfined: d.unconfined && action != "deny"})
}

// prepareEngineCall decodes an engine call like a tool_call and applies
// the host's profile: the value of a host tool, a shell tool's workdir.
func (s *Server) prepareEngineCall(prof hosts.Profile, id string, ec hosts.Call) (*gatesCall, error) {
	if id == "" {
		id = prof.Name
	}
	raw, err := json.Marshal(map[string]any{"toolCallId": id, "toolName": ec.Tool, "input": ec.Input})
	if err != nil {
		return nil, err
	}
	gc, _, err := s.decodeCall(raw)
	if err != nil {
		return nil, fmt.Errorf("the tool call cannot be read: %w", err)
	}
	if f, ok := prof.Values[ec.Tool]; ok && gc.call.Shell == nil {
		gc.call.Value = f(ec.Input)
	}
	if ec.Workdir != "" && gc.call.Shell != nil {
		gc.call.Shell = analyzeShell(&s.shells, gc.call.Shell.Command, ec.Workdir, gc.call.Cwd, s.opts.Home)
	}
	return gc, nil
}

// mostRestrictive is the decision that decides a host event made of
// several engine calls: the first deny, else the first ask, else allow.
func mostRestrictive(ds []hostDecision) hostDecision {
	rank := map[string]int{"allow": 0, "ask": 1, "deny": 2}
	best := ds[0]
	for _, d := range ds[1:] {
		if rank[d.res.State] > rank[best.res.State] {
			best = d
		}
	}
	return best
}

// hostProtected are the files beyond pi's that no call may change unasked:
// toolgate's own policy files, and the settings where a hook host is told
// to run toolgate (a call that could rewrite them could turn toolgate off).
func (s *Server) hostProtected(cwd string) []string {
	var out []string
	home := s.opts.Home
	if s.opts.ConfigHome != "" || home != "" {
		out = append(out, filepath.Dir(policy.ToolgateGlobalPath(s.opts.ConfigHome, home)))
	}
	if cwd != "" {
		out = append(out, filepath.Dir(policy.ToolgateProjectPath(cwd)))
	}
	prof, _ := profileFor(s.opts.Host)
	for _, f := range prof.ProjectSettings {
		if cwd != "" {
			out = append(out, filepath.Join(cwd, f))
		}
	}
	for _, f := range prof.UserSettings {
		if home != "" {
			out = append(out, filepath.Join(home, f))
		}
	}
	return out
}

// decideAll decides every engine call of one host event, with adjust
// (when set) applied to each decision before it is confined and recorded
// (Claude Code's sandbox autoAllow), and audits each with the answer the
// host was given (answer maps toolgate's state and reason to the host's).
// It returns the most restrictive decision, which answers, and every
// decision.
func (s *Server) decideAll(prof hosts.Profile, id string, calls []hosts.Call, answer func(state, reason string) (string, string), adjust func(*hostDecision)) (hostDecision, []hostDecision, error) {
	var ds []hostDecision
	for _, ec := range calls {
		d, err := s.decideEngineCall(prof, id, ec)
		if err != nil {
			return hostDecision{}, nil, err
		}
		if adjust != nil {
			adjust(&d)
		}
		ds = append(ds, d)
	}
	if len(ds) == 0 {
		return hostDecision{}, nil, fmt.Errorf("the tool call maps to nothing toolgate can decide")
	}
	for i := range ds {
		action, _ := answer(ds[i].res.State, ds[i].res.Reason)
		s.confine(prof, &ds[i], action)
		d := ds[i]
		action, reason := answer(d.res.State, d.res.Reason)
		if err := s.auditHostDecision(d, action, reason); err != nil {
			return hostDecision{}, nil, err
		}
	}
	return mostRestrictive(ds), ds, nil
}
