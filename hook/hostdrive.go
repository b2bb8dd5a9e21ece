package hook

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/toolgate/toolgate/gates"
	"github.com/toolgate/toolgate/hook/hosts"
	"github.com/toolgate/toolgate/internal/jsonobj"
	"github.com/toolgate/toolgate/policy"
	"github.com/toolgate/toolgate/protocol"
)

// This file drives every hook host (Claude Code, Gemini CLI, Codex,
// Copilot CLI, Qwen Code), one process per event: it reads the event,
// has the host's adapter in hosts say what to decide, decides it with the
// same engine as serve, audits it, and writes the answer the adapter
// makes of the decision.

// RunHook answers one event of the hook host h read from in, on out, with
// the same engine as serve. Any error is returned: the caller exits 2,
// which the hosts treat as a block (Copilot CLI's adapter has printed a
// deny already, and the caller exits 0).
func RunHook(opts Options, h hosts.Hook, in io.Reader, out io.Writer) error {
	return h.Run(func(out io.Writer) error { return answerHook(opts, h, in, out) }, out)
}

func answerHook(opts Options, h hosts.Hook, in io.Reader, out io.Writer) error {
	data, err := readHookEvent(in)
	if err != nil {
		return err
	}
	ev, err := h.Event(data)
	if err != nil || ev.Kind == hosts.Ignored {
		return err
	}
	prof := h.Profile()
	s, err := hookServer(opts, prof.Name, ev.Cwd, ev.SessionID)
	if err != nil {
		return err
	}
	defer s.closeAudit()
	var answer []byte
	switch ev.Kind {
	case hosts.ToolUse:
		answer, err = s.answerToolUse(prof, ev)
	case hosts.SkillPrompt:
		answer, err = s.answerPrompt(ev)
	default:
		return nil // the event gates nothing
	}
	if err != nil {
		return err
	}
	if answer != nil {
		if _, err := out.Write(answer); err != nil {
			return err
		}
	}
	if ev.Drain {
		s.startDrain() // the answer is written
	}
	return nil
}

// readHookEvent reads one hook event, bounded, and rejects one that could
// be read two ways.
func readHookEvent(in io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(in, 64<<20))
	if err != nil {
		return nil, fmt.Errorf("reading the hook event: %w", err)
	}
	if _, err := jsonobj.CheckUnambiguous(data); err != nil {
		return nil, fmt.Errorf("the hook event cannot be read unambiguously: %w", err)
	}
	return data, nil
}

// answerToolUse decides a tool call's engine calls and is the host's
// answer to the most restrictive decision.
func (s *Server) answerToolUse(prof hosts.Profile, ev hosts.Event) ([]byte, error) {
	if ev.Err != nil {
		return nil, ev.Err
	}
	var adjust func(*hostDecision)
	if ev.SandboxAutoAllow {
		adjust = func(d *hostDecision) {
			if s.sandboxAutoAllowed(*d) {
				dec := *d.res.Decision
				dec.Resolution = protocol.ResSandboxAutoAllowed
				d.res.State, d.res.Decision = "allow", &dec
				d.res.Reason = ""
			}
		}
	}
	d, ds, err := s.decideAll(prof, ev.ID, ev.Calls, ev.Action, adjust)
	if err != nil {
		return nil, err
	}
	action, reason := ev.Action(d.res.State, d.res.Reason)
	return ev.Answer(hosts.Decision{Action: action, Reason: reason, Input: d.call.Input,
		Confined: confinedOf(ds), Written: asWritten(d)})
}

// answerPrompt decides the skill a submitted prompt loads, if any, and is
// the host's answer when it is not allowed.
func (s *Server) answerPrompt(ev hosts.Event) ([]byte, error) {
	name, ok := gates.SkillName(ev.Prompt)
	if !ok {
		return nil, nil
	}
	pol := s.currentPolicy()
	c := &gates.Call{ToolCallID: "prompt", Input: map[string]any{"text": ev.Prompt}, Cwd: s.st.cwd, Home: s.opts.Home, AgentDir: s.opts.AgentDir}
	res := gates.Check(gates.Request{Call: c, Gates: gates.InputGates, Resolver: resolver{p: pol}})
	if err := (reporter{s: s}).Audit(gates.AuditRecord{Event: "decision", ToolCallID: "prompt", Action: res.State,
		Reason: res.Reason, Gate: protocol.GateSkillInput, Surface: "skill", Value: name, State: res.State}); err != nil {
		return nil, err
	}
	if res.State == "allow" {
		return nil, nil
	}
	return ev.Answer(hosts.Decision{Action: res.State, Reason: res.Reason})
}

// hookServer is a server for one hook event of host: the event's cwd and
// session, the host named in every audit record.
func hookServer(opts Options, host, cwd, sessionID string) (*Server, error) {
	if cwd != "" {
		if !filepath.IsAbs(cwd) {
			return nil, fmt.Errorf("the hook event's cwd %q is not absolute", cwd)
		}
		opts.Cwd = filepath.Clean(cwd)
	}
	opts.Host = host
	s := New(opts)
	s.loader = policy.NewOneShotLoader() // one event per process: nothing to watch
	s.dirs = newDirCache(s.loader)
	s.st.sessionID = sessionID
	s.openAudit(s.currentPolicy())
	if err := s.auditErr(); err != nil {
		s.closeAudit()
		return nil, err
	}
	return s, nil
}

func (s *Server) closeAudit() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.audit != nil {
		_ = s.audit.Close()
	}
}

func (s *Server) auditErr() error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.audit == nil {
		return fmt.Errorf("no audit log")
	}
	return s.audit.Err()
}
