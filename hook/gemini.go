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
	var ds []hostDecision
	for _, ec := range calls {
		d, err := s.decideEngineCall(hosts.GeminiProfile, "", ec)
		if err != nil {
			return err
		}
		action, _ := hosts.GeminiDecision(d.res.State, d.res.Reason, gopts.Ask)
		s.confine(hosts.GeminiProfile, &d, action)
		ds = append(ds, d)
	}
	for _, d := range ds {
		action, reason := hosts.GeminiDecision(d.res.State, d.res.Reason, gopts.Ask)
		if err := s.auditHostDecision(d, action, reason); err != nil {
			return err
		}
	}
	best := mostRestrictive(ds)
	action, reason := hosts.GeminiDecision(best.res.State, best.res.Reason, gopts.Ask)
	if _, err := out.Write(hosts.GeminiAnswer(action, reason, confinedOf(ds), asWritten(best))); err != nil {
		return err
	}
	s.startDrain() // the answer is written
	return nil
}
