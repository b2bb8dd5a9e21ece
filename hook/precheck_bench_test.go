package hook

import (
	"bufio"
	"io"
	"path/filepath"
	"testing"

	"github.com/rs/zerolog"

	"github.com/toolgate/toolgate/protocol"
)

// BenchmarkPrecheck is the user-space work of the fast path from a
// tool_call line to the memo's decision (DecodeToolCall, decodeFast,
// the memo lookup), without the reading, the audit record and the answer:
// the e2ebench corpus, every call seen before.
func BenchmarkPrecheck(b *testing.B) {
	toolgateRuntime(b)
	dir := b.TempDir()
	home, work := filepath.Join(dir, "home"), filepath.Join(dir, "work")
	agentDir := filepath.Join(home, ".pi", "agent")
	writeFiles(b, map[string]string{
		filepath.Join(agentDir, "extensions", "pi-permission-system", "config.json"): benchCorpusPolicy,
		filepath.Join(work, "src", "index.ts"):                                       "export {}\n",
		filepath.Join(work, "README.md"):                                             "# x\n",
	})
	s := New(Options{Cwd: work, Home: home, AgentDir: agentDir, AuditLog: filepath.Join(dir, "audit.jsonl"), Log: zerolog.Nop()})
	c := serveWith(b, s, work)
	lines := benchCorpus()
	for _, l := range lines {
		c.roundTrip(b, l)
		c.roundTrip(b, l)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		fc, ok := protocol.DecodeToolCall(lines[i%len(lines)])
		if !ok {
			b.Fatal("not a plain call")
		}
		if _, ok := s.fastPrecheck(fc); !ok {
			b.Fatal("needs a prompt")
		}
	}
}

// servePipes serves s over in-process pipes, not initialized. The
// session's input is closed when the test ends, or before by c.w.Close.
func servePipes(tb testing.TB, s *Server) *client {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go func() { _ = s.Serve(inR, outW); outW.Close() }()
	tb.Cleanup(func() { inW.Close() })
	return &client{w: inW, r: bufio.NewReader(outR)}
}

// serveWith serves s over in-process pipes, initialized in dir.
func serveWith(tb testing.TB, s *Server, dir string) *client {
	c := servePipes(tb, s)
	c.roundTrip(tb, []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"cwd":"`+dir+`","hasUI":false}}`+"\n"))
	return c
}
