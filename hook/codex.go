package hook

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/toolgate/toolgate/hook/hosts"
	"github.com/toolgate/toolgate/protocol"
)

// This file drives the Codex CLI adapter (its mapping is in hosts): a
// PreToolUse and PermissionRequest command hook, one process per event
// (~/.codex/hooks.json). Codex's hook answers admit no field beyond its
// schema (an answer it cannot read makes it run the tool), a PreToolUse
// allow counts only with a rewritten input, and PreToolUse cannot ask.
// So: - PreToolUse: toolgate's deny is a deny; its allow is no answer
// (Codex's own sandbox and approval go on); its ask is a deny whose
// reason says how to allow the call, since nothing tells the hook that
// Codex will ask a person before it runs the tool. - PermissionRequest
// (where Codex itself would ask a person): allow and deny answer Codex's
// question; an ask is no answer, so the person is asked.

// CodexHook answers one Codex hook event (PreToolUse or PermissionRequest)
// read from in. Any error is returned, and the caller exits 2 with the
// reason on stderr, which Codex treats as a deny.
func CodexHook(opts Options, in io.Reader, out io.Writer) error {
	data, err := readHookEvent(in)
	if err != nil {
		return err
	}
	var ev hosts.CodexEvent
	if err := protocol.Unmarshal(data, &ev, ""); err != nil {
		return fmt.Errorf("the hook event cannot be read: %w", err)
	}
	if ev.HookEventName != "PreToolUse" && ev.HookEventName != "PermissionRequest" {
		return nil // other events do not gate anything
	}
	calls, err := hosts.CodexCalls(ev.ToolName, ev.ToolInput)
	if err != nil {
		return err
	}
	s, err := hookServer(opts, HostCodex, ev.Cwd, ev.SessionID)
	if err != nil {
		return err
	}
	defer s.closeAudit()
	pre := ev.HookEventName == "PreToolUse"
	answer := func(state, reason string) (string, string) { return hosts.CodexDecision(state, reason, pre) }
	d, err := s.decideAll(hosts.CodexProfile, ev.ToolUseID, calls, answer)
	if err != nil {
		return err
	}
	action, reason := answer(d.res.State, d.res.Reason)
	var reply any
	switch {
	case pre && action == "allow" && d.confined != "":
		// A PreToolUse allow counts only with a rewritten input: the
		// command, run confined (the field keeps the name Codex gave it).
		in, err := hosts.ObjectInput(ev.ToolName, ev.ToolInput)
		if err != nil {
			return err
		}
		field := "command"
		if _, ok := in["cmd"]; ok {
			field = "cmd"
		}
		reply = map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": "PreToolUse",
			"permissionDecision": "allow", "updatedInput": hosts.WithCommand(in, field, d.confined)}}
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
		return nil // no answer: Codex's own flow (its sandbox, its question to the person) goes on
	}
	return json.NewEncoder(out).Encode(reply)
}
