package hook

import (
	"bytes"
	"fmt"
	"io"
	"time"

	"github.com/toolgate/toolgate/hook/hosts"
	"github.com/toolgate/toolgate/protocol"
)

// This file drives the GitHub Copilot CLI adapter (its mapping is in
// hosts): a preToolUse command hook, one process per event
// (~/.copilot/hooks/*.json). Copilot runs the tool when a hook times out
// or prints what it cannot parse, so the hook answers within its own
// deadline, prints one answer and nothing else, and a failure is a
// printed deny.

// CopilotOptions are the copilot-hook's own settings.
type CopilotOptions struct {
	// Deadline bounds the whole answer: past it the call is denied
	// (Copilot would run the tool once its own timeoutSec passed).
	Deadline time.Duration
}

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
		r.answer = hosts.CopilotAnswer("deny", "toolgate: blocked (fail-closed): "+r.err.Error())
	}
	// One write of the whole answer: the decision is made into a buffer,
	// so a late one is never printed after the deadline's deny.
	_, _ = out.Write(r.answer)
	return r.err
}

func copilotDecide(opts Options, in io.Reader, out io.Writer) error {
	data, err := readHookEvent(in)
	if err != nil {
		return err
	}
	var ev hosts.CopilotEvent
	if err := protocol.Unmarshal(data, &ev, ""); err != nil {
		return fmt.Errorf("the hook event cannot be read: %w", err)
	}
	calls, err := hosts.CopilotCalls(ev.ToolName, ev.ToolArgs)
	if err != nil {
		return err
	}
	s, err := hookServer(opts, HostCopilotCLI, ev.Cwd, ev.SessionID)
	if err != nil {
		return err
	}
	defer s.closeAudit()
	d, _, err := s.decideAll(hosts.CopilotProfile, "", calls, hosts.CopilotDecision, nil)
	if err != nil {
		return err
	}
	action, reason := hosts.CopilotDecision(d.res.State, d.res.Reason)
	if action == "allow" {
		reason = ""
	}
	_, err = out.Write(hosts.CopilotConfinedAnswer(action, reason, d.call.Input, d.confined, asWritten(d)))
	return err
}
