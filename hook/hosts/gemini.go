package hosts

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolgate/toolgate/internal/jsonobj"
)

// The Gemini CLI adapter: a BeforeTool command hook, one process per
// event. It turns the event into engine calls and the engine's decision
// into Gemini CLI's hook answer.

// geminiPathTools maps Gemini CLI's file tools to toolgate's path tools:
// the input field that holds the path, and the one that holds a glob
// (grep's glob, find's pattern).
var geminiPathTools = map[string]struct{ tool, pathField, globField string }{
	"read_file":           {"read", "file_path", ""},
	"write_file":          {"write", "file_path", ""},
	"replace":             {"edit", "file_path", ""},
	"glob":                {"find", "dir_path", "pattern"},
	"grep_search":         {"grep", "dir_path", "include_pattern"},
	"search_file_content": {"grep", "dir_path", "include_pattern"},
	"list_directory":      {"ls", "dir_path", ""},
}

// GeminiDecision is Gemini CLI's answer for toolgate's state. An ask
// blocks unless the session can show it.
func GeminiDecision(state, reason string, ask bool) (action, why string) {
	if state == "ask" && !ask {
		return "deny", reason + " (toolgate would ask, and this Gemini CLI hook cannot show the question, so the call is blocked; a policy rule can allow it)"
	}
	return state, reason
}

// GeminiCalls turns a Gemini CLI tool call into engine calls; the most
// restrictive decision of them answers. Most tools are one call;
// read_many_files is one per include, web_fetch one per URL form.
func GeminiCalls(ev GeminiEvent) ([]Call, error) {
	name := ev.ToolName
	input, err := eventInput(name, ev.ToolInput)
	if err != nil {
		return nil, err
	}
	one := func(ec Call) ([]Call, error) { return []Call{ec}, nil }
	if ev.MCPContext != nil && ev.MCPContext.ServerName != "" {
		return one(Call{Tool: "mcp", Input: map[string]any{"tool": ev.MCPContext.ServerName + ":" + ev.MCPContext.ToolName, "arguments": input}})
	}
	if rest, ok := strings.CutPrefix(name, "mcp_"); ok {
		server, tool, _ := strings.Cut(rest, "_")
		ref := server
		if tool != "" {
			ref = server + ":" + tool
		}
		return one(Call{Tool: "mcp", Input: map[string]any{"tool": ref, "arguments": input}})
	}
	switch name {
	case "run_shell_command":
		wd, _, err := jsonobj.Object(input).Str("dir_path", "tool_input.")
		if err != nil {
			return nil, err
		}
		return one(Call{Tool: "bash", Input: input, Workdir: wd, Rewrite: true})
	case "activate_skill":
		return one(Call{Tool: "skill", Input: input})
	case "read_many_files":
		return geminiReadMany(input)
	case "web_fetch":
		return geminiWebFetch(input)
	}
	m, ok := geminiPathTools[name]
	if !ok {
		// Any other tool keeps its Gemini name as its surface.
		return one(Call{Tool: name, Input: input})
	}
	if m.globField != "" {
		key := map[string]string{"find": "pattern", "grep": "glob"}[m.tool]
		if m.tool == "grep" {
			// grep's own pattern is the regular expression; the files it
			// searches are include_pattern (or include in older versions).
			if err := renameField(input, name, "include", m.globField); err != nil {
				return nil, err
			}
		}
		if err := renameField(input, name, m.globField, key); err != nil {
			return nil, err
		}
	}
	if err := renameField(input, name, m.pathField, "path"); err != nil {
		return nil, err
	}
	return one(Call{Tool: m.tool, Input: input})
}

// geminiReadMany is one engine call per include entry: a path is a read
// of it, a glob the files a find with that pattern selects.
func geminiReadMany(input map[string]any) ([]Call, error) {
	list, ok := input["include"].([]any)
	if !ok || len(list) == 0 {
		// Nothing toolgate can check: the tool's own surface decides.
		return []Call{{Tool: "read_many_files", Input: input}}, nil
	}
	var calls []Call
	for i, v := range list {
		p, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("tool_input.include[%d] of read_many_files is not a string", i)
		}
		if strings.ContainsAny(p, "*?[{") {
			calls = append(calls, Call{Tool: "find", Input: map[string]any{"pattern": p}})
		} else {
			calls = append(calls, Call{Tool: "read", Input: map[string]any{"path": p}})
		}
	}
	return calls, nil
}

// geminiWebFetch is one engine call per URL of the prompt (Gemini fetches
// every whitespace-separated word holding "://"), as written and as
// Gemini normalizes it; a prompt without one is decided with the prompt
// as the value.
func geminiWebFetch(input map[string]any) ([]Call, error) {
	prompt, _, err := jsonobj.Object(input).Str("prompt", "tool_input.")
	if err != nil {
		return nil, err
	}
	call := func(v string) Call {
		return Call{Tool: "web_fetch", Input: map[string]any{"prompt": prompt, "url": v}}
	}
	var calls []Call
	for _, word := range strings.Fields(prompt) {
		if !strings.Contains(word, "://") {
			continue
		}
		for _, form := range URLForms(word) {
			calls = append(calls, call(form))
		}
	}
	if len(calls) == 0 {
		calls = append(calls, call(strings.TrimSpace(prompt)))
	}
	return calls, nil
}

// GeminiEvent is the part of a Gemini CLI hook event toolgate reads.
type GeminiEvent struct {
	HookEventName string          `json:"hook_event_name"`
	SessionID     string          `json:"session_id"`
	Cwd           string          `json:"cwd"`
	ToolName      string          `json:"tool_name"`
	ToolInput     json.RawMessage `json:"tool_input"`
	MCPContext    *struct {
		ServerName string `json:"server_name"`
		ToolName   string `json:"tool_name"`
	} `json:"mcp_context"`
}

var GeminiProfile = Profile{
	Name: GeminiCLI,
	Calls: func(tool string, input json.RawMessage) ([]Call, error) {
		return GeminiCalls(GeminiEvent{ToolName: tool, ToolInput: input})
	},
	ProjectSettings: []string{".gemini"},
	Confines:        true,
	UserSettings:    []string{".gemini/settings.json", ".gemini/policies"},
	Values: map[string]func(map[string]any) string{
		"web_fetch":         strField("url"), // set per URL of the prompt by GeminiCalls
		"google_web_search": strField("query"),
	},
	// Tools Gemini CLI runs without asking anyone: its todo list and task
	// tracker, topics, plan mode, subagents (whose own tool calls come
	// through this hook), its question to the person, its own docs.
	BuiltinAllow: map[string]bool{
		"write_todos": true, "update_topic": true, "enter_plan_mode": true, "exit_plan_mode": true,
		"ask_user": true, "complete_task": true, "invoke_agent": true, "get_internal_docs": true,
		"tracker_create_task": true, "tracker_update_task": true, "tracker_get_task": true,
		"tracker_list_tasks": true, "tracker_add_dependency": true, "tracker_visualize": true,
	},
}

// GeminiAnswer is Gemini CLI's BeforeTool answer, one line of JSON. A
// confined command (cmd, "" for none) that is not denied is the
// tool_input, which merges with the model's arguments and overrides them;
// an ask then ends its reason with the command as written.
func GeminiAnswer(action, reason, cmd, written string) []byte {
	reply := map[string]any{"decision": action}
	if action != "allow" {
		reply["reason"] = reason
	}
	if cmd != "" && action != "deny" {
		reply["hookSpecificOutput"] = map[string]any{"hookEventName": "BeforeTool", "tool_input": map[string]any{"command": cmd}}
		if action == "ask" {
			reply["reason"] = reason + written
		}
	}
	b, _ := json.Marshal(reply)
	return append(b, '\n')
}

// GeminiHook is the Gemini CLI adapter (gemini-hook), which gates
// BeforeTool.
type GeminiHook struct {
	atOnce

	// Ask answers toolgate's ask with Gemini's own ask. Only for an
	// interactive session: a headless run never answers it and hangs, so
	// without Ask an ask blocks.
	Ask bool
}

func (GeminiHook) Profile() Profile { return GeminiProfile }

func (h GeminiHook) Event(data []byte) (Event, error) {
	var ev GeminiEvent
	if err := readEvent(data, &ev); err != nil {
		return Event{}, err
	}
	if ev.HookEventName != "BeforeTool" {
		return Event{Kind: Ignored}, nil // other events do not gate anything
	}
	e := Event{Cwd: ev.Cwd, SessionID: ev.SessionID, Drain: true}
	e.Calls, e.Err = GeminiCalls(ev)
	e.Action = func(state, reason string) (string, string) { return GeminiDecision(state, reason, h.Ask) }
	e.Answer = func(d Decision) ([]byte, error) {
		return GeminiAnswer(d.Action, d.Reason, d.Confined, d.Written), nil
	}
	return e, nil
}
