package hook

import (
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
	d, _, err := s.decideAll(hosts.CodexProfile, ev.ToolUseID, calls, answer, nil)
	if err != nil {
		return err
	}
	action, reason := answer(d.res.State, d.res.Reason)
	reply, err := hosts.CodexAnswer(ev, action, reason, d.confined)
	if err != nil || reply == nil {
		return err // no answer: Codex's own flow (its sandbox, its question to the person) goes on
	}
	_, err = out.Write(reply)
	return err
}
