package hosts

import (
	"encoding/json"
	"testing"
)

func TestCopilotCallMapping(t *testing.T) {
	cases := []mappingCase{
		{"bash", `{"command":"ls","description":"d"}`, []Call{{Tool: "bash", Input: map[string]any{"command": "ls", "description": "d"}, Rewrite: true}}},
		// toolArgs as a JSON string holding the object.
		{"bash", `"{\"command\":\"ls\",\"description\":\"d\"}"`, []Call{{Tool: "bash", Input: map[string]any{"command": "ls", "description": "d"}, Rewrite: true}}},
		{"view", `{"path":"/p/a","view_range":[1,2]}`, []Call{{Tool: "read", Input: map[string]any{"path": "/p/a", "view_range": []any{json.Number("1"), json.Number("2")}}}}},
		{"create", `{"path":"n.txt","file_text":"x"}`, []Call{{Tool: "write", Input: map[string]any{"path": "n.txt", "file_text": "x"}}}},
		{"edit", `{"path":"a","old_str":"x","new_str":"y"}`, []Call{{Tool: "edit", Input: map[string]any{"path": "a", "old_str": "x", "new_str": "y"}}}},
		{"grep", `{"pattern":"KEY","paths":["src","/etc"],"glob":"*.env"}`, []Call{
			{Tool: "grep", Input: map[string]any{"pattern": "KEY", "path": "src", "glob": "*.env"}},
			{Tool: "grep", Input: map[string]any{"pattern": "KEY", "path": "/etc", "glob": "*.env"}}}},
		{"grep", `{"pattern":"KEY"}`, []Call{{Tool: "grep", Input: map[string]any{"pattern": "KEY"}}}},
		{"glob", `{"pattern":"**/*.pem","paths":["/p"]}`, []Call{{Tool: "find", Input: map[string]any{"pattern": "**/*.pem", "path": "/p"}}}},
		{"skill", `{"skill":"deploy"}`, []Call{{Tool: "skill", Input: map[string]any{"name": "deploy"}}}},
		{"web_fetch", `{"url":"HTTPS://X.example"}`, []Call{
			{Tool: "web_fetch", Input: map[string]any{"url": "HTTPS://X.example"}},
			{Tool: "web_fetch", Input: map[string]any{"url": "https://x.example/"}}}},
		{"task", `{"name":"n","prompt":"p"}`, []Call{{Tool: "task", Input: map[string]any{"name": "n", "prompt": "p"}}}},
	}
	checkMapping(t, CopilotCalls, cases)
	checkMappingErrors(t, CopilotCalls, [][2]string{
		{"bash", `"{\"command\":\"ls\",\"command\":\"rm x\"}"`}, // a string that reads two ways
		{"bash", `"not json"`},
		{"bash", `["ls"]`},
		{"grep", `{"pattern":"x","paths":[1]}`},
		{"skill", `{"skill":"a","name":"b"}`},
		{"", `{}`},
	})
}
