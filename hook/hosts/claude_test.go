package hosts

import (
	"encoding/json"
	"reflect"
	"testing"
)

// Every Claude Code tool maps to a surface and a value a rule can match.
func TestClaudeCallMapping(t *testing.T) {
	cases := []struct {
		name  string
		input string
		tool  string
		want  map[string]any
	}{
		{"Bash", `{"command":"ls","description":"d"}`, "bash", map[string]any{"command": "ls", "description": "d"}},
		{"Read", `{"file_path":"/p/a","offset":1}`, "read", map[string]any{"path": "/p/a", "offset": json.Number("1")}},
		{"Write", `{"file_path":"/p/a","content":"x"}`, "write", map[string]any{"path": "/p/a", "content": "x"}},
		{"Edit", `{"file_path":"a","old_string":"x","new_string":"y"}`, "edit", map[string]any{"path": "a", "old_string": "x", "new_string": "y"}},
		{"MultiEdit", `{"file_path":"a","edits":[]}`, "edit", map[string]any{"path": "a", "edits": []any{}}},
		{"NotebookEdit", `{"notebook_path":"n.ipynb","new_source":"x"}`, "edit", map[string]any{"path": "n.ipynb", "new_source": "x"}},
		{"Grep", `{"pattern":"KEY","path":"src","glob":"*.env"}`, "grep", map[string]any{"pattern": "KEY", "path": "src", "glob": "*.env"}},
		{"Glob", `{"pattern":"**/*.pem","path":"/p"}`, "find", map[string]any{"pattern": "**/*.pem", "path": "/p"}},
		{"LS", `{"path":"/p"}`, "ls", map[string]any{"path": "/p"}},
		{"Skill", `{"skill":"deploy"}`, "skill", map[string]any{"name": "deploy"}},
		{"WebFetch", `{"url":"https://x.example/a","prompt":"p"}`, "WebFetch", map[string]any{"url": "https://x.example/a", "prompt": "p"}},
		{"WebSearch", `{"query":"q"}`, "WebSearch", map[string]any{"query": "q"}},
		{"TodoWrite", `{"todos":[]}`, "TodoWrite", map[string]any{"todos": []any{}}},
		{"Monitor", `{"command":"tail -f log","description":"d","timeout_ms":1}`, "bash", map[string]any{"command": "tail -f log", "description": "d", "timeout_ms": json.Number("1")}},
		{"Monitor", `{"ws":{"url":"wss://x.example"},"description":"d"}`, "Monitor", map[string]any{"ws": map[string]any{"url": "wss://x.example"}, "description": "d"}},
		{"mcp__github__delete_repo", `{"repo":"r"}`, "mcp", map[string]any{"tool": "github:delete_repo", "arguments": map[string]any{"repo": "r"}}},
		{"mcp__srv", `{}`, "mcp", map[string]any{"tool": "srv", "arguments": map[string]any{}}},
		{"SomethingNew", ``, "SomethingNew", map[string]any{}},
	}
	for _, c := range cases {
		ec, err := claudeCall(c.name, json.RawMessage(c.input))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if ec.Tool != c.tool || !reflect.DeepEqual(ec.Input, c.want) {
			t.Errorf("%s %s: got %s %#v, want %s %#v", c.name, c.input, ec.Tool, ec.Input, c.tool, c.want)
		}
	}
	for _, bad := range []struct{ name, input string }{
		{"Read", `{"file_path":"a","path":"b"}`},
		{"Skill", `{"skill":"a","name":"b"}`},
		{"Bash", `["ls"]`},
		{"", `{}`},
	} {
		if _, err := claudeCall(bad.name, json.RawMessage(bad.input)); err == nil {
			t.Errorf("%s %s: no error", bad.name, bad.input)
		}
	}
}

// A PowerShell call without code is an error: nothing to decide.
func TestClaudeForeignWithoutCode(t *testing.T) {
	if _, err := claudeCall("PowerShell", json.RawMessage(`{"command":"  "}`)); err == nil {
		t.Errorf("a PowerShell call without code: no error")
	}
}
