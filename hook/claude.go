package hook

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"strings"

	"github.com/toolgate/toolgate/gates"
	"github.com/toolgate/toolgate/hook/hosts"
	"github.com/toolgate/toolgate/internal/jsonobj"
	"github.com/toolgate/toolgate/protocol"
)

// This file drives the Claude Code adapter (its mapping is in hosts): a
// PreToolUse / UserPromptSubmit command hook, one process per event. It
// turns the event into engine calls and the engine's decision into Claude
// Code's hook answer.

// ClaudeHook answers one Claude Code hook event (PreToolUse or
// UserPromptSubmit) read from in, with the same engine as serve. Any error
// is returned, and the caller exits 2, which Claude Code treats as a block.
func ClaudeHook(opts Options, in io.Reader, out io.Writer) error {
	data, err := readHookEvent(in)
	if err != nil {
		return err
	}
	var ev hosts.ClaudeEvent
	if err := protocol.Unmarshal(data, &ev, ""); err != nil {
		return fmt.Errorf("the hook event cannot be read: %w", err)
	}
	s, err := hookServer(opts, HostClaudeCode, ev.Cwd, ev.SessionID)
	if err != nil {
		return err
	}
	defer s.closeAudit()
	switch ev.HookEventName {
	case "PreToolUse":
		err = s.claudePreToolUse(ev, out)
	case "UserPromptSubmit":
		err = s.claudePrompt(ev, out)
	default:
		return nil // other events do not gate anything
	}
	if err == nil {
		s.startDrain() // the answer is written
	}
	return err
}

// readHookEvent reads one hook event, bounded, and rejects one that could
// be read two ways.
func readHookEvent(in io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(in, 64<<20))
	if err != nil {
		return nil, fmt.Errorf("reading the hook event: %w", err)
	}
	if _, err := jsonobj.CheckUnambiguous(data); err != nil {
		return nil, fmt.Errorf("the hook event cannot be read unambiguously: %w", err)
	}
	return data, nil
}

func (s *Server) claudePreToolUse(ev hosts.ClaudeEvent, out io.Writer) error {
	calls, err := hosts.ClaudeCalls(ev.ToolName, ev.ToolInput)
	if err != nil {
		return err
	}
	// A URL is decided as written and as the fetcher normalizes it
	// (HTTPS://EVIL.example is https://evil.example/); the most
	// restrictive decides.
	if ec := calls[0]; len(calls) == 1 && ec.Tool == "WebFetch" {
		calls = nil
		u, _ := ec.Input["url"].(string)
		for _, form := range hosts.URLForms(strings.TrimSpace(u)) {
			in := maps.Clone(ec.Input)
			in["url"] = form
			calls = append(calls, hosts.Call{Tool: ec.Tool, Input: in})
		}
	}
	answer := func(state, reason string) (string, string) {
		return hosts.ClaudeDecision(state, reason, ev.PermissionMode)
	}
	autoAllow := func(d *hostDecision) {
		if ev.ToolName == "Bash" && s.sandboxAutoAllowed(*d) {
			dec := *d.res.Decision
			dec.Resolution = protocol.ResSandboxAutoAllowed
			d.res.State, d.res.Decision = "allow", &dec
			d.res.Reason = ""
		}
	}
	d, ds, err := s.decideAllWith(hosts.ClaudeProfile, ev.ToolUseID, calls, answer, autoAllow)
	if err != nil {
		return err
	}
	decision, reason := answer(d.res.State, d.res.Reason)
	if decision == "defer" {
		return nil // no answer: Claude Code's own permission flow decides
	}
	_, err = out.Write(hosts.ClaudeAnswer(decision, reason, d.call.Input, confinedOf(ds), asWritten(d)))
	return err
}

func (s *Server) claudePrompt(ev hosts.ClaudeEvent, out io.Writer) error {
	name, ok := gates.SkillName(ev.Prompt)
	if !ok {
		return nil
	}
	pol := s.currentPolicy()
	c := &gates.Call{ToolCallID: "prompt", Input: map[string]any{"text": ev.Prompt}, Cwd: s.st.cwd, Home: s.opts.Home, AgentDir: s.opts.AgentDir}
	res := gates.Check(gates.Request{Call: c, Gates: gates.InputGates, Resolver: resolver{p: pol}})
	if err := (reporter{s: s}).Audit(gates.AuditRecord{Event: "decision", ToolCallID: "prompt", Action: res.State,
		Reason: res.Reason, Gate: protocol.GateSkillInput, Surface: "skill", Value: name, State: res.State}); err != nil {
		return err
	}
	if res.State == "allow" {
		return nil
	}
	// A prompt hook cannot ask: an ask blocks, like a host without a UI.
	return json.NewEncoder(out).Encode(map[string]string{"decision": "block", "reason": res.Reason})
}

func (s *Server) closeAudit() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.audit != nil {
		_ = s.audit.Close()
	}
}

func (s *Server) auditErr() error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.audit == nil {
		return fmt.Errorf("no audit log")
	}
	return s.audit.Err()
}
