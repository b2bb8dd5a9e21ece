package hook

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"
	collogspb "go.opentelemetry.io/proto/slim/otlp/collector/logs/v1"

	"github.com/toolgate/toolgate/export"
	"github.com/toolgate/toolgate/internal/otlptest"
)

// exportSession serves a session whose global policy allows git status and
// exports to endpoint (none: ""); it returns the client and the audit
// log's path.
func exportSession(tb testing.TB, endpoint string, rules int) (*client, string, *Server) {
	dir := tb.TempDir()
	agentDir := filepath.Join(dir, "agent")
	var b strings.Builder
	b.WriteString(`{`)
	if endpoint != "" {
		fmt.Fprintf(&b, `"export": {"otlp": {"endpoint": %q}}, `, endpoint)
	}
	b.WriteString(`"permission": {"*": "ask", "bash": {"*": "ask"`)
	for i := 0; i < rules-1; i++ {
		fmt.Fprintf(&b, `, "tool%d sub%d *": "deny"`, i, i)
	}
	b.WriteString(`, "git status": "allow"}}}`)
	writePiConfig(tb, agentDir, b.String())
	log := filepath.Join(dir, "audit.jsonl")
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := New(Options{Cwd: dir, Home: dir, AgentDir: agentDir, AuditLog: log, Log: zerolog.Nop()})
	done := make(chan struct{})
	go func() { _ = s.Serve(inR, outW); outW.Close(); close(done) }()
	// The session ends (and its sender with it) before its directory is
	// removed.
	tb.Cleanup(func() {
		inW.Close()
		go func() { _, _ = io.Copy(io.Discard, outR) }()
		<-done
	})
	c := &client{w: inW, r: bufio.NewReader(outR)}
	c.roundTrip(tb, []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"cwd":"`+dir+`","hasUI":false}}`+"\n"))
	return c, log, s
}

func callN(t *testing.T, c *client, from, n int) {
	t.Helper()
	for i := from; i < from+n; i++ {
		line := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tool_call","params":{"toolCallId":"c%d","toolName":"bash","input":{"command":"git status"}}}`+"\n", i+1, i)
		if resp := c.roundTrip(t, []byte(line)); !strings.Contains(string(resp), `"action":"allow"`) {
			t.Fatalf("call %d: %s", i, resp)
		}
	}
}

// decisions counts the decision records of the log.
func decisions(t *testing.T, log string) int {
	t.Helper()
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), `"event":"decision"`)
}

// TestServeAnswersWhileCollectorHangs: with a collector that accepts
// connections and never answers, every call is answered (allow, as the
// policy says) and recorded; the records wait in the log, none of them
// acknowledged. (How fast the answers stay is BenchmarkToolCallExportHung.)
func TestServeAnswersWhileCollectorHangs(t *testing.T) {
	ln := otlptest.Stalling(t)
	c, log, _ := exportSession(t, "http://"+ln.Addr().String(), 3)
	callN(t, c, 0, 40)
	if n := decisions(t, log); n != 40 {
		t.Fatalf("%d decision records, want 40", n)
	}
	if cur, _ := export.ReadCursor(log); cur != nil && cur.Offset != 0 {
		t.Errorf("a record counts as acknowledged by a collector that never answered: %+v", cur)
	}
}

// TestServeExportsThroughAnOutage: a session whose collector fails for a
// stretch of it (503) and then comes back: every record arrives once, in
// order, and the outage is one export_failed record.
func TestServeExportsThroughAnOutage(t *testing.T) {
	col := otlptest.New(t)
	var down atomic.Bool
	col.SetAnswer(func(int, *collogspb.ExportLogsServiceRequest) (int, string, *collogspb.ExportLogsServiceResponse) {
		if down.Load() {
			return http.StatusServiceUnavailable, "", nil
		}
		return http.StatusOK, "", nil
	})
	c, log, _ := exportSession(t, col.URL, 3)
	callN(t, c, 0, 100)
	waitFor(t, func() bool { return len(col.Received()) >= 100 })
	down.Store(true)
	callN(t, c, 100, 100)
	waitFor(t, func() bool { cur, _ := export.ReadCursor(log); return cur != nil && cur.Outage != nil })
	callN(t, c, 200, 100)
	down.Store(false)
	// The sender waits out its back-off (0.5 s, then 1 s, …) before it
	// tries again.
	waitFor(t, func() bool {
		recs := col.Received()
		return len(recs) > 0 && recs[len(recs)-1].Event == "export_failed"
	})
	recs := col.Received()
	calls := 0
	for i, r := range recs {
		if r.Seq != int64(i+1) {
			t.Fatalf("record %d has seq %d", i, r.Seq)
		}
		if r.Event == "decision" {
			calls++
		}
	}
	if calls != 300 {
		t.Errorf("%d decisions received, want 300", calls)
	}
	b, _ := os.ReadFile(log)
	if n := strings.Count(string(b), `"event":"export_failed"`); n != 1 {
		t.Errorf("%d export_failed records, want 1", n)
	}
}

// TestServeExportFollowsTheGlobalFile: export added to the global file
// mid-session starts once the edit is read, sending the log from its
// first record; taken out again, the sender is stopped.
func TestServeExportFollowsTheGlobalFile(t *testing.T) {
	col := otlptest.New(t)
	c, log, s := exportSession(t, "", 3)
	callN(t, c, 0, 5)
	cfg := filepath.Join(filepath.Dir(log), "agent", "extensions", "pi-permission-system", "config.json")
	with := fmt.Sprintf(`{"export": {"otlp": {"endpoint": %q}}, "permission": {"bash": {"git status": "allow"}}}`, col.URL)
	if err := os.WriteFile(cfg, []byte(with), 0o600); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { callN(t, c, 100, 1); return len(col.Received()) >= 6 })
	if got := col.Received(); got[0].Seq != 1 || got[0].Event != "decision" {
		t.Errorf("the export did not start from the first record: %+v", got[0])
	}
	if err := os.WriteFile(cfg, []byte(`{"permission": {"bash": {"git status": "allow"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		callN(t, c, 200, 1) // until the policy without export is read
		s.exportMu.Lock()
		defer s.exportMu.Unlock()
		return s.exporter == nil
	})
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// BenchmarkToolCallExportHung is BenchmarkToolCall200 with export to a
// collector that accepts connections and never answers (an
// unreachable collector adds at most 5 ms to an answer; compare the two).
func BenchmarkToolCallExportHung(b *testing.B) {
	toolgateRuntime(b)
	ln := otlptest.Stalling(b)
	c, _, _ := exportSession(b, "http://"+ln.Addr().String(), 200)
	measure(b, c)
}

// BenchmarkToolCallExportDown is the same with a collector that refuses
// connections (nothing listens on its port).
func BenchmarkToolCallExportDown(b *testing.B) {
	toolgateRuntime(b)
	ln := otlptest.Stalling(b)
	addr := ln.Addr().String()
	ln.Close()
	c, _, _ := exportSession(b, "http://"+addr, 200)
	measure(b, c)
}

// BenchmarkToolCallExportUp is the same with a collector that accepts
// everything: what sending costs the answers.
func BenchmarkToolCallExportUp(b *testing.B) {
	toolgateRuntime(b)
	col := otlptest.New(b)
	c, _, _ := exportSession(b, col.URL, 200)
	measure(b, c)
}
