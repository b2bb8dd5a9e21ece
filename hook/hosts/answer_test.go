package hosts

import (
	"encoding/json"
	"testing"
)

// Each host's answer is one line of JSON in the host's own words; a
// confined command rewrites the input unless the call is denied, and an
// ask then tells the command as written.
func TestAnswers(t *testing.T) {
	in := map[string]any{"command": "make", "timeout": 5}
	const w = " (as written)"
	cases := []struct {
		name string
		got  []byte
		want string
	}{
		{"claude allow", ClaudeAnswer("allow", "", in, "", w),
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":""}}`},
		{"claude ask confined", ClaudeAnswer("ask", "r", in, "sb make", w),
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"r (as written)","updatedInput":{"command":"sb make","timeout":5}}}`},
		{"claude deny confined", ClaudeAnswer("deny", "r", in, "sb make", w),
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"r"}}`},
		{"gemini allow", GeminiAnswer("allow", "r", "", w), `{"decision":"allow"}`},
		{"gemini deny", GeminiAnswer("deny", "r", "sb make", w), `{"decision":"deny","reason":"r"}`},
		{"gemini allow confined", GeminiAnswer("allow", "", "sb make", w),
			`{"decision":"allow","hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":{"command":"sb make"}}}`},
		{"gemini ask confined", GeminiAnswer("ask", "r", "sb make", w),
			`{"decision":"ask","hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":{"command":"sb make"}},"reason":"r (as written)"}`},
		{"copilot allow", CopilotConfinedAnswer("allow", "", in, "", w), `{"permissionDecision":"allow"}`},
		{"copilot deny confined", CopilotConfinedAnswer("deny", "r", in, "sb make", w), `{"permissionDecision":"deny","permissionDecisionReason":"r"}`},
		{"copilot ask confined", CopilotConfinedAnswer("ask", "r", in, "sb make", w),
			`{"modifiedArgs":{"command":"sb make","timeout":5},"permissionDecision":"ask","permissionDecisionReason":"r (as written)"}`},
	}
	for _, c := range cases {
		if string(c.got) != c.want+"\n" {
			t.Errorf("%s:\n got %s\nwant %s", c.name, c.got, c.want)
		}
	}
	if in["command"] != "make" {
		t.Errorf("an answer changed the input it rewrote: %v", in)
	}
}

// Codex answers a PreToolUse allow only with a rewritten input (keeping
// its cmd field), a PermissionRequest with a behavior, and an ask not at all.
func TestCodexAnswer(t *testing.T) {
	ev := func(event, input string) CodexEvent {
		return CodexEvent{HookEventName: event, ToolName: "shell", ToolInput: json.RawMessage(input)}
	}
	cases := []struct {
		name           string
		ev             CodexEvent
		action, reason string
		confined       string
		want           string
	}{
		{"pre allow confined", ev("PreToolUse", `{"cmd":"make"}`), "allow", "", "sb make",
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"cmd":"sb make"}}}` + "\n"},
		{"pre allow", ev("PreToolUse", `{"command":"make"}`), "allow", "", "", ""},
		{"pre deny", ev("PreToolUse", `{}`), "deny", "r", "", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"r"}}` + "\n"},
		{"permission allow", ev("PermissionRequest", `{}`), "allow", "", "", `{"hookSpecificOutput":{"decision":{"behavior":"allow"},"hookEventName":"PermissionRequest"}}` + "\n"},
		{"permission deny", ev("PermissionRequest", `{}`), "deny", "r", "", `{"hookSpecificOutput":{"decision":{"behavior":"deny","message":"r"},"hookEventName":"PermissionRequest"}}` + "\n"},
		{"permission ask", ev("PermissionRequest", `{}`), "ask", "r", "", ""},
	}
	for _, c := range cases {
		got, err := CodexAnswer(c.ev, c.action, c.reason, c.confined)
		if err != nil || string(got) != c.want {
			t.Errorf("%s: got %q, %v; want %q", c.name, got, err, c.want)
		}
	}
	if _, err := CodexAnswer(ev("PreToolUse", `["make"]`), "allow", "", "sb make"); err == nil {
		t.Errorf("an allow to rewrite an input that is no object: no error")
	}
}
