package hook

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	gojson "github.com/goccy/go-json"
	"github.com/rs/zerolog"
	"github.com/sourcegraph/jsonrpc2"

	"github.com/toolgate/toolgate/export"
	"github.com/toolgate/toolgate/hook/audit"
	"github.com/toolgate/toolgate/internal/jsonobj"
	"github.com/toolgate/toolgate/policy"
	"github.com/toolgate/toolgate/protocol"
)

// wireCorpus is tool_call lines of every kind the wire path meets: plain
// calls of each tool, odd ids, whitespace, near-miss and repeated keys at
// each level, wrong types, deep and long params, escapes, surrogates,
// invalid UTF-8, numbers; then the recorded requests of every transcript,
// and byte mutations of all of them. dir is the session's directory.
func wireCorpus(t testing.TB, dir string) [][]byte {
	t.Helper()
	call := func(id, params string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tool_call","params":` + params + `}`
	}
	p := func(tool, input string) string {
		return `{"toolCallId":"c1","toolName":"` + tool + `","input":` + input + `}`
	}
	inputs := []struct{ tool, input string }{
		{"bash", `{"command":"git status"}`},
		{"bash", `{"command":"rm -rf /tmp/x"}`},
		{"bash", `{"command":"cd web && npm run lint -- --fix"}`},
		{"bash", `{"command":"for f in src/*.ts; do echo $f; done"}`},
		{"bash", `{"command":"tar czf /tmp/b.tgz src"}`},
		{"bash", `{"command":"cat ~/.ssh/config"}`},
		{"bash", `{"command":"echo \"<a> & b\u2028\" \\ \/ \b\f\n\r\t \u0000 \u00e9 \u65e5"}`},
		{"bash", `{"command":"echo é 日本 \ud83d\ude00"}`},
		{"bash", `{"command":"echo \ud800"}`},
		{"bash", `{"command":"echo ` + "\xff" + `"}`},
		{"bash", `{"command":"make deploy","timeout":120,"n":-0,"f":1.50e+3,"g":1E5,"h":[true,false,null,{}],"i":[]}`},
		{"bash", `{"command":5}`},
		{"bash", `{"Command":"rm -rf /","command":"ls"}`},
		{"bash", `{"command":"ls","command":"rm -rf /"}`},
		{"bash", `{"command":"ls","Command":"rm -rf /"}`},
		{"bash", `{"command":"ls","comm\u0061nd":"rm -rf /"}`},
		{"bash", `{"command":"ls","\u212aey":1,"key":2}`},
		{"bash", `{"command":"ls","ſ":1,"S":2}`},
		{"bash", `{"cmd":"ls"}`},
		{"bash", `{}`},
		{"bash", `"git status"`},
		{"bash", `null`},
		{"bash", `{"command":"ls","nested":{"a":{"b":{"a":1,"A":2}}}}`},
		{"read", `{"path":"a.txt"}`},
		{"read", `{"path":"/etc/passwd"}`},
		{"read", `{"path":"` + filepath.Join(dir, "src", "main.go") + `"}`},
		{"read", `{"Path":"a.txt"}`},
		{"read", `{"path":["a"]}`},
		{"edit", `{"path":"src/x.go","oldText":"a","newText":"b"}`},
		{"write", `{"path":"../outside.txt","content":"x"}`},
		{"write", `{"path":"~/.bashrc","content":"x"}`},
		{"grep", `{"pattern":"TODO","path":"src","glob":"*.go"}`},
		{"find", `{"pattern":"*.ts","path":"/"}`},
		{"ls", `{"path":"."}`},
		{"mcp", `{"tool":"github:list","server":"github","arguments":{"path":"a.txt"}}`},
		{"mcp", `{"tool":"github:list","arguments":{"Path":"a.txt"}}`},
		{"mcp", `{"connect":"github"}`},
		{"mcp", `{"search":5}`},
		{"skill", `{"name":"pdf"}`},
		{"my_tool", `{"path":"a.txt"}`},
		// Input shape: a missing or empty required field, the aliases of
		// path, an alias beside the field.
		{"read", `{}`},
		{"read", `{"path":"  "}`},
		{"write", `{"content":"x"}`},
		{"edit", `{"file_path":"src/x.go","oldText":"a","newText":"b"}`},
		{"read", `{"filePath":"a.txt"}`},
		{"read", `{"path":"a.txt","file_path":"/etc/passwd"}`},
		{"read", `{"file_path":"a.txt","filePath":"/etc/passwd"}`},
		{"grep", `{"pattern":"TODO"}`},
		{"ls", `{}`},
	}
	var lines []string
	for _, in := range inputs {
		lines = append(lines, call("1", p(in.tool, in.input)))
	}
	base := `{"command":"git status"}`
	for _, id := range []string{`0`, `7`, `9999999999999999999`, `9223372036854775807`, `9223372036854775808`, `1844674407370955161`, `"123"`, `"0"`, `"a b~!@#$%^*()"`, `18446744073709551615`, `18446744073709551616`, `99999999999999999999`, `007`, `-1`,
		`1.0`, `1e2`, `null`, `true`, `{}`, `[]`, `"abc"`, `""`, `"a<b"`, `"a&b"`, `"\u0041"`, `"é"`, `"a\"b"`, `"` + "\x01" + `"`} {
		lines = append(lines, call(id, p("bash", base)))
	}
	for _, params := range []string{
		`{"toolCallId":"c1","toolName":"bash","input":{"command":"ls"},"agentName":"build","cwd":"` + dir + `","hasUI":false}`,
		`{"toolCallId":"c1","toolName":"bash","input":{"command":"ls"},"cwd":"relative"}`,
		`{"toolCallId":"c1","toolName":"bash","input":{"command":"ls"},"cwd":5}`,
		`{"toolCallId":"c1","toolName":"bash","input":{"command":"ls"},"agentName":3}`,
		`{"toolCallId":"c1","toolName":"bash","input":{"command":"ls"},"hasUI":"no"}`,
		`{"toolCallId":"c1","toolName":"bash","input":{"command":"ls"},"extra":{"a":1}}`,
		`{"toolCallId":"c1","ToolName":"read","toolName":"bash","input":{"command":"ls"}}`,
		`{"toolCallId":"c1","tool_name":"read","toolName":"bash","input":{"command":"ls"}}`,
		`{"toolcallid":"c2","toolCallId":"c1","toolName":"bash","input":{"command":"ls"}}`,
		`{"toolCallID":"c2","toolName":"bash","input":{"command":"ls"}}`,
		`{"toolCallId":"c1","toolName":"bash","toolName":"read","input":{"command":"ls"}}`,
		`{"toolCallId":"c1","toolName":"bash","Input":{"command":"rm"},"input":{"command":"ls"}}`,
		`{"toolCallId":"c1","toolName":"bash","input":{"command":"ls"},"inPut":1}`,
		`{"toolCallId":"","toolName":"bash","input":{"command":"ls"}}`,
		`{"toolCallId":"c1","toolName":"","input":{"command":"ls"}}`,
		`{"toolCallId":7,"toolName":"bash","input":{"command":"ls"}}`,
		`{"toolName":"bash","input":{"command":"ls"}}`,
		`{"toolCallId":"c1","toolName":"bash"}`,
		`{"toolCallId":"c\u0031","toolName":"b\u0061sh","input":{"command":"ls"}}`,
		`{"toolCallId":"c<1>&","toolName":"bash","input":{"command":"ls"}}`,
		`[]`, `"x"`, `null`, `{}`,
	} {
		lines = append(lines, call("2", params))
	}
	// Envelopes.
	body := p("bash", base)
	lines = append(lines,
		`{"id":3,"method":"tool_call","params":`+body+`}`,
		`{"jsonrpc":"1.0","id":3,"method":"tool_call","params":`+body+`}`,
		`{"jsonrpc":"2.0","id":3,"method":"tool_call","params":`+body+`,"extra":1}`,
		`{"jsonrpc":"2.0","ID":3,"method":"tool_call","params":`+body+`}`,
		`{"jsonrpc":"2.0","id":3,"Method":"tool_call","params":`+body+`}`,
		`{"jsonrpc":"2.0","id":3,"method":"tool_call","Params":`+body+`}`,
		`{"jsonRPC":"2.0","id":3,"method":"tool_call","params":`+body+`}`,
		`{"jsonrpc":"2.0","id":3,"id":4,"method":"tool_call","params":`+body+`}`,
		`{"jsonrpc":"2.0","id":3,"method":"tool_call","params":`+body+`,"params":`+p("read", `{"path":"a"}`)+`}`,
		`{"jsonrpc":"2.0","id":3,"method":"tool_call"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tool_\u0063all","params":`+body+`}`,
		`{"jsonrpc":"2.0","id":3,"method":"tool_call","params":`+body+`,"result":1}`,
		`{"jsonrpc":"2.0","id":3,"method":5,"params":`+body+`}`,
		`{"params":`+body+`,"method":"tool_call","id":3,"jsonrpc":"2.0"}`,
		" \t{ \"jsonrpc\" : \"2.0\" ,\n \"id\" : 3 , \"method\" : \"tool_call\" , \"params\" : { \"toolCallId\" : \"c\" , \"toolName\" : \"bash\" , \"input\" : { \"command\" : \"ls\" } } } \t\r",
		call("3", p("bash", base))+"\r",
		call("3", p("bash", base))+" x",
		call("3", p("bash", base))+"}",
		`[`+call("3", p("bash", base))+`]`,
		`not json`,
		`"just a string"`,
		`{}`,
	)
	// Depth: every side of the fast path's own bound and the general one.
	for _, depth := range []int{1, 60, 62, 63, 64, 65, 66, 100, 254, 255, 256, 257, 300, 10001} {
		lines = append(lines, call("4", p("bash", `{"command":"ls","deep":`+strings.Repeat("[", depth)+strings.Repeat("]", depth)+`}`)))
		lines = append(lines, call("4", p("bash", `{"command":"ls","deep":`+strings.Repeat(`{"a":`, depth)+`1`+strings.Repeat("}", depth)+`}`)))
	}
	// Width: around the fast path's bound of keys in one object.
	for _, n := range []int{31, 32, 33, 200} {
		var b strings.Builder
		b.WriteString(`{"command":"ls"`)
		for i := 1; i < n; i++ {
			fmt.Fprintf(&b, `,"k%d":%d`, i, i)
		}
		b.WriteString(`}`)
		lines = append(lines, call("5", p("bash", b.String())))
		lines = append(lines, call("5", p("bash", strings.Replace(b.String(), `"k7"`, `"K1"`, 1))))
	}
	// Length: past the reader's buffer (64 KiB), and past 1 MiB.
	for _, n := range []int{60 << 10, 70 << 10, 1 << 20} {
		lines = append(lines, call("6", p("bash", `{"command":"echo `+strings.Repeat("a", n)+`"}`)))
	}
	lines = append(lines, transcriptCalls(t, dir)...)
	// Generated inputs: random values, keys and spacing.
	g := rand.New(rand.NewSource(8))
	for i := 0; i < 1500; i++ {
		tool := []string{"bash", "read", "write", "grep", "mcp", "skill", "other"}[g.Intn(7)]
		lines = append(lines, call(fmt.Sprint(g.Intn(1000)), `{"toolCallId":"g`+fmt.Sprint(i)+`","toolName":"`+tool+`","input":`+randJSON(g, 0, true)+`}`))
	}
	// Mutations: one byte deleted, replaced or inserted, many times over.
	r := rand.New(rand.NewSource(14))
	alphabet := []byte("{}[]\",:\\ \t0123aAeE-+.nultrf\x00\x1f\x7f\xff\xc3")
	n := len(lines)
	for i := 0; i < 2500; i++ {
		b := []byte(lines[r.Intn(n)])
		if len(b) > 4096 {
			continue
		}
		at := r.Intn(len(b))
		switch r.Intn(3) {
		case 0:
			b = append(b[:at], b[at+1:]...)
		case 1:
			b[at] = alphabet[r.Intn(len(alphabet))]
		default:
			b = append(b[:at], append([]byte{alphabet[r.Intn(len(alphabet))]}, b[at:]...)...)
		}
		lines = append(lines, string(b))
	}
	var out [][]byte
	for _, l := range lines {
		if l = strings.ReplaceAll(l, "\n", " "); inOrder(l) {
			out = append(out, []byte(l))
		}
	}
	return out
}

// randJSON is a random JSON value, objects with keys toolgate reads and
// their near misses, strings and numbers of every form, random spacing.
func randJSON(r *rand.Rand, depth int, object bool) string {
	sp := func() string { return []string{"", "", "", " ", "\t", " \r\n "}[r.Intn(6)] }
	str := func() string {
		parts := []string{"a", "git status", "é", "日本", "\\u00e9", "\\n", "\\\"", "\\\\", "\\/", "\\u0000", "\\ud83d\\ude00",
			"\\ud800", "<>&", "\u2028", "\U0001F600", "\\b\\f\\r\\t", "\\u212a", "/tmp/x", "~/.ssh/id_rsa", " "}
		var b strings.Builder
		b.WriteByte('"')
		for n := r.Intn(4); n > 0; n-- {
			b.WriteString(parts[r.Intn(len(parts))])
		}
		b.WriteByte('"')
		return b.String()
	}
	keys := []string{"command", "Command", "path", "PATH", "pattern", "glob", "content", "arguments", "tool", "server", "name",
		"k", "K", "\\u006b", "x_y", "xY", "\u212a", "ſ", "s", "S", "timeout", "description", "edits"}
	if object || (depth < 5 && r.Intn(3) == 0) {
		var b strings.Builder
		b.WriteString("{" + sp())
		for n := r.Intn(5); n > 0; n-- {
			if b.Len() > 2 && !strings.HasSuffix(strings.TrimSpace(b.String()), "{") {
				b.WriteString("," + sp())
			}
			b.WriteString(`"` + keys[r.Intn(len(keys))] + `"` + sp() + ":" + sp() + randJSON(r, depth+1, false) + sp())
		}
		b.WriteString("}")
		return b.String()
	}
	if depth < 5 && r.Intn(4) == 0 {
		var items []string
		for n := r.Intn(4); n > 0; n-- {
			items = append(items, sp()+randJSON(r, depth+1, false)+sp())
		}
		return "[" + strings.Join(items, ",") + "]"
	}
	switch r.Intn(6) {
	case 0:
		return []string{"0", "-0", "1", "-12", "3.25", "1e5", "1E-5", "2.5e+10", "123456789012345678901234567890", "0.1e1"}[r.Intn(10)]
	case 1:
		return []string{"true", "false", "null"}[r.Intn(3)]
	}
	return str()
}

// inOrder reports whether every path handles a line on the reading
// goroutine, so that two sessions answer a sequence of such lines in the
// same order: it is not a request for a method handled by a worker (nor
// a notification of one), and asks nobody (the session has no UI).
func inOrder(line string) bool {
	var m map[string]any
	if gojson.Unmarshal([]byte(line), &m) != nil {
		return true // answered by the reader itself
	}
	method, ok := m["method"]
	if !ok {
		return true
	}
	switch method {
	case protocol.MethodToolCall, protocol.MethodCheck, protocol.MethodInitialize:
	default:
		_, isString := method.(string)
		return !isString
	}
	if params, ok := m["params"].(map[string]any); ok {
		if ui, ok := params["hasUI"].(bool); ok && ui {
			return false
		}
	}
	return true
}

// transcriptCalls are the tool_call and check requests of every transcript
// as recorded, with its placeholders for the session's directories.
func transcriptCalls(t testing.TB, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "integration_test", "testdata", "*", "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	repl := strings.NewReplacer("$WORK", dir, "$HOME", dir, "$AUDIT", filepath.Join(dir, "audit.jsonl"))
	var out []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			if !strings.HasPrefix(line, `{"send": {`) || !strings.Contains(line, `"tool_call"`) {
				continue
			}
			var step map[string]gojson.RawMessage
			if err := gojson.Unmarshal([]byte(line), &step); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			out = append(out, repl.Replace(string(step["send"])))
		}
	}
	if len(out) < 500 {
		t.Fatalf("only %d recorded tool_call requests", len(out))
	}
	return out
}

// wireSession runs one session over the lines in framing, after an
// initialize without UI, and returns all it wrote. slow turns the fast path
// off.
func wireSession(t *testing.T, dir string, framing protocol.Framing, slow bool, lines [][]byte) (out []byte, fastN, keptN uint64) {
	t.Helper()
	var in bytes.Buffer
	frame := func(b []byte) {
		if framing == protocol.FramingContentLength {
			fmt.Fprintf(&in, "Content-Length: %d\r\n\r\n", len(b))
			in.Write(b)
			return
		}
		in.Write(b)
		in.WriteByte('\n')
	}
	frame([]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"cwd":"` + dir + `","hasUI":false}}`))
	for _, l := range lines {
		frame(l)
	}
	// The session ends with the input (a call written after a shutdown may
	// or may not be answered before the process ends, on either path).
	var w bytes.Buffer
	s := New(Options{Cwd: dir, Home: dir, AgentDir: filepath.Join(dir, "agent"), AuditLog: filepath.Join(dir, "audit.jsonl"),
		Framing: framing, Log: zerolog.Nop()})
	s.slowWire = slow
	if err := s.Serve(&in, &w); err != nil {
		t.Fatal(err)
	}
	return w.Bytes(), s.fastCalls.Load(), s.keptCalls.Load()
}

func wirePolicy(t testing.TB, dir string) {
	t.Helper()
	pol := `{"permission": {"*": "ask", "read": {"*": "allow", "*.env": "deny"}, "edit": "allow", "write": {"*": "ask", "src/*": "allow"},
	  "bash": {"*": "ask", "git status": "allow", "git *": "allow", "rm *": "deny", "npm run *": "allow", "echo *": "allow", "make deploy*": "deny"},
	  "mcp": {"*": "ask", "github:*": "allow"}, "skill": {"*": "deny"}, "external_directory": {"*": "ask", "/tmp/*": "allow"}}}`
	writePiConfig(t, filepath.Join(dir, "agent"), pol)
}

// TestFastPathAnswersAsBefore is the differential test of the fast path:
// over the whole corpus, in both framings, a session with it writes
// byte for byte what a session without it (jsonrpc2 and reflection, the
// path before it) writes, and their audit logs get the same records.
func TestFastPathAnswersAsBefore(t *testing.T) {
	dir := t.TempDir()
	wirePolicy(t, dir)
	lines := wireCorpus(t, dir)
	for _, framing := range []protocol.Framing{protocol.FramingNewline, protocol.FramingContentLength} {
		auditBefore := auditRecords(t, dir)
		slow, slowFast, _ := wireSession(t, dir, framing, true, lines)
		auditSlow := auditRecords(t, dir)
		fast, fastN, keptN := wireSession(t, dir, framing, false, lines)
		auditFast := auditRecords(t, dir)
		if slowFast != 0 {
			t.Fatalf("the slow session took the fast path %d times", slowFast)
		}
		if fastN < uint64(len(lines))/4 {
			t.Fatalf("framing %d: the fast path took only %d of %d lines", framing, fastN, len(lines))
		}
		if !bytes.Equal(slow, fast) {
			sl, fl := splitFrames(slow), splitFrames(fast)
			for i := 0; i < len(sl) && i < len(fl); i++ {
				if sl[i] != fl[i] {
					t.Fatalf("framing %d, message %d differs:\nslow %q\nfast %q", framing, i, sl[i], fl[i])
				}
			}
			for _, l := range [][]string{sl[max(0, len(sl)-3):], fl[max(0, len(fl)-3):]} {
				for _, m := range l {
					t.Logf("%.300s", m)
				}
			}
			t.Fatalf("framing %d: %d messages without the fast path, %d with it", framing, len(sl), len(fl))
		}
		want, got := auditSlow[len(auditBefore):], auditFast[len(auditSlow):]
		if !reflect.DeepEqual(want, got) {
			for i := 0; i < len(want) && i < len(got); i++ {
				if want[i] != got[i] {
					t.Errorf("audit record %d differs:\nslow %s\nfast %s", i, want[i], got[i])
					break
				}
			}
			t.Fatalf("framing %d: the audit records differ (%d without the fast path, %d with it)", framing, len(want), len(got))
		}
		if keptN == 0 {
			t.Fatalf("framing %d: no call was answered from a kept encoding", framing)
		}
		t.Logf("framing %d: %d lines, %d on the fast path (%d from a kept encoding), %d bytes of answers, %d audit records each", framing, len(lines), fastN, keptN, len(fast), len(got))
	}
}

func splitFrames(b []byte) []string {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}

// auditRecords are the records of the session's audit log, without what
// differs between two runs of one request (time, chain).
func auditRecords(t *testing.T, dir string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "audit.jsonl"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		// Numbers stay as written: a corpus input may hold one no float64
		// can carry (1234567E9012345678901234567890).
		var m map[string]any
		dec := gojson.NewDecoder(strings.NewReader(line))
		dec.UseNumber()
		if err := dec.Decode(&m); err != nil {
			t.Fatalf("audit record %q: %v", line, err)
		}
		for _, k := range []string{"time", "ts", "prev", "hash", "seq"} {
			delete(m, k)
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b, _ := gojson.Marshal(m)
		out = append(out, string(b))
	}
	return out
}

// TestDecodeToolCallReadsAsTheGeneralPath: whenever the one-pass reader
// takes a line, the general path (envelope screen, jsonobj.CheckUnambiguous,
// decodeObject) accepts it too and reads the same id, params and input.
func TestDecodeToolCallReadsAsTheGeneralPath(t *testing.T) {
	dir := t.TempDir()
	taken := 0
	for _, line := range wireCorpus(t, dir) {
		if readsAsTheGeneralPath(t, line) {
			taken++
		}
	}
	if taken < 500 {
		t.Fatalf("the one-pass reader took only %d lines", taken)
	}
}

func FuzzDecodeToolCall(f *testing.F) {
	// A write of a few lines of source: strings longer than a word, with
	// escapes every few bytes (the one-pass reader's word-at-a-time runs).
	src := strings.Repeat(`func f() {\n\tx := \"a\\\\b\" // é \u2028 \u00e9 <&>\n}\n`, 12)
	write := []byte(`{"jsonrpc":"2.0","id":7,"method":"tool_call","params":{"toolCallId":"c\"7","toolName":"write","input":{"path":"src/a\tb.go","content":"` + src + `"}}}`)
	if _, ok := protocol.DecodeToolCall(write); !ok {
		f.Fatalf("the write seed is not a plain call: %s", write)
	}
	for _, l := range [][]byte{toolCallLine, benchParams, []byte(`{"jsonrpc":"2.0","id":"x","method":"tool_call","params":{"input":{"a":[1,{"b":"\u00e9"}],"A":null}}}`), write} {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, line []byte) { readsAsTheGeneralPath(t, line) })
}

// readsAsTheGeneralPath checks one line (see
// TestDecodeToolCallReadsAsTheGeneralPath) and reports whether the
// one-pass reader took it.
func readsAsTheGeneralPath(t *testing.T, line []byte) bool {
	t.Helper()
	{
		fc, ok := protocol.DecodeToolCall(line)
		if !ok {
			return false
		}
		if !gojson.Valid(line) {
			t.Fatalf("%q: taken, but not valid JSON", line)
		}
		var env map[string]gojson.RawMessage
		if err := gojson.Unmarshal(line, &env); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if len(env) != 4 || string(env["jsonrpc"]) != `"2.0"` || string(env["method"]) != `"tool_call"` {
			t.Fatalf("%q: taken, but the envelope is %v", line, env)
		}
		if id := bytes.TrimSpace(env["id"]); !bytes.Equal(id, fc.ID) {
			t.Fatalf("%q: id %q, the general path reads %q", line, fc.ID, id)
		}
		raw := []byte(env["params"])
		input, err := jsonobj.CheckUnambiguous(raw)
		if err != nil {
			t.Fatalf("%q: taken, the general path refuses: %v", line, err)
		}
		if !bytes.Equal(input, fc.Input) {
			t.Fatalf("%q: input %q, the general path reads %q", line, fc.Input, input)
		}
		params, err := jsonobj.Decode(raw)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if !reflect.DeepEqual(map[string]any(params), fc.Params()) {
			t.Fatalf("%q: params\n%#v\nthe general path reads\n%#v", line, fc.Params(), params)
		}
		// The fields decodeParams reads, and the first fault it finds in
		// them, are the same.
		want, werr := readParams(params)
		got, gerr := fastParams(&fc)
		if fmt.Sprint(werr) != fmt.Sprint(gerr) || (werr == nil && !reflect.DeepEqual(want, got)) || want.id != got.id {
			t.Fatalf("%q: fields %+v (%v), the general path reads %+v (%v)", line, got, gerr, want, werr)
		}
	}
	return true
}

// TestCheckCallKeysIsCheckKeys: the reflection-free check of tool_call
// params finds what protocol.CheckKeys finds along ToolCallParams.
func TestCheckCallKeysIsCheckKeys(t *testing.T) {
	fields := protocol.JSONFields(reflect.TypeFor[protocol.ToolCallParams]())
	if len(fields) != len(callFields) {
		t.Fatalf("callFields %v, ToolCallParams has %v", callFields, fields)
	}
	for _, f := range callFields {
		if _, ok := fields[f]; !ok {
			t.Fatalf("callFields has %q, ToolCallParams does not", f)
		}
	}
	pool := []string{"toolCallId", "toolName", "input", "agentName", "cwd", "hasUI", "ToolCallId", "tool_call_id", "TOOLNAME",
		"tool-name", "Input", "in_put", "agentname", "CWD", "Cwd", "has_ui", "hasui", "extra", "x", "", "_", "toolCall", "\u212aey", "inputs"}
	r := rand.New(rand.NewSource(5))
	for i := 0; i < 5000; i++ {
		m := jsonobj.Object{}
		for n := r.Intn(6); n >= 0; n-- {
			m[pool[r.Intn(len(pool))]] = "v"
		}
		want := protocol.CheckKeys(map[string]any(m), reflect.TypeFor[protocol.ToolCallParams](), "")
		got := checkCallKeys(slices.Collect(maps.Keys(m)))
		if fmt.Sprint(want) != fmt.Sprint(got) {
			t.Fatalf("%v: checkCallKeys %v, CheckKeys %v", m, got, want)
		}
		if of := nearKeyOf(m, callFields[:], ""); fmt.Sprint(of) != fmt.Sprint(got) {
			t.Fatalf("%v: nearKeyOf %v, checkCallKeys %v", m, of, got)
		}
	}
}

// TestNearInputKeyIsTheFirstInKeyOrder: of several input keys that nearly
// name a field, the error names the first in key order, whatever order a
// map gives them in (the reason and the record are the same every time).
func TestNearInputKeyIsTheFirstInKeyOrder(t *testing.T) {
	pol := &policy.Policy{}
	for _, c := range []struct {
		tool, want string
		input      jsonobj.Object
	}{
		{"bash", `key "COMM-AND" in input is not "command" (keys are case-sensitive)`, jsonobj.Object{"command": "ls", "comm_and": "rm x", "Command": "rm y", "COMM-AND": "rm z", "timeout": 1}},
		{"read", `key "PATH" in input is not "path" (keys are case-sensitive)`, jsonobj.Object{"path": "a", "pa_th": "b", "Path": "c", "PATH": "d"}},
		{"mcp", `key "Path" in input.arguments is not "path" (keys are case-sensitive)`, jsonobj.Object{"tool": "t", "arguments": map[string]any{"path": "a", "pa-th": "b", "Path": "c"}}},
	} {
		for range 64 {
			err := checkInputKeys(c.tool, c.input, pol)
			if err == nil || err.Error() != c.want {
				t.Fatalf("%s %v: %v, want %s", c.tool, c.input, err, c.want)
			}
		}
	}
}

// TestProtectedForKeepsNothingStale: the kept protected paths are those of
// the call's own directory and log, whichever came before, and a caller
// changing its copy changes no later call's.
func TestProtectedForKeepsNothingStale(t *testing.T) {
	for _, host := range []string{"", HostClaudeCode, HostGeminiCLI} {
		s := New(Options{Home: "/home/u", ConfigHome: "/home/u/.config", ConfigFiles: []string{"/etc/tg.json"}, Host: host, Log: zerolog.Nop()})
		for _, step := range []struct{ cwd, log string }{{"/a", "/l1"}, {"/a", "/l1"}, {"/b", "/l1"}, {"/b", "/l2"}, {"/a", "/l1"}, {"", "/l1"}} {
			got := s.protectedFor(step.cwd, step.log)
			ref := append(append([]string{"/etc/tg.json"}, step.log, audit.HeadPath(step.log), export.CursorPath(step.log), export.LockPath(step.log),
				"/etc/toolgate/managed.json", sandboxDirFor(step.log)), s.hostProtected(step.cwd)...)
			if !reflect.DeepEqual(got, ref) {
				t.Fatalf("host %q, %v: %v, want %v", host, step, got, ref)
			}
			got[0] = "changed"
		}
	}
}

var benchParams = []byte(`{"toolCallId":"call-17","toolName":"bash","input":{"command":"cd web && npm run lint -- --fix","timeout":120000,"description":"Lint the web app"}}`)

// BenchmarkParamsDecode compares reading a call's params on the general
// path (after jsonrpc2 and the envelope screen: the duplicate-key scan, the
// decoder, the reflective key check) with the fast path's one pass, which
// reads the whole line, envelope included.
func BenchmarkParamsDecode(b *testing.B) {
	line := []byte(`{"jsonrpc":"2.0","id":17,"method":"tool_call","params":` + string(benchParams) + `}`)
	b.Run("general", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := jsonobj.CheckUnambiguous(benchParams); err != nil {
				b.Fatal(err)
			}
			params, err := jsonobj.Decode(benchParams)
			if err != nil {
				b.Fatal(err)
			}
			if err := protocol.CheckKeys(map[string]any(params), reflect.TypeFor[protocol.ToolCallParams](), ""); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			fc, ok := protocol.DecodeToolCall(line)
			if !ok {
				b.Fatal("not taken")
			}
			if _, err := fastParams(&fc); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestFastPathPanics: a panic at any step of the fast path neither ends the
// session nor leaves the call unanswered, and never allows it: in the
// precheck the call is left to the general path (which decides it as
// usual), in the decision it blocks with gate_error, in the framing it is
// an internal error (a block to a host).
func TestFastPathPanics(t *testing.T) {
	for _, tc := range []struct{ step, want string }{
		{"precheck", `"action":"allow"`},
		{"decide", `"resolution":"gate_error"`},
		{"frame", `"code":-32603`},
	} {
		dir := t.TempDir()
		wirePolicy(t, dir)
		var in bytes.Buffer
		in.WriteString(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"cwd":"` + dir + `","hasUI":false}}` + "\n")
		in.WriteString(`{"jsonrpc":"2.0","id":1,"method":"tool_call","params":{"toolCallId":"c1","toolName":"bash","input":{"command":"git status"}}}` + "\n")
		in.WriteString(`{"jsonrpc":"2.0","id":2,"method":"tool_call","params":{"toolCallId":"c2","toolName":"bash","input":{"command":"git status"}}}` + "\n")
		var out bytes.Buffer
		s := New(Options{Cwd: dir, Home: dir, AgentDir: filepath.Join(dir, "agent"), AuditLog: filepath.Join(dir, "audit.jsonl"), Log: zerolog.Nop()})
		calls := 0
		s.fastHook = func(step string) {
			if step == tc.step {
				calls++
				if calls == 1 {
					panic("injected")
				}
			}
		}
		if err := s.Serve(&in, &out); err != nil {
			t.Fatal(err)
		}
		var first, second string
		for _, m := range splitFrames(out.Bytes()) {
			switch {
			case strings.HasPrefix(m, `{"jsonrpc":"2.0","id":1,`):
				first = m
			case strings.HasPrefix(m, `{"jsonrpc":"2.0","id":2,`):
				second = m
			}
		}
		if !strings.Contains(first, tc.want) || strings.Contains(tc.want, "allow") != strings.Contains(first, `"action":"allow"`) {
			t.Errorf("panic in %s: answer %q, want one with %s", tc.step, first, tc.want)
		}
		if !strings.Contains(second, `"action":"allow"`) {
			t.Errorf("panic in %s: the next call was answered %q", tc.step, second)
		}
		if tc.step == "precheck" && s.fastCalls.Load() != 1 {
			t.Errorf("panic in precheck: %d calls on the fast path, want the second only", s.fastCalls.Load())
		}
	}
}

// TestAnswerIDAsBefore: the id of an answer framed by the appenders is the
// bytes the reflective encoder wrote for jsonrpc2's id.
func TestAnswerIDAsBefore(t *testing.T) {
	for _, raw := range []string{`0`, `7`, `9223372036854775807`, `"abc"`, `""`, `"a<b>&c"`, `"\u2028x\u2029"`, `"é日本"`,
		`"\ud800"`, "\"\xff\"", `"a\"b\\c"`, `"\u0000\u001f\u007f"`, `"\ud83d\ude00"`} {
		var id jsonrpc2.ID
		if err := json.Unmarshal([]byte(raw), &id); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		want, err := gojson.Marshal(id)
		if err != nil {
			t.Fatal(err)
		}
		got, err := json.Marshal(id)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("id %s: %s (%v), the reflective encoder wrote %s", raw, got, err, want)
		}
	}
}
