package hook

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/hook/hosts"
)

// copilotEventJSON is a Copilot CLI 1.0.102 preToolUse event as recorded,
// with the tool and arguments of a case (args: an object, or a string).
func (e *hookEnv) copilotEventJSON(tool string, args any) string {
	ev := map[string]any{"sessionId": "c1ae5ba5-e946-4698-b493-6e9417b3a650", "timestamp": 1796162185956,
		"cwd": e.proj, "toolName": tool, "toolArgs": args}
	return e.marshal(ev)
}

func TestCopilotHookDecisions(t *testing.T) {
	e := newHookEnv(t, hostsPolicy)
	e.writeProject("key.pem", "k")
	cases := []struct {
		tool     string
		args     any
		decision string
		reason   string
	}{
		{"bash", map[string]any{"command": "git status", "description": "d"}, "allow", ""},
		{"bash", `{"command":"git status","description":"d"}`, "allow", ""},
		{"bash", map[string]any{"command": "git status && rm -rf build"}, "deny", "rm -rf build"},
		{"bash", map[string]any{"command": "make"}, "ask", "toolgate explain --host copilot-cli"},
		{"view", map[string]any{"path": "a.txt"}, "allow", ""},
		{"view", map[string]any{"path": ".env"}, "deny", ".env"},
		{"grep", map[string]any{"pattern": "x", "paths": []any{"src", "."}, "glob": "*.pem"}, "deny", ""},
		{"glob", map[string]any{"pattern": "*.pem"}, "deny", ""},
		{"read_bash", map[string]any{"shellId": "1", "delay": 1}, "allow", ""},
		{"create", map[string]any{"path": "new.txt", "file_text": "x"}, "ask", ""},
	}
	for _, c := range cases {
		var out bytes.Buffer
		err := RunHook(e.opts, hosts.CopilotHook{Deadline: time.Minute}, strings.NewReader(e.copilotEventJSON(c.tool, c.args)), &out)
		if err != nil {
			t.Errorf("%s %v: %v", c.tool, c.args, err)
			continue
		}
		reply := copilotReply(t, out.Bytes())
		if reply["permissionDecision"] != c.decision || !strings.Contains(reply["permissionDecisionReason"], c.reason) {
			t.Errorf("%s %v: %v, want %s mentioning %q", c.tool, c.args, reply, c.decision, c.reason)
		}
		if c.decision != "allow" && reply["permissionDecisionReason"] == "" {
			t.Errorf("%s %v: a %s without a reason", c.tool, c.args, c.decision)
		}
	}
	recs := e.auditRecords()
	if len(recs) != len(cases)+1 { // the grep searches two paths
		t.Fatalf("%d decision records for %d calls", len(recs), len(cases))
	}
	for i, r := range recs {
		if r["host"] != HostCopilotCLI || r["sessionId"] != "c1ae5ba5-e946-4698-b493-6e9417b3a650" {
			t.Errorf("record %d: %v", i, r)
		}
	}
}

// copilotReply reads a copilot-hook answer: exactly one JSON object, with
// nothing before or after it (Copilot runs the tool on output it cannot
// parse).
func copilotReply(t *testing.T, out []byte) map[string]string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.DisallowUnknownFields()
	var reply struct {
		Decision string `json:"permissionDecision"`
		Reason   string `json:"permissionDecisionReason"`
	}
	if err := dec.Decode(&reply); err != nil {
		t.Fatalf("answer %q: %v", out, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		t.Fatalf("answer %q: more than one JSON value", out)
	}
	return map[string]string{"permissionDecision": reply.Decision, "permissionDecisionReason": reply.Reason}
}

// Every failure is a printed deny: a broken event, a host that never
// closes the event's stream (past the deadline).
func TestCopilotHookFailsClosed(t *testing.T) {
	e := newHookEnv(t, `{"permission": {"*": "allow", "bash": {"*": "allow"}}}`)
	for _, bad := range []string{``, `{`, `{"toolName":"bash","toolArgs":["ls"],"cwd":"/p"}`, `{"toolName":"","cwd":"/p"}`,
		`{"toolName":"bash","toolArgs":{"command":"ls"},"cwd":"relative"}`} {
		var out bytes.Buffer
		err := RunHook(e.opts, hosts.CopilotHook{Deadline: time.Minute}, strings.NewReader(bad), &out)
		if reply := copilotReply(t, out.Bytes()); err == nil || reply["permissionDecision"] != "deny" || !strings.Contains(reply["permissionDecisionReason"], "fail-closed") {
			t.Errorf("%q: %v (err %v), want a deny", bad, reply, err)
		}
	}
	r, w := io.Pipe()
	defer w.Close()
	var out bytes.Buffer
	err := RunHook(e.opts, hosts.CopilotHook{Deadline: 20 * time.Millisecond}, r, &out)
	if reply := copilotReply(t, out.Bytes()); err == nil || reply["permissionDecision"] != "deny" || !strings.Contains(reply["permissionDecisionReason"], "no decision within") {
		t.Errorf("a stream that never ends: %v (err %v), want a deny", reply, err)
	}
}
