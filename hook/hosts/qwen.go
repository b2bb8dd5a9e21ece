package hosts

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/toolgate/toolgate/internal/jsonobj"
)

// The Qwen Code adapter: a PreToolUse command hook in Claude Code's
// format (~/.qwen/settings.json), one process per event, with Qwen's own
// tool names (Gemini-style). Qwen fires the hook when it is about to run
// the tool (after its own approval): an allow lets it run, a deny blocks
// it with toolgate's reason, and an ask goes back to Qwen's own
// confirmation where a person can answer, and is a deny (with the reason)
// where nobody can.

// qwenPathTools maps Qwen's file tools to toolgate's path tools, with the
// input field that holds the path.
var qwenPathTools = map[string]struct{ tool, pathField string }{
	"read_file": {"read", "file_path"}, "write_file": {"write", "file_path"},
	"edit": {"edit", "file_path"}, "notebook_edit": {"edit", "notebook_path"},
	"grep_search": {"grep", "path"}, "glob": {"find", "path"}, "list_directory": {"ls", "path"},
	"zoom_image": {"read", "file_path"},
}

// QwenDecision is Qwen's answer for toolgate's state: the same word, an
// ask with how to allow the call where Qwen cannot ask (with noAsk, a
// deny saying so). No approval mode (yolo included) loosens a deny or an
// ask: Qwen keeps a hook's answer in every mode.
func QwenDecision(state, reason string, noAsk bool) (string, string) {
	switch {
	case state == "ask" && noAsk:
		return "deny", reason + qwenNoAskNote
	case state == "ask":
		return state, reason + qwenAskNote
	}
	return state, reason
}

// QwenCalls turns a Qwen Code tool call into engine calls. tool_call,
// Qwen's way to call a deferred tool by name, is decided as that tool.
func QwenCalls(name string, raw json.RawMessage) ([]Call, error) {
	return qwenCallsDepth(name, raw, 0)
}

func qwenCallsDepth(name string, raw json.RawMessage, depth int) ([]Call, error) {
	input, err := eventInput(name, raw)
	if err != nil {
		return nil, err
	}
	one := func(ec Call) ([]Call, error) { return []Call{ec}, nil }
	if ec, ok := mcpToolCall(name, input); ok {
		return one(ec)
	}
	switch name {
	case "run_shell_command":
		wd, _, err := jsonobj.Object(input).Str("directory", "tool_input.")
		if err != nil {
			return nil, err
		}
		return one(Call{Tool: "bash", Input: input, Workdir: wd, Rewrite: true})
	case "monitor":
		// Monitor watches a shell command's output: decided as bash.
		if cmd, ok := input["command"]; ok && cmd != "" {
			return one(Call{Tool: "bash", Input: input})
		}
		return one(Call{Tool: name, Input: input})
	case "skill":
		if err := renameField(input, name, "skill", "name"); err != nil {
			return nil, err
		}
		return one(Call{Tool: "skill", Input: input})
	case "web_fetch":
		return urlFormCalls(name, input, "tool_input.")
	case "exit_worktree":
		// Removing the worktree deletes it, its uncommitted work with it:
		// an edit of its directory (Qwen keeps them in .qwen/worktrees).
		action, _, err := jsonobj.Object(input).Str("action", "tool_input.")
		if err != nil {
			return nil, err
		}
		if action == "keep" {
			return one(Call{Tool: name, Input: input})
		}
		wt, _, err := jsonobj.Object(input).Str("name", "tool_input.")
		if err != nil {
			return nil, err
		}
		return one(Call{Tool: "edit", Input: map[string]any{"path": filepath.Join(".qwen", "worktrees", filepath.Base("/"+wt))}})
	case "artifact":
		// Recording a file as an artifact reads it.
		p, _, err := jsonobj.Object(input).Str("file_path", "tool_input.")
		if err != nil {
			return nil, err
		}
		calls := []Call{{Tool: name, Input: input}}
		if p != "" {
			calls = append(calls, Call{Tool: "read", Input: map[string]any{"path": p}})
		}
		return calls, nil
	case "tool_call":
		if depth > 0 {
			return nil, fmt.Errorf("a tool_call calls tool_call")
		}
		target, _, err := jsonobj.Object(input).Str("name", "tool_input.")
		if err != nil {
			return nil, err
		}
		if target == "" {
			return nil, fmt.Errorf("the tool_call names no tool")
		}
		args, err := json.Marshal(input["arguments"])
		if err != nil {
			return nil, err
		}
		calls, err := qwenCallsDepth(target, args, depth+1)
		for i := range calls {
			// The rewrite would be of tool_call's own input: the
			// deferred shell command runs as it is.
			calls[i].Rewrite = false
		}
		return calls, err
	}
	m, ok := qwenPathTools[name]
	if !ok {
		return one(Call{Tool: name, Input: input})
	}
	if err := renameField(input, name, m.pathField, "path"); err != nil {
		return nil, err
	}
	return one(Call{Tool: m.tool, Input: input})
}

// qwenAskNote ends the reason of an ask, which Qwen shows in its own
// confirmation, and which a run with nobody to ask (qwen -p) denies with
// this reason.
var qwenAskNote = " (toolgate asks; where nobody can answer, as in `qwen -p`, Qwen Code blocks the call." +
	" To allow it there," + allowRuleHint(QwenCode)

// qwenNoAskNote ends the reason of an ask that qwen-hook --no-ask denies.
var qwenNoAskNote = " (toolgate would ask, and this Qwen Code hook does not ask (--no-ask), so the call is blocked;" +
	" to allow it," + allowRuleHint(QwenCode)

// QwenCode is Qwen Code's host name, as the audit log records it.
const QwenCode = "qwen-code"

var QwenProfile = Profile{
	Name:  QwenCode,
	Calls: QwenCalls,
	Values: map[string]func(map[string]any) string{
		"web_fetch":  strField("url"),
		"web_search": strField("query"),
		// The file an artifact records, the prompt a scheduled job runs.
		"artifact":    strField("file_path"),
		"cron_create": strField("prompt"),
	},
	// Tools Qwen runs without asking anyone: its todo list and tasks, plan
	// mode, goals, subagents (whose own tool calls come through this
	// hook), its question to the person, the search for its own deferred
	// tools, and its structured final answer.
	BuiltinAllow: map[string]bool{
		"todo_write": true, "exit_plan_mode": true, "enter_plan_mode": true, "ask_user_question": true,
		"agent": true, "list_agents": true, "get_goal": true, "update_goal": true,
		"task_create": true, "task_update": true, "task_list": true, "task_stop": true,
		"tool_search": true, "structured_output": true,
		// Leaving a worktree and keeping it (removing it is an edit),
		// listing scheduled jobs.
		"exit_worktree": true, "cron_list": true,
	},
	ProjectSettings: []string{".qwen"},
	Confines:        true,
	UserSettings:    []string{".qwen/settings.json"},
}

// QwenHook is the Qwen Code adapter (qwen-hook), which gates PreToolUse.
// A tool call it cannot map blocks before the audit log is opened.
type QwenHook struct {
	atOnce

	// NoAsk answers toolgate's ask with a deny that says how to allow the
	// call. For sessions driven over stream-json (the SDK): Qwen Code
	// 0.24.4 never hands a hook's ask to the driver there, and the session
	// hangs.
	NoAsk bool
}

func (QwenHook) Profile() Profile { return QwenProfile }

func (h QwenHook) Event(data []byte) (Event, error) {
	var ev ClaudeEvent
	if err := readEvent(data, &ev); err != nil {
		return Event{}, err
	}
	if ev.HookEventName != "PreToolUse" {
		return Event{Kind: Ignored}, nil // other events do not gate anything
	}
	calls, err := QwenCalls(ev.ToolName, ev.ToolInput)
	if err != nil {
		return Event{}, err
	}
	return Event{Cwd: ev.Cwd, SessionID: ev.SessionID, ID: ev.ToolUseID, Calls: calls, Drain: true,
		Action: func(state, reason string) (string, string) { return QwenDecision(state, reason, h.NoAsk) },
		Answer: func(d Decision) ([]byte, error) {
			// Claude Code's format: updatedInput replaces the tool's input.
			return ClaudeAnswer(d.Action, d.Reason, d.Input, d.Confined, d.Written), nil
		},
	}, nil
}
