package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// bashSession runs one session of bash commands with a person answering
// prompts (choose), logging to auditLog, under the global policy text.
func bashSession(t *testing.T, dir, auditLog string, choose func(string) string, cmds ...string) {
	t.Helper()
	reqs := []string{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"cwd":"` + dir + `","hasUI":true}}`}
	for i, c := range cmds {
		input, _ := json.Marshal(map[string]string{"command": c})
		reqs = append(reqs, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tool_call","params":{"toolCallId":"c%d","toolName":"bash","input":%s}}`, i+2, i+1, input))
	}
	answeringSession(t, []string{"serve", "--audit-log", auditLog}, reqs, choose)
}

func writeGlobal(t *testing.T, dir, text string) {
	t.Helper()
	global := filepath.Join(dir, "agent", "extensions", "pi-permission-system", "config.json")
	if err := os.MkdirAll(filepath.Dir(global), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(global, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// A call allowed by a session approval was an ask of the policy: decided
// again (without the session) it asks, which is no change. replay exits 0
// when nothing changes and 1 when a decision does (git diff --exit-code).
func TestReplaySessionApprovalIsNoChange(t *testing.T) {
	dir := isolatedHome(t)
	writeGlobal(t, dir, `{"permission": {"*": "ask", "bash": {"*": "ask", "ls": "allow"}}}`)
	auditLog := filepath.Join(dir, "audit.jsonl")
	bashSession(t, dir, auditLog, func(string) string { return "allow_session" }, "npm run build", "npm run build", "ls")
	if data, _ := os.ReadFile(auditLog); !strings.Contains(string(data), `"resolution":"session_approved"`) {
		t.Fatalf("no call was allowed by a session approval:\n%s", data)
	}
	var out bytes.Buffer
	if code := run([]string{"replay", auditLog}, nil, &out, &out); code != 0 || !strings.Contains(out.String(), "3 calls decided again, 0 would change") {
		t.Fatalf("replay with the same policy: exit %d\n%s", code, out.String())
	}
	writeGlobal(t, dir, `{"permission": {"*": "ask", "bash": {"*": "ask", "ls": "allow", "npm *": "deny"}}}`)
	out.Reset()
	if code := run([]string{"replay", auditLog}, nil, &out, &out); code != 1 || !strings.Contains(out.String(), "3 calls decided again, 2 would change") {
		t.Fatalf("replay with npm denied: exit %d, want 1\n%s", code, out.String())
	}
	if !strings.Contains(out.String(), "was ask (allowed by a session approval), now deny") {
		t.Errorf("the session-approved call is not shown as an ask of the policy:\n%s", out.String())
	}
}

// replay, suggest and test --from-audit read only an audit log whose chain
// holds: anything else exits 2 with a message that says what it is.
func TestAuditToolsRefuseWhatIsNotALog(t *testing.T) {
	dir := isolatedHome(t)
	writeGlobal(t, dir, `{"permission": {"*": "ask", "bash": {"*": "ask"}}}`)
	auditLog := filepath.Join(dir, "audit.jsonl")
	bashSession(t, dir, auditLog, func(string) string { return "allow_once" }, "make build", "make build")
	data, err := os.ReadFile(auditLog)
	if err != nil {
		t.Fatal(err)
	}
	notALog := filepath.Join(dir, "README.md")
	tampered := filepath.Join(dir, "tampered.jsonl")
	for path, text := range map[string]string{
		notALog:  "# notes\n\nnot a log\n",
		tampered: strings.Replace(string(data), "make build", "make clean", 1),
	} {
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ path, want string }{
		{notALog, "not an audit log"},
		{tampered, "chain is broken at line"},
		{dir, "not a regular file"},
		{filepath.Join(dir, "missing.jsonl"), "no such file"},
	} {
		for _, args := range [][]string{{"replay", c.path}, {"suggest", c.path}, {"test", "--from-audit", c.path}} {
			var out, errOut bytes.Buffer
			code := run(args, nil, &out, &errOut)
			if code != 2 || !strings.Contains(errOut.String(), c.want) || !strings.Contains(errOut.String(), c.path) {
				t.Errorf("%q: exit %d, stderr %q; want 2 and %q naming the file", args, code, errOut.String(), c.want)
			}
		}
	}
	for _, args := range [][]string{{"replay", auditLog}, {"suggest", auditLog}, {"test", "--from-audit", auditLog}} {
		var out, errOut bytes.Buffer
		if code := run(args, nil, &out, &errOut); code != 0 {
			t.Errorf("%q on the log itself: exit %d\n%s%s", args, code, out.String(), errOut.String())
		}
	}
}
