package hook

import (
	"context"
	"fmt"
	"reflect"

	"github.com/toolgate/toolgate/gates"
	"github.com/toolgate/toolgate/internal/jsonobj"
	"github.com/toolgate/toolgate/protocol"
)

// input checks a user input event: only "/skill:NAME" is checked; any other
// text continues. It never answers with an error.
func (s *Server) input(ctx context.Context, raw []byte) any {
	id := fmt.Sprintf("input-%d", s.inputSeq.Add(1))
	if _, err := jsonobj.CheckUnambiguous(raw); err != nil {
		return s.invalid(protocol.GateSkillInput, id, err)
	}
	params, err := jsonobj.Decode(raw)
	if err != nil {
		return s.invalid(protocol.GateSkillInput, id, err)
	}
	if err := protocol.CheckKeys(map[string]any(params), reflect.TypeFor[protocol.InputParams](), ""); err != nil {
		return s.invalid(protocol.GateSkillInput, id, err)
	}
	text, ok, err := params.Str("text", "")
	if err == nil && !ok {
		err = fmt.Errorf("text is missing")
	}
	if err != nil {
		return s.invalid(protocol.GateSkillInput, id, err)
	}
	if _, _, err := params.Str("source", ""); err != nil {
		return s.invalid(protocol.GateSkillInput, id, err)
	}
	st := s.snapshot()
	if agent, ok, err := params.Str("agentName", ""); err != nil {
		return s.invalid(protocol.GateSkillInput, id, err)
	} else if ok {
		st.agentName = agent
	}
	if _, isSkill := gates.SkillName(text); !isSkill {
		// Not checked; recorded without the text, which is the person's own.
		if err := (reporter{s: s}).Audit(gates.AuditRecord{Event: "decision", ToolCallID: id, Action: protocol.ActionContinue,
			Gate: protocol.GateSkillInput, Reason: "not a skill invocation"}); err != nil {
			s.log.Error().Err(err).Msg("audit")
		}
		return protocol.ToolCallResult{Action: protocol.ActionContinue}
	}
	if isLate(ctx) {
		res := blockResult(protocol.GateSkillInput, "skill", protocol.ResGateError, "toolgate: the session is shutting down, so the input is blocked")
		res.Trace = nil
		return res
	}
	locs := s.locations(st)
	pol := s.loader.Policy(locs)
	c := &gates.Call{ToolCallID: id, Input: map[string]any{"text": text}, Cwd: st.cwd, Home: s.opts.Home,
		AgentDir: s.opts.AgentDir, AgentName: st.agentName}
	// Skills get no session option, so session approvals never apply here.
	req := gates.Request{Call: c, Gates: gates.InputGates, HasUI: st.hasUI, Input: map[string]any{"text": text},
		Resolver: resolver{p: pol}, AllowAction: protocol.ActionContinue, Noun: "input",
		Current: func() gates.Resolver { return resolver{p: s.loader.Policy(locs)} }}
	var notes []protocol.DecisionParams
	res := s.runner(pol, &notes).Run(s.decideCtx(), req)
	if res.Action == protocol.ActionContinue {
		return answer{result: protocol.ToolCallResult{Action: protocol.ActionContinue}, notes: notes}
	}
	res.Trace = nil
	return answer{result: res, notes: notes}
}
