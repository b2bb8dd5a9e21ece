package hook

import (
	stdjson "encoding/json"
	"fmt"
	"strconv"

	json "github.com/goccy/go-json"

	"github.com/toolgate/toolgate/gates"
	"github.com/toolgate/toolgate/hook/audit"
	"github.com/toolgate/toolgate/protocol"
	"github.com/toolgate/toolgate/verdict"
)

// reporter sends the runner's notifications and audit records. With notes
// set, notifications are kept and written with the call's answer, in one
// write.
type reporter struct {
	s     *Server
	notes *[]protocol.DecisionParams
	// run (may be nil) sees the records of a call decided on the fast
	// path (kept.go).
	run *keptRun
	// trace (may be nil) keeps the trace of the call's record as the
	// record wrote it, for the answer (encodedTrace).
	trace *encodedTrace
}

// encodedTrace is the JSON array of a call's trace as its audit record
// wrote it: byte for byte what the answer writes of the same trace (both
// write each entry's fields in the same order and escape as
// protocol.AppendString), so the answer copies it instead of encoding the
// trace again. first and n say which trace it is (its first entry and
// length): of tells whether it is the answer's. TestTracedAnswerIsAnswer
// keeps the two encodings equal.
type encodedTrace struct {
	first *verdict.TraceEntry
	n     int
	b     []byte
}

// of is the encoding of trace, nil when t holds another trace (or none).
func (t *encodedTrace) of(trace []verdict.TraceEntry) []byte {
	if t == nil || len(trace) == 0 || t.first != &trace[0] || t.n != len(trace) {
		return nil
	}
	return t.b
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
	if r.run != nil && r.run.failWith != nil {
		// The record was written already and failed (keptAnswer): the
		// call is decided as that failure decides it, without a second
		// attempt.
		err := r.run.failWith
		r.run.failWith = nil
		return err
	}
	r.s.mu.RLock()
	sessionID, host, l := r.s.st.sessionID, r.s.st.host.Name, r.s.audit
	r.s.mu.RUnlock()
	if l == nil {
		err := fmt.Errorf("no audit log is open")
		r.run.saw(err)
		return err
	}
	if r.run == nil {
		return l.AppendEnc(rec.Event, func(e *audit.Enc) {
			appendAuditHead(e, sessionID, &rec)
			appendAuditRestTo(e, host, &rec, r.trace)
		})
	}
	run := r.run
	err := l.AppendEnc(rec.Event, func(e *audit.Enc) {
		appendAuditHead(e, sessionID, &rec)
		mark := len(e.Buf())
		appendAuditRest(e, host, &rec)
		run.event, run.host = rec.Event, host
		run.fields = append(run.fields[:0], e.Buf()[mark:]...)
	})
	run.saw(err)
	return err
}

// appendAuditFields appends the fields of an audit record. The bytes are
// the ones of zerolog's Str for the strings and of goccy/go-json's Marshal
// for origin, trace and input (RawJSON), built by hand: the record format
// does not change (TestAuditFieldsAreTheOldFields compares the two).
func appendAuditFields(e *audit.Enc, sessionID, host string, rec *gates.AuditRecord) {
	appendAuditHead(e, sessionID, rec)
	appendAuditRest(e, host, rec)
}

// appendAuditHead appends the fields of a record that are the call's
// own: its session and tool call ids (the first two).
func appendAuditHead(e *audit.Enc, sessionID string, rec *gates.AuditRecord) {
	e.Str("sessionId", sessionID).Str("toolCallId", rec.ToolCallID)
}

// appendAuditRest appends the fields after appendAuditHead's: the same for
// every call of one host decided the same (kept.go keeps them).
func appendAuditRest(e *audit.Enc, host string, rec *gates.AuditRecord) {
	appendAuditRestTo(e, host, rec, nil)
}

// appendAuditRestTo is appendAuditRest, keeping the trace's bytes in
// trace when that is not nil.
func appendAuditRestTo(e *audit.Enc, host string, rec *gates.AuditRecord, trace *encodedTrace) {
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
	for _, f := range [...]struct{ k, v string }{{"reason", rec.Reason}, {"resolution", rec.Resolution}, {"gate", rec.Gate},
		{"surface", rec.Surface}, {"value", rec.Value}} {
		if f.v != "" {
			e.Str(f.k, f.v)
		}
	}
	if rec.State != "" {
		e.Str("state", rec.State)
	}
	if rec.MatchedPattern != nil {
		e.Str("matchedPattern", *rec.MatchedPattern)
	}
	var origin encodedOrigin
	if rec.Origin != nil {
		e.Field("origin")
		b := e.Buf()
		start := len(b)
		b = appendOrigin(b, rec.Origin)
		origin = encodedOrigin{o: rec.Origin, start: start, end: len(b)}
		e.SetBuf(b)
	}
	if rec.Choice != "" {
		e.Str("choice", rec.Choice)
	}
	if rec.Trace != nil {
		e.Field("trace")
		start := len(e.Buf())
		e.SetBuf(appendTrace(e.Buf(), rec.Trace, origin))
		if trace != nil && len(rec.Trace) > 0 {
			trace.first, trace.n = &rec.Trace[0], len(rec.Trace)
			trace.b = append(trace.b[:0], e.Buf()[start:]...)
		}
	}
	if rec.Cwd != "" {
		e.Str("cwd", rec.Cwd)
	}
	if rec.Unconfined {
		e.Field("unconfined")
		e.SetBuf(append(e.Buf(), "true"...))
	}
	if rec.Input != nil {
		e.Field("input")
		b, done := e.Buf(), false
		switch in := rec.Input.(type) {
		case stdjson.RawMessage:
			b, done = audit.AppendCompactJSON(b, in) // what Marshal writes of it
		case truncatedInput:
			b, done = in.appendTo(b), true
		}
		if !done {
			b = append(b, mustJSON(rec.Input)...)
		}
		e.SetBuf(b)
	}
}

// appendOrigin appends o as Marshal writes a verdict.Origin.
func appendOrigin(b []byte, o *verdict.Origin) []byte {
	b = append(b, `{"scope":`...)
	b = audit.AppendJSONString(b, o.Scope)
	if o.Path != "" {
		b = append(b, `,"path":`...)
		b = audit.AppendJSONString(b, o.Path)
	}
	if o.Line != 0 {
		b = append(b, `,"line":`...)
		b = strconv.AppendInt(b, int64(o.Line), 10)
	}
	return append(b, '}')
}

// encodedOrigin is an origin already encoded in the record, at
// b[start:end]: a trace entry of the same origin (the deciding gate's, as
// a rule) copies those bytes rather than escaping the path again.
type encodedOrigin struct {
	o          *verdict.Origin
	start, end int
}

// appendTrace appends t as Marshal writes a []verdict.TraceEntry (the
// fields in their order, omitempty as tagged). An origin equal to known's
// is copied from b; its plain twin is appendOrigin, and
// TestAuditFieldsAreTheOldFields keeps them equal.
func appendTrace(b []byte, t []verdict.TraceEntry, known encodedOrigin) []byte {
	b = append(b, '[')
	for i := range t {
		if i > 0 {
			b = append(b, ',')
		}
		te := &t[i]
		b = append(b, `{"gate":`...)
		b = audit.AppendJSONString(b, te.Gate)
		b = append(b, `,"applied":`...)
		b = strconv.AppendBool(b, te.Applied)
		b = appendOmitEmpty(b, `,"surface":`, te.Surface)
		b = appendOmitEmpty(b, `,"value":`, te.Value)
		b = appendOmitEmpty(b, `,"state":`, te.State)
		b = appendOmitEmpty(b, `,"resolution":`, te.Resolution)
		if te.MatchedPattern != nil {
			b = append(b, `,"matchedPattern":`...)
			b = audit.AppendJSONString(b, *te.MatchedPattern)
		}
		if te.Origin != nil {
			b = append(b, `,"origin":`...)
			if known.o != nil && (te.Origin == known.o || *te.Origin == *known.o) {
				b = append(b, b[known.start:known.end]...)
			} else {
				b = appendOrigin(b, te.Origin)
			}
		}
		b = appendOmitEmpty(b, `,"command":`, te.Command)
		if len(te.Forms) > 0 {
			b = append(b, `,"forms":[`...)
			for j, f := range te.Forms {
				if j > 0 {
					b = append(b, ',')
				}
				b = audit.AppendJSONString(b, f)
			}
			b = append(b, ']')
		}
		b = appendOmitEmpty(b, `,"note":`, te.Note)
		b = append(b, '}')
	}
	return append(b, ']')
}

func appendOmitEmpty(b []byte, key, v string) []byte {
	if v == "" {
		return b
	}
	return audit.AppendJSONString(append(b, key...), v)
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return []byte(`null`)
	}
	return b
}
