package hosts

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"strings"
	"time"

	"github.com/toolgate/toolgate/internal/jsonobj"
)

// The GitHub Copilot CLI adapter: a preToolUse command hook, one process
// per event (~/.copilot/hooks/*.json). Copilot runs the tool when a hook
// times out or prints what it cannot parse, so the hook answers within
// its own deadline, prints one answer and nothing else, and a failure is
// a printed deny.

// copilotPathTools maps Copilot's file tools to toolgate's path tools.
var copilotPathTools = map[string]string{"view": "read", "create": "write", "edit": "edit"}

// CopilotAnswer is Copilot's preToolUse answer, one line of JSON.
func CopilotAnswer(decision, reason string) []byte {
	reply := map[string]string{"permissionDecision": decision}
	if reason != "" {
		reply["permissionDecisionReason"] = reason
	}
	b, _ := json.Marshal(reply)
	return append(b, '\n')
}

// CopilotDecision is Copilot's answer for toolgate's state: the same
// word, an ask with how to allow the call where Copilot cannot ask.
func CopilotDecision(state, reason string) (string, string) {
	if state == "ask" {
		return state, reason + copilotAskNote
	}
	return state, reason
}

// copilotArgs decodes toolArgs: an object, or a JSON string holding one.
func copilotArgs(tool string, raw json.RawMessage) (map[string]any, error) {
	if trimmed := bytes.TrimSpace(raw); len(trimmed) > 0 && trimmed[0] == '"' {
		var s string
		if err := json.Unmarshal(trimmed, &s); err != nil {
			return nil, fmt.Errorf("toolArgs of %s: %w", tool, err)
		}
		if strings.TrimSpace(s) == "" {
			return map[string]any{}, nil
		}
		if _, err := jsonobj.CheckUnambiguous([]byte(s)); err != nil {
			return nil, fmt.Errorf("toolArgs of %s cannot be read unambiguously: %w", tool, err)
		}
		raw = json.RawMessage(s)
	}
	in, err := ObjectInput(tool, raw)
	if err != nil {
		return nil, fmt.Errorf("toolArgs of %s: %w", tool, err)
	}
	return in, nil
}

// CopilotCalls turns a Copilot tool call into engine calls: grep and glob
// are one per path searched; web_fetch one per URL form.
func CopilotCalls(name string, raw json.RawMessage) ([]Call, error) {
	if name == "" {
		return nil, fmt.Errorf("the hook event has no toolName")
	}
	input, err := copilotArgs(name, raw)
	if err != nil {
		return nil, err
	}
	one := func(ec Call) ([]Call, error) { return []Call{ec}, nil }
	if ec, ok := mcpToolCall(name, input); ok {
		return one(ec)
	}
	if t, ok := copilotPathTools[name]; ok {
		return one(Call{Tool: t, Input: input})
	}
	switch name {
	case "bash":
		return one(Call{Tool: "bash", Input: input, Rewrite: true})
	case "grep", "glob":
		tool := map[string]string{"grep": "grep", "glob": "find"}[name]
		return perPath(name, tool, input)
	case "skill":
		if err := renameField(input, name, "skill", "name"); err != nil {
			return nil, err
		}
		return one(Call{Tool: "skill", Input: input})
	case "web_fetch":
		return urlFormCalls(name, input, "toolArgs.")
	case "apply_patch":
		text, err := PatchText(name, input, "input", "patch", "command")
		if err != nil {
			return nil, err
		}
		return PatchCalls(name, text)
	}
	return one(Call{Tool: name, Input: input})
}

// perPath is one engine call of tool per entry of the input's paths (none:
// one call, which searches the working directory).
func perPath(name, tool string, input map[string]any) ([]Call, error) {
	raw, ok := input["paths"]
	delete(input, "paths")
	if !ok || raw == nil {
		return []Call{{Tool: tool, Input: input}}, nil
	}
	list, ok := raw.([]any)
	if !ok {
		if s, isStr := raw.(string); isStr {
			list = []any{s}
		} else {
			return nil, fmt.Errorf("toolArgs.paths of %s is not a list of paths", name)
		}
	}
	if len(list) == 0 {
		return []Call{{Tool: tool, Input: input}}, nil
	}
	var calls []Call
	for i, v := range list {
		p, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("toolArgs.paths[%d] of %s is not a string", i, name)
		}
		in := maps.Clone(input)
		in["path"] = p
		calls = append(calls, Call{Tool: tool, Input: in})
	}
	return calls, nil
}

// copilotAskNote ends the reason of an ask, which Copilot shows in its
// permission dialog, and which a run with nobody to ask (copilot -p)
// denies.
var copilotAskNote = " (toolgate asks; where nobody can answer, as in `copilot -p`, Copilot denies the call." +
	" To allow it there," + allowRuleHint(CopilotCLI)

// CopilotCLI is the Copilot CLI's host name, as the audit log records it.
const CopilotCLI = "copilot-cli"

var CopilotProfile = Profile{
	Name:  CopilotCLI,
	Calls: CopilotCalls,
	Values: map[string]func(map[string]any) string{
		"web_fetch":            strField("url"),
		"semantic_code_search": strField("repo"),
	},
	// Tools Copilot runs without asking anyone: the shells it started
	// (reading, listing, stopping them), its own documentation, its
	// session's database and store, and its subagents (whose own tool
	// calls come through this hook).
	BuiltinAllow: map[string]bool{
		"read_bash": true, "stop_bash": true, "list_bash": true,
		"fetch_copilot_cli_documentation": true, "sql": true, "session_store_sql": true,
		"task": true, "read_agent": true, "list_agents": true, "write_agent": true,
		"report_intent": true, "update_todo": true,
	},
	ProjectSettings: []string{".github/hooks", ".copilot"},
	Confines:        true,
	UserSettings:    []string{".copilot"},
}

// CopilotEvent is the part of a Copilot preToolUse event toolgate reads.
// toolArgs is an object, or a string holding one (both are seen).
type CopilotEvent struct {
	SessionID string          `json:"sessionId"`
	Cwd       string          `json:"cwd"`
	ToolName  string          `json:"toolName"`
	ToolArgs  json.RawMessage `json:"toolArgs"`
}

// CopilotConfinedAnswer is CopilotAnswer for a call that may run confined
// (cmd, "" for none): one not denied gets modifiedArgs, the arguments
// Copilot runs the tool with, and an ask ends its reason with the command
// as written.
func CopilotConfinedAnswer(action, reason string, input map[string]any, cmd, written string) []byte {
	if cmd == "" || action == "deny" {
		return CopilotAnswer(action, reason)
	}
	if action == "ask" {
		reason += written
	}
	reply := map[string]any{"permissionDecision": action, "modifiedArgs": WithCommand(input, "command", cmd)}
	if reason != "" {
		reply["permissionDecisionReason"] = reason
	}
	b, _ := json.Marshal(reply)
	return append(b, '\n')
}

// CopilotHook is the Copilot CLI adapter (copilot-hook), which gates
// every event it is given (preToolUse). A tool call it cannot map blocks
// before the audit log is opened.
type CopilotHook struct {
	// Deadline bounds the whole answer: past it the call is denied
	// (Copilot would run the tool once its own timeoutSec passed).
	Deadline time.Duration
}

func (CopilotHook) Profile() Profile { return CopilotProfile }

// Run prints one JSON answer on out, within h.Deadline. It never fails:
// any error is answered as a deny (fail-closed), and returned too, for
// stderr and the exit status.
func (h CopilotHook) Run(answer func(io.Writer) error, out io.Writer) error {
	type result struct {
		answer []byte
		err    error
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- result{err: fmt.Errorf("internal error: %v", p)}
			}
		}()
		var buf bytes.Buffer
		err := answer(&buf)
		done <- result{answer: buf.Bytes(), err: err}
	}()
	var timer <-chan time.Time
	if h.Deadline > 0 {
		t := time.NewTimer(h.Deadline)
		defer t.Stop()
		timer = t.C
	}
	var r result
	select {
	case r = <-done:
	case <-timer:
		r.err = fmt.Errorf("no decision within %s", h.Deadline)
	}
	if r.err != nil {
		r.answer = CopilotAnswer("deny", "toolgate: blocked (fail-closed): "+r.err.Error())
	}
	// One write of the whole answer: the decision is made into a buffer,
	// so a late one is never printed after the deadline's deny.
	_, _ = out.Write(r.answer)
	return r.err
}

func (CopilotHook) Event(data []byte) (Event, error) {
	var ev CopilotEvent
	if err := readEvent(data, &ev); err != nil {
		return Event{}, err
	}
	calls, err := CopilotCalls(ev.ToolName, ev.ToolArgs)
	if err != nil {
		return Event{}, err
	}
	return Event{Cwd: ev.Cwd, SessionID: ev.SessionID, Calls: calls, Drain: true, Action: CopilotDecision,
		Answer: func(d Decision) ([]byte, error) {
			if d.Action == "allow" {
				d.Reason = ""
			}
			return CopilotConfinedAnswer(d.Action, d.Reason, d.Input, d.Confined, d.Written), nil
		},
	}, nil
}
