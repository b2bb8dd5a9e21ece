package hook

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/sourcegraph/jsonrpc2"

	"github.com/toolgate/toolgate/internal/runtimecfg"
	"github.com/toolgate/toolgate/protocol"
)

// The benchmarks, the echo baseline included, run with the runtime settings
// of the toolgate binary (runtimecfg); GOGC and GOMEMLIMIT in the
// environment override them.
func toolgateRuntime(b *testing.B) { b.Cleanup(runtimecfg.Apply()) }

// writePolicy writes a global policy with n bash rules (none of which
// matches the benchmark command until the last one) into agentDir.
func writePolicy(tb testing.TB, agentDir string, n int) {
	tb.Helper()
	var b strings.Builder
	b.WriteString(`{"permission": {"*": "ask", "bash": {"*": "ask"`)
	for i := 0; i < n-1; i++ {
		fmt.Fprintf(&b, `, "tool%d sub%d *": "deny"`, i, i)
	}
	b.WriteString(`, "git status": "allow"}}}`)
	writePiConfig(tb, agentDir, b.String())
}

// writePiConfig writes text as pi's policy file in agentDir, making the
// folders above it, and returns the file's path.
func writePiConfig(tb testing.TB, agentDir, text string) string {
	tb.Helper()
	path := filepath.Join(agentDir, "extensions", "pi-permission-system", "config.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		tb.Fatal(err)
	}
	return path
}

// writeFiles writes each file of files (path: text), making the folders
// above it.
func writeFiles(tb testing.TB, files map[string]string) {
	tb.Helper()
	for p, text := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			tb.Fatal(err)
		}
	}
}

// client is a minimal newline-JSON host for the benchmarks.
type client struct {
	w *io.PipeWriter
	r *bufio.Reader
}

func (c *client) roundTrip(tb testing.TB, line []byte) []byte {
	if _, err := c.w.Write(line); err != nil {
		tb.Fatal(err)
	}
	for {
		resp, err := c.r.ReadBytes('\n')
		if err != nil {
			tb.Fatal(err)
		}
		if !strings.Contains(string(resp), `"method":"decision"`) {
			return resp
		}
	}
}

func startServer(tb testing.TB, rules int) *client {
	dir := tb.TempDir()
	agentDir := filepath.Join(dir, "agent")
	writePolicy(tb, agentDir, rules)
	return startServerIn(tb, dir, dir, agentDir, filepath.Join(dir, "audit.jsonl"))
}

// startServerIn serves a session of directory dir, initialized.
func startServerIn(tb testing.TB, dir, home, agentDir, auditLog string) *client {
	return serveWith(tb, New(Options{Cwd: dir, Home: home, AgentDir: agentDir, AuditLog: auditLog, Log: zerolog.Nop()}), dir)
}

var toolCallLine = []byte(`{"jsonrpc":"2.0","id":1,"method":"tool_call","params":{"toolCallId":"c","toolName":"bash","input":{"command":"git status"}}}` + "\n")

func benchToolCall(b *testing.B, rules int) {
	toolgateRuntime(b)
	c := startServer(b, rules)
	if resp := c.roundTrip(b, toolCallLine); !strings.Contains(string(resp), `"action":"allow"`) {
		b.Fatalf("unexpected answer %s", resp)
	}
	measure(b, c)
}

// measure times b.N round trips of a tool_call line and reports p50/p99.
func measure(b *testing.B, c *client) {
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		c.roundTrip(b, toolCallLine)
		lat = append(lat, time.Since(t0))
	}
	if len(lat) == 0 {
		return
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}

// BenchmarkToolCall200 is a tool_call decided over a pipe, 200 rules.
func BenchmarkToolCall200(b *testing.B) { benchToolCall(b, 200) }

// BenchmarkToolCall10000 is the same with 10,000 rules.
func BenchmarkToolCall10000(b *testing.B) { benchToolCall(b, 10000) }

// BenchmarkEcho is the baseline of the design: a bare JSON-RPC echo round trip
// over the same kind of pipe with the same library.
func BenchmarkEcho(b *testing.B) {
	toolgateRuntime(b)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	stream := protocol.NewStream(inR, outW, nil, protocol.FramingNewline, nil)
	conn := jsonrpc2.NewConn(context.Background(), stream, jsonrpc2.AsyncHandler(echo{stream}))
	b.Cleanup(func() { inW.Close(); conn.Close() })
	measure(b, &client{w: inW, r: bufio.NewReader(outR)})
}

// echo answers every request with its own params. It takes them from the
// stream, as the server does, so that the baseline pays the same decoding.
type echo struct{ stream *protocol.Stream }

func (e echo) Handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	_ = conn.Reply(ctx, req.ID, json.RawMessage(e.stream.RawParams(req.Meta)))
}
