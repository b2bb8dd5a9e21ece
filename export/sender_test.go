package export

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	json "github.com/goccy/go-json"
	"github.com/rs/zerolog"

	collogspb "go.opentelemetry.io/proto/slim/otlp/collector/logs/v1"

	"github.com/toolgate/toolgate/hook/audit"
	"github.com/toolgate/toolgate/internal/otlptest"
	"github.com/toolgate/toolgate/policy"
)

// testLog is an audit log in a temporary directory, written through the
// audit package as toolgate writes it.
type testLog struct {
	path string
	l    *audit.Log
}

func newTestLog(t testing.TB) *testLog {
	path := filepath.Join(t.TempDir(), "logs", "audit.jsonl")
	l, err := audit.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return &testLog{path: path, l: l}
}

// calls appends n decision records, as a session's calls would.
func (tl *testLog) calls(t testing.TB, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		if err := tl.l.Append("decision", func(e *zerolog.Event) {
			e.Str("sessionId", "s-1").Str("toolCallId", fmt.Sprintf("c%d", i)).Str("host", "claude-code").Str("toolName", "bash").
				Str("action", "allow").Str("resolution", "policy_allow").Str("gate", "bash").Str("state", "allow").
				Str("matchedPattern", "git *").RawJSON("origin", []byte(`{"scope":"global","path":"/cfg/global.json","line":3}`))
		}); err != nil {
			t.Fatal(err)
		}
	}
}

// events is the event of every record of the log at path, in order.
func events(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r struct{ Event string }
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		out = append(out, r.Event)
	}
	return out
}

func testSender(tl *testLog, c *otlptest.Collector, change func(o *Options)) *Sender {
	o := Options{Log: tl.path, Endpoint: c.URL, Appender: tl.l, Version: "test", HostName: "build-7",
		BatchRecords: 7, MinBackoff: time.Millisecond, MaxBackoff: 4 * time.Millisecond}
	if change != nil {
		change(&o)
	}
	return New(o)
}

// checkOnce checks that the collector received seqs 1..n of one log, each
// once, in order.
func checkOnce(t *testing.T, recs []otlptest.Record, n int) {
	t.Helper()
	if len(recs) != n {
		t.Fatalf("received %d records, want %d", len(recs), n)
	}
	for i, r := range recs {
		if r.Seq != int64(i+1) {
			t.Fatalf("record %d has seq %d (out of order, missing or repeated)", i, r.Seq)
		}
		if r.LogID == "" || r.LogID != recs[0].LogID || len(r.Hash) != 64 {
			t.Fatalf("record %d: log_id %q, hash %q", i, r.LogID, r.Hash)
		}
	}
}

// TestDrainSendsEveryRecordOnceInOrder: batches in order, every record's
// attributes, the machine on the resource, the cursor after the last, and
// a second drain with nothing new sends nothing.
func TestDrainSendsEveryRecordOnceInOrder(t *testing.T) {
	tl, c := newTestLog(t), otlptest.New(t)
	tl.calls(t, 50)
	s := testSender(tl, c, func(o *Options) { o.Headers = []policy.Header{{Name: "Authorization", Value: "Bearer t0k"}} })
	res, err := s.Drain(context.Background())
	if err != nil || res.Sent != 50 || res.Rejected != 0 {
		t.Fatalf("Drain = %+v, %v", res, err)
	}
	recs := c.Received()
	checkOnce(t, recs, 50)
	if c.Requests() != 8 {
		t.Errorf("%d requests for 50 records in batches of 7, want 8", c.Requests())
	}
	if got := c.Header().Get("Authorization"); got != "Bearer t0k" {
		t.Errorf("the configured header was not sent: %q", got)
	}
	r := recs[9]
	want := map[string]any{"session.id": "s-1", "toolgate.tool_call.id": "c9", "toolgate.agent_host": "claude-code",
		"toolgate.tool.name": "bash", "toolgate.decision.action": "allow", "toolgate.decision.resolution": "policy_allow",
		"toolgate.rule.pattern": "git *", "toolgate.rule.origin": "global /cfg/global.json:3", "toolgate.rule.origin.line": int64(3),
		"toolgate.event": "decision"}
	for k, v := range want {
		if r.Attrs[k] != v {
			t.Errorf("attribute %s = %#v, want %#v", k, r.Attrs[k], v)
		}
	}
	if r.Host != "build-7" {
		t.Errorf("host.name = %q", r.Host)
	}
	// The body is the record's line: its chain hash can be checked.
	var line struct{ Prev, Hash string }
	if err := json.Unmarshal([]byte(r.Body), &line); err != nil || line.Hash != r.Hash || line.Prev != recs[8].Hash {
		t.Errorf("body %q does not chain to the record before", r.Body)
	}
	cur, err := ReadCursor(tl.path)
	if err != nil || cur == nil || cur.Seq != 50 || cur.Hash != recs[49].Hash || cur.Sent != 50 || cur.LogID != r.LogID {
		t.Fatalf("cursor = %+v, %v", cur, err)
	}
	if info, _ := os.Stat(tl.path); info.Size() != cur.Offset {
		t.Errorf("cursor offset %d, log size %d", cur.Offset, info.Size())
	}
	if more, _ := Pending(tl.path); more {
		t.Error("Pending after everything was sent")
	}
	if res, err := s.Drain(context.Background()); err != nil || res.Sent != 0 || len(c.Received()) != 50 {
		t.Errorf("a second drain sent again: %+v, %v", res, err)
	}
}

// TestCursorSurvivesRestart: a new sender (a new process) goes on from
// the cursor: only the records after it are sent.
func TestCursorSurvivesRestart(t *testing.T) {
	tl, c := newTestLog(t), otlptest.New(t)
	tl.calls(t, 10)
	if _, err := testSender(tl, c, nil).Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	tl.calls(t, 5)
	if more, _ := Pending(tl.path); !more {
		t.Fatal("not Pending with 5 records past the cursor")
	}
	if n, _, err := Behind(tl.path); n != 5 || err != nil {
		t.Errorf("Behind = %d, %v; want 5 records", n, err)
	}
	res, err := testSender(tl, c, nil).Drain(context.Background())
	if err != nil || res.Sent != 5 || res.Gap {
		t.Fatalf("Drain = %+v, %v", res, err)
	}
	checkOnce(t, c.Received(), 15)
	if n, b, _ := Behind(tl.path); n != 0 || b != 0 {
		t.Errorf("Behind after the drain = %d records, %d bytes", n, b)
	}
}

// TestRetryAfterHonoured: a 429 or 503 with Retry-After (seconds or an
// HTTP date) is waited at least that long, longer than the back-off, and
// the batch is then sent again; the outage is one export_failed record.
func TestRetryAfterHonoured(t *testing.T) {
	for _, ra := range []string{"3", "date"} {
		tl, c := newTestLog(t), otlptest.New(t)
		tl.calls(t, 3)
		c.SetAnswer(func(n int, _ *collogspb.ExportLogsServiceRequest) (int, string, *collogspb.ExportLogsServiceResponse) {
			switch {
			case n == 1:
				return http.StatusTooManyRequests, "3", nil
			case n == 2 && ra == "date":
				return http.StatusServiceUnavailable, time.Now().Add(5 * time.Second).UTC().Format(http.TimeFormat), nil
			}
			return http.StatusOK, "", nil
		})
		s := testSender(tl, c, nil)
		var waits []time.Duration
		s.wait = func(ctx context.Context, d time.Duration) error { waits = append(waits, d); return nil }
		if _, err := s.Drain(context.Background()); err != nil {
			t.Fatal(err)
		}
		if len(waits) == 0 || waits[0] < 3*time.Second {
			t.Errorf("%s: waits %v: Retry-After: 3 not honoured", ra, waits)
		}
		if ra == "date" && (len(waits) < 2 || waits[1] < 3*time.Second) {
			t.Errorf("waits %v: an HTTP-date Retry-After not honoured", waits)
		}
		recs := c.Received()
		checkOnce(t, recs[:3], 3)
		ev := events(t, tl.path)
		if ev[len(ev)-1] != "export_failed" || strings.Count(strings.Join(ev, " "), "export_failed") != 1 {
			t.Errorf("%s: events %v, want one export_failed at the end", ra, ev)
		}
		if len(recs) != 4 || recs[3].Event != "export_failed" {
			t.Errorf("%s: the export_failed record was not sent: %+v", ra, recs)
		}
	}
}

// TestOutageIsOneRecord: many failed attempts (connection refused, then
// 503) are one export_failed record naming their count and first and last
// errors, written when sending succeeds again; no record is lost.
func TestOutageIsOneRecord(t *testing.T) {
	tl, c := newTestLog(t), otlptest.New(t)
	tl.calls(t, 20)
	c.SetAnswer(func(n int, _ *collogspb.ExportLogsServiceRequest) (int, string, *collogspb.ExportLogsServiceResponse) {
		if n <= 6 {
			return http.StatusServiceUnavailable, "", nil
		}
		return http.StatusOK, "", nil
	})
	if _, err := testSender(tl, c, nil).Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	recs := c.Received()
	checkOnce(t, recs[:20], 20)
	ev := events(t, tl.path)
	if n := strings.Count(strings.Join(ev, " "), "export_failed"); n != 1 {
		t.Fatalf("%d export_failed records, want 1: %v", n, ev)
	}
	b, _ := os.ReadFile(tl.path)
	last := strings.Split(strings.TrimSpace(string(b)), "\n")[20]
	var r struct {
		FailedAttempts int
		FirstError     string
	}
	_ = json.Unmarshal([]byte(last), &r)
	if r.FailedAttempts != 6 || !strings.Contains(r.FirstError, "503") {
		t.Errorf("export_failed = %s", last)
	}
	if rep, err := audit.VerifyFile(tl.path); err != nil || !rep.OK() {
		t.Errorf("the log does not verify: %+v, %v", rep, err)
	}
	if cur, _ := ReadCursor(tl.path); cur.Outage != nil {
		t.Errorf("the outage stays in the cursor: %+v", cur.Outage)
	}
}

// TestPartialSuccessCountedAndSkipped: records a collector says it
// rejected are counted (in the result and the cursor) and not sent again;
// a batch it refuses with 400 is split until the one record it refuses
// is found, which is counted and skipped.
func TestPartialSuccessCountedAndSkipped(t *testing.T) {
	tl, c := newTestLog(t), otlptest.New(t)
	tl.calls(t, 14)
	c.SetAnswer(func(n int, req *collogspb.ExportLogsServiceRequest) (int, string, *collogspb.ExportLogsServiceResponse) {
		for _, g := range otlptest.Flatten(req) {
			if g.Seq == 12 {
				return http.StatusBadRequest, "", nil
			}
		}
		if n == 1 {
			return http.StatusOK, "", &collogspb.ExportLogsServiceResponse{PartialSuccess: &collogspb.ExportLogsPartialSuccess{RejectedLogRecords: 2, ErrorMessage: "too old"}}
		}
		return http.StatusOK, "", nil
	})
	res, err := testSender(tl, c, nil).Drain(context.Background())
	if err != nil || res.Sent != 14 || res.Rejected != 3 {
		t.Fatalf("Drain = %+v, %v; want 14 sent, 3 rejected", res, err)
	}
	var seqs []int64
	for _, g := range c.Received() {
		seqs = append(seqs, g.Seq)
	}
	if fmt.Sprint(seqs) != "[1 2 3 4 5 6 7 8 9 10 11 13 14]" {
		t.Errorf("received %v", seqs)
	}
	if cur, _ := ReadCursor(tl.path); cur.Rejected != 3 || cur.Seq != 14 {
		t.Errorf("cursor = %+v", cur)
	}
}

// TestReplacedLogGap: a log moved aside and started again, or cut short,
// starts a new cursor with one export_gap record, chained in the new log,
// and every record of the new log is sent under its new log_id.
func TestReplacedLogGap(t *testing.T) {
	for _, how := range []string{"replaced", "truncated", "rewritten"} {
		tl, c := newTestLog(t), otlptest.New(t)
		tl.calls(t, 5)
		if _, err := testSender(tl, c, nil).Drain(context.Background()); err != nil {
			t.Fatal(err)
		}
		oldID := c.Received()[0].LogID
		switch how {
		case "replaced":
			if err := os.Rename(tl.path, tl.path+".1"); err != nil {
				t.Fatal(err)
			}
		case "truncated":
			if err := os.Truncate(tl.path, 0); err != nil {
				t.Fatal(err)
			}
		case "rewritten":
			// Cut to its first two records, and three others appended:
			// as long as before, but not what was sent.
			b, _ := os.ReadFile(tl.path)
			ls := strings.SplitAfter(string(b), "\n")
			if err := os.WriteFile(tl.path, []byte(ls[0]+ls[1]), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		tl.calls(t, 3)
		res, err := testSender(tl, c, nil).Drain(context.Background())
		if err != nil || !res.Gap {
			t.Fatalf("%s: Drain = %+v, %v", how, res, err)
		}
		ev := events(t, tl.path)
		if n := strings.Count(strings.Join(ev, " "), "export_gap"); n != 1 {
			t.Errorf("%s: %d export_gap records: %v", how, n, ev)
		}
		if rep, err := audit.VerifyFile(tl.path); err != nil || rep.Problem != nil {
			t.Errorf("%s: the log does not verify: %+v, %v", how, rep, err)
		}
		recs := c.Received()[5:]
		if len(recs) != len(ev) {
			t.Fatalf("%s: %d records sent of the new log's %d", how, len(recs), len(ev))
		}
		sawGap := false
		for i, r := range recs {
			if r.Event != ev[i] || r.Seq != int64(i+1) {
				t.Errorf("%s: record %d is %s %d, want %s %d", how, i, r.Event, r.Seq, ev[i], i+1)
			}
			sawGap = sawGap || r.Event == "export_gap" && r.Attrs["toolgate.log_id"] == recs[0].LogID
		}
		if !sawGap {
			t.Errorf("%s: no export_gap record sent", how)
		}
		if how == "replaced" && recs[0].LogID == oldID {
			t.Errorf("the replaced log kept its log_id")
		}
		if res, _ := testSender(tl, c, nil).Drain(context.Background()); res.Gap || res.Sent != 0 {
			t.Errorf("%s: a second drain: %+v", how, res)
		}
	}
}

// TestOneSenderPerLog: while another holds the lock, Drain sends nothing
// and says so, and a hook sees the lock busy.
func TestOneSenderPerLog(t *testing.T) {
	tl, c := newTestLog(t), otlptest.New(t)
	tl.calls(t, 2)
	f, err := os.OpenFile(LockPath(tl.path), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if ok, err := tryLock(f); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if _, err := testSender(tl, c, nil).Drain(context.Background()); !errors.Is(err, ErrBusy) {
		t.Errorf("Drain under another's lock: %v", err)
	}
	if !Busy(tl.path) {
		t.Error("Busy is false under another's lock")
	}
	if started, err := StartDrain(tl.path, "/nonexistent/toolgate", nil); started || err != nil {
		t.Errorf("StartDrain under another's lock: %v, %v", started, err)
	}
	unlock(f)
	if len(c.Received()) != 0 {
		t.Error("records sent under another's lock")
	}
	if Busy(tl.path) {
		t.Error("Busy after the lock was let go")
	}
}

// TestStallingCollector: a collector that accepts connections and never
// answers: the drain ends with its context, nothing is acknowledged, the
// outage (with its next attempt's time) stays in the cursor, and no hook
// starts a drain before that time.
func TestStallingCollector(t *testing.T) {
	tl := newTestLog(t)
	tl.calls(t, 4)
	ln := otlptest.Stalling(t)
	s := New(Options{Log: tl.path, Endpoint: "http://" + ln.Addr().String(), Appender: tl.l,
		RequestTimeout: 50 * time.Millisecond, MinBackoff: 10 * time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	res, err := s.Drain(ctx)
	if !errors.Is(err, context.DeadlineExceeded) || res.Sent != 0 || !res.Pending {
		t.Fatalf("Drain = %+v, %v", res, err)
	}
	cur, err := ReadCursor(tl.path)
	if err != nil || cur == nil || cur.Outage == nil || cur.Outage.Attempts != 1 || cur.Offset != 0 || !cur.Outage.RetryAt.After(time.Now()) {
		t.Fatalf("cursor = %+v, %v", cur, err)
	}
	if more, _ := Pending(tl.path); more {
		t.Error("Pending during the outage's back-off: every hook would start a drain")
	}
	if ev := events(t, tl.path); len(ev) != 4 {
		t.Errorf("records written during the outage: %v", ev)
	}
}

// TestRunnerSendsInBackground: the long-lived server's sender sends what
// is appended while it runs, and Stop sends the last records.
func TestRunnerSendsInBackground(t *testing.T) {
	tl, c := newTestLog(t), otlptest.New(t)
	r := Start(Options{Log: tl.path, Endpoint: c.URL, Appender: tl.l, Poll: 5 * time.Millisecond})
	for i := 0; i < 10; i++ {
		tl.calls(t, 3)

	}
	r.Stop(5 * time.Second)
	checkOnce(t, c.Received(), 30)
}

// TestOnlyAnOTLPAnswerAcknowledges: a 200 that is no OTLP response (a
// proxy's page) and a redirect (which would turn the POST into a GET)
// acknowledge nothing: the records stay past the cursor.
func TestOnlyAnOTLPAnswerAcknowledges(t *testing.T) {
	for name, h := range map[string]http.HandlerFunc{
		"html page": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte("<html>ok</html>"))
		},
		"redirect": func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/elsewhere", http.StatusFound) },
	} {
		srv := httptest.NewServer(h)
		tl := newTestLog(t)
		tl.calls(t, 2)
		s := New(Options{Log: tl.path, Endpoint: srv.URL, Appender: tl.l})
		s.wait = func(context.Context, time.Duration) error { return context.Canceled }
		res, err := s.Drain(context.Background())
		srv.Close()
		if err == nil || res.Sent != 0 {
			t.Errorf("%s: Drain = %+v, %v", name, res, err)
		}
		if cur, _ := ReadCursor(tl.path); cur == nil || cur.Offset != 0 || cur.Outage == nil {
			t.Errorf("%s: cursor %+v", name, cur)
		}
	}
}

// TestEmptiedLogOneGap: a log cut to nothing before anything new is
// written gets one export_gap record, which is its first, and is sent.
func TestEmptiedLogOneGap(t *testing.T) {
	tl, c := newTestLog(t), otlptest.New(t)
	tl.calls(t, 3)
	if _, err := testSender(tl, c, nil).Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(tl.path, 0); err != nil {
		t.Fatal(err)
	}
	res, err := testSender(tl, c, func(o *Options) { o.Appender = nil }).Drain(context.Background())
	if err != nil || !res.Gap {
		t.Fatalf("Drain = %+v, %v", res, err)
	}
	ev := events(t, tl.path)
	if len(ev) != 1 || ev[0] != "export_gap" {
		t.Fatalf("events %v, want one export_gap", ev)
	}
	recs := c.Received()
	if len(recs) != 4 || recs[3].Event != "export_gap" || recs[3].Seq != 1 {
		t.Fatalf("received %+v", recs)
	}
}

// TestUnreadableCursorStartsAgain: a cursor that is not one toolgate wrote
// is no gap: the log is sent again from its first record (at least once).
func TestUnreadableCursorStartsAgain(t *testing.T) {
	tl, c := newTestLog(t), otlptest.New(t)
	tl.calls(t, 3)
	if _, err := testSender(tl, c, nil).Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(CursorPath(tl.path), []byte("{not a cursor"), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := testSender(tl, c, nil).Drain(context.Background())
	if err != nil || res.Gap || res.Sent != 3 {
		t.Fatalf("Drain = %+v, %v", res, err)
	}
	if n := len(c.Received()); n != 6 {
		t.Errorf("%d records received, want the 3 twice", n)
	}
}

// TestOutageBackoffGoesOn: a drain that finds an outage in the cursor
// (earlier processes failed) waits as long as that outage's back-off has
// grown, not the shortest, before its next attempt.
func TestOutageBackoffGoesOn(t *testing.T) {
	tl, c := newTestLog(t), otlptest.New(t)
	tl.calls(t, 1)
	c.SetAnswer(func(int, *collogspb.ExportLogsServiceRequest) (int, string, *collogspb.ExportLogsServiceResponse) {
		return http.StatusServiceUnavailable, "", nil
	})
	var waits []time.Duration
	for run := 0; run < 2; run++ {
		s := New(Options{Log: tl.path, Endpoint: c.URL, Appender: tl.l, MinBackoff: time.Second, MaxBackoff: time.Hour})
		n := 0
		s.wait = func(ctx context.Context, d time.Duration) error {
			waits = append(waits, d)
			if n++; n == 3 {
				return context.Canceled // the drain's time is up
			}
			return nil
		}
		if _, err := s.Drain(context.Background()); !errors.Is(err, context.Canceled) {
			t.Fatal(err)
		}
	}
	// 1 s, 2 s, 4 s in the first drain; the second goes on at 8 s.
	if len(waits) != 6 || waits[2] < 4*time.Second || waits[3] < 8*time.Second {
		t.Errorf("waits %v", waits)
	}
	if cur, _ := ReadCursor(tl.path); cur.Outage == nil || cur.Outage.Attempts != 6 {
		t.Errorf("cursor %+v", cur)
	}
}

// TestEveryFieldBecomesAnAttribute: a record with every field logRecord
// reads (and a malformed line) is made a log record with each of them.
func TestEveryFieldBecomesAnAttribute(t *testing.T) {
	full := `{"time":"2026-01-02T03:04:05.5Z","seq":7,"event":"decision","sessionId":"s","toolCallId":"c","host":"gemini-cli","toolName":"read",` +
		`"agentName":"a","action":"block","resolution":"policy_deny","gate":"tool","surface":"read","state":"deny","matchedPattern":"*.env",` +
		`"origin":{"scope":"project","path":"/p/c.json","line":9},"prev":"` + strings.Repeat("0", 64) + `","hash":"` + strings.Repeat("a", 64) + `"}`
	lr, seq, hash := logRecord(line{text: []byte(full)}, "L", time.Now())
	if seq != 7 || hash != strings.Repeat("a", 64) || lr.Body.GetStringValue() != full || lr.EventName != "toolgate.decision" ||
		lr.TimeUnixNano != uint64(time.Date(2026, 1, 2, 3, 4, 5, 5e8, time.UTC).UnixNano()) || lr.SeverityText != "WARN" {
		t.Fatalf("logRecord = %v, %d, %s", lr, seq, hash)
	}
	got := map[string]string{}
	for _, kv := range lr.Attributes {
		got[kv.Key] = fmt.Sprintf("%s %d", kv.Value.GetStringValue(), kv.Value.GetIntValue())
	}
	for k, v := range map[string]string{"toolgate.log_id": "L 0", "toolgate.seq": " 7", "session.id": "s 0", "toolgate.tool_call.id": "c 0",
		"toolgate.agent_host": "gemini-cli 0", "toolgate.agent.name": "a 0", "toolgate.tool.name": "read 0", "toolgate.decision.action": "block 0",
		"toolgate.decision.resolution": "policy_deny 0", "toolgate.decision.state": "deny 0", "toolgate.decision.gate": "tool 0",
		"toolgate.decision.surface": "read 0", "toolgate.rule.pattern": "*.env 0", "toolgate.rule.origin": "project /p/c.json:9 0",
		"toolgate.rule.origin.scope": "project 0", "toolgate.rule.origin.path": "/p/c.json 0", "toolgate.rule.origin.line": " 9",
		"toolgate.event": "decision 0", "toolgate.hash": strings.Repeat("a", 64) + " 0"} {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	lr, seq, _ = logRecord(line{text: []byte(`not json`)}, "L", time.Now())
	if seq != 0 || lr.Body.GetStringValue() != "not json" || len(lr.Attributes) != 2 || lr.Attributes[1].Key != "toolgate.malformed" {
		t.Errorf("a malformed line: %v", lr)
	}
}
