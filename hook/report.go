package hook

import (
	json "github.com/goccy/go-json"
	"github.com/rs/zerolog"

	"github.com/toolgate/toolgate/gates"
	"github.com/toolgate/toolgate/protocol"
)

// reporter sends the runner's notifications and audit records. With notes
// set, notifications are kept and written with the call's answer, in one
// write.
type reporter struct {
	s     *Server
	notes *[]protocol.DecisionParams
}

func (r reporter) Notify(d protocol.DecisionParams) {
	if r.notes != nil {
		*r.notes = append(*r.notes, d)
		return
	}
	if r.s.stream == nil {
		return
	}
	if err := r.s.stream.WriteNotification(protocol.MethodDecision, d); err != nil {
		r.s.log.Debug().Err(err).Msg("decision notification")
	}
}

func (r reporter) Audit(rec gates.AuditRecord) error {
	st := r.s.snapshot()
	sessionID, host := st.sessionID, st.host.Name
	return r.s.appendAudit(rec.Event, func(e *zerolog.Event) {
		e.Str("sessionId", sessionID).Str("toolCallId", rec.ToolCallID)
		if host != "" {
			e.Str("host", host)
		}
		if rec.ToolName != "" {
			e.Str("toolName", rec.ToolName)
		}
		if rec.AgentName != "" {
			e.Str("agentName", rec.AgentName)
		}
		if rec.Action != "" {
			e.Str("action", rec.Action)
		}
		for _, f := range [][2]string{{"reason", rec.Reason}, {"resolution", rec.Resolution}, {"gate", rec.Gate},
			{"surface", rec.Surface}, {"value", rec.Value}} {
			if f[1] != "" {
				e.Str(f[0], f[1])
			}
		}
		if rec.State != "" {
			e.Str("state", rec.State)
		}
		if rec.MatchedPattern != nil {
			e.Str("matchedPattern", *rec.MatchedPattern)
		}
		if rec.Origin != nil {
			e.RawJSON("origin", mustJSON(rec.Origin))
		}
		if rec.Choice != "" {
			e.Str("choice", rec.Choice)
		}
		if rec.Trace != nil {
			e.RawJSON("trace", mustJSON(rec.Trace))
		}
		if rec.Cwd != "" {
			e.Str("cwd", rec.Cwd)
		}
		if rec.Input != nil {
			e.RawJSON("input", mustJSON(rec.Input))
		}
	})
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return []byte(`null`)
	}
	return b
}
