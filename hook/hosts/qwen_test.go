package hosts

import (
	"encoding/json"
	"testing"
)

func TestQwenCallMapping(t *testing.T) {
	cases := []mappingCase{
		{"run_shell_command", `{"command":"ls","description":"d"}`, []Call{{Tool: "bash", Input: map[string]any{"command": "ls", "description": "d"}, Rewrite: true}}},
		{"run_shell_command", `{"command":"make","directory":"sub"}`, []Call{{Tool: "bash", Input: map[string]any{"command": "make", "directory": "sub"}, Workdir: "sub", Rewrite: true}}},
		{"read_file", `{"file_path":"/p/a","offset":1}`, []Call{{Tool: "read", Input: map[string]any{"path": "/p/a", "offset": json.Number("1")}}}},
		{"write_file", `{"file_path":"a","content":"x"}`, []Call{{Tool: "write", Input: map[string]any{"path": "a", "content": "x"}}}},
		{"edit", `{"file_path":"a","old_string":"x","new_string":"y"}`, []Call{{Tool: "edit", Input: map[string]any{"path": "a", "old_string": "x", "new_string": "y"}}}},
		{"notebook_edit", `{"notebook_path":"n.ipynb"}`, []Call{{Tool: "edit", Input: map[string]any{"path": "n.ipynb"}}}},
		{"grep_search", `{"pattern":"K","glob":"*.env","path":"src"}`, []Call{{Tool: "grep", Input: map[string]any{"pattern": "K", "glob": "*.env", "path": "src"}}}},
		{"glob", `{"pattern":"**/*.pem"}`, []Call{{Tool: "find", Input: map[string]any{"pattern": "**/*.pem"}}}},
		{"list_directory", `{"path":"/p"}`, []Call{{Tool: "ls", Input: map[string]any{"path": "/p"}}}},
		{"skill", `{"skill":"deploy","args":"x"}`, []Call{{Tool: "skill", Input: map[string]any{"name": "deploy", "args": "x"}}}},
		{"tool_call", `{"name":"web_fetch","arguments":{"url":"https://x.example/a","prompt":"p"}}`, []Call{{Tool: "web_fetch", Input: map[string]any{"url": "https://x.example/a", "prompt": "p"}}}},
		{"tool_call", `{"name":"run_shell_command","arguments":{"command":"rm -rf x"}}`, []Call{{Tool: "bash", Input: map[string]any{"command": "rm -rf x"}}}},
		{"monitor", `{"command":"tail -f log"}`, []Call{{Tool: "bash", Input: map[string]any{"command": "tail -f log"}}}},
		{"mcp__github__delete_repo", `{}`, []Call{{Tool: "mcp", Input: map[string]any{"tool": "github:delete_repo", "arguments": map[string]any{}}}}},
		{"todo_write", `{"todos":[]}`, []Call{{Tool: "todo_write", Input: map[string]any{"todos": []any{}}}}},
		{"exit_worktree", `{"name":"feat","action":"keep"}`, []Call{{Tool: "exit_worktree", Input: map[string]any{"name": "feat", "action": "keep"}}}},
		{"exit_worktree", `{"name":"feat","action":"remove","discard_changes":true}`, []Call{{Tool: "edit", Input: map[string]any{"path": ".qwen/worktrees/feat"}}}},
		{"exit_worktree", `{"name":"../../etc","action":"remove"}`, []Call{{Tool: "edit", Input: map[string]any{"path": ".qwen/worktrees/etc"}}}},
		{"artifact", `{"file_path":"report.md","title":"t"}`, []Call{
			{Tool: "artifact", Input: map[string]any{"file_path": "report.md", "title": "t"}},
			{Tool: "read", Input: map[string]any{"path": "report.md"}}}},
	}
	checkMapping(t, QwenCalls, cases)
	checkMappingErrors(t, QwenCalls, [][2]string{
		{"read_file", `{"file_path":"a","path":"b"}`},
		{"tool_call", `{"name":"tool_call","arguments":{"name":"run_shell_command","arguments":{"command":"ls"}}}`},
		{"tool_call", `{"arguments":{}}`},
		{"run_shell_command", `["ls"]`},
		{"", `{}`},
	})
}
