package hook

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/toolgate/toolgate/hook/hosts"
)

// This file drives the Gemini CLI adapter (its mapping is in hosts): a
// BeforeTool command hook, one process per event. It turns the event into
// engine calls and the engine's decision into Gemini CLI's hook answer.

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
	var ev hosts.GeminiEvent
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
	calls, err := hosts.GeminiCalls(ev)
	if err != nil {
		return err
	}
	answer := func(state, reason string) (string, string) { return hosts.GeminiDecision(state, reason, gopts.Ask) }
	best, ds, err := s.decideAll(hosts.GeminiProfile, "", calls, answer, nil)
	if err != nil {
		return err
	}
	action, reason := answer(best.res.State, best.res.Reason)
	if _, err := out.Write(hosts.GeminiAnswer(action, reason, confinedOf(ds), asWritten(best))); err != nil {
		return err
	}
	s.startDrain() // the answer is written
	return nil
}
