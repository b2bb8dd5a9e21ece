package hook

import (
	"github.com/toolgate/toolgate/hook/hosts"

	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"strings"
	"time"

	"github.com/toolgate/toolgate/protocol"
)

// This file is the GitHub Copilot CLI adapter: a preToolUse command hook,
// one process per event (~/.copilot/hooks/*.json). Copilot runs the tool
// when a hook times out or prints what it cannot parse, so the hook
// answers within its own deadline, prints one answer and nothing else,
// and a failure is a printed deny.

// HostCopilotCLI is the Copilot CLI's host name, as the audit log records it.
const HostCopilotCLI = "copilot-cli"

// copilotEvent is the part of a Copilot preToolUse event toolgate reads.
// toolArgs is an object, or a string holding one (both are seen).
type copilotEvent struct {
	SessionID string          `json:"sessionId"`
	Cwd       string          `json:"cwd"`
	ToolName  string          `json:"toolName"`
	ToolArgs  json.RawMessage `json:"toolArgs"`
}

// copilotPathTools maps Copilot's file tools to toolgate's path tools.
var copilotPathTools = map[string]string{"view": "read", "create": "write", "edit": "edit"}

var copilotProfile = hostProfile{
	name:  HostCopilotCLI,
	calls: copilotCalls,
	values: map[string]func(map[string]any) string{
		"web_fetch":            strField("url"),
		"semantic_code_search": strField("repo"),
	},
	// Tools Copilot runs without asking anyone: the shells it started
	// (reading, listing, stopping them), its own documentation, its
	// session's database and store, and its subagents (whose own tool
	// calls come through this hook).
	builtinAllow: map[string]bool{
		"read_bash": true, "stop_bash": true, "list_bash": true,
		"fetch_copilot_cli_documentation": true, "sql": true, "session_store_sql": true,
		"task": true, "read_agent": true, "list_agents": true, "write_agent": true,
		"report_intent": true, "update_todo": true,
	},
	projectSettings: []string{".github/hooks", ".copilot"},
	confines:        true,
	userSettings:    []string{".copilot"},
}

// CopilotOptions are the copilot-hook's own settings.
type CopilotOptions struct {
	// Deadline bounds the whole answer: past it the call is denied
	// (Copilot would run the tool once its own timeoutSec passed).
	Deadline time.Duration
}

// copilotAskNote ends the reason of an ask, which Copilot shows in its
// permission dialog, and which a run with nobody to ask (copilot -p)
// denies.
const copilotAskNote = " (toolgate asks; where nobody can answer, as in `copilot -p`, Copilot denies the call." +
	" To allow it there, add an allow rule to your toolgate policy (~/.config/toolgate/config.json or" +
	" <project>/.toolgate/config.json; `toolgate explain --host copilot-cli` shows which rule decides))"

// CopilotHook answers one Copilot preToolUse event read from in with one
// JSON answer on out, within copts.Deadline. It never fails: any error is
// answered as a deny (fail-closed), and returned too, for stderr and the
// exit status.
func CopilotHook(opts Options, copts CopilotOptions, in io.Reader, out io.Writer) error {
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
		err := copilotDecide(opts, in, &buf)
		done <- result{answer: buf.Bytes(), err: err}
	}()
	var timer <-chan time.Time
	if copts.Deadline > 0 {
		t := time.NewTimer(copts.Deadline)
		defer t.Stop()
		timer = t.C
	}
	var r result
	select {
	case r = <-done:
	case <-timer:
		r.err = fmt.Errorf("no decision within %s", copts.Deadline)
	}
	if r.err != nil {
		r.answer = copilotAnswer("deny", "toolgate: blocked (fail-closed): "+r.err.Error())
	}
	// One write of the whole answer: the decision is made into a buffer,
	// so a late one is never printed after the deadline's deny.
	_, _ = out.Write(r.answer)
	return r.err
}

// copilotAnswer is Copilot's preToolUse answer, one line of JSON.
func copilotAnswer(decision, reason string) []byte {
	reply := map[string]string{"permissionDecision": decision}
	if reason != "" {
		reply["permissionDecisionReason"] = reason
	}
	b, _ := json.Marshal(reply)
	return append(b, '\n')
}

func copilotDecide(opts Options, in io.Reader, out io.Writer) error {
	data, err := readHookEvent(in)
	if err != nil {
		return err
	}
	var ev copilotEvent
	if err := protocol.Unmarshal(data, &ev, ""); err != nil {
		return fmt.Errorf("the hook event cannot be read: %w", err)
	}
	calls, err := copilotCalls(ev.ToolName, ev.ToolArgs)
	if err != nil {
		return err
	}
	s, err := hookServer(opts, HostCopilotCLI, ev.Cwd, ev.SessionID)
	if err != nil {
		return err
	}
	defer s.closeAudit()
	d, err := s.decideAll(copilotProfile, "", calls, copilotDecision)
	if err != nil {
		return err
	}
	action, reason := copilotDecision(d.res.State, d.res.Reason)
	if action == "allow" {
		reason = ""
	}
	if d.confined == "" || action == "deny" {
		_, err = out.Write(copilotAnswer(action, reason))
		return err
	}
	// modifiedArgs are the arguments Copilot runs the tool with: the
	// command runs confined.
	if action == "ask" {
		reason += asWritten(d)
	}
	reply := map[string]any{"permissionDecision": action, "modifiedArgs": withCommand(d.call.Input, "command", d.confined)}
	if reason != "" {
		reply["permissionDecisionReason"] = reason
	}
	b, err := json.Marshal(reply)
	if err != nil {
		return err
	}
	_, err = out.Write(append(b, '\n'))
	return err
}

// copilotDecision is Copilot's answer for toolgate's state: the same
// word, an ask with how to allow the call where Copilot cannot ask.
func copilotDecision(state, reason string) (string, string) {
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
		if _, err := checkUnambiguous([]byte(s)); err != nil {
			return nil, fmt.Errorf("toolArgs of %s cannot be read unambiguously: %w", tool, err)
		}
		raw = json.RawMessage(s)
	}
	in, err := objectInput(tool, raw)
	if err != nil {
		return nil, fmt.Errorf("toolArgs of %s: %w", tool, err)
	}
	return in, nil
}

// copilotCalls turns a Copilot tool call into engine calls: grep and glob
// are one per path searched; web_fetch one per URL form.
func copilotCalls(name string, raw json.RawMessage) ([]hosts.Call, error) {
	if name == "" {
		return nil, fmt.Errorf("the hook event has no toolName")
	}
	input, err := copilotArgs(name, raw)
	if err != nil {
		return nil, err
	}
	one := func(ec hosts.Call) ([]hosts.Call, error) { return []hosts.Call{ec}, nil }
	if ec, ok := mcpToolCall(name, input); ok {
		return one(ec)
	}
	if t, ok := copilotPathTools[name]; ok {
		return one(hosts.Call{Tool: t, Input: input})
	}
	switch name {
	case "bash":
		return one(hosts.Call{Tool: "bash", Input: input, Rewrite: true})
	case "grep", "glob":
		tool := map[string]string{"grep": "grep", "glob": "find"}[name]
		return perPath(name, tool, input)
	case "skill":
		if err := renameField(input, name, "skill", "name"); err != nil {
			return nil, err
		}
		return one(hosts.Call{Tool: "skill", Input: input})
	case "web_fetch":
		return urlFormCalls(name, input, "toolArgs.")
	case "apply_patch":
		text, err := hosts.PatchText(name, input, "input", "patch", "command")
		if err != nil {
			return nil, err
		}
		return hosts.PatchCalls(name, text)
	}
	return one(hosts.Call{Tool: name, Input: input})
}

// perPath is one engine call of tool per entry of the input's paths (none:
// one call, which searches the working directory).
func perPath(name, tool string, input map[string]any) ([]hosts.Call, error) {
	raw, ok := input["paths"]
	delete(input, "paths")
	if !ok || raw == nil {
		return []hosts.Call{{Tool: tool, Input: input}}, nil
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
		return []hosts.Call{{Tool: tool, Input: input}}, nil
	}
	var calls []hosts.Call
	for i, v := range list {
		p, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("toolArgs.paths[%d] of %s is not a string", i, name)
		}
		in := maps.Clone(input)
		in["path"] = p
		calls = append(calls, hosts.Call{Tool: tool, Input: in})
	}
	return calls, nil
}
