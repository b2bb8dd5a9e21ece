package hook

import (
	"github.com/toolgate/toolgate/internal/jsonobj"

	"github.com/toolgate/toolgate/hook/hosts"

	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strings"
)

// This file is the Gemini CLI adapter: a BeforeTool command hook, one
// process per event. It turns the event into engine calls and the
// engine's decision into Gemini CLI's hook answer.

// geminiEvent is the part of a Gemini CLI hook event toolgate reads.
type geminiEvent struct {
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

var geminiProfile = hostProfile{
	name: HostGeminiCLI,
	calls: func(tool string, input json.RawMessage) ([]hosts.Call, error) {
		return geminiCalls(geminiEvent{ToolName: tool, ToolInput: input})
	},
	projectSettings: []string{".gemini"},
	confines:        true,
	userSettings:    []string{".gemini/settings.json", ".gemini/policies"},
	values: map[string]func(map[string]any) string{
		"web_fetch":         strField("url"), // set per URL of the prompt by geminiCalls
		"google_web_search": strField("query"),
	},
	// Tools Gemini CLI runs without asking anyone: its todo list and task
	// tracker, topics, plan mode, subagents (whose own tool calls come
	// through this hook), its question to the person, its own docs.
	builtinAllow: map[string]bool{
		"write_todos": true, "update_topic": true, "enter_plan_mode": true, "exit_plan_mode": true,
		"ask_user": true, "complete_task": true, "invoke_agent": true, "get_internal_docs": true,
		"tracker_create_task": true, "tracker_update_task": true, "tracker_get_task": true,
		"tracker_list_tasks": true, "tracker_add_dependency": true, "tracker_visualize": true,
	},
}

// GeminiOptions are the gemini-hook's own settings.
type GeminiOptions struct {
	// Ask answers toolgate's ask with Gemini's own ask. Only for an
	// interactive session: a headless run never answers it and hangs, so
	// without Ask an ask blocks.
	Ask bool
}

// GeminiHook answers one Gemini CLI BeforeTool hook event read from in.
// Any error is returned, and the caller exits 2, which Gemini CLI treats
// as a block.
func GeminiHook(opts Options, gopts GeminiOptions, in io.Reader, out io.Writer) error {
	data, err := readHookEvent(in)
	if err != nil {
		return err
	}
	var ev geminiEvent
	if err := json.Unmarshal(data, &ev); err != nil {
		return fmt.Errorf("the hook event is not valid JSON: %w", err)
	}
	if ev.HookEventName != "BeforeTool" {
		return nil // other events do not gate anything
	}
	s, err := hookServer(opts, HostGeminiCLI, ev.Cwd, ev.SessionID)
	if err != nil {
		return err
	}
	defer s.closeAudit()
	calls, err := geminiCalls(ev)
	if err != nil {
		return err
	}
	var ds []hostDecision
	for _, ec := range calls {
		d, err := s.decideEngineCall(geminiProfile, "", ec)
		if err != nil {
			return err
		}
		action, _ := geminiDecision(d.res.State, d.res.Reason, gopts.Ask)
		s.confine(geminiProfile, &d, action)
		ds = append(ds, d)
	}
	for _, d := range ds {
		action, reason := geminiDecision(d.res.State, d.res.Reason, gopts.Ask)
		if err := s.auditHostDecision(d, action, reason); err != nil {
			return err
		}
	}
	best := mostRestrictive(ds)
	action, reason := geminiDecision(best.res.State, best.res.Reason, gopts.Ask)
	reply := map[string]any{"decision": action}
	if action != "allow" {
		reply["reason"] = reason
	}
	if cmd := confinedOf(ds); cmd != "" && action != "deny" {
		// BeforeTool's tool_input merges with the model's arguments and
		// overrides them: the command runs confined.
		reply["hookSpecificOutput"] = map[string]any{"hookEventName": "BeforeTool", "tool_input": map[string]any{"command": cmd}}
		if action == "ask" {
			reply["reason"] = reason + asWritten(best)
		}
	}
	if err := json.NewEncoder(out).Encode(reply); err != nil {
		return err
	}
	s.startDrain() // the answer is written
	return nil
}

// geminiDecision is Gemini CLI's answer for toolgate's state. An ask
// blocks unless the session can show it.
func geminiDecision(state, reason string, ask bool) (action, why string) {
	if state == "ask" && !ask {
		return "deny", reason + " (toolgate would ask, and this Gemini CLI hook cannot show the question, so the call is blocked; a policy rule can allow it)"
	}
	return state, reason
}

// geminiCalls turns a Gemini CLI tool call into engine calls; the most
// restrictive decision of them answers. Most tools are one call;
// read_many_files is one per include, web_fetch one per URL form.
func geminiCalls(ev geminiEvent) ([]hosts.Call, error) {
	name := ev.ToolName
	if name == "" {
		return nil, fmt.Errorf("the hook event has no tool_name")
	}
	input, err := objectInput(name, ev.ToolInput)
	if err != nil {
		return nil, err
	}
	one := func(ec hosts.Call) ([]hosts.Call, error) { return []hosts.Call{ec}, nil }
	if ev.MCPContext != nil && ev.MCPContext.ServerName != "" {
		return one(hosts.Call{Tool: "mcp", Input: map[string]any{"tool": ev.MCPContext.ServerName + ":" + ev.MCPContext.ToolName, "arguments": input}})
	}
	if rest, ok := strings.CutPrefix(name, "mcp_"); ok {
		server, tool, _ := strings.Cut(rest, "_")
		ref := server
		if tool != "" {
			ref = server + ":" + tool
		}
		return one(hosts.Call{Tool: "mcp", Input: map[string]any{"tool": ref, "arguments": input}})
	}
	switch name {
	case "run_shell_command":
		wd, _, err := jsonobj.Object(input).Str("dir_path", "tool_input.")
		if err != nil {
			return nil, err
		}
		return one(hosts.Call{Tool: "bash", Input: input, Workdir: wd, Rewrite: true})
	case "activate_skill":
		return one(hosts.Call{Tool: "skill", Input: input})
	case "read_many_files":
		return geminiReadMany(input)
	case "web_fetch":
		return geminiWebFetch(input)
	}
	m, ok := geminiPathTools[name]
	if !ok {
		// Any other tool keeps its Gemini name as its surface.
		return one(hosts.Call{Tool: name, Input: input})
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
	return one(hosts.Call{Tool: m.tool, Input: input})
}

// geminiReadMany is one engine call per include entry: a path is a read
// of it, a glob the files a find with that pattern selects.
func geminiReadMany(input map[string]any) ([]hosts.Call, error) {
	list, ok := input["include"].([]any)
	if !ok || len(list) == 0 {
		// Nothing toolgate can check: the tool's own surface decides.
		return []hosts.Call{{Tool: "read_many_files", Input: input}}, nil
	}
	var calls []hosts.Call
	for i, v := range list {
		p, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("tool_input.include[%d] of read_many_files is not a string", i)
		}
		if strings.ContainsAny(p, "*?[{") {
			calls = append(calls, hosts.Call{Tool: "find", Input: map[string]any{"pattern": p}})
		} else {
			calls = append(calls, hosts.Call{Tool: "read", Input: map[string]any{"path": p}})
		}
	}
	return calls, nil
}

// urlForms are a URL as written and, when it differs, as a fetcher
// normalizes it (scheme and host in lower case, an empty path as "/").
func urlForms(word string) []string {
	forms := []string{word}
	if u, err := url.Parse(word); err == nil && u.Host != "" {
		u.Host = strings.ToLower(u.Host)
		if u.Path == "" && u.Opaque == "" {
			u.Path = "/"
		}
		if n := u.String(); n != word {
			forms = append(forms, n)
		}
	}
	return forms
}

// geminiWebFetch is one engine call per URL of the prompt (Gemini fetches
// every whitespace-separated word holding "://"), as written and as
// Gemini normalizes it; a prompt without one is decided with the prompt
// as the value.
func geminiWebFetch(input map[string]any) ([]hosts.Call, error) {
	prompt, _, err := jsonobj.Object(input).Str("prompt", "tool_input.")
	if err != nil {
		return nil, err
	}
	call := func(v string) hosts.Call {
		return hosts.Call{Tool: "web_fetch", Input: map[string]any{"prompt": prompt, "url": v}}
	}
	var calls []hosts.Call
	for _, word := range strings.Fields(prompt) {
		if !strings.Contains(word, "://") {
			continue
		}
		for _, form := range urlForms(word) {
			calls = append(calls, call(form))
		}
	}
	if len(calls) == 0 {
		calls = append(calls, call(strings.TrimSpace(prompt)))
	}
	return calls, nil
}
