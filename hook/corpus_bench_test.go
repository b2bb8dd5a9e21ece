package hook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/toolgate/toolgate/internal/e2ecorpus"
	"github.com/toolgate/toolgate/protocol"
)

// benchCorpus is the mixed workload of the end-to-end benchmark (about
// half bash, the rest file tools and MCP calls), as tool_call lines.
func benchCorpus() [][]byte {
	var out [][]byte
	for _, c := range e2ecorpus.Calls() {
		c["toolCallId"] = "c"
		params, _ := json.Marshal(c)
		out = append(out, []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tool_call","params":%s}`+"\n", len(out)+2, params)))
	}
	return out
}

// benchCorpusPolicy is a policy like e2ebench's core.
const benchCorpusPolicy = `{"permission": {"*": "ask",
 "bash": {"*": "ask", "git *": "allow", "git push *": "ask", "npm *": "allow", "ls *": "allow", "cat *": "allow", "echo *": "allow",
   "wc *": "allow", "grep *": "allow", "head *": "allow", "tail *": "allow", "cd *": "allow", "tar *": "allow", "make *": "allow", "rm -rf *": "deny"},
 "read": {"*": "allow"}, "grep": {"*": "allow"}, "find": {"*": "allow"}, "ls": {"*": "allow"},
 "edit": {"*": "ask", "src/*": "allow"}, "write": {"*": "ask", "src/*": "allow"},
 "path": {"*.env": "deny", "~/.ssh/*": "ask"}, "external_directory": {"*": "ask", "/tmp/*": "allow"},
 "mcp": {"*": "ask", "github:*": "allow", "exa:*": "allow"}}}`

// BenchmarkCorpus decides the e2ebench corpus over in-process pipes, one
// call in flight, audit log on; allocations are the whole process's.
func BenchmarkCorpus(b *testing.B) {
	toolgateRuntime(b)
	dir := b.TempDir()
	home, work := filepath.Join(dir, "home"), filepath.Join(dir, "work")
	agentDir := filepath.Join(home, ".pi", "agent")
	writeFiles(b, map[string]string{
		filepath.Join(agentDir, "extensions", "pi-permission-system", "config.json"): benchCorpusPolicy,
		filepath.Join(home, ".ssh", "config"):                                        "Host *\n",
		filepath.Join(work, "src", "index.ts"):                                       "export {}\n",
		filepath.Join(work, "src", "util.ts"):                                        "export {}\n",
		filepath.Join(work, "web", "package.json"):                                   "{}\n",
		filepath.Join(work, "README.md"):                                             "# x\n",
		filepath.Join(work, "docs", "guide", "a.md"):                                 "a\n",
		filepath.Join(work, "scripts", "release.sh"):                                 "echo\n",
		filepath.Join(work, "test", "util.test.ts"):                                  "x\n",
		filepath.Join(work, "build", "out", "app.js"):                                "x\n",
	})
	c := startServerIn(b, work, home, agentDir, filepath.Join(dir, "audit.jsonl"))
	lines := benchCorpus()
	for _, l := range lines {
		if resp := c.roundTrip(b, l); !strings.Contains(string(resp), `"action"`) {
			b.Fatalf("unexpected answer %s", resp)
		}
	}
	if out := os.Getenv("CORPUS_AUDIT_COPY"); out != "" {
		data, _ := os.ReadFile(filepath.Join(dir, "audit.jsonl"))
		_ = os.WriteFile(out, data, 0o600)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.roundTrip(b, lines[i%len(lines)])
	}
}

// BenchmarkFreshCorpus decides the fresh corpus (e2ecorpus.FreshCall:
// no call repeats an earlier one) against e2ebench's 200-rule policy over
// in-process pipes, one call in flight, audit log on. It is for finding
// where a fresh call's time goes; the budget is e2ebench -distinct's.
func BenchmarkFreshCorpus(b *testing.B) {
	toolgateRuntime(b)
	c, line := freshSession(b)
	const pre = 1 << 14
	lines := make([][]byte, pre)
	for i := range lines {
		lines[i] = line(i)
	}
	for i := range 200 {
		if resp := c.roundTrip(b, lines[i]); !strings.Contains(string(resp), `"action"`) {
			b.Fatalf("unexpected answer %s", resp)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		n := 200 + i
		if n < pre {
			c.roundTrip(b, lines[n])
		} else {
			c.roundTrip(b, line(n))
		}
	}
}

// freshShapes is e2ecorpus.FreshShapes.
const freshShapes = e2ecorpus.FreshShapes

// BenchmarkFreshShapes is BenchmarkFreshCorpus one shape of call at a
// time (a sub-benchmark each, named by its number and tool), to find
// where a fresh call's time goes: every call is still one never seen
// before.
func BenchmarkFreshShapes(b *testing.B) {
	toolgateRuntime(b)
	c, line := freshSession(b)
	for i := range 2 * freshShapes {
		c.roundTrip(b, line(i))
	}
	next := 2 * freshShapes // the first n no call used yet
	for k := range freshShapes {
		b.Run(fmt.Sprintf("%02d-%s", k, e2ecorpus.FreshCall(k)["toolName"]), func(b *testing.B) {
			start := next + (k-next%freshShapes+freshShapes)%freshShapes
			lines := make([][]byte, b.N)
			for i := range lines {
				lines[i] = line(start + i*freshShapes)
			}
			next = start + b.N*freshShapes + 1
			b.ReportAllocs()
			b.ResetTimer()
			for _, l := range lines {
				c.roundTrip(b, l)
			}
		})
	}
}

// freshSession serves a session in e2ebench's world for the fresh corpus
// (its tree, 200 rules, the audit log on); line(n) is the n-th call of
// the corpus as a tool_call line.
func freshSession(b *testing.B) (*client, func(n int) []byte) {
	s, line := freshServer(b)
	return serveWith(b, s, s.opts.Cwd), line
}

// freshServer is freshSession's server, not yet serving.
func freshServer(b *testing.B) (*Server, func(n int) []byte) {
	return freshServerOf(b, false)
}

// freshServerOf is freshServer, with e2ebench's untrusted project file
// (-untrusted) when untrusted is set.
func freshServerOf(b *testing.B, untrusted bool) (*Server, func(n int) []byte) {
	dir := b.TempDir()
	home, work := filepath.Join(dir, "home"), filepath.Join(dir, "work")
	agentDir := filepath.Join(home, ".pi", "agent")
	files := e2ecorpus.Files(home, work)
	for p, c := range e2ecorpus.FreshFiles(work) {
		files[p] = c
	}
	files[filepath.Join(agentDir, "extensions", "pi-permission-system", "config.json")] = e2ecorpus.PolicyText(200)
	if untrusted {
		files[filepath.Join(work, ".toolgate", "config.json")] = e2ecorpus.UntrustedProjectText
	}
	writeFiles(b, files)
	s := New(Options{Cwd: work, Home: home, AgentDir: agentDir, AuditLog: filepath.Join(dir, "audit.jsonl"), Log: zerolog.Nop()})
	return s, func(n int) []byte {
		call := e2ecorpus.FreshCall(n)
		call["toolCallId"] = fmt.Sprintf("c%d", n)
		params, _ := json.Marshal(call)
		return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tool_call","params":%s}`+"\n", n+2, params))
	}
}

// BenchmarkFreshDecide is BenchmarkFreshCorpus without the pipes: each
// fresh call's line decoded, decided, its audit record written and its
// answer framed, in process (DecodeToolCall, fastPrecheck, fastAnswer).
// A profile of it is toolgate's own work alone, none of the harness's.
func BenchmarkFreshDecide(b *testing.B) {
	answer, lines := freshDecider(b, false)
	b.ReportAllocs()
	b.ResetTimer()
	for _, l := range lines {
		answer(l)
	}
}

// BenchmarkFreshDecideUntrusted is BenchmarkFreshDecide with e2ebench's
// untrusted project file in the project (-untrusted): every gate decides
// on both sides of the policy.
func BenchmarkFreshDecideUntrusted(b *testing.B) {
	answer, lines := freshDecider(b, true)
	b.ReportAllocs()
	b.ResetTimer()
	for _, l := range lines {
		answer(l)
	}
}

// freshDecider is a server in e2ebench's world for the fresh corpus, and
// b.N calls of it not yet made (after 200 already made): answer decides
// a call's line in process and frames its answer, as fastToolCall does
// but for writing it.
func freshDecider(b *testing.B, untrusted bool) (answer func(line []byte), lines [][]byte) {
	toolgateRuntime(b)
	s, line := freshServerOf(b, untrusted)
	serveWith(b, s, s.opts.Cwd)
	lines = make([][]byte, 200+b.N)
	for i := range lines {
		lines[i] = bytes.TrimSuffix(line(i), []byte("\n"))
	}
	answer = func(l []byte) {
		fc, ok := protocol.DecodeToolCall(l)
		if !ok {
			b.Fatalf("not a plain call: %s", l)
		}
		p, ok := s.fastPrecheck(fc)
		if !ok {
			b.Fatalf("needs a prompt: %s", l)
		}
		f := s.fastAnswer(fc.ID, p)
		if !bytes.Contains(f, []byte(`"action"`)) {
			b.Fatalf("unexpected answer %s", f)
		}
		s.putFrame(f)
		if p.gc != nil {
			s.fastGC = p.gc // as fastToolCall does
		}
	}
	for _, l := range lines[:200] {
		answer(l)
	}
	return answer, lines[200:]
}

// BenchmarkFreshDecideCold is BenchmarkFreshDecide with the caches made
// cold before each call: the benchmark first writes over COLD_KB KiB of
// memory of its own (2048 when unset, this machine's L2; 0 for none), as
// the host, the kernel and other processes do between a host's calls.
// call-ns is the calls' own time, without that writing: how much of a
// fresh call's time is its code and data coming back into the caches.
func BenchmarkFreshDecideCold(b *testing.B) {
	coldKB := 2048
	if v := os.Getenv("COLD_KB"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			b.Fatalf("COLD_KB=%q: want a number of KiB", v)
		}
		coldKB = n
	}
	answer, lines := freshDecider(b, false)
	junk := make([]byte, coldKB<<10)
	var took time.Duration
	b.ResetTimer()
	for _, l := range lines {
		for i := 0; i < len(junk); i += 64 {
			junk[i]++
		}
		t0 := time.Now()
		answer(l)
		took += time.Since(t0)
	}
	b.ReportMetric(float64(took.Nanoseconds())/float64(b.N), "call-ns")
}
