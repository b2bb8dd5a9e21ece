package hosts

import (
	"encoding/json"
	"reflect"
	"testing"
)

// Every Gemini CLI tool maps to a surface and a value a rule can match.
func TestGeminiCallMapping(t *testing.T) {
	type call struct {
		tool    string
		input   map[string]any
		workdir string
	}
	cases := []struct {
		name  string
		input string
		mcp   map[string]any
		want  []call
	}{
		{"run_shell_command", `{"command":"ls","description":"d"}`, nil, []call{{"bash", map[string]any{"command": "ls", "description": "d"}, ""}}},
		{"run_shell_command", `{"command":"ls","dir_path":"sub"}`, nil, []call{{"bash", map[string]any{"command": "ls", "dir_path": "sub"}, "sub"}}},
		{"read_file", `{"file_path":"/p/a"}`, nil, []call{{"read", map[string]any{"path": "/p/a"}, ""}}},
		{"write_file", `{"file_path":"a","content":"x"}`, nil, []call{{"write", map[string]any{"path": "a", "content": "x"}, ""}}},
		{"replace", `{"file_path":"a","old_string":"x","new_string":"y"}`, nil, []call{{"edit", map[string]any{"path": "a", "old_string": "x", "new_string": "y"}, ""}}},
		{"glob", `{"pattern":"**/*.pem","dir_path":"/p"}`, nil, []call{{"find", map[string]any{"pattern": "**/*.pem", "path": "/p"}, ""}}},
		{"grep_search", `{"pattern":"KEY","dir_path":"src","include_pattern":"*.env"}`, nil, []call{{"grep", map[string]any{"pattern": "KEY", "path": "src", "glob": "*.env"}, ""}}},
		{"search_file_content", `{"pattern":"KEY","include":"*.env"}`, nil, []call{{"grep", map[string]any{"pattern": "KEY", "glob": "*.env"}, ""}}},
		{"list_directory", `{"dir_path":"/p"}`, nil, []call{{"ls", map[string]any{"path": "/p"}, ""}}},
		{"read_many_files", `{"include":["a.txt","src/**/*.ts"]}`, nil, []call{{"read", map[string]any{"path": "a.txt"}, ""}, {"find", map[string]any{"pattern": "src/**/*.ts"}, ""}}},
		{"read_many_files", `{}`, nil, []call{{"read_many_files", map[string]any{}, ""}}},
		{"web_fetch", `{"prompt":"summarize https://a.example/x and HTTPS://B.example"}`, nil, []call{
			{"web_fetch", map[string]any{"prompt": "summarize https://a.example/x and HTTPS://B.example", "url": "https://a.example/x"}, ""},
			{"web_fetch", map[string]any{"prompt": "summarize https://a.example/x and HTTPS://B.example", "url": "HTTPS://B.example"}, ""},
			{"web_fetch", map[string]any{"prompt": "summarize https://a.example/x and HTTPS://B.example", "url": "https://b.example/"}, ""}}},
		{"web_fetch", `{"prompt":"no url"}`, nil, []call{{"web_fetch", map[string]any{"prompt": "no url", "url": "no url"}, ""}}},
		{"google_web_search", `{"query":"q"}`, nil, []call{{"google_web_search", map[string]any{"query": "q"}, ""}}},
		{"activate_skill", `{"name":"deploy"}`, nil, []call{{"skill", map[string]any{"name": "deploy"}, ""}}},
		{"mcp_github_delete_repo", `{"repo":"r"}`, nil, []call{{"mcp", map[string]any{"tool": "github:delete_repo", "arguments": map[string]any{"repo": "r"}}, ""}}},
		{"delete_repo", `{}`, map[string]any{"server_name": "git_hub", "tool_name": "delete_repo"}, []call{{"mcp", map[string]any{"tool": "git_hub:delete_repo", "arguments": map[string]any{}}, ""}}},
		{"write_todos", `{"todos":[]}`, nil, []call{{"write_todos", map[string]any{"todos": []any{}}, ""}}},
	}
	for _, c := range cases {
		ev := GeminiEvent{ToolName: c.name, ToolInput: json.RawMessage(c.input)}
		if c.mcp != nil {
			b, _ := json.Marshal(map[string]any{"mcp_context": c.mcp})
			if err := json.Unmarshal(b, &ev); err != nil {
				t.Fatal(err)
			}
		}
		calls, err := GeminiCalls(ev)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		var got []call
		for _, ec := range calls {
			got = append(got, call{ec.Tool, ec.Input, ec.Workdir})
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s %s:\n got %#v\nwant %#v", c.name, c.input, got, c.want)
		}
	}
	for _, bad := range []struct{ name, input string }{
		{"read_file", `{"file_path":"a","path":"b"}`},
		{"run_shell_command", `{"command":"ls","dir_path":3}`},
		{"read_many_files", `{"include":[3]}`},
		{"web_fetch", `{"prompt":true}`},
		{"", `{}`},
	} {
		if _, err := GeminiCalls(GeminiEvent{ToolName: bad.name, ToolInput: json.RawMessage(bad.input)}); err == nil {
			t.Errorf("%s %s: no error", bad.name, bad.input)
		}
	}
}

// A Gemini event is read as exactly as the other hosts' events: a key that
// only nearly names a field ("Tool_Name") is an error, not read as that
// field the way encoding/json would.
func TestGeminiEventKeysAreExact(t *testing.T) {
	for _, ev := range []string{
		`{"hook_event_name":"BeforeTool","cwd":"/w","Tool_Name":"run_shell_command","tool_input":{"command":"ls"}}`,
		`{"hook_event_name":"BeforeTool","cwd":"/w","tool_name":"read_file","TOOL_INPUT":{"absolute_path":"/etc/shadow"}}`,
	} {
		if _, err := (GeminiHook{}).Event([]byte(ev)); err == nil {
			t.Errorf("%s: read, want an error naming the key", ev)
		}
	}
	if _, err := (GeminiHook{}).Event([]byte(`{"hook_event_name":"BeforeTool","cwd":"/w","tool_name":"run_shell_command","tool_input":{"command":"ls"}}`)); err != nil {
		t.Errorf("a well-formed event: %v", err)
	}
}
