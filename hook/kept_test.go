package hook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/toolgate/toolgate/gates"
	"github.com/toolgate/toolgate/hook/audit"
	"github.com/toolgate/toolgate/protocol"
)

// TestKeptAnswersAsFresh: a session that answers remembered calls from
// the encoding kept with their evaluation (kept.go) writes, for every
// call of a varied script, byte for byte the messages (notifications and
// answers) a session that encodes every call afresh writes, and its audit
// log gets the same records. The script repeats calls with request ids
// and tool call ids that need escaping (each escaped differently in an
// answer and in a record), other agent names, an approval for the
// session that changes a call's outcome, policy edits, another session
// id and other host names; and the kept encodings are used.
func TestKeptAnswersAsFresh(t *testing.T) {
	kept, keptN := keptSession(t, false)
	fresh, freshN := keptSession(t, true)
	sameRuns(t, "kept", kept, "fresh", fresh)
	if freshN != 0 {
		t.Errorf("the session without kept encodings answered %d calls from one", freshN)
	}
	if keptN < 80 {
		t.Errorf("only %d calls were answered from a kept encoding", keptN)
	}
	outcomes := map[string]bool{}
	for _, m := range fresh {
		for _, r := range []string{"policy_allow", "policy_deny", "session_approved", "confirmation_unavailable", "user_approved_for_session"} {
			if strings.Contains(m, `"resolution":"`+r+`"`) {
				outcomes[r] = true
			}
		}
	}
	if len(outcomes) != 5 {
		t.Errorf("the script's answers have only the resolutions %v", outcomes)
	}
	t.Logf("%d messages and records, %d calls answered from a kept encoding", len(kept), keptN)
}

// keptSession runs the script (kept encodings off when fresh) and returns
// every message written and every audit record (without time and chain),
// and how many calls were answered from a kept encoding.
func keptSession(t *testing.T, fresh bool) ([]string, uint64) {
	root := realTempDir(t)
	agentDir := filepath.Join(root, "agent")
	work := filepath.Join(root, "work")
	mkdirs(t, filepath.Join(work, "src"))
	writeFile := func(p, text string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	policy := `{"permission": {"*": "ask", "read": {"*": "allow", "*.env": "deny"}, "write": {"*": "ask", "src/*": "allow"},
	  "bash": {"*": "ask", "git *": "allow", "echo *": "allow", "rm *": {"action": "deny", "reason": "no <rm> & \"friends\""}},
	  "mcp": {"*": "ask", "github:*": "allow"}, "external_directory": "ask"}}`
	cfg := writePiConfig(t, agentDir, policy)
	writeFile(filepath.Join(work, "src", "index.ts"), "x")
	audit := filepath.Join(root, "audit.jsonl")

	s := New(Options{Cwd: work, Home: root, AgentDir: agentDir, AuditLog: audit, Log: zerolog.Nop()})
	s.noKept = fresh
	c := servePipes(t, s)
	inW, r := c.w, c.r
	var out []string
	// send writes one request with this id and reads up to its answer,
	// keeping every message; a prompt is answered with choice.
	send := func(id, method, params, choice string) {
		t.Helper()
		fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":%s,"method":%q,"params":%s}`+"\n", id, method, params)
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, strings.ReplaceAll(string(line), root, "$ROOT"))
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if err := json.Unmarshal(line, &m); err != nil {
				t.Fatal(err)
			}
			if m.Method == "prompt" {
				fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":%s,"result":{"choice":%q}}`+"\n", m.ID, choice)
				continue
			}
			if m.Method == "" && sameID(m.ID, id) {
				return
			}
		}
	}
	// Ids the fast path takes (written back as they are) and ids it
	// leaves to the general path.
	ids := []string{`1`, `"x-1"`, `9223372036854775807`, `"a b~!@#$%^*()"`, `7`, `"é日本"`, `"q"`, `42`, `"a\"b"`, `"<&>"`, `"0"`}
	callIDs := []string{`c1`, `c<1>&`, `q\"uote`, `back\\slash`, `nl\n\ttab`, `é日本`, `\u2028`, `\u0001\u007f`, `\ud800`, "raw\xffbyte", `</script>`}
	n := 0
	tool := func(name, input, extra string) {
		n++
		id := ids[n%len(ids)]
		callID := callIDs[(n/3)%len(callIDs)]
		send(id, "tool_call", fmt.Sprintf(`{"toolCallId":"%s","toolName":%q,"input":%s%s}`, callID, name, input, extra), "")
	}
	initialize := func(params string) {
		send(`0`, "initialize", `{"protocolVersion":1,"cwd":"`+work+`","hasUI":false`+params+`}`, "")
	}
	calls := [][3]string{
		{"bash", `{"command":"git status"}`, ``},
		{"bash", `{"command":"npm test"}`, ``},
		{"bash", `{"command":"rm -rf build"}`, ``},
		{"bash", `{"command":"echo \"<a> & b\" > src/x.ts"}`, ``},
		{"read", `{"path":"src/index.ts"}`, ``},
		{"read", `{"path":".env"}`, ``},
		{"write", `{"path":"src/x.ts","content":"x"}`, `,"agentName":"build"`},
		{"write", `{"path":"src/x.ts","content":"x"}`, `,"agentName":"plan <b>"`},
		{"write", `{"path":"/tmp/elsewhere/x.ts","content":"x"}`, ``},
		{"mcp", `{"tool":"github:list"}`, ``},
		{"mcp", `{"tool":"exa:search"}`, ``},
	}
	round := func() {
		for _, c := range calls {
			for i := 0; i < 6; i++ {
				tool(c[0], c[1], c[2])
			}
		}
	}
	initialize(`,"host":{"name":"pi","version":"1"}`)
	round()
	// An approval for the session: npm test is asked, approved for the
	// session, and then allowed by it.
	n++
	send(`"p1"`, "tool_call", `{"toolCallId":"p1","toolName":"bash","input":{"command":"npm test"},"hasUI":true}`, "allow_session")
	round()
	// The policy edited: git denied, npm denied (the deny wins over the
	// session's approval), an external write allowed.
	writeFile(cfg, strings.NewReplacer(`"git *": "allow"`, `"git *": "deny", "npm *": "deny"`, `"external_directory": "ask"`, `"external_directory": "allow"`).Replace(policy))
	round()
	writeFile(cfg, policy)
	round()
	// Another session, then other hosts (a host name is in the record).
	initialize(`,"sessionId":"s<2>","host":{"name":"pi","version":"1"}`)
	round()
	initialize(`,"sessionId":"s3","host":{"name":"other \"host\"","version":"2"}`)
	round()
	initialize(`,"sessionId":"s3"`)
	round()
	inW.Close()
	return append(out, auditCut(t, audit, root, "$ROOT")...), s.keptCalls.Load()
}

// sameRuns wants two sessions of one script, named a and b, to have
// written the same messages and records, one for one.
func sameRuns(t *testing.T, a string, as []string, b string, bs []string) {
	t.Helper()
	if len(as) != len(bs) {
		t.Fatalf("%d messages and records in the %s session, %d in the %s one", len(as), a, len(bs), b)
	}
	for i := range as {
		if as[i] != bs[i] {
			t.Errorf("message %d:\n%-7s %s\n%-7s %s", i, a, as[i], b, bs[i])
		}
	}
}

// auditCut is each record of the audit log as written but for its time
// and chain (cut at the fields that differ between two runs), with dir
// spelled as name.
func auditCut(t *testing.T, log, dir, name string) []string {
	t.Helper()
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		i, j := strings.Index(line, `,"seq":`), strings.LastIndex(line, `,"prev":`)
		if i < 0 || j < i {
			t.Fatalf("audit record %q", line)
		}
		out = append(out, strings.ReplaceAll(line[i:j], dir, name))
	}
	return out
}

// sameID reports whether the JSON ids a and b are the same value.
func sameID(a json.RawMessage, b string) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal([]byte(b), &y) == nil && fmt.Sprint(x) == fmt.Sprint(y)
}

// TestKeptFits: a kept encoding is used only for a call of the tool name,
// agent name, cwd and input and the host it was made for.
func TestKeptFits(t *testing.T) {
	k := &keptAnswer{toolName: "bash", agentName: "a", cwd: "/w", host: "pi", input: []byte(`{"command":"ls"}`)}
	c := gates.Call{ToolName: "bash", AgentName: "a", Cwd: "/w", RawInput: []byte(`{"command":"ls"}`)}
	if !k.fits(&c, "pi") {
		t.Fatal("the same call does not fit")
	}
	for name, change := range map[string]func(c *gates.Call) string{
		"tool":  func(c *gates.Call) string { c.ToolName = "read"; return "pi" },
		"agent": func(c *gates.Call) string { c.AgentName = ""; return "pi" },
		"cwd":   func(c *gates.Call) string { c.Cwd = "/x"; return "pi" },
		"input": func(c *gates.Call) string { c.RawInput = []byte(`{"command":"rm"}`); return "pi" },
		"none":  func(c *gates.Call) string { c.RawInput = nil; return "pi" },
		"host":  func(c *gates.Call) string { return "" },
	} {
		other := c
		if host := change(&other); k.fits(&other, host) {
			t.Errorf("a call with another %s fits", name)
		}
	}
}

// BenchmarkFastAnswer is the fast path of one remembered call in process
// (precheck, decision, audit record, answer; no pipe), with the kept
// encoding and encoding afresh.
func BenchmarkFastAnswer(b *testing.B) {
	for _, fresh := range []bool{false, true} {
		name := "kept"
		if fresh {
			name = "fresh"
		}
		b.Run(name, func(b *testing.B) {
			toolgateRuntime(b)
			dir := b.TempDir()
			agentDir := filepath.Join(dir, "agent")
			if err := os.MkdirAll(filepath.Join(dir, "src"), 0o700); err != nil {
				b.Fatal(err)
			}
			writePolicy(b, agentDir, 200)
			s := New(Options{Cwd: dir, Home: dir, AgentDir: agentDir, AuditLog: filepath.Join(dir, "audit.jsonl"), Log: zerolog.Nop()})
			s.noKept = fresh
			serveWith(b, s, dir)
			line := []byte(`{"jsonrpc":"2.0","id":12,"method":"tool_call","params":{"toolCallId":"call_0123456789","toolName":"bash","input":{"command":"git status"}}}`)
			answer := func() []byte {
				fc, ok := protocol.DecodeToolCall(line)
				if !ok {
					b.Fatal("not taken")
				}
				pre, ok := s.fastPrecheck(fc)
				if !ok {
					b.Fatal("needs a prompt")
				}
				return s.fastAnswer(fc.ID, pre)
			}
			for i := 0; i < 3; i++ {
				if f := answer(); !bytes.Contains(f, []byte(`"action":"allow"`)) {
					b.Fatalf("answer %s", f)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				s.putFrame(answer())
			}
		})
	}
}

// BenchmarkAuditFields is the fields of one decision record (no log, no
// write): built afresh, and the call's ids with the rest copied from what
// was kept.
func BenchmarkAuditFields(b *testing.B) {
	rec := benchRecord()
	var e audit.Enc
	b.Run("fresh", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			e.SetBuf(append(e.Buf()[:0], '{'))
			appendAuditFields(&e, "session-1", "pi", &rec)
		}
	})
	e.SetBuf(append(e.Buf()[:0], '{'))
	appendAuditHead(&e, "session-1", &rec)
	mark := len(e.Buf())
	appendAuditRest(&e, "pi", &rec)
	want := bytes.Clone(e.Buf())
	kept := bytes.Clone(want[mark:])
	b.Run("kept", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			e.SetBuf(append(e.Buf()[:0], '{'))
			e.Str("sessionId", "session-1").Str("toolCallId", rec.ToolCallID)
			e.SetBuf(append(e.Buf(), kept...))
		}
		if !bytes.Equal(e.Buf(), want) {
			b.Fatalf("kept %s, want %s", e.Buf(), want)
		}
	})
}
