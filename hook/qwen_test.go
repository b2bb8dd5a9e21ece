package hook

import (
	"github.com/toolgate/toolgate/hook/hosts"

	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// qwenEventJSON is a Qwen Code 0.24.4 PreToolUse event as recorded
// (qwen -p --yolo), with the tool and input of a case.
func (e *hookEnv) qwenEventJSON(tool string, input any, mode string) string {
	ev := map[string]any{"session_id": "0b365176-79cb-4d65-ae08-8fcd25e979d9",
		"transcript_path": "/home/u/.qwen/projects/p/chats/0b365176.jsonl", "cwd": e.proj, "hook_event_name": "PreToolUse",
		"timestamp": "2026-12-01T21:57:34.453Z", "permission_mode": mode, "prompt_id": "0b365176########0",
		"tool_name": tool, "tool_input": input, "tool_use_id": "toolu_1796162254453_0edv0s109", "tool_call_id": "call_1"}
	b, err := json.Marshal(ev)
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}

func TestQwenCallMapping(t *testing.T) {
	cases := []struct {
		name, input string
		want        []hosts.Call
	}{
		{"run_shell_command", `{"command":"ls","description":"d"}`, []hosts.Call{{Tool: "bash", Input: map[string]any{"command": "ls", "description": "d"}, Rewrite: true}}},
		{"run_shell_command", `{"command":"make","directory":"sub"}`, []hosts.Call{{Tool: "bash", Input: map[string]any{"command": "make", "directory": "sub"}, Workdir: "sub", Rewrite: true}}},
		{"read_file", `{"file_path":"/p/a","offset":1}`, []hosts.Call{{Tool: "read", Input: map[string]any{"path": "/p/a", "offset": json.Number("1")}}}},
		{"write_file", `{"file_path":"a","content":"x"}`, []hosts.Call{{Tool: "write", Input: map[string]any{"path": "a", "content": "x"}}}},
		{"edit", `{"file_path":"a","old_string":"x","new_string":"y"}`, []hosts.Call{{Tool: "edit", Input: map[string]any{"path": "a", "old_string": "x", "new_string": "y"}}}},
		{"notebook_edit", `{"notebook_path":"n.ipynb"}`, []hosts.Call{{Tool: "edit", Input: map[string]any{"path": "n.ipynb"}}}},
		{"grep_search", `{"pattern":"K","glob":"*.env","path":"src"}`, []hosts.Call{{Tool: "grep", Input: map[string]any{"pattern": "K", "glob": "*.env", "path": "src"}}}},
		{"glob", `{"pattern":"**/*.pem"}`, []hosts.Call{{Tool: "find", Input: map[string]any{"pattern": "**/*.pem"}}}},
		{"list_directory", `{"path":"/p"}`, []hosts.Call{{Tool: "ls", Input: map[string]any{"path": "/p"}}}},
		{"skill", `{"skill":"deploy","args":"x"}`, []hosts.Call{{Tool: "skill", Input: map[string]any{"name": "deploy", "args": "x"}}}},
		{"tool_call", `{"name":"web_fetch","arguments":{"url":"https://x.example/a","prompt":"p"}}`, []hosts.Call{{Tool: "web_fetch", Input: map[string]any{"url": "https://x.example/a", "prompt": "p"}}}},
		{"tool_call", `{"name":"run_shell_command","arguments":{"command":"rm -rf x"}}`, []hosts.Call{{Tool: "bash", Input: map[string]any{"command": "rm -rf x"}}}},
		{"monitor", `{"command":"tail -f log"}`, []hosts.Call{{Tool: "bash", Input: map[string]any{"command": "tail -f log"}}}},
		{"mcp__github__delete_repo", `{}`, []hosts.Call{{Tool: "mcp", Input: map[string]any{"tool": "github:delete_repo", "arguments": map[string]any{}}}}},
		{"todo_write", `{"todos":[]}`, []hosts.Call{{Tool: "todo_write", Input: map[string]any{"todos": []any{}}}}},
		{"exit_worktree", `{"name":"feat","action":"keep"}`, []hosts.Call{{Tool: "exit_worktree", Input: map[string]any{"name": "feat", "action": "keep"}}}},
		{"exit_worktree", `{"name":"feat","action":"remove","discard_changes":true}`, []hosts.Call{{Tool: "edit", Input: map[string]any{"path": ".qwen/worktrees/feat"}}}},
		{"exit_worktree", `{"name":"../../etc","action":"remove"}`, []hosts.Call{{Tool: "edit", Input: map[string]any{"path": ".qwen/worktrees/etc"}}}},
		{"artifact", `{"file_path":"report.md","title":"t"}`, []hosts.Call{
			{Tool: "artifact", Input: map[string]any{"file_path": "report.md", "title": "t"}},
			{Tool: "read", Input: map[string]any{"path": "report.md"}}}},
	}
	for _, c := range cases {
		got, err := qwenCalls(c.name, json.RawMessage(c.input))
		if err != nil {
			t.Errorf("%s %s: %v", c.name, c.input, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s %s:\n got %#v\nwant %#v", c.name, c.input, got, c.want)
		}
	}
	for _, bad := range []struct{ name, input string }{
		{"read_file", `{"file_path":"a","path":"b"}`},
		{"tool_call", `{"name":"tool_call","arguments":{"name":"run_shell_command","arguments":{"command":"ls"}}}`},
		{"tool_call", `{"arguments":{}}`},
		{"run_shell_command", `["ls"]`},
		{"", `{}`},
	} {
		if _, err := qwenCalls(bad.name, json.RawMessage(bad.input)); err == nil {
			t.Errorf("%s %s: no error", bad.name, bad.input)
		}
	}
}

func TestQwenHookDecisions(t *testing.T) {
	e := newHookEnv(t, hostsPolicy)
	if err := os.WriteFile(filepath.Join(e.proj, "key.pem"), []byte("k"), 0o600); err != nil {
		t.Fatal(err)
	}
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
		if err := QwenHook(e.opts, QwenOptions{}, strings.NewReader(e.qwenEventJSON(c.tool, c.input, c.mode)), &out); err != nil {
			t.Errorf("%s %v: %v", c.tool, c.input, err)
			continue
		}
		var reply struct {
			H struct {
				Event    string `json:"hookEventName"`
				Decision string `json:"permissionDecision"`
				Reason   string `json:"permissionDecisionReason"`
			} `json:"hookSpecificOutput"`
		}
		if err := json.Unmarshal(out.Bytes(), &reply); err != nil {
			t.Errorf("%s: reply %q: %v", c.tool, out.String(), err)
			continue
		}
		if reply.H.Event != "PreToolUse" || reply.H.Decision != c.decision || !strings.Contains(reply.H.Reason, c.reason) {
			t.Errorf("%s %v (%s): %+v, want %s mentioning %q", c.tool, c.input, c.mode, reply.H, c.decision, c.reason)
		}
		if c.decision != "allow" && reply.H.Reason == "" {
			t.Errorf("%s %v: a %s without a reason", c.tool, c.input, c.decision)
		}
	}
	var out bytes.Buffer
	if err := QwenHook(e.opts, QwenOptions{NoAsk: true}, strings.NewReader(e.qwenEventJSON("run_shell_command", map[string]any{"command": "make"}, "default")), &out); err != nil {
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
