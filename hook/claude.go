package hook

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/toolgate/toolgate/gates"
	"github.com/toolgate/toolgate/protocol"
)

// claudeEvent is the part of a Claude Code hook event toolgate reads.
type claudeEvent struct {
	HookEventName string          `json:"hook_event_name"`
	SessionID     string          `json:"session_id"`
	Cwd           string          `json:"cwd"`
	ToolName      string          `json:"tool_name"`
	ToolInput     json.RawMessage `json:"tool_input"`
	ToolUseID     string          `json:"tool_use_id"`
	Prompt        string          `json:"prompt"`
}

// claudeTools maps Claude Code's tool names to toolgate's, with the input
// field that holds the path.
var claudeTools = map[string]struct{ tool, pathField string }{
	"Bash": {"bash", ""}, "Read": {"read", "file_path"}, "Write": {"write", "file_path"},
	"Edit": {"edit", "file_path"}, "MultiEdit": {"edit", "file_path"}, "NotebookEdit": {"edit", "notebook_path"},
	"Grep": {"grep", "path"}, "Glob": {"find", "path"}, "LS": {"ls", "path"},
}

// ClaudeHook answers one Claude Code hook event (PreToolUse or
// UserPromptSubmit) read from in, with the same engine as serve. Any error
// is returned, and the caller exits 2, which Claude Code treats as a block.
func ClaudeHook(opts Options, in io.Reader, out io.Writer) error {
	data, err := io.ReadAll(io.LimitReader(in, 64<<20))
	if err != nil {
		return fmt.Errorf("reading the hook event: %w", err)
	}
	if _, err := checkUnambiguous(data); err != nil {
		return fmt.Errorf("the hook event cannot be read unambiguously: %w", err)
	}
	var ev claudeEvent
	if err := protocol.Unmarshal(data, &ev, ""); err != nil {
		return fmt.Errorf("the hook event cannot be read: %w", err)
	}
	if ev.Cwd != "" {
		if !filepath.IsAbs(ev.Cwd) {
			return fmt.Errorf("the hook event's cwd %q is not absolute", ev.Cwd)
		}
		opts.Cwd = filepath.Clean(ev.Cwd)
	}
	s := New(opts)
	s.st.sessionID = ev.SessionID
	s.openAudit(s.currentPolicy())
	defer s.closeAudit()
	if err := s.auditErr(); err != nil {
		return err
	}
	switch ev.HookEventName {
	case "PreToolUse":
		return s.claudePreToolUse(ev, out)
	case "UserPromptSubmit":
		return s.claudePrompt(ev, out)
	}
	return nil // other events do not gate anything
}

func (s *Server) claudePreToolUse(ev claudeEvent, out io.Writer) error {
	tool, input, err := claudeCall(ev)
	if err != nil {
		return err
	}
	id := ev.ToolUseID
	if id == "" {
		id = "claude"
	}
	raw, err := json.Marshal(map[string]any{"toolCallId": id, "toolName": tool, "input": input})
	if err != nil {
		return err
	}
	gc, _, err := s.decodeCall(raw)
	if err != nil {
		return fmt.Errorf("the tool call cannot be read: %w", err)
	}
	req := gates.Request{Call: gc.call, Gates: gates.ToolGates, Resolver: resolver{p: gc.policy}}
	res := gates.Check(req)
	// Claude Code asks the person itself: toolgate's ask becomes its ask.
	decision := map[string]string{"allow": "allow", "ask": "ask", "deny": "deny"}[res.State]
	if decision == "" {
		return fmt.Errorf("no decision for %s", tool)
	}
	d := res.Decision
	if err := (reporter{s: s}).Audit(gates.AuditRecord{Event: "decision", ToolCallID: ev.ToolUseID, ToolName: tool,
		Action: decision, Reason: res.Reason, Resolution: d.Resolution, Gate: d.Gate, Surface: d.Surface, Value: d.Value,
		State: d.State, MatchedPattern: d.MatchedPattern, Origin: d.Origin, Trace: res.Trace, Input: json.RawMessage(input), Cwd: gc.call.Cwd}); err != nil {
		return err
	}
	reply := map[string]any{"hookSpecificOutput": map[string]any{
		"hookEventName": "PreToolUse", "permissionDecision": decision, "permissionDecisionReason": res.Reason}}
	return json.NewEncoder(out).Encode(reply)
}

// claudeCall turns a Claude Code tool call into toolgate's tool and input.
func claudeCall(ev claudeEvent) (string, json.RawMessage, error) {
	if ev.ToolName == "" {
		return "", nil, fmt.Errorf("the hook event has no tool_name")
	}
	input := ev.ToolInput
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	if strings.HasPrefix(ev.ToolName, "mcp__") {
		parts := strings.SplitN(strings.TrimPrefix(ev.ToolName, "mcp__"), "__", 2)
		ref := parts[0]
		if len(parts) == 2 {
			ref = parts[0] + ":" + parts[1]
		}
		b, err := json.Marshal(map[string]any{"tool": ref, "arguments": input})
		return "mcp", b, err
	}
	m, ok := claudeTools[ev.ToolName]
	if !ok {
		return ev.ToolName, input, nil
	}
	if m.pathField == "" {
		return m.tool, input, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(input, &fields); err != nil {
		return "", nil, fmt.Errorf("tool_input of %s must be an object", ev.ToolName)
	}
	if p, ok := fields[m.pathField]; ok {
		if _, clash := fields["path"]; clash && m.pathField != "path" {
			return "", nil, fmt.Errorf("tool_input of %s has both %s and path", ev.ToolName, m.pathField)
		}
		delete(fields, m.pathField)
		fields["path"] = p
	}
	b, err := json.Marshal(fields)
	return m.tool, b, err
}

func (s *Server) claudePrompt(ev claudeEvent, out io.Writer) error {
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
