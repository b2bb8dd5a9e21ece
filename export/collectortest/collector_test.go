package collectortest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/config/configgrpc"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/receiver/receivertest"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/toolgate/toolgate/export"
	"github.com/toolgate/toolgate/hook"
	"github.com/toolgate/toolgate/hook/audit"
)

// freeAddr is a free port on 127.0.0.1.
func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// startCollector starts the OpenTelemetry Collector's OTLP receiver
// (HTTP only) on addr, delivering what it receives to sink.
func startCollector(t *testing.T, addr string, sink *consumertest.LogsSink) receiver.Logs {
	t.Helper()
	f := otlpreceiver.NewFactory()
	cfg := f.CreateDefaultConfig().(*otlpreceiver.Config)
	cfg.Protocols.GRPC = configoptional.None[configgrpc.ServerConfig]()
	cfg.Protocols.HTTP.GetOrInsertDefault().ServerConfig.NetAddr.Endpoint = addr
	r, err := f.CreateLogs(context.Background(), receivertest.NewNopSettings(f.Type()), cfg, sink)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(context.Background(), componenttest.NewNopHost()); err != nil {
		t.Fatal(err)
	}
	return r
}

// received is one record as the collector got it.
type received struct {
	seq   int64
	logID string
	hash  string
	event string
	attrs map[string]any
	host  string
}

func records(sink *consumertest.LogsSink) []received {
	var out []received
	for _, ld := range sink.AllLogs() {
		out = append(out, flatten(ld)...)
	}
	return out
}

func flatten(ld plog.Logs) []received {
	var out []received
	for i := 0; i < ld.ResourceLogs().Len(); i++ {
		rl := ld.ResourceLogs().At(i)
		host, _ := rl.Resource().Attributes().Get("host.name")
		for j := 0; j < rl.ScopeLogs().Len(); j++ {
			lrs := rl.ScopeLogs().At(j).LogRecords()
			for k := 0; k < lrs.Len(); k++ {
				a := lrs.At(k).Attributes().AsRaw()
				r := received{attrs: a, host: host.Str()}
				r.seq, _ = a["toolgate.seq"].(int64)
				r.logID, _ = a["toolgate.log_id"].(string)
				r.hash, _ = a["toolgate.hash"].(string)
				r.event, _ = a["toolgate.event"].(string)
				out = append(out, r)
			}
		}
	}
	return out
}

// logRecords is the (seq, hash) of every record of the log, in order.
func logRecords(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r struct {
			Seq  int64  `json:"seq"`
			Hash string `json:"hash"`
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%d %s", r.Seq, r.Hash))
	}
	return out
}

// checkEveryRecordOnce: the collector got every record of the log, once,
// in order.
func checkEveryRecordOnce(t *testing.T, got []received, log []string) {
	t.Helper()
	if len(got) != len(log) {
		t.Fatalf("the collector got %d records, the log holds %d", len(got), len(log))
	}
	for i, r := range got {
		if want := log[i]; fmt.Sprintf("%d %s", r.seq, r.hash) != want {
			t.Fatalf("record %d is seq %d %s, want %s", i, r.seq, r.hash, want)
		}
		if r.logID == "" || r.logID != got[0].logID {
			t.Fatalf("record %d: log_id %q", i, r.logID)
		}
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// home is a home directory whose global policy allows git status and
// exports to the collector at addr.
func home(t *testing.T, addr string) (dir, agentDir string) {
	dir = t.TempDir()
	agentDir = filepath.Join(dir, "agent")
	cfg := filepath.Join(agentDir, "extensions", "pi-permission-system", "config.json")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o700); err != nil {
		t.Fatal(err)
	}
	policy := fmt.Sprintf(`{"export": {"otlp": {"endpoint": "http://%s"}}, "permission": {"bash": {"git status": "allow"}}}`, addr)
	if err := os.WriteFile(cfg, []byte(policy), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir, agentDir
}

// session is toolgate serve on pipes, as a host drives it.
type session struct {
	w    io.WriteCloser
	r    *bufio.Reader
	done chan struct{}
	next int
}

func serve(t *testing.T, dir, agentDir, log string) *session {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := hook.New(hook.Options{Cwd: dir, Home: dir, AgentDir: agentDir, AuditLog: log, Log: zerolog.Nop()})
	ss := &session{w: inW, r: bufio.NewReader(outR), done: make(chan struct{})}
	go func() { _ = s.Serve(inR, outW); outW.Close(); close(ss.done) }()
	t.Cleanup(func() {
		inW.Close()
		go func() { _, _ = io.Copy(io.Discard, outR) }()
		<-ss.done
	})
	ss.ask(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"cwd":%q,"hasUI":false,"sessionId":"s-1000"}}`, dir))
	return ss
}

func (s *session) ask(t *testing.T, line string) string {
	t.Helper()
	if _, err := io.WriteString(s.w, line+"\n"); err != nil {
		t.Fatal(err)
	}
	for {
		resp, err := s.r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(resp, `"method":"decision"`) {
			return resp
		}
	}
}

func (s *session) calls(t *testing.T, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		s.next++
		line := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tool_call","params":{"toolCallId":"c%d","toolName":"bash","input":{"command":"git status"}}}`, s.next, s.next)
		if resp := s.ask(t, line); !strings.Contains(resp, `"action":"allow"`) {
			t.Fatalf("call %d: %s", s.next, resp)
		}
	}
}

// TestThousandCallSessionThroughCollectorRestart: a 1,000-call session of
// toolgate serve exporting to a real OpenTelemetry Collector receiver,
// which is stopped for 400 of the calls and started again: every answer is
// given, and the collector ends with every record of the log, once, in
// order, the outage being one export_failed record among them.
func TestThousandCallSessionThroughCollectorRestart(t *testing.T) {
	addr := freeAddr(t)
	dir, agentDir := home(t, addr)
	log := filepath.Join(dir, "audit.jsonl")
	sink := new(consumertest.LogsSink)
	col := startCollector(t, addr, sink)
	s := serve(t, dir, agentDir, log)

	s.calls(t, 300)
	waitFor(t, "the first 300 records", func() bool { return len(records(sink)) >= 300 })
	if err := col.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	s.calls(t, 400)
	waitFor(t, "the sender to notice the outage", func() bool {
		c, _ := export.ReadCursor(log)
		return c != nil && c.Outage != nil
	})
	col = startCollector(t, addr, sink)
	defer col.Shutdown(context.Background())
	s.calls(t, 300)
	waitFor(t, "the export_failed record", func() bool {
		got := records(sink)
		return len(got) > 0 && got[len(got)-1].event == "export_failed"
	})
	got := records(sink)
	checkEveryRecordOnce(t, got, logRecords(t, log))
	calls := 0
	for _, r := range got {
		if r.event == "decision" {
			calls++
			if r.attrs["session.id"] != "s-1000" || r.attrs["toolgate.tool.name"] != "bash" || r.attrs["toolgate.decision.action"] != "allow" ||
				r.attrs["toolgate.rule.pattern"] != "git status" || r.attrs["toolgate.rule.origin.scope"] != "global" {
				t.Fatalf("record %d: attributes %v", r.seq, r.attrs)
			}
		}
		if r.host == "" {
			t.Fatalf("record %d without host.name", r.seq)
		}
	}
	if calls != 1000 {
		t.Errorf("%d decisions received, want 1000", calls)
	}
}

// TestClaudeHookProcessesThroughCollector: the real binary as Claude Code
// runs it, one short process per call: each starts a detached drain after
// its answer, and once the drains are done the collector has every record
// of the log, once, in order.
func TestClaudeHookProcessesThroughCollector(t *testing.T) {
	addr := freeAddr(t)
	dir, agentDir := home(t, addr)
	sink := new(consumertest.LogsSink)
	col := startCollector(t, addr, sink)
	defer col.Shutdown(context.Background())
	bin := filepath.Join(t.TempDir(), "toolgate")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/toolgate/toolgate").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	log := filepath.Join(dir, "audit.jsonl")
	const calls = 12
	for i := 0; i < calls; i++ {
		cmd := exec.Command(bin, "claude-hook", "--audit-log", log)
		cmd.Env = append(os.Environ(), "HOME="+dir, "PI_CODING_AGENT_DIR="+agentDir, "XDG_CONFIG_HOME="+filepath.Join(dir, "config"))
		cmd.Stdin = strings.NewReader(fmt.Sprintf(`{"hook_event_name":"PreToolUse","session_id":"h1","cwd":%q,"tool_name":"Bash","tool_use_id":"t%d","tool_input":{"command":"git status"}}`, dir, i))
		var out bytes.Buffer
		cmd.Stdout = &out
		if err := cmd.Run(); err != nil || !strings.Contains(out.String(), `"permissionDecision":"allow"`) {
			t.Fatalf("hook %d: %v: %s", i, err, out.String())
		}
	}
	waitFor(t, "the drains", func() bool {
		more, _ := export.Pending(log)
		return len(records(sink)) >= calls && !more && !export.Busy(log) && !running(bin)
	})
	checkEveryRecordOnce(t, records(sink), logRecords(t, log))
}

// running reports whether a process runs the binary bin (Linux: /proc).
func running(bin string) bool {
	exes, _ := filepath.Glob("/proc/[0-9]*/exe")
	for _, e := range exes {
		if target, err := os.Readlink(e); err == nil && target == bin {
			return true
		}
	}
	return false
}

// TestCollectorRetryAfter: a collector whose pipeline is throttled (its
// consumer says ResourceExhausted with a retry delay of 2 s, which the
// receiver answers as 429 with Retry-After: 2) is tried again no sooner
// than that, and then gets every record once.
func TestCollectorRetryAfter(t *testing.T) {
	addr := freeAddr(t)
	dir := t.TempDir()
	log := filepath.Join(dir, "audit.jsonl")
	l, err := audit.Open(log)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for i := 0; i < 10; i++ {
		if err := l.Append("decision", func(e *zerolog.Event) { e.Str("sessionId", "r").Str("toolName", "read").Str("action", "allow") }); err != nil {
			t.Fatal(err)
		}
	}
	sink := new(consumertest.LogsSink)
	var mu sync.Mutex // the receiver's goroutines write, the test reads
	var throttledAt, retryAt, secondAt time.Time
	calls := 0
	throttling, err := consumer.NewLogs(func(ctx context.Context, ld plog.Logs) error {
		mu.Lock()
		defer mu.Unlock()
		calls++
		if calls == 1 {
			throttledAt = time.Now()
			st, _ := status.New(codes.ResourceExhausted, "slow down").WithDetails(&errdetails.RetryInfo{RetryDelay: durationpb.New(2 * time.Second)})
			return st.Err()
		}
		if calls == 2 {
			secondAt = time.Now()
			if c, _ := export.ReadCursor(log); c != nil && c.Outage != nil {
				retryAt = c.Outage.RetryAt
			}
		}
		return sink.ConsumeLogs(ctx, ld)
	})
	if err != nil {
		t.Fatal(err)
	}
	f := otlpreceiver.NewFactory()
	cfg := f.CreateDefaultConfig().(*otlpreceiver.Config)
	cfg.Protocols.GRPC = configoptional.None[configgrpc.ServerConfig]()
	cfg.Protocols.HTTP.GetOrInsertDefault().ServerConfig.NetAddr.Endpoint = addr
	r, err := f.CreateLogs(context.Background(), receivertest.NewNopSettings(f.Type()), cfg, throttling)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(context.Background(), componenttest.NewNopHost()); err != nil {
		t.Fatal(err)
	}
	defer r.Shutdown(context.Background())
	s := export.New(export.Options{Log: log, Endpoint: "http://" + addr, Appender: l, MinBackoff: 10 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := s.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if retryAt.Sub(throttledAt) < 2*time.Second {
		t.Errorf("the next attempt was set for %s after the 429, not the Retry-After's 2 s", retryAt.Sub(throttledAt))
	}
	if secondAt.Before(retryAt) {
		t.Errorf("tried again at %s, before the Retry-After's %s", secondAt, retryAt)
	}
	checkEveryRecordOnce(t, records(sink), logRecords(t, log))
}
