package hook

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/hook/hosts"
)

// qwenEventJSON is a Qwen Code 0.24.4 PreToolUse event as recorded
// (qwen -p --yolo), with the tool and input of a case.
func (e *hookEnv) qwenEventJSON(tool string, input any, mode string) string {
	ev := map[string]any{"session_id": "0b365176-79cb-4d65-ae08-8fcd25e979d9",
		"transcript_path": "/home/u/.qwen/projects/p/chats/0b365176.jsonl", "cwd": e.proj, "hook_event_name": "PreToolUse",
		"timestamp": "2026-12-01T21:57:34.453Z", "permission_mode": mode, "prompt_id": "0b365176########0",
		"tool_name": tool, "tool_input": input, "tool_use_id": "toolu_1796162254453_0edv0s109", "tool_call_id": "call_1"}
	return e.marshal(ev)
}

func TestQwenHookDecisions(t *testing.T) {
	e := newHookEnv(t, hostsPolicy)
	e.writeProject("key.pem", "k")
	cases := []struct {
		tool     string
		input    map[string]any
		mode     string
		decision string
		reason   string
	}{
		{"run_shell_command", map[string]any{"command": "git status", "description": "d"}, "yolo", "allow", ""},
		{"run_shell_command", map[string]any{"command": "git status && rm -rf build"}, "yolo", "deny", "rm -rf build"},
		{"run_shell_command", map[string]any{"command": "make"}, "yolo", "ask", "toolgate explain --host qwen-code"},
		{"run_shell_command", map[string]any{"command": "make"}, "default", "ask", "make"},
		{"read_file", map[string]any{"file_path": ".env"}, "auto-edit", "deny", ".env"},
		{"glob", map[string]any{"pattern": "*.pem"}, "default", "deny", ""},
		{"tool_call", map[string]any{"name": "run_shell_command", "arguments": map[string]any{"command": "rm -rf /"}}, "yolo", "deny", "rm -rf /"},
		{"todo_write", map[string]any{"todos": []any{}}, "default", "allow", ""},
		{"mcp__github__delete_repo", map[string]any{}, "yolo", "deny", "github:delete_repo"},
	}
	for _, c := range cases {
		var out bytes.Buffer
		if err := RunHook(e.opts, hosts.QwenHook{}, strings.NewReader(e.qwenEventJSON(c.tool, c.input, c.mode)), &out); err != nil {
			t.Errorf("%s %v: %v", c.tool, c.input, err)
			continue
		}
		checkPreToolUse(t, fmt.Sprintf("%s %v (%s)", c.tool, c.input, c.mode), out.Bytes(), c.decision, c.reason)
	}
	var out bytes.Buffer
	if err := RunHook(e.opts, hosts.QwenHook{NoAsk: true}, strings.NewReader(e.qwenEventJSON("run_shell_command", map[string]any{"command": "make"}, "default")), &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"permissionDecision":"deny"`) || !strings.Contains(out.String(), "--no-ask") {
		t.Errorf("an ask with --no-ask: %s, want a deny saying so", out.String())
	}
	recs := e.auditRecords()
	if len(recs) != len(cases)+1 {
		t.Fatalf("%d decision records for %d calls", len(recs), len(cases))
	}
	for i, r := range recs {
		if r["host"] != HostQwenCode || r["toolCallId"] != "toolu_1796162254453_0edv0s109" {
			t.Errorf("record %d: %v", i, r)
		}
	}
}
