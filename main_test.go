package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestValidateExamples(t *testing.T) {
	isolatedHome(t)
	files, err := filepath.Glob("examples/*.jsonc")
	if err != nil || len(files) == 0 {
		t.Fatalf("no example policies: %v", err)
	}
	for _, f := range files {
		var out, errOut bytes.Buffer
		if code := run([]string{"validate", f}, nil, &out, &errOut); code != 0 {
			t.Errorf("validate %s = %d\n%s%s", f, code, out.String(), errOut.String())
		}
	}
}

func TestValidateNamesTheLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "broken.json")
	text := "{\n  \"permission\": {\n    \"bash\": {\"git *\": \"alow\"}\n  }\n}\n"
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if code := run([]string{"validate", path}, nil, &out, &out); code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, out.String())
	}
	if !strings.Contains(out.String(), path+":3:") || !strings.Contains(out.String(), "alow") {
		t.Fatalf("output does not name line 3 and the bad state:\n%s", out.String())
	}
	out.Reset()
	if code := run([]string{"validate", "--json", path}, nil, &out, &out); code != 1 || !strings.Contains(out.String(), `"line": 3`) {
		t.Fatalf("--json: exit %d\n%s", code, out.String())
	}
}

func TestUnknownCommand(t *testing.T) {
	var out bytes.Buffer
	if code := run([]string{"frobnicate"}, nil, &out, &out); code != 2 {
		t.Fatalf("exit %d, want 2", code)
	}
}

func TestReplayListsChangedDecisions(t *testing.T) {
	dir := isolatedHome(t)
	agentDir := filepath.Join(dir, "agent")
	cfg := filepath.Join(agentDir, "extensions", "pi-permission-system", "config.json")
	write := func(text string) {
		if err := os.MkdirAll(filepath.Dir(cfg), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(cfg, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"permission": {"*": "allow", "bash": {"*": "allow"}}}`)
	session := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"cwd":"` + dir + `"}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tool_call","params":{"toolCallId":"c1","toolName":"bash","input":{"command":"git push origin main"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tool_call","params":{"toolCallId":"c2","toolName":"bash","input":{"command":"ls"}}}`,
	}
	auditLog := filepath.Join(dir, "audit.jsonl")
	serveSession(t, []string{"serve", "--audit-log", auditLog}, session)
	var out bytes.Buffer
	write(`{"permission": {"*": "allow", "bash": {"*": "allow", "git push *": "deny"}}}`)
	out.Reset()
	if code := run([]string{"replay", auditLog}, nil, &out, &out); code != 1 {
		t.Fatalf("replay exit %d, want 1 (a decision changes): %s", code, out.String())
	}
	got := out.String()
	if !strings.Contains(got, "c1 bash") || !strings.Contains(got, "was allow, now deny") || strings.Contains(got, "c2 bash") {
		t.Fatalf("replay output:\n%s", got)
	}
	if !strings.Contains(got, "2 calls decided again, 1 would change") {
		t.Fatalf("replay summary:\n%s", got)
	}
	out.Reset()
	if code := run([]string{"audit", "verify", auditLog}, nil, &out, &out); code != 0 || !strings.Contains(out.String(), "chain intact") {
		t.Fatalf("audit verify: %d %s", code, out.String())
	}
	// The last record cut off: the chain still holds, the head file tells.
	data, err := os.ReadFile(auditLog)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
	if err := os.WriteFile(auditLog, []byte(strings.Join(lines[:len(lines)-1], "")), 0o600); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if code := run([]string{"audit", "verify", auditLog}, nil, &out, &out); code != 1 || !strings.Contains(out.String(), "cut off") {
		t.Fatalf("audit verify of a cut-off log: %d %s", code, out.String())
	}
}

// serveSession runs `toolgate serve` in-process and sends each request only
// after the previous one was answered, as a host does.
func serveSession(t *testing.T, args []string, requests []string) {
	t.Helper()
	inW, lines, end := serveInProcess(t, args)
	for i, req := range requests {
		if _, err := io.WriteString(inW, req+"\n"); err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf(`"id":%d`, i+1)
		for {
			line, err := lines.ReadString('\n')
			if err != nil {
				t.Fatalf("no answer to %s: %v", req, err)
			}
			if strings.Contains(line, want) {
				break
			}
		}
	}
	end()
}

// serveInProcess starts `toolgate serve` (run with args) in-process over
// pipes: the host writes its lines to w and reads toolgate's from r; end
// closes toolgate's input and wants it to exit with 0.
func serveInProcess(t *testing.T, args []string) (w *io.PipeWriter, r *bufio.Reader, end func()) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int)
	go func() { code := run(args, inR, outW, io.Discard); outW.Close(); done <- code }()
	return inW, bufio.NewReader(outR), func() {
		t.Helper()
		inW.Close()
		go io.Copy(io.Discard, outR)
		if code := <-done; code != 0 {
			t.Fatalf("serve exit %d", code)
		}
	}
}

func TestExplainShowsEveryMatchAndTheWinner(t *testing.T) {
	dir, cfg := isolatedPolicy(t, "{\"permission\": {\n \"bash\": {\n  \"*\": \"allow\",\n  \"rm *\": \"deny\"}}}")
	var out bytes.Buffer
	code := run([]string{"explain", "--tool", "bash", "--input", `{"command":"ls && sudo rm -rf x"}`, "--cwd", dir, "--config", cfg}, nil, &out, &out)
	got := out.String()
	if code != 1 || !strings.Contains(got, "→ DENY") || !strings.Contains(got, cfg+":4  ← wins") || !strings.Contains(got, "allow *") {
		t.Fatalf("exit %d:\n%s", code, got)
	}
	out.Reset()
	if code := run([]string{"explain", "--json", "--tool", "bash", "--input", `{"command":"ls"}`, "--cwd", dir, "--config", cfg}, nil, &out, &out); code != 0 || !strings.Contains(out.String(), `"wins": true`) || !strings.Contains(out.String(), `"state": "allow"`) {
		t.Fatalf("--json: exit %d\n%s", code, out.String())
	}
}

func TestClaudeHook(t *testing.T) {
	policy := `{"permission": {"*": "ask", "read": "allow", "bash": {"*": "ask", "git status": "allow", "rm *": "deny"}, "mcp": {"exa_*": "allow"}}}`
	dir, cfg := isolatedPolicy(t, policy)
	auditLog := filepath.Join(dir, "audit.jsonl")
	cases := []struct {
		event    string
		code     int
		contains string
	}{
		{`{"hook_event_name":"PreToolUse","cwd":"` + dir + `","tool_name":"Bash","tool_input":{"command":"git status"}}`, 0, `"permissionDecision":"allow"`},
		{`{"hook_event_name":"PreToolUse","cwd":"` + dir + `","tool_name":"Bash","tool_input":{"command":"git status && rm -rf ~"}}`, 0, `"permissionDecision":"deny"`},
		{`{"hook_event_name":"PreToolUse","cwd":"` + dir + `","tool_name":"Bash","tool_input":{"command":"make deploy"}}`, 0, `"permissionDecision":"ask"`},
		{`{"hook_event_name":"PreToolUse","cwd":"` + dir + `","tool_name":"Read","tool_input":{"file_path":"` + dir + `/a.txt"}}`, 0, `"permissionDecision":"allow"`},
		{`{"hook_event_name":"PreToolUse","cwd":"` + dir + `","tool_name":"mcp__exa__search","tool_input":{"q":"x"}}`, 0, `"permissionDecision":"allow"`},
		{`{"hook_event_name":"PreToolUse","cwd":"` + dir + `","tool_name":"Bash","tool_input":{"command":"ls","Command":"rm -rf /"}}`, 2, ""},
		{`not json`, 2, ""},
		{`{"hook_event_name":"UserPromptSubmit","cwd":"` + dir + `","prompt":"/skill:x go"}`, 0, `"decision":"block"`},
		{`{"hook_event_name":"UserPromptSubmit","cwd":"` + dir + `","prompt":"hello"}`, 0, ""},
	}
	for _, c := range cases {
		var out, errOut bytes.Buffer
		code := run([]string{"claude-hook", "--config", cfg, "--audit-log", auditLog}, strings.NewReader(c.event), &out, &errOut)
		if code != c.code || !strings.Contains(out.String(), c.contains) {
			t.Errorf("%s: exit %d (want %d), out %q, err %q", c.event, code, c.code, out.String(), errOut.String())
		}
		if c.code == 2 && out.Len() != 0 {
			t.Errorf("%s: exit 2 with output on stdout: %q", c.event, out.String())
		}
	}
	var out bytes.Buffer
	if code := run([]string{"audit", "verify", auditLog}, nil, &out, &out); code != 0 {
		t.Fatalf("audit log of the hook runs: %s", out.String())
	}
}

// isolatedHome makes a temporary HOME (no symlinks in its path) with its
// own agent directory, so no test reads the machine's pi configuration.
func isolatedHome(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", dir)
	t.Setenv("PI_CODING_AGENT_DIR", filepath.Join(dir, "agent"))
	t.Setenv("XDG_CONFIG_HOME", "") // the trust store under HOME
	t.Setenv("TOOLGATE_MANAGED_DIR", "")
	return dir
}

// isolatedPolicy is isolatedHome with the policy file p.json in it
// holding text: the home and the file's path.
func isolatedPolicy(t *testing.T, text string) (dir, cfg string) {
	t.Helper()
	dir = isolatedHome(t)
	cfg = filepath.Join(dir, "p.json")
	if err := os.WriteFile(cfg, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir, cfg
}

// TestExplainPrintsPolicyWarningsFirst: a broken file is the first thing
// explain says, and the reason carries the note too.
func TestExplainPrintsPolicyWarningsFirst(t *testing.T) {
	dir, cfg := isolatedPolicy(t, "{\"permission\": {\n \"bash\": {\n  \"ls\": \"allow\"}}\n")
	var out bytes.Buffer
	code := run([]string{"explain", "--tool", "bash", "--input", `{"command":"ls"}`, "--cwd", dir, "--config", cfg}, nil, &out, &out)
	got := out.String()
	first, _, _ := strings.Cut(got, "\n")
	if code != 3 || !strings.HasPrefix(first, "policy warning: "+cfg+":") || !strings.Contains(got, "→ ASK") {
		t.Fatalf("exit %d:\n%s", code, got)
	}
	out.Reset()
	if code := run([]string{"explain", "--json", "--tool", "bash", "--input", `{"command":"ls"}`, "--cwd", dir, "--config", cfg}, nil, &out, &out); code != 3 ||
		!strings.Contains(out.String(), `"warnings": [`) || !strings.Contains(out.String(), "(note: policy file "+cfg) {
		t.Fatalf("--json: exit %d\n%s", code, out.String())
	}
}

// explain's words are for a person: ESC, CR and bidi controls in a command
// are shown escaped, never raw.
func TestExplainEscapesInvisibleCharacters(t *testing.T) {
	dir := isolatedHome(t)
	for _, tc := range []struct{ input, shown string }{
		{`{"command":"echo \u001b[2Jhidden"}`, `\x1b[2J`},
		{`{"command":"echo safe\rrm -rf x"}`, `\r`},
		{"{\"command\":\"echo \u202eevil\u202c\"}", `<U+202E>`}, // raw in the JSON text
		{"{\"command\":\"ls a\u200bb\"}", `<U+200B>`},
	} {
		var out bytes.Buffer
		if code := run([]string{"explain", "--tool", "bash", "--input", tc.input, "--cwd", dir}, nil, &out, &out); code != 3 { // ask: the fallback
			t.Fatalf("%s: exit %d\n%s", tc.input, code, out.String())
		}
		got := out.String()
		if strings.ContainsAny(got, "\x1b\r\u202e\u202c\u200b") || !strings.Contains(got, tc.shown) {
			t.Errorf("%s: explain output shows raw or misses %q:\n%q", tc.input, tc.shown, got)
		}
	}
}

// A recorded Claude Code or Gemini CLI call replays like a pi call, with
// the host's values and built-in allows; explain --host decides the same.
func TestHostHookReplayAndExplain(t *testing.T) {
	dir := isolatedHome(t)
	cfg := filepath.Join(dir, "p.json")
	write := func(policy string) {
		if err := os.WriteFile(cfg, []byte(policy), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"permission": {"*": "ask", "bash": {"*": "ask", "git status": "allow"}, "WebFetch": {"https://docs.example/*": "allow"}, "web_fetch": {"https://docs.example/*": "allow"}}}`)
	auditLog := filepath.Join(dir, "audit.jsonl")
	events := []struct{ cmd, event string }{
		{"claude-hook", `{"hook_event_name":"PreToolUse","cwd":"` + dir + `","tool_name":"Bash","tool_input":{"command":"git status"}}`},
		{"claude-hook", `{"hook_event_name":"PreToolUse","cwd":"` + dir + `","tool_name":"WebFetch","tool_input":{"url":"https://docs.example/a","prompt":"p"}}`},
		{"claude-hook", `{"hook_event_name":"PreToolUse","cwd":"` + dir + `","tool_name":"TodoWrite","tool_input":{"todos":[]}}`},
		{"gemini-hook", `{"hook_event_name":"BeforeTool","cwd":"` + dir + `","tool_name":"web_fetch","tool_input":{"prompt":"see https://docs.example/b"}}`},
		{"gemini-hook", `{"hook_event_name":"BeforeTool","cwd":"` + dir + `","tool_name":"run_shell_command","tool_input":{"command":"git status"}}`},
	}
	for _, e := range events {
		var out, errOut bytes.Buffer
		if code := run([]string{e.cmd, "--config", cfg, "--audit-log", auditLog}, strings.NewReader(e.event), &out, &errOut); code != 0 || !strings.Contains(out.String(), "allow") {
			t.Fatalf("%s %s: exit %d, %s %s", e.cmd, e.event, code, out.String(), errOut.String())
		}
	}
	var out bytes.Buffer
	if code := run([]string{"replay", "--config", cfg, auditLog}, nil, &out, &out); code != 0 || !strings.Contains(out.String(), "5 calls decided again, 0 would change") {
		t.Fatalf("replay with the same policy: exit %d\n%s", code, out.String())
	}
	// The recorded hook calls pin as test cases, decided as their hosts
	// decide them (issue 15 item 5).
	casesFile := filepath.Join(dir, "pinned.jsonl")
	out.Reset()
	if code := run([]string{"test", "--config", cfg, "--from-audit", auditLog, "-o", casesFile}, nil, &out, &out); code != 0 {
		t.Fatalf("test --from-audit: exit %d\n%s", code, out.String())
	}
	if data, err := os.ReadFile(casesFile); err != nil || !strings.Contains(string(data), `"host":"claude-code"`) || !strings.Contains(string(data), `"host":"gemini-cli"`) {
		t.Fatalf("pinned cases do not name their hosts: %v\n%s", err, data)
	}
	out.Reset()
	if code := run([]string{"test", "--config", cfg, casesFile}, nil, &out, &out); code != 0 || !strings.Contains(out.String(), "5 passed, 0 failed") {
		t.Fatalf("pinned host cases: exit %d\n%s", code, out.String())
	}
	// Today's policy denies the URL, the todo list and git status: every
	// recorded call would change, each for its own rule.
	write(`{"permission": {"*": "ask", "bash": {"git *": "deny"}, "WebFetch": {"https://docs.example/*": "deny"}, "web_fetch": {"https://docs.example/*": "deny"}, "TodoWrite": "deny"}}`)
	out.Reset()
	if code := run([]string{"test", "--config", cfg, casesFile}, nil, &out, &out); code != 1 || !strings.Contains(out.String(), "0 passed, 5 failed") {
		t.Fatalf("pinned host cases against a stricter policy: exit %d\n%s", code, out.String())
	}
	out.Reset()
	if code := run([]string{"replay", "--config", cfg, auditLog}, nil, &out, &out); code != 1 || !strings.Contains(out.String(), "5 calls decided again, 5 would change") ||
		!strings.Contains(out.String(), `WebFetch "https://docs.example/a"`) || !strings.Contains(out.String(), `web_fetch "https://docs.example/b"`) {
		t.Fatalf("replay with a stricter policy: exit %d\n%s", code, out.String())
	}
	for _, c := range []struct {
		host, tool, input, want string
	}{
		{"claude-code", "WebFetch", `{"url":"https://docs.example/x"}`, "→ DENY"},
		{"claude-code", "Read", `{"file_path":"a.txt"}`, "→ ASK"},
		{"claude-code", "TodoWrite", `{}`, "→ DENY"},
		{"claude-code", "Agent", `{}`, "→ ALLOW"},
		{"gemini-cli", "write_todos", `{}`, "→ ALLOW"},
		{"gemini-cli", "run_shell_command", `{"command":"git log"}`, "→ DENY"},
		{"", "Agent", `{}`, "→ ASK"}, // a pi extension tool named Agent gets no built-in allow
	} {
		out.Reset()
		args := []string{"explain", "--tool", c.tool, "--input", c.input, "--cwd", dir, "--config", cfg}
		if c.host != "" {
			args = append(args, "--host", c.host)
		}
		wantCode := map[string]int{"→ ALLOW": 0, "→ DENY": 1, "→ ASK": 3}[c.want]
		if code := run(args, nil, &out, &out); code != wantCode || !strings.Contains(out.String(), c.want) {
			t.Errorf("explain %v: exit %d\n%s", args, code, out.String())
		}
	}
	if code := run([]string{"explain", "--host", "nope", "--tool", "x"}, nil, &out, &out); code != 2 {
		t.Errorf("explain --host nope: exit %d", code)
	}
}

// gemini-hook: a block answers {"decision": "deny", "reason": …}; any
// internal error exits 2 with nothing on stdout (Gemini CLI's block).
func TestGeminiHookExitCodes(t *testing.T) {
	dir, cfg := isolatedPolicy(t, `{"permission": {"bash": {"*": "ask", "git status": "allow", "rm *": "deny"}}}`)
	auditLog := filepath.Join(dir, "audit.jsonl")
	ev := func(tool, input string) string {
		return `{"hook_event_name":"BeforeTool","cwd":"` + dir + `","tool_name":"` + tool + `","tool_input":` + input + `}`
	}
	for _, c := range []struct {
		args     []string
		event    string
		code     int
		contains string
	}{
		{nil, ev("run_shell_command", `{"command":"git status"}`), 0, `{"decision":"allow"}`},
		{nil, ev("run_shell_command", `{"command":"rm -rf build"}`), 0, `"decision":"deny","reason":"toolgate: bash command 'rm -rf build' is denied`},
		{nil, ev("run_shell_command", `{"command":"make"}`), 0, `"decision":"deny"`},
		{[]string{"--ask"}, ev("run_shell_command", `{"command":"make"}`), 0, `"decision":"ask"`},
		{nil, ev("run_shell_command", `{"command":"ls","Command":"rm -rf /"}`), 2, ""},
		{nil, ev("run_shell_command", `{"command":7}`), 2, ""},
		{nil, `{"hook_event_name":"BeforeTool"`, 2, ""},
		{[]string{"--bogus"}, ev("run_shell_command", `{"command":"git status"}`), 2, ""},
	} {
		var out, errOut bytes.Buffer
		args := append([]string{"gemini-hook", "--config", cfg, "--audit-log", auditLog}, c.args...)
		code := run(args, strings.NewReader(c.event), &out, &errOut)
		if code != c.code || !strings.Contains(out.String(), c.contains) {
			t.Errorf("%v %s: exit %d (want %d), out %q, err %q", c.args, c.event, code, c.code, out.String(), errOut.String())
		}
		if c.code == 2 && out.Len() != 0 {
			t.Errorf("%s: exit 2 with output on stdout: %q", c.event, out.String())
		}
	}
}

// A rule that decides through the canonical spelling of the options (rm
// -fr x read as rm -f -r x) is in explain's table, marked as the winner;
// the last rule matching the text as written is not.
func TestExplainShowsTheCanonicalWinner(t *testing.T) {
	dir, cfg := isolatedPolicy(t, "{\"permission\": {\"bash\": {\n  \"*\": \"ask\",\n  \"rm *\": \"allow\",\n  \"rm -rf *\": \"deny\"\n}}}")
	var out bytes.Buffer
	code := run([]string{"explain", "--tool", "bash", "--input", `{"command":"rm -fr x"}`, "--cwd", dir, "--config", cfg}, nil, &out, &out)
	got := out.String()
	var winners []string
	for _, line := range strings.Split(got, "\n") {
		if strings.Contains(line, "← wins") {
			winners = append(winners, line)
		}
	}
	if code != 1 || len(winners) != 1 || !strings.Contains(winners[0], "rm -rf *") || !strings.Contains(winners[0], cfg+":4") ||
		!strings.Contains(got, "matched as 'rm -f -r x'") {
		t.Fatalf("exit %d, winners %q:\n%s", code, winners, got)
	}
	out.Reset()
	run([]string{"explain", "--json", "--tool", "bash", "--input", `{"command":"rm -fr x"}`, "--cwd", dir, "--config", cfg}, nil, &out, &out)
	var ex struct {
		Matches []struct {
			Rules []struct {
				Pattern, MatchedAs string
				Wins               bool
			}
		}
	}
	if err := json.Unmarshal(out.Bytes(), &ex); err != nil || len(ex.Matches) != 1 {
		t.Fatalf("--json: %v\n%s", err, out.String())
	}
	for _, r := range ex.Matches[0].Rules {
		if r.Wins != (r.Pattern == "rm -rf *") || r.Wins && r.MatchedAs != "rm -f -r x" {
			t.Errorf("--json rule %+v", r)
		}
	}
}
