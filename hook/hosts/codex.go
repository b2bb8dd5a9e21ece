package hosts

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/toolgate/toolgate/internal/jsonobj"
)

// The Codex CLI adapter: a PreToolUse and PermissionRequest command hook,
// one process per event (~/.codex/hooks.json). Codex's hook answers admit
// no field beyond its schema (an answer it cannot read makes it run the
// tool), a PreToolUse allow counts only with a rewritten input, and
// PreToolUse cannot ask. So: - PreToolUse: toolgate's deny is a deny; its
// allow is no answer (Codex's own sandbox and approval go on); its ask is
// a deny whose reason says how to allow the call, since nothing tells the
// hook that Codex will ask a person before it runs the tool. -
// PermissionRequest (where Codex itself would ask a person): allow and
// deny answer Codex's question; an ask is no answer, so the person is
// asked.

// CodexDecision is the answer toolgate gives Codex for its state: in
// PreToolUse an ask is a deny (nothing there can ask a person); in
// PermissionRequest an ask is left to the person Codex asks.
func CodexDecision(state, reason string, pre bool) (action, why string) {
	if state == "ask" && pre {
		return "deny", reason + codexAskNote
	}
	return state, reason
}

// CodexCalls turns a Codex tool call into engine calls: its shell (which
// Codex names Bash, whatever the model called), apply_patch (one call per
// file the patch touches), MCP tools, and any other tool under its own
// name.
func CodexCalls(name string, rawInput json.RawMessage) ([]Call, error) {
	input, err := eventInput(name, rawInput)
	if err != nil {
		return nil, err
	}
	one := func(ec Call) ([]Call, error) { return []Call{ec}, nil }
	if ec, ok := mcpToolCall(name, input); ok {
		return one(ec)
	}
	switch name {
	case "Bash", "shell", "exec_command", "local_shell":
		if err := renameField(input, name, "cmd", "command"); err != nil {
			return nil, err
		}
		wd, _, err := jsonobj.Object(input).Str("workdir", "tool_input.")
		if err != nil {
			return nil, err
		}
		calls := []Call{{Tool: "bash", Input: input, Workdir: wd, Rewrite: true}}
		cmd, _, err := jsonobj.Object(input).Str("command", "tool_input.")
		if err != nil {
			return nil, err
		}
		patches, err := codexShellPatches(cmd, wd)
		if err != nil {
			return nil, err
		}
		if len(patches) > 0 {
			// Codex applies the patch itself, outside the shell: a
			// rewritten command would lose it, so this one runs as it is.
			calls[0].Rewrite = false
		}
		for _, pt := range patches {
			pc, err := PatchCalls("apply_patch", pt.text)
			if err != nil {
				return nil, err
			}
			for _, c := range pc {
				if p, _ := c.Input["path"].(string); pt.dir != "" && !filepath.IsAbs(p) {
					c.Input["path"] = filepath.Join(pt.dir, p)
				}
				calls = append(calls, c)
			}
		}
		return calls, nil
	case "apply_patch":
		text, err := PatchText(name, input, "command", "input", "patch")
		if err != nil {
			return nil, err
		}
		return PatchCalls(name, text)
	case "view_image":
		return one(Call{Tool: "read", Input: input})
	}
	return one(Call{Tool: name, Input: input})
}

// shellPatch is a patch a shell command hands to apply_patch, and the
// directory its relative paths are relative to ("" for the command's).
type shellPatch struct{ text, dir string }

// codexShellPatches are the patches a shell command gives apply_patch:
// Codex applies `apply_patch <<'EOF' … EOF` (or `apply_patch 'PATCH'`)
// itself, so the files it names are decided with the command. A literal
// `cd DIR` before it moves its relative paths; a patch or directory that
// is not literal text is an error (toolgate cannot tell the files). A
// command that does not parse has none: the bash analysis decides it.
func codexShellPatches(command, workdir string) ([]shellPatch, error) {
	f, err := syntax.NewParser().Parse(strings.NewReader(command), "")
	if err != nil {
		return nil, nil
	}
	var out []shellPatch
	var werr error
	dir := workdir
	syntax.Walk(f, func(n syntax.Node) bool {
		st, ok := n.(*syntax.Stmt)
		if !ok || werr != nil {
			return werr == nil
		}
		call, ok := st.Cmd.(*syntax.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		switch name, _ := shellLiteral(call.Args[0]); name {
		case "cd":
			if len(call.Args) < 2 {
				return true
			}
			d, ok := shellLiteral(call.Args[1])
			if !ok {
				werr = fmt.Errorf("the command changes to a directory toolgate cannot read before apply_patch")
				return false
			}
			if filepath.IsAbs(d) {
				dir = d
			} else {
				dir = filepath.Join(dir, d)
			}
		case "apply_patch", "applypatch":
			text, found := "", false
			for _, r := range st.Redirs {
				if (r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc) && r.Hdoc != nil {
					if text, found = heredocText(r); !found {
						werr = fmt.Errorf("the patch apply_patch reads is not literal text, so toolgate cannot tell which files it changes")
						return false
					}
				}
			}
			if !found && len(call.Args) > 1 {
				if text, found = shellLiteral(call.Args[1]); !found {
					werr = fmt.Errorf("the patch given to apply_patch is not literal text, so toolgate cannot tell which files it changes")
					return false
				}
			}
			if found {
				out = append(out, shellPatch{text: text, dir: dir})
			}
		}
		return true
	})
	return out, werr
}

// heredocText is a heredoc's body when it is literal: all of it when its
// delimiter is quoted (nothing in it expands), else as shellLiteral reads it.
func heredocText(r *syntax.Redirect) (string, bool) {
	quoted := false
	if r.Word != nil {
		for _, p := range r.Word.Parts {
			switch p.(type) {
			case *syntax.SglQuoted, *syntax.DblQuoted:
				quoted = true
			}
		}
	}
	if !quoted {
		return shellLiteral(r.Hdoc)
	}
	var b strings.Builder
	for _, part := range r.Hdoc.Parts {
		l, ok := part.(*syntax.Lit)
		if !ok {
			return "", false
		}
		b.WriteString(l.Value)
	}
	return b.String(), true
}

// shellLiteral is a word's text when it is literal: plain, single- or
// double-quoted text with no expansion and no backslash.
func shellLiteral(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			if strings.Contains(p.Value, "\\") {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok || strings.Contains(l.Value, "\\") {
					return "", false
				}
				b.WriteString(l.Value)
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// codexAskNote ends the reason of an ask Codex cannot show.
var codexAskNote = " (toolgate would ask, and Codex cannot ask a person from its PreToolUse hook, so the call is blocked;" +
	" to allow it," + allowRuleHint(Codex)

// Codex is the Codex CLI's host name, as the audit log records it.
const Codex = "codex"

var CodexProfile = Profile{
	Name:  Codex,
	Calls: CodexCalls,
	Values: map[string]func(map[string]any) string{
		"web_search": strField("query"),
	},
	// Tools Codex runs without asking anyone: its plan, its questions to
	// the person, its goals, and its subagents (whose own tool calls come
	// through this hook).
	BuiltinAllow: map[string]bool{
		"update_plan": true, "request_user_input": true,
		"get_goal": true, "create_goal": true, "update_goal": true,
		"spawn_agent": true, "send_input": true, "resume_agent": true, "wait_agent": true, "close_agent": true,
	},
	ProjectSettings: []string{".codex"},
	Confines:        true,
	UserSettings:    []string{".codex/hooks.json", ".codex/config.toml", ".codex/requirements.toml"},
}

// CodexEvent is the part of a Codex hook event toolgate reads.
type CodexEvent struct {
	HookEventName  string          `json:"hook_event_name"`
	SessionID      string          `json:"session_id"`
	Cwd            string          `json:"cwd"`
	PermissionMode string          `json:"permission_mode"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolUseID      string          `json:"tool_use_id"`
}

// CodexAnswer is Codex's answer to a PreToolUse or PermissionRequest
// event for toolgate's action (CodexDecision), one line of JSON, or nil
// for no answer. A PreToolUse allow counts only with the input rewritten
// to run the confined command (confined, "" for none).
func CodexAnswer(ev CodexEvent, action, reason, confined string) ([]byte, error) {
	pre := ev.HookEventName == "PreToolUse"
	var reply any
	switch {
	case pre && action == "allow" && confined != "":
		// A PreToolUse allow counts only with a rewritten input: the
		// command, run confined (the field keeps the name Codex gave it).
		in, err := ObjectInput(ev.ToolName, ev.ToolInput)
		if err != nil {
			return nil, err
		}
		field := "command"
		if _, ok := in["cmd"]; ok {
			field = "cmd"
		}
		reply = map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": "PreToolUse",
			"permissionDecision": "allow", "updatedInput": WithCommand(in, field, confined)}}
	case pre && action == "deny":
		reply = map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": "PreToolUse",
			"permissionDecision": "deny", "permissionDecisionReason": reason}}
	case !pre && action == "allow":
		reply = map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": "PermissionRequest",
			"decision": map[string]any{"behavior": "allow"}}}
	case !pre && action == "deny":
		reply = map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": "PermissionRequest",
			"decision": map[string]any{"behavior": "deny", "message": reason}}}
	default:
		return nil, nil // no answer: Codex's own flow (its sandbox, its question to the person) goes on
	}
	b, _ := json.Marshal(reply)
	return append(b, '\n'), nil
}

// CodexHook is the Codex adapter (codex-hook), which gates PreToolUse and
// PermissionRequest. A tool call it cannot map blocks before the audit
// log is opened.
type CodexHook struct{ atOnce }

func (CodexHook) Profile() Profile { return CodexProfile }

func (CodexHook) Event(data []byte) (Event, error) {
	var ev CodexEvent
	if err := readEvent(data, &ev); err != nil {
		return Event{}, err
	}
	if ev.HookEventName != "PreToolUse" && ev.HookEventName != "PermissionRequest" {
		return Event{Kind: Ignored}, nil // other events do not gate anything
	}
	calls, err := CodexCalls(ev.ToolName, ev.ToolInput)
	if err != nil {
		return Event{}, err
	}
	pre := ev.HookEventName == "PreToolUse"
	return Event{Cwd: ev.Cwd, SessionID: ev.SessionID, ID: ev.ToolUseID, Calls: calls, Drain: true,
		Action: func(state, reason string) (string, string) { return CodexDecision(state, reason, pre) },
		Answer: func(d Decision) ([]byte, error) { return CodexAnswer(ev, d.Action, d.Reason, d.Confined) },
	}, nil
}
