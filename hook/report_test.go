package hook

import (
	"bytes"
	"encoding/json"
	"io"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	goccy "github.com/goccy/go-json"
	"github.com/rs/zerolog"

	"github.com/toolgate/toolgate/gates"
	"github.com/toolgate/toolgate/hook/audit"
	"github.com/toolgate/toolgate/protocol"
	"github.com/toolgate/toolgate/verdict"
)

// oldAuditFields is reporter.Audit's fields as they were written with
// zerolog and goccy/go-json's Marshal (the definition of the format).
func oldAuditFields(sessionID, host string, rec gates.AuditRecord) func(e *zerolog.Event) {
	return func(e *zerolog.Event) {
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
			e.RawJSON("origin", oldJSON(rec.Origin))
		}
		if rec.Choice != "" {
			e.Str("choice", rec.Choice)
		}
		if rec.Trace != nil {
			e.RawJSON("trace", oldJSON(rec.Trace))
		}
		if rec.Cwd != "" {
			e.Str("cwd", rec.Cwd)
		}
		if rec.Input != nil {
			e.RawJSON("input", oldJSON(rec.Input))
		}
	}
}

func oldJSON(v any) []byte {
	b, err := goccy.Marshal(v)
	if err != nil {
		return []byte(`null`)
	}
	return b
}

func nasty(r *rand.Rand) string {
	if r.IntN(4) == 0 {
		return ""
	}
	pieces := []string{`"`, `\`, "\x00", "\x1f", "\b", "\f", "\n", "\r", "\t", "\x7f", "<", ">", "&", "\u2028", "\u2029",
		"\ufffd", "é", "日本", "\U0001F600", "\xff", "\xc3", "\xed\xa0\x80", "git status", " ", "/", "~/p", "*"}
	var b strings.Builder
	for n := 1 + r.IntN(8); n > 0; n-- {
		if r.IntN(4) == 0 {
			b.WriteByte(byte(r.IntN(256)))
		} else {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
	}
	return b.String()
}

func randomOrigin(r *rand.Rand) *verdict.Origin {
	if r.IntN(3) == 0 {
		return nil
	}
	return &verdict.Origin{Scope: nasty(r), Path: nasty(r), Line: []int{0, 1, 42, -3, 1 << 40}[r.IntN(5)]}
}

func randomPattern(r *rand.Rand) *string {
	if r.IntN(3) == 0 {
		return nil
	}
	s := nasty(r)
	return &s
}

func randomInput(r *rand.Rand) any {
	raws := []string{`{"command":"git status"}`, `{"command":"echo \"a<b\" \u0026\u0026 x","timeout":1.5e3}`, `{"path":"src/main.go","offset":0,"limit":-1}`,
		`{ "command" : "ls" }`, "{\"text\":\"\xff\"}", `{"text":"é"}`, `{"a":[true,false,null,{}],"b":[]}`, `"just a string"`, `12`, `[1,2`, ``, `{"x":"\u2028"}`,
		`{"x":"` + strings.Repeat("y", 5000) + `"}`, `{"a":"\ud800"}`, "{\"k\":\"v\"}\n", `{"command":"make 2>&1 | tee log && echo <done>"}`, "{\"p\":\"caf\u00e9 \u2028\"}"}
	switch r.IntN(7) {
	case 0:
		return nil
	case 1:
		return json.RawMessage(nil)
	case 2:
		return map[string]any{"text": nasty(r), "b": 1}
	case 3:
		return map[string]any{"truncated": true, "bytes": 5000, "head": nasty(r)}
	default:
		return json.RawMessage(raws[r.IntN(len(raws))])
	}
}

func randomRecord(r *rand.Rand) gates.AuditRecord {
	rec := gates.AuditRecord{Event: []string{"decision", "prompt", "prompt_answer"}[r.IntN(3)], ToolCallID: nasty(r), ToolName: nasty(r),
		AgentName: nasty(r), Action: nasty(r), Reason: nasty(r), Resolution: nasty(r), Gate: nasty(r), Surface: nasty(r), Value: nasty(r),
		State: nasty(r), MatchedPattern: randomPattern(r), Origin: randomOrigin(r), Input: randomInput(r), Choice: nasty(r), Cwd: nasty(r)}
	switch r.IntN(4) {
	case 0: // no trace
	case 1:
		rec.Trace = []verdict.TraceEntry{}
	default:
		for n := 1 + r.IntN(6); n > 0; n-- {
			te := verdict.TraceEntry{Gate: nasty(r), Applied: r.IntN(2) == 0, Surface: nasty(r), Value: nasty(r), State: nasty(r),
				Resolution: nasty(r), MatchedPattern: randomPattern(r), Origin: randomOrigin(r), Command: nasty(r), Note: nasty(r)}
			// The deciding entry's origin is often the record's (the same
			// value, or a copy of it), which the encoder copies.
			switch r.IntN(4) {
			case 1:
				te.Origin = rec.Origin
			case 2:
				if rec.Origin != nil {
					o := *rec.Origin
					te.Origin = &o
				}
			}
			switch r.IntN(3) {
			case 1:
				te.Forms = []string{}
			case 2:
				te.Forms = []string{nasty(r), nasty(r)}
			}
			rec.Trace = append(rec.Trace, te)
		}
	}
	return rec
}

// The hand-built fields of an audit record are byte for byte the ones
// zerolog and goccy/go-json wrote, for generated records of every kind:
// control characters, invalid UTF-8, HTML characters, large inputs, nil
// and empty fields, inputs that are not compact or not valid.
func TestAuditFieldsAreTheOldFields(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for i := 0; i < 20000; i++ {
		rec := randomRecord(r)
		session, host := nasty(r), nasty(r)
		var buf bytes.Buffer
		lg := zerolog.New(&buf)
		ev := lg.Log().Str("event", rec.Event)
		oldAuditFields(session, host, rec)(ev)
		ev.Send()
		want := strings.TrimSuffix(buf.String(), "\n")
		var e audit.Enc
		e.Str("event", rec.Event)
		appendAuditFields(&e, session, host, &rec)
		got := "{" + string(e.Bytes()) + "}"
		if got != want {
			t.Fatalf("record %+v:\n got %s\nwant %s", rec, got, want)
		}
	}
}

func benchRecord() gates.AuditRecord {
	pat, rule := "git status", "git status"
	origin := &verdict.Origin{Scope: "global", Path: "/home/u/.pi/agent/extensions/pi-permission-system/config.json", Line: 12}
	return gates.AuditRecord{Event: "decision", ToolCallID: "call-000123", ToolName: "bash", Action: "allow",
		Resolution: "rule", Gate: "tool", Surface: "bash", Value: "git status", State: "allow", MatchedPattern: &pat, Origin: origin,
		Trace: []verdict.TraceEntry{
			{Gate: "protected", Applied: false, Note: "no protected path"},
			{Gate: "external_directory", Applied: false},
			{Gate: "tool", Applied: true, Surface: "bash", Value: "git status", State: "allow", Resolution: "rule", MatchedPattern: &rule, Origin: origin,
				Command: "git status", Forms: []string{"git status"}},
		},
		Input: json.RawMessage(`{"command":"git status","timeout":120}`), Cwd: "/home/u/work/project"}
}

// benchLog is an audit log in a fresh folder, closed when the benchmark
// ends.
func benchLog(b *testing.B) *audit.Log {
	l, err := audit.Open(filepath.Join(b.TempDir(), "audit.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { l.Close() })
	return l
}

// BenchmarkAuditRecord is reporter.Audit's record: its fields built and
// appended to a log (the syscalls included).
func BenchmarkAuditRecord(b *testing.B) {
	l := benchLog(b)
	rec := benchRecord()
	b.ReportAllocs()
	for b.Loop() {
		if err := l.AppendEnc(rec.Event, func(e *audit.Enc) { appendAuditFields(e, "session-1", "", &rec) }); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAuditRecordOld is the same record written as before: zerolog
// fields, goccy/go-json for origin, trace and input.
func BenchmarkAuditRecordOld(b *testing.B) {
	l := benchLog(b)
	rec := benchRecord()
	b.ReportAllocs()
	for b.Loop() {
		if err := l.Append(rec.Event, oldAuditFields("session-1", "", rec)); err != nil {
			b.Fatal(err)
		}
	}
}

// TestTracedAnswerIsAnswer: for generated records of every kind (control
// characters, invalid UTF-8, HTML characters, origins shared with the
// decision or copies of it, empty and missing forms), the trace a
// decision's record keeps for the answer (appendAuditRestTo) is what the
// answer writes of that trace: the answer with it copied is byte for byte
// the answer encoded afresh, in both framings; a trace kept for another
// trace is not used.
func TestTracedAnswerIsAnswer(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	streams := []*protocol.Stream{
		protocol.NewStream(strings.NewReader(""), io.Discard, nil, protocol.FramingNewline, nil),
		protocol.NewStream(strings.NewReader(""), io.Discard, nil, protocol.FramingContentLength, nil),
	}
	kept := 0
	for i := 0; i < 20000; i++ {
		rec := randomRecord(r)
		var tr encodedTrace
		var e audit.Enc
		appendAuditRestTo(&e, nasty(r), &rec, &tr)
		res := protocol.ToolCallResult{Action: rec.Action, Reason: rec.Reason, Trace: rec.Trace,
			Decision: &protocol.Decision{Gate: rec.Gate, Surface: rec.Surface, Value: rec.Value, State: rec.State,
				Resolution: rec.Resolution, MatchedPattern: rec.MatchedPattern, Origin: rec.Origin}}
		trace := tr.of(res.Trace)
		if (trace != nil) != (len(rec.Trace) > 0) {
			t.Fatalf("record %d: a trace of %d entries kept as %q", i, len(rec.Trace), trace)
		}
		if trace != nil {
			kept++
			if other := append([]verdict.TraceEntry(nil), rec.Trace...); tr.of(other) != nil {
				t.Fatalf("record %d: the trace kept is taken for a copy of it", i)
			}
		}
		notes := []protocol.DecisionParams{{ToolCallID: nasty(r), Gate: nasty(r), Result: "allow"}}
		for _, st := range streams {
			got := st.AppendToolCallAnswerTraced(nil, []byte("7"), notes, &res, trace)
			want := st.AppendToolCallAnswer(nil, []byte("7"), notes, &res)
			if !bytes.Equal(got, want) {
				t.Fatalf("record %d:\n got %s\nwant %s", i, got, want)
			}
		}
	}
	if kept < 5000 {
		t.Errorf("only %d of the records had a trace kept", kept)
	}
}
