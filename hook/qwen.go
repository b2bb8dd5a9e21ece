package hook

import (
	"fmt"
	"io"

	"github.com/toolgate/toolgate/hook/hosts"
	"github.com/toolgate/toolgate/protocol"
)

// This file drives the Qwen Code adapter (its mapping is in hosts): a
// PreToolUse command hook in Claude Code's format
// (~/.qwen/settings.json), one process per event, with Qwen's own tool
// names (Gemini-style). Qwen fires the hook when it is about to run the
// tool (after its own approval): an allow lets it run, a deny blocks it
// with toolgate's reason, and an ask goes back to Qwen's own confirmation
// where a person can answer, and is a deny (with the reason) where nobody
// can.

// QwenOptions are the qwen-hook's own settings.
type QwenOptions struct {
	// NoAsk answers toolgate's ask with a deny that says how to allow the
	// call. For sessions driven over stream-json (the SDK): Qwen Code
	// 0.24.4 never hands a hook's ask to the driver there, and the session
	// hangs.
	NoAsk bool
}

// QwenHook answers one Qwen Code PreToolUse event read from in. Any error
// is returned, and the caller exits 2, which Qwen treats as a block.
func QwenHook(opts Options, qopts QwenOptions, in io.Reader, out io.Writer) error {
	data, err := readHookEvent(in)
	if err != nil {
		return err
	}
	var ev hosts.ClaudeEvent
	if err := protocol.Unmarshal(data, &ev, ""); err != nil {
		return fmt.Errorf("the hook event cannot be read: %w", err)
	}
	if ev.HookEventName != "PreToolUse" {
		return nil // other events do not gate anything
	}
	calls, err := hosts.QwenCalls(ev.ToolName, ev.ToolInput)
	if err != nil {
		return err
	}
	s, err := hookServer(opts, HostQwenCode, ev.Cwd, ev.SessionID)
	if err != nil {
		return err
	}
	defer s.closeAudit()
	answer := func(state, reason string) (string, string) { return hosts.QwenDecision(state, reason, qopts.NoAsk) }
	d, _, err := s.decideAll(hosts.QwenProfile, ev.ToolUseID, calls, answer, nil)
	if err != nil {
		return err
	}
	decision, reason := answer(d.res.State, d.res.Reason)
	// Claude Code's format: updatedInput replaces the tool's input.
	_, err = out.Write(hosts.ClaudeAnswer(decision, reason, d.call.Input, d.confined, asWritten(d)))
	return err
}
