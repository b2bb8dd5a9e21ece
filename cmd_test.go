package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// copyExample copies the example policy and its cases into a temporary
// folder, applying edit to the policy text.
func copyExample(t *testing.T, dir string, edit func(string) string) (policyPath, casesPath string) {
	t.Helper()
	text, err := os.ReadFile("examples/policy.jsonc")
	if err != nil {
		t.Fatal(err)
	}
	cases, err := os.ReadFile("examples/toolgate-tests.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	policyPath, casesPath = filepath.Join(dir, "policy.jsonc"), filepath.Join(dir, "toolgate-tests.jsonl")
	if err := os.WriteFile(policyPath, []byte(edit(string(text))), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(casesPath, cases, 0o600); err != nil {
		t.Fatal(err)
	}
	return policyPath, casesPath
}

func TestExampleCasesPass(t *testing.T) {
	isolatedHome(t)
	for _, args := range [][]string{
		{"test", "--config", "examples/policy.jsonc", "examples/toolgate-tests.jsonl"},
		{"test", "--config", "examples/policy.jsonc"}, // the cases beside the policy
		{"validate", "examples/policy.jsonc"},
	} {
		var out bytes.Buffer
		if code := run(args, nil, &out, &out); code != 0 {
			t.Errorf("%v: exit %d\n%s", args, code, out.String())
		}
		if args[0] == "validate" && !strings.Contains(out.String(), "toolgate-tests.jsonl: 12 cases pass") {
			t.Errorf("validate did not run the cases:\n%s", out.String())
		}
	}
}

func TestBrokenPolicyFailsItsCase(t *testing.T) {
	dir := isolatedHome(t)
	// The deny of rm becomes an allow: the case that pins it must fail and
	// name the rule that now decides, with file and line.
	pol, cases := copyExample(t, dir, func(s string) string {
		return strings.Replace(s, `"rm *": "deny"`, `"rm *": "allow"`, 1)
	})
	for _, args := range [][]string{{"test", "--config", pol, cases}, {"test", "--config", pol}} {
		var out, errOut bytes.Buffer
		code := run(args, nil, &out, &errOut)
		got := out.String()
		if code != 1 {
			t.Fatalf("%v: exit %d, want 1\n%s%s", args, code, got, errOut.String())
		}
		for _, want := range []string{
			`FAIL "a denied rm hides behind an allowed git status" (` + cases + `:2)`,
			"expected deny, got allow",
			`FAIL "rm is denied in any spelling of its options" (` + cases + `:3)`,
			`rule "rm *", global ` + pol + `:17`,
			"12 cases, 10 passed, 2 failed",
		} {
			if !strings.Contains(got, want) {
				t.Errorf("%v: output lacks %q:\n%s", args, want, got)
			}
		}
	}
	var out bytes.Buffer
	if code := run([]string{"validate", pol}, nil, &out, &out); code != 1 || !strings.Contains(out.String(), cases+":3): test failed: expected deny, got allow") {
		t.Errorf("validate with a failing case: exit %d\n%s", code, out.String())
	}
}

func TestExplainExitCodes(t *testing.T) {
	dir, cfg := isolatedPolicy(t, `{"permission": {"bash": {"*": "ask", "ls *": "allow", "rm *": "deny"}}}`)
	cases := []struct {
		args    []string
		code    int
		stderr  string
		stdout  string
		noStdio bool
	}{
		{[]string{"--tool", "bash", "--input", `{"command":"ls -la"}`}, 0, "", "→ ALLOW", false},
		{[]string{"--tool", "bash", "--input", `{"command":"rm -rf x"}`}, 1, "", "→ DENY", false},
		{[]string{"--tool", "bash", "--input", `{"command":"make"}`}, 3, "", "→ ASK", false},
		{[]string{"--json", "--tool", "bash", "--input", `{"command":"make"}`}, 3, "", `"state": "ask"`, false},
		{[]string{"--json", "--tool", "bash", "--input", `{"command":"rm x"}`}, 1, "", `"state": "deny"`, false},
		{[]string{"--tool", "bash", "--input", `{"command":`}, 2, "--input: not valid JSON: unexpected end of JSON input", "", true},
		{[]string{"--tool", "bash", "--input", `{"command" "ls"}`}, 2, "--input: not valid JSON: invalid character '\"' after object key (at byte 12)", "", true},
		{[]string{"--tool", "bash", "--input", `["ls"]`}, 2, "--input: must be a JSON object (the tool's input), not an array", "", true},
		{[]string{"--input", `{}`}, 2, "--tool is required", "", true},
		{[]string{"--tool", "bash", "--frobnicate"}, 2, "flag provided but not defined: -frobnicate", "", true},
		{[]string{"--tool", "bash", "ls"}, 2, `unexpected argument "ls"`, "", true},
	}
	for _, c := range cases {
		var out, errOut bytes.Buffer
		args := append([]string{"explain", "--cwd", dir, "--config", cfg}, c.args...)
		code := run(args, nil, &out, &errOut)
		if code != c.code || !strings.Contains(errOut.String(), c.stderr) || !strings.Contains(out.String(), c.stdout) {
			t.Errorf("%v: exit %d (want %d)\nstdout: %s\nstderr: %s", c.args, code, c.code, out.String(), errOut.String())
		}
		if c.noStdio && out.Len() != 0 {
			t.Errorf("%v: a usage error printed on stdout: %s", c.args, out.String())
		}
	}
}

func TestExplainShowsPolicyWarningsFirst(t *testing.T) {
	dir, cfg := isolatedPolicy(t, "{\"permission\": {\"bash\": {\"ls *\": \"alow\"}}}\n")
	var out bytes.Buffer
	run([]string{"explain", "--cwd", dir, "--config", cfg, "--tool", "bash", "--input", `{"command":"ls"}`}, nil, &out, &out)
	got := out.String()
	first, _, _ := strings.Cut(got, "\n")
	if !strings.HasPrefix(first, "policy warning: "+cfg+":1:") || !strings.Contains(first, `(did you mean "allow"?)`) {
		t.Fatalf("the first line is not the policy warning:\n%s", got)
	}
	if strings.Index(got, "policy warning") > strings.Index(got, "→ ") {
		t.Fatalf("the warning comes after the decision:\n%s", got)
	}
}

func TestEveryCommandAnswersHelp(t *testing.T) {
	isolatedHome(t)
	for _, cmd := range []string{"serve", "explain", "validate", "test", "suggest", "replay", "audit", "claude-hook", "sandbox", "export", "version"} {
		for _, flag := range []string{"--help", "-h"} {
			var out, errOut bytes.Buffer
			code := run([]string{cmd, flag}, strings.NewReader(""), &out, &errOut)
			if code != 0 || !strings.HasPrefix(out.String(), "usage: toolgate") || errOut.Len() != 0 {
				t.Errorf("%s %s: exit %d, stdout %q, stderr %q", cmd, flag, code, out.String(), errOut.String())
			}
		}
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"help", "test"}, nil, &out, &errOut); code != 0 || !strings.Contains(out.String(), "toolgate test") {
		t.Errorf("help test: exit %d %q", code, out.String())
	}
	for _, cmd := range []string{"validate", "test", "suggest", "replay", "serve", "claude-hook", "export"} {
		var out, errOut bytes.Buffer
		if code := run([]string{cmd, "--no-such-flag"}, strings.NewReader(""), &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "-no-such-flag") {
			t.Errorf("%s --no-such-flag: exit %d, stderr %q", cmd, code, errOut.String())
		}
	}
}

func TestValidateHintsAndLooksFor(t *testing.T) {
	dir := isolatedHome(t)
	t.Setenv("XDG_CONFIG_HOME", "")
	var out bytes.Buffer
	if code := run([]string{"validate", "--cwd", dir}, nil, &out, &out); code != 0 ||
		!strings.Contains(out.String(), "looked for:") || !strings.Contains(out.String(), filepath.Join(dir, "agent", "extensions", "pi-permission-system", "config.json")) {
		t.Fatalf("no files: exit %d\n%s", code, out.String())
	}
	// toolgate's own files were looked for too.
	for _, own := range []string{filepath.Join(dir, ".config", "toolgate", "config.json"), filepath.Join(dir, ".toolgate", "config.json")} {
		if !strings.Contains(out.String(), "  "+own+"\n") {
			t.Errorf("the files looked for lack %s:\n%s", own, out.String())
		}
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte("{\n \"permissions\": {}\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	typo := filepath.Join(dir, "typo.json")
	if err := os.WriteFile(typo, []byte("{\"permission\": {\n \"raed\": \"allow\",\n \"bash\": {\"git *\": \"dney\"}}}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ file, want string }{
		{bad, `Unrecognized config key 'permissions'. (did you mean "permission"?)`},
		{typo, `invalid state "dney" (did you mean "deny"?)`},
	} {
		out.Reset()
		if code := run([]string{"validate", c.file}, nil, &out, &out); code != 1 || !strings.Contains(out.String(), c.want) {
			t.Errorf("validate %s: exit %d, want 1 and %q\n%s", c.file, code, c.want, out.String())
		}
	}
	surface := filepath.Join(dir, "surface.json")
	if err := os.WriteFile(surface, []byte("{\"permission\": {\n \"raed\": \"allow\"}}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if code := run([]string{"validate", surface}, nil, &out, &out); code != 0 || !strings.Contains(out.String(), surface+`:2: warning (unknown-surface): surface "raed"`) ||
		!strings.Contains(out.String(), `(did you mean "read"?)`) {
		t.Errorf("validate %s: exit %d\n%s", surface, code, out.String())
	}
}

func TestCasesThatCannotRunFail(t *testing.T) {
	dir := isolatedHome(t)
	cases := filepath.Join(dir, "cases.jsonl")
	text := `{"tool": "bash", "input": {"command": "ls"}, "expect": "alow"}
not json
{"input": {}, "expect": "ask"}
{"tool": "bash", "input": ["ls"], "expect": "ask"}
{"tool": "bash", "input": {"command": "ls"}, "expect": "ask", "extra": 1}
// a comment line

{"tool": "bash", "input": {"command": "ls"}, "expect": "ask"}
`
	if err := os.WriteFile(cases, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	code := run([]string{"test", "--cwd", dir, cases}, nil, &out, &out)
	got := out.String()
	for _, want := range []string{cases + ":1:", `"expect" must be allow, ask or deny, not "alow"`, cases + ":2:", cases + ":3:", `no "tool"`,
		cases + ":4:", "not an array", cases + ":5:", `unknown field "extra"`, "6 cases, 1 passed, 5 failed"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if code != 1 {
		t.Errorf("exit %d, want 1\n%s", code, got)
	}
	out.Reset()
	if code := run([]string{"test", filepath.Join(dir, "missing.jsonl")}, nil, &out, &out); code != 2 {
		t.Errorf("missing cases file: exit %d", code)
	}
	out.Reset()
	if code := run([]string{"test", "--cwd", dir}, nil, &out, &out); code != 2 || !strings.Contains(out.String(), "looked in:") {
		t.Errorf("no cases anywhere: exit %d\n%s", code, out.String())
	}
}

func TestCasesFromAudit(t *testing.T) {
	dir := isolatedHome(t)
	cfg := filepath.Join(dir, "p.json")
	write := func(text string) {
		if err := os.WriteFile(cfg, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"permission": {"bash": {"*": "ask", "git *": "allow"}, "read": "allow"}}`)
	auditLog := filepath.Join(dir, "audit.jsonl")
	serveSession(t, []string{"serve", "--config", cfg, "--audit-log", auditLog}, []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"cwd":"` + dir + `"}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tool_call","params":{"toolCallId":"c1","toolName":"bash","input":{"command":"git push origin main"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tool_call","params":{"toolCallId":"c2","toolName":"read","input":{"path":"a.txt"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tool_call","params":{"toolCallId":"c3","toolName":"bash","input":{"command":"make"}}}`,
	})
	cases := filepath.Join(dir, "pinned.jsonl")
	var out, errOut bytes.Buffer
	if code := run([]string{"test", "--config", cfg, "--from-audit", auditLog, "-o", cases}, nil, &out, &errOut); code != 0 || !strings.Contains(errOut.String(), "3 cases written") {
		t.Fatalf("--from-audit: exit %d\n%s%s", code, out.String(), errOut.String())
	}
	out.Reset()
	if code := run([]string{"test", "--config", cfg, cases}, nil, &out, &out); code != 0 || !strings.Contains(out.String(), "3 cases, 3 passed") {
		t.Fatalf("pinned cases on the same policy: exit %d\n%s", code, out.String())
	}
	write(`{"permission": {"bash": {"*": "ask", "git *": "allow", "git push *": "deny"}, "read": "allow"}}`)
	out.Reset()
	if code := run([]string{"test", "--config", cfg, cases}, nil, &out, &out); code != 1 || !strings.Contains(out.String(), "(c1)") ||
		!strings.Contains(out.String(), "expected allow, got deny") || !strings.Contains(out.String(), `rule "git push *"`) {
		t.Fatalf("after the edit: exit %d\n%s", code, out.String())
	}
	out.Reset()
	errOut.Reset()
	if code := run([]string{"test", "--config", cfg, "--from-audit", auditLog}, nil, &out, &errOut); code != 0 || strings.Count(out.String(), "\n") != 3 || !strings.Contains(out.String(), `"expect":"deny"`) {
		t.Fatalf("--from-audit to stdout: exit %d\n%s", code, out.String())
	}
}

func TestValidateShowsPolicyWarningsAndShadowedRules(t *testing.T) {
	dir := isolatedHome(t)
	project := filepath.Join(dir, "project", ".pi", "extensions", "pi-permission-system", "config.json")
	if err := os.MkdirAll(filepath.Dir(project), 0o700); err != nil {
		t.Fatal(err)
	}
	text := "{\n  \"yoloMode\": true,\n  \"permission\": {\"bash\": {\n    \"git status\": \"allow\",\n    \"git *\": \"ask\"}}}\n"
	if err := os.WriteFile(project, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	code := run([]string{"validate", "--cwd", filepath.Join(dir, "project")}, nil, &out, &out)
	got := out.String()
	if code != 0 || !strings.Contains(got, project+":2:3: warning: 'yoloMode' in a project file is ignored") ||
		!strings.Contains(got, project+`:4: warning (shadowed): bash rule "git status" can never win`) {
		t.Fatalf("exit %d:\n%s", code, got)
	}
}

func TestFlagsAfterArguments(t *testing.T) {
	dir, cfg := isolatedPolicy(t, `{"permission": {"bash": {"*": "ask", "ls *": "allow"}}}`)
	cases := filepath.Join(dir, "c.jsonl")
	if err := os.WriteFile(cases, []byte(`{"tool": "bash", "input": {"command": "ls"}, "expect": "allow"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if code := run([]string{"test", cases, "--config", cfg, "-v"}, nil, &out, &out); code != 0 || !strings.Contains(out.String(), "ok   ") {
		t.Errorf("flags after CASES: exit %d\n%s", code, out.String())
	}
	out.Reset()
	if code := run([]string{"validate", cfg, "--json"}, nil, &out, &out); code != 0 || !strings.Contains(out.String(), `"ok": true`) {
		t.Errorf("validate FILE --json: exit %d\n%s", code, out.String())
	}
	// After "--", a word that looks like a flag is an argument.
	out.Reset()
	if code := run([]string{"test", "--config", cfg, "--", "-v"}, nil, &out, &out); code != 2 || !strings.Contains(out.String(), "-v") {
		t.Errorf("-- then -v: exit %d\n%s", code, out.String())
	}
}

func TestTestShowsABrokenPolicyFirst(t *testing.T) {
	dir := isolatedHome(t)
	pol, cases := copyExample(t, dir, func(s string) string {
		return strings.Replace(s, `"rm *": "deny"`, `"rm *": "dney"`, 1)
	})
	var out bytes.Buffer
	code := run([]string{"test", "--config", pol, cases}, nil, &out, &out)
	got := out.String()
	first, _, _ := strings.Cut(got, "\n")
	// "dney" denies at its position: the cases still pass.
	if code != 0 || !strings.HasPrefix(first, "policy warning: "+pol+":17:") || !strings.Contains(first, `(did you mean "deny"?)`) {
		t.Fatalf("exit %d:\n%s", code, got)
	}
}

// A policy file in a directory whose name holds bidi and control
// characters (a cloned project's name) is named escaped by validate and
// explain, its warnings included.
func TestPolicyWarningsEscapedForAPerson(t *testing.T) {
	dir := isolatedHome(t)
	sub := filepath.Join(dir, "proj\u202e\x1b[2J")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(sub, "p.json")
	if err := os.WriteFile(cfg, []byte(`{"permission": {"bash": {"ls *": "alow"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"validate", cfg},
		{"explain", "--cwd", dir, "--config", cfg, "--tool", "bash", "--input", `{"command":"ls x"}`},
	} {
		var out bytes.Buffer
		run(args, nil, &out, &out)
		got := out.String()
		if strings.ContainsAny(got, "\u202e\x1b") || !strings.Contains(got, `proj<U+202E>\x1b[2J`) {
			t.Errorf("%s: the path is not shown escaped:\n%q", args[0], got)
		}
	}
}
