package hook

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/hook/hosts"
)

// codexEventJSON is a Codex 0.169.0 hook event as recorded (codex exec,
// PreToolUse), with the event, tool and input of a case.
func (e *hookEnv) codexEventJSON(event, tool string, input any) string {
	in, err := json.Marshal(input)
	if err != nil {
		e.t.Fatal(err)
	}
	ev := map[string]json.RawMessage{}
	recorded := `{"session_id":"01a2339b-3832-7a13-82a5-1d426899c093","turn_id":"01a2339b-3849-7cf0-8f44-f62495bded2d",` +
		`"transcript_path":"/home/u/.codex/sessions/rollout.jsonl","cwd":"/p","hook_event_name":"PreToolUse","model":"gpt-5.1-codex",` +
		`"permission_mode":"bypassPermissions","tool_name":"Bash","tool_input":{"command":"touch ran1.txt"},"tool_use_id":"call_1"}`
	if err := json.Unmarshal([]byte(recorded), &ev); err != nil {
		e.t.Fatal(err)
	}
	cwd, _ := json.Marshal(e.proj)
	ev["cwd"], ev["tool_input"] = cwd, in
	ev["hook_event_name"], _ = json.Marshal(event)
	ev["tool_name"], _ = json.Marshal(tool)
	if event == "PermissionRequest" {
		delete(ev, "tool_use_id") // not in Codex's PermissionRequest input
	}
	b, _ := json.Marshal(ev)
	return string(b)
}

// Codex's answers, for the recorded event shapes: deny in PreToolUse,
// allow as no answer, ask as a deny saying how to allow; PermissionRequest
// answers allow and deny and leaves an ask to the person. Every answer is
// exactly Codex's schema: one field more makes Codex run the tool.
func TestCodexHookDecisions(t *testing.T) {
	e := newHookEnv(t, `{"permission": {
  "*": "ask",
  "bash": {"*": "ask", "git status": "allow", "rm *": {"action": "deny", "reason": "no rm here"}},
  "read": {"*": "allow"},
  "write": {"*": "allow", "*.lock": "deny"},
  "edit": {"*": "allow", "vendor/*": "deny"},
  "mcp": {"*": "ask", "github:*": "allow", "github:delete_repo": "deny"}
}}`)
	patch := func(lines ...string) map[string]any {
		return map[string]any{"command": "*** Begin Patch\n" + strings.Join(lines, "\n") + "\n*** End Patch\n"}
	}
	cases := []struct {
		event, tool string
		input       map[string]any
		decision    string // "" = no answer
		reason      string
	}{
		{"PreToolUse", "Bash", map[string]any{"command": "git status"}, "", ""},
		{"PreToolUse", "Bash", map[string]any{"command": "git status && rm -rf build"}, "deny", "no rm here"},
		{"PreToolUse", "Bash", map[string]any{"command": "make"}, "deny", "toolgate explain --host codex"},
		{"PreToolUse", "apply_patch", patch("*** Add File: notes.txt", "+hi"), "", ""},
		{"PreToolUse", "apply_patch", patch("*** Add File: notes.txt", "+hi", "*** Delete File: vendor/lib.go"), "deny", "vendor/lib.go"},
		{"PreToolUse", "apply_patch", patch("*** Update File: main.go", "*** Move to: go.lock", "@@", "-a", "+b"), "deny", "go.lock"},
		{"PreToolUse", "mcp__github__list_issues", map[string]any{}, "", ""},
		{"PreToolUse", "mcp__github__delete_repo", map[string]any{}, "deny", "github:delete_repo"},
		{"PreToolUse", "update_plan", map[string]any{"plan": []any{}}, "", ""},
		{"PermissionRequest", "Bash", map[string]any{"command": "git status"}, "allow", ""},
		{"PermissionRequest", "Bash", map[string]any{"command": "rm -rf build"}, "deny", "no rm here"},
		{"PermissionRequest", "Bash", map[string]any{"command": "make"}, "", ""},
	}
	for _, c := range cases {
		var out bytes.Buffer
		if err := RunHook(e.opts, hosts.CodexHook{}, strings.NewReader(e.codexEventJSON(c.event, c.tool, c.input)), &out); err != nil {
			t.Errorf("%s %s %v: %v", c.event, c.tool, c.input, err)
			continue
		}
		if c.decision == "" {
			if out.Len() != 0 {
				t.Errorf("%s %s %v: answered %s, want no answer", c.event, c.tool, c.input, out.String())
			}
			continue
		}
		// The exact shape: every key Codex's schema has, none more.
		var reply map[string]map[string]any
		dec := json.NewDecoder(&out)
		dec.DisallowUnknownFields()
		if err := dec.Decode(&reply); err != nil || len(reply) != 1 || reply["hookSpecificOutput"] == nil {
			t.Errorf("%s %s: reply %q: %v", c.event, c.tool, out.String(), err)
			continue
		}
		h := reply["hookSpecificOutput"]
		var decision, reason string
		if c.event == "PreToolUse" {
			if len(h) != 3 || h["hookEventName"] != "PreToolUse" {
				t.Errorf("%s %s: %v", c.event, c.tool, h)
			}
			decision, _ = h["permissionDecision"].(string)
			reason, _ = h["permissionDecisionReason"].(string)
		} else {
			d, _ := h["decision"].(map[string]any)
			if len(h) != 2 || h["hookEventName"] != "PermissionRequest" || d == nil {
				t.Errorf("%s %s: %v", c.event, c.tool, h)
				continue
			}
			decision, _ = d["behavior"].(string)
			reason, _ = d["message"].(string)
			if wantKeys := map[string]int{"allow": 1, "deny": 2}[decision]; len(d) != wantKeys {
				t.Errorf("%s %s: decision %v", c.event, c.tool, d)
			}
		}
		if decision != c.decision || !strings.Contains(reason, c.reason) || (decision == "deny" && reason == "") {
			t.Errorf("%s %s %v: %s %q, want %s mentioning %q", c.event, c.tool, c.input, decision, reason, c.decision, c.reason)
		}
	}
	recs := e.auditRecords()
	// One record per engine call: the second patch is two, the third two.
	if len(recs) != len(cases)+2 {
		t.Fatalf("%d decision records for %d calls", len(recs), len(cases))
	}
	for i, r := range recs {
		if r["host"] != HostCodex {
			t.Errorf("record %d: host %v", i, r["host"])
		}
	}
	if r := recs[2]; r["action"] != "deny" || r["state"] != "ask" {
		t.Errorf("an ask in PreToolUse: action %v state %v, want deny and ask", r["action"], r["state"])
	}
	if r := recs[len(recs)-1]; r["action"] != "ask" || r["state"] != "ask" {
		t.Errorf("an ask in PermissionRequest: action %v state %v, want ask", r["action"], r["state"])
	}
}

// Events that do not gate anything get no answer; a broken event is an
// error (exit 2: a deny).
func TestCodexHookOtherEvents(t *testing.T) {
	e := newHookEnv(t, `{"permission": {"*": "deny"}}`)
	var out bytes.Buffer
	if err := RunHook(e.opts, hosts.CodexHook{}, strings.NewReader(`{"hook_event_name":"SessionStart","session_id":"s","cwd":"/p"}`), &out); err != nil || out.Len() != 0 {
		t.Errorf("SessionStart: %q %v", out.String(), err)
	}
	for _, bad := range []string{``, `{`, `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":["ls"]}`,
		`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"cwd":"relative"}`} {
		out.Reset()
		if err := RunHook(e.opts, hosts.CodexHook{}, strings.NewReader(bad), &out); err == nil || out.Len() != 0 {
			t.Errorf("%q: answered %q, err %v; want an error and no answer", bad, out.String(), err)
		}
	}
}

// The real-Codex shape of a patch through the shell: an allow of the
// apply_patch command does not let a patch change a denied file.
func TestCodexHookShellPatch(t *testing.T) {
	e := newHookEnv(t, `{"permission": {"*": "ask", "bash": {"*": "ask", "apply_patch": "allow"},
  "write": {"*": "allow"}, "edit": {"*": "allow", "vendor/*": "deny"}}}`)
	for _, c := range []struct{ file, decision string }{{"*** Add File: notes.txt\n+hi", ""}, {"*** Delete File: vendor/lib.go", "deny"}} {
		cmd := "apply_patch <<'EOF'\n*** Begin Patch\n" + c.file + "\n*** End Patch\nEOF"
		var out bytes.Buffer
		if err := RunHook(e.opts, hosts.CodexHook{}, strings.NewReader(e.codexEventJSON("PreToolUse", "Bash", map[string]any{"command": cmd})), &out); err != nil {
			t.Fatalf("%q: %v", cmd, err)
		}
		if c.decision == "" && out.Len() != 0 || c.decision != "" && !strings.Contains(out.String(), `"permissionDecision":"deny"`) {
			t.Errorf("%q: answered %q, want %q", cmd, out.String(), c.decision)
		}
	}
}
