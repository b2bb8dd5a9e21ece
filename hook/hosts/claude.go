package hosts

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolgate/toolgate/internal/jsonobj"
)

// The Claude Code adapter: a PreToolUse / UserPromptSubmit command hook,
// one process per event. It turns the event into engine calls and the
// engine's decision into Claude Code's hook answer.

// claudePathTools maps Claude Code's file tools to toolgate's path tools,
// with the input field that holds the path. Grep's glob and Glob's
// pattern keep their names: they are grep's glob and find's pattern.
var claudePathTools = map[string]struct{ tool, pathField string }{
	"Read": {"read", "file_path"}, "NotebookRead": {"read", "notebook_path"},
	"Write": {"write", "file_path"},
	"Edit":  {"edit", "file_path"}, "MultiEdit": {"edit", "file_path"}, "NotebookEdit": {"edit", "notebook_path"},
	"Grep": {"grep", "path"}, "Glob": {"find", "path"}, "LS": {"ls", "path"},
}

// ClaudeDecision is Claude Code's answer for toolgate's state in a
// permission mode. Toolgate's ask is Claude's own ask; no mode loosens a
// deny or an ask:
//   - dontAsk (Claude denies whatever it would ask about): ask → deny.
//   - plan (Claude runs only what cannot change anything): toolgate's
//     allow is no answer at all, so Claude's own plan-mode checks decide
//     (an allow from a hook would skip them).
//   - bypassPermissions, acceptEdits, default and any other mode: as is;
//     Claude Code keeps a hook's ask and deny in every mode.
func ClaudeDecision(state, reason, mode string) (decision, why string) {
	switch {
	case state == "ask" && mode == "dontAsk":
		return "deny", reason + " (toolgate would ask, and Claude Code's permission mode dontAsk denies what would be asked)"
	case state == "allow" && mode == "plan":
		return "defer", ""
	}
	return state, reason
}

// ClaudeCalls turns a Claude Code tool call into the engine calls that
// decide it: most tools are one (claudeCall); a tool that also touches a
// file is decided on that file's surface too (the most restrictive
// answers): Artifact publishes the file it names (a read of it), a
// durable CronCreate writes Claude Code's scheduled-jobs file.
func ClaudeCalls(name string, rawInput json.RawMessage) ([]Call, error) {
	ec, err := claudeCall(name, rawInput)
	if err != nil {
		return nil, err
	}
	calls := []Call{ec}
	switch name {
	case "Artifact":
		if p, _, err := jsonobj.Object(ec.Input).Str("file_path", "tool_input."); err != nil {
			return nil, err
		} else if p != "" {
			calls = append(calls, Call{Tool: "read", Input: map[string]any{"path": p}})
		}
	case "CronCreate":
		if durable, _ := ec.Input["durable"].(bool); durable {
			calls = append(calls, Call{Tool: "write", Input: map[string]any{"path": ".claude/scheduled_tasks.json"}})
		}
	}
	return calls, nil
}

// claudeForeign are Claude Code's tools that run code in a language that
// is not bash, with the program and code option their code is decided as.
var claudeForeign = map[string]string{"PowerShell": "pwsh -Command"}

// claudeCall turns a Claude Code tool call into an engine call.
func claudeCall(name string, rawInput json.RawMessage) (Call, error) {
	input, err := eventInput(name, rawInput)
	if err != nil {
		return Call{}, err
	}
	if ec, ok := mcpToolCall(name, input); ok {
		return ec, nil
	}
	if prog, ok := claudeForeign[name]; ok {
		// Foreign code: the bash surface, as the program running it, where
		// the program catalog floors it (<foreign-code>): the code is shown
		// whole, and only a rule naming the program with its code option
		// (or a deny) decides it.
		code, _, err := jsonobj.Object(input).Str("command", "tool_input.")
		if err != nil {
			return Call{}, err
		}
		if strings.TrimSpace(code) == "" {
			return Call{}, fmt.Errorf("the %s call has no command", name)
		}
		cmd := prog + " '" + strings.ReplaceAll(code, "'", `'\''`) + "'"
		return Call{Tool: "bash", Input: map[string]any{"command": cmd}}, nil
	}
	switch name {
	case "Bash":
		return Call{Tool: "bash", Input: input, Rewrite: true}, nil
	case "ExitWorktree":
		// Removing the worktree deletes it, its uncommitted work with it:
		// an edit of the directory the session is in.
		if action, _, err := jsonobj.Object(input).Str("action", "tool_input."); err != nil {
			return Call{}, err
		} else if action != "keep" {
			return Call{Tool: "edit", Input: map[string]any{"path": "."}}, nil
		}
		return Call{Tool: name, Input: input}, nil
	case "Monitor":
		// Monitor watches the output of a shell command (decided as bash)
		// or a WebSocket (its URL is the value on the Monitor surface).
		if cmd, ok := input["command"]; ok && cmd != "" {
			return Call{Tool: "bash", Input: input}, nil
		}
		return Call{Tool: name, Input: input}, nil
	case "Skill":
		// Claude Code's Skill tool loads a skill by name: the skill surface.
		if err := renameField(input, name, "skill", "name"); err != nil {
			return Call{}, err
		}
		return Call{Tool: "skill", Input: input}, nil
	}
	m, ok := claudePathTools[name]
	if !ok {
		// WebFetch, WebSearch, the built-in allowed tools and any other
		// tool keep their Claude name as their surface.
		return Call{Tool: name, Input: input}, nil
	}
	if err := renameField(input, name, m.pathField, "path"); err != nil {
		return Call{}, err
	}
	return Call{Tool: m.tool, Input: input}, nil
}

var ClaudeProfile = Profile{
	Name:            ClaudeCode,
	Calls:           ClaudeCalls,
	ProjectSettings: []string{".claude"},
	UserSettings:    []string{".claude/settings.json", ".claude/settings.local.json"},
	Confines:        true,
	Values: map[string]func(map[string]any) string{
		"WebFetch":  strField("url"),
		"WebSearch": strField("query"),
		// MCP resources: the server, and server:uri for a read.
		"ListMcpResourcesTool": strField("server"),
		"ReadMcpResourceTool": func(in map[string]any) string {
			if server, uri := strField("server")(in), strField("uri")(in); server != "" || uri != "" {
				return server + ":" + uri
			}
			return ""
		},
		"Monitor": func(in map[string]any) string {
			ws, _ := in["ws"].(map[string]any)
			return strField("url")(ws)
		},
		// A worktree it enters, the file an artifact publishes, the prompt
		// a scheduled job runs, the job a delete removes.
		"EnterWorktree": func(in map[string]any) string {
			if n := strField("name")(in); n != "" {
				return n
			}
			return strField("path")(in)
		},
		"Artifact":   strField("file_path"),
		"CronCreate": strField("prompt"),
		"CronDelete": strField("id"),
	},
	// Tools Claude Code runs without asking anyone: its todo list and task
	// tracker, plan mode, subagents (whose own tool calls come through
	// this hook), background shells it started, its question to the
	// person, and the search for its own deferred tools.
	BuiltinAllow: map[string]bool{
		"TodoWrite": true, "ExitPlanMode": true, "EnterPlanMode": true, "Task": true, "Agent": true,
		"BashOutput": true, "KillShell": true, "KillBash": true, "TaskOutput": true, "TaskStop": true,
		"TaskCreate": true, "TaskGet": true, "TaskUpdate": true, "TaskList": true,
		"AskUserQuestion": true, "ToolSearch": true,
		// Leaving a worktree and keeping it (removing it is an edit),
		// listing scheduled jobs, messages to the person.
		"ExitWorktree": true, "CronList": true, "SendUserMessage": true, "Brief": true, "PushNotification": true,
	},
}

// ClaudeEvent is the part of a Claude Code hook event toolgate reads.
type ClaudeEvent struct {
	HookEventName  string          `json:"hook_event_name"`
	SessionID      string          `json:"session_id"`
	Cwd            string          `json:"cwd"`
	PermissionMode string          `json:"permission_mode"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolUseID      string          `json:"tool_use_id"`
	Prompt         string          `json:"prompt"`
}

// ClaudeAnswer is Claude Code's PreToolUse answer, one line of JSON (Qwen
// Code reads the same). A confined command (cmd, "" for none) that is not
// denied replaces the input's command; an ask then ends its reason with
// the command as written, since Claude Code shows the rewritten input.
func ClaudeAnswer(decision, reason string, input map[string]any, cmd, written string) []byte {
	answer := map[string]any{"hookEventName": "PreToolUse", "permissionDecision": decision, "permissionDecisionReason": reason}
	if cmd != "" && decision != "deny" {
		answer["updatedInput"] = WithCommand(input, "command", cmd)
		if decision == "ask" {
			answer["permissionDecisionReason"] = reason + written
		}
	}
	b, _ := json.Marshal(map[string]any{"hookSpecificOutput": answer})
	return append(b, '\n')
}

// ClaudeHook is the Claude Code adapter (claude-hook). It gates
// PreToolUse and UserPromptSubmit; any other event opens the audit log and
// gets no answer.
type ClaudeHook struct{ atOnce }

func (ClaudeHook) Profile() Profile { return ClaudeProfile }

func (ClaudeHook) Event(data []byte) (Event, error) {
	var ev ClaudeEvent
	if err := readEvent(data, &ev); err != nil {
		return Event{}, err
	}
	e := Event{Cwd: ev.Cwd, SessionID: ev.SessionID, Drain: true}
	switch ev.HookEventName {
	case "PreToolUse":
		e.ID, e.SandboxAutoAllow = ev.ToolUseID, ev.ToolName == "Bash"
		e.Calls, e.Err = claudeHookCalls(ev.ToolName, ev.ToolInput)
		e.Action = func(state, reason string) (string, string) {
			return ClaudeDecision(state, reason, ev.PermissionMode)
		}
		e.Answer = func(d Decision) ([]byte, error) {
			if d.Action == "defer" {
				return nil, nil // no answer: Claude Code's own permission flow decides
			}
			return ClaudeAnswer(d.Action, d.Reason, d.Input, d.Confined, d.Written), nil
		}
	case "UserPromptSubmit":
		e.Kind, e.Prompt = SkillPrompt, ev.Prompt
		e.Answer = func(d Decision) ([]byte, error) {
			// A prompt hook cannot ask: an ask blocks, like a host without a UI.
			b, _ := json.Marshal(map[string]string{"decision": "block", "reason": d.Reason})
			return append(b, '\n'), nil
		}
	default:
		e.Kind = IgnoredOnceOpen // other events do not gate anything
	}
	return e, nil
}

// claudeHookCalls are ClaudeCalls with a URL decided as written and as
// the fetcher normalizes it (HTTPS://EVIL.example is https://evil.example/):
// the most restrictive decides.
func claudeHookCalls(name string, rawInput json.RawMessage) ([]Call, error) {
	calls, err := ClaudeCalls(name, rawInput)
	if err != nil {
		return nil, err
	}
	if ec := calls[0]; len(calls) == 1 && ec.Tool == "WebFetch" {
		u, _ := ec.Input["url"].(string)
		calls = urlForms(ec.Tool, ec.Input, u)
	}
	return calls, nil
}
