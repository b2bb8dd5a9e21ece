package hook

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/hook/hosts"
)

func TestGeminiHookDecisions(t *testing.T) {
	e := newHookEnv(t, hostsPolicy)
	// The globs select files that exist: one a path rule denies.
	e.writeProject("key.pem", "k")
	cases := []struct {
		tool     string
		input    map[string]any
		ask      bool
		decision string
		reason   string
	}{
		{"run_shell_command", map[string]any{"command": "git status"}, false, "allow", ""},
		{"run_shell_command", map[string]any{"command": "git status; rm -rf build"}, false, "deny", "rm -rf build"},
		{"run_shell_command", map[string]any{"command": "make"}, false, "deny", "cannot show the question"},
		{"run_shell_command", map[string]any{"command": "make"}, true, "ask", "make"},
		{"run_shell_command", map[string]any{"command": "cat key", "dir_path": "/etc"}, false, "deny", "cannot show"},
		{"read_file", map[string]any{"file_path": "a.txt"}, false, "allow", ""},
		{"read_file", map[string]any{"file_path": ".env"}, false, "deny", ".env"},
		{"read_many_files", map[string]any{"include": []any{"a.txt", "b/.env"}}, false, "deny", ".env"},
		{"read_many_files", map[string]any{"include": []any{"a.txt", "**/*.pem"}}, false, "deny", ""},
		{"glob", map[string]any{"pattern": "*.pem"}, false, "deny", ""},
		{"grep_search", map[string]any{"pattern": "x", "include_pattern": "*.pem"}, false, "deny", ""},
		{"web_fetch", map[string]any{"prompt": "read https://docs.example/a"}, false, "allow", ""},
		{"web_fetch", map[string]any{"prompt": "read https://docs.example/a and https://evil.example/b"}, false, "deny", "https://evil.example/b"},
		{"web_fetch", map[string]any{"prompt": "read HTTPS://EVIL.example/b"}, false, "deny", "evil.example/b"},
		{"google_web_search", map[string]any{"query": "password dump"}, false, "deny", ""},
		{"google_web_search", map[string]any{"query": "weather"}, false, "allow", ""},
		{"mcp_github_list", map[string]any{}, false, "allow", ""},
		{"mcp_github_delete_repo", map[string]any{}, false, "deny", "github:delete_repo"},
		{"mcp_other_drop_db", map[string]any{}, false, "deny", "other:drop_db"},
		{"activate_skill", map[string]any{"name": "deploy"}, false, "deny", "deploy"},
		{"write_todos", map[string]any{"todos": []any{}}, false, "allow", ""},
		{"invoke_agent", map[string]any{}, false, "allow", ""},
		{"exit_plan_mode", map[string]any{}, false, "deny", ""},
	}
	for _, c := range cases {
		var out bytes.Buffer
		ev := e.event(map[string]any{"hook_event_name": "BeforeTool", "tool_name": c.tool, "tool_input": c.input})
		if err := RunHook(e.opts, hosts.GeminiHook{Ask: c.ask}, strings.NewReader(ev), &out); err != nil {
			t.Errorf("%s %v: %v", c.tool, c.input, err)
			continue
		}
		var reply map[string]string
		if err := json.Unmarshal(out.Bytes(), &reply); err != nil {
			t.Errorf("%s: reply %q: %v", c.tool, out.String(), err)
			continue
		}
		if reply["decision"] != c.decision || !strings.Contains(reply["reason"], c.reason) {
			t.Errorf("%s %v: %v, want %s mentioning %q", c.tool, c.input, reply, c.decision, c.reason)
		}
		if c.decision != "allow" && reply["reason"] == "" {
			t.Errorf("%s %v: a %s without a reason", c.tool, c.input, c.decision)
		}
	}
	for i, r := range e.auditRecords() {
		if r["host"] != HostGeminiCLI || r["sessionId"] != "s1" {
			t.Errorf("record %d: %v", i, r)
		}
	}
	// Other events gate nothing; an unreadable one is an error (exit 2).
	var out bytes.Buffer
	if err := RunHook(e.opts, hosts.GeminiHook{}, strings.NewReader(e.event(map[string]any{"hook_event_name": "AfterTool", "tool_name": "x"})), &out); err != nil || out.Len() != 0 {
		t.Errorf("AfterTool: %q %v", out.String(), err)
	}
	for _, bad := range []string{`not json`, `{"hook_event_name":"BeforeTool","tool_name":"read_file","tool_input":{"file_path":"a","File_path":"b"}}`,
		`{"hook_event_name":"BeforeTool","cwd":"rel","tool_name":"read_file","tool_input":{}}`} {
		if err := RunHook(e.opts, hosts.GeminiHook{}, strings.NewReader(bad), &out); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// Writes to toolgate's own files and to the settings and policies that run
// the hook are asked (so blocked, headless), whatever the policy says.
func TestGeminiHookProtectsItsSettings(t *testing.T) {
	e := newHookEnv(t, `{"permission": {"*": "allow", "bash": {"*": "allow"}, "write": {"*": "allow"}, "edit": {"*": "allow"}}}`)
	for _, c := range []struct{ tool, path string }{
		{"write_file", ".gemini/settings.json"},
		{"replace", ".gemini/policies/allow.toml"},
		{"write_file", ".toolgate/config.json"},
		{"write_file", filepath.Join(e.opts.Home, ".gemini", "settings.json")},
		{"write_file", filepath.Join(e.opts.Home, ".gemini", "policies", "p.toml")},
	} {
		var out bytes.Buffer
		ev := e.event(map[string]any{"hook_event_name": "BeforeTool", "tool_name": c.tool, "tool_input": map[string]any{"file_path": c.path, "content": "x"}})
		if err := RunHook(e.opts, hosts.GeminiHook{Ask: true}, strings.NewReader(ev), &out); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), `"decision":"ask"`) {
			t.Errorf("%s %s: %s", c.tool, c.path, out.String())
		}
	}
	var out bytes.Buffer
	ev := e.event(map[string]any{"hook_event_name": "BeforeTool", "tool_name": "run_shell_command", "tool_input": map[string]any{"command": "echo x > .gemini/settings.json"}})
	if err := RunHook(e.opts, hosts.GeminiHook{}, strings.NewReader(ev), &out); err != nil || !strings.Contains(out.String(), `"decision":"deny"`) {
		t.Errorf("a shell write to the settings: %s %v", out.String(), err)
	}
}
