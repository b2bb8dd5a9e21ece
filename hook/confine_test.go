package hook

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestHookRecordsUnconfined: with "sandbox": "on" a bash-surface call the
// host runs as it is (Claude Code's Monitor) is allowed and its decision
// record says unconfined; a Bash call, rewritten to run confined, is not
// marked.
func TestHookRecordsUnconfined(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", filepath.Join(t.TempDir(), "run"))
	e := newHookEnv(t, `{"sandbox": "on", "permission": {"*": "allow"}}`)
	s := New(e.opts)
	enforced := s.machine.get().ProtectedEnforced()
	for _, ev := range []map[string]any{
		{"hook_event_name": "PreToolUse", "tool_name": "Monitor", "tool_use_id": "m1", "tool_input": map[string]any{"command": "tail -f log"}},
		{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_use_id": "b1", "tool_input": map[string]any{"command": "ls"}},
	} {
		var out bytes.Buffer
		if err := ClaudeHook(e.opts, strings.NewReader(e.event(ev)), &out); err != nil {
			t.Fatal(err)
		}
		var answer struct {
			Out map[string]any `json:"hookSpecificOutput"`
		}
		if err := json.Unmarshal(out.Bytes(), &answer); err != nil {
			t.Fatalf("%v: %s", err, out.Bytes())
		}
		_, rewritten := answer.Out["updatedInput"]
		if want := ev["tool_name"] == "Bash" && enforced; rewritten != want {
			t.Errorf("%s: rewritten %v, want %v: %s", ev["tool_name"], rewritten, want, out.Bytes())
		}
	}
	marks := map[string]any{}
	for _, rec := range e.auditRecords() {
		marks[rec["toolCallId"].(string)] = rec["unconfined"]
	}
	if marks["m1"] != true {
		t.Errorf("the Monitor call is not recorded unconfined: %v", marks)
	}
	if want := any(nil); enforced && marks["b1"] != want {
		t.Errorf("the confined Bash call is recorded unconfined: %v", marks)
	} else if !enforced && marks["b1"] != true {
		t.Errorf("the Bash call on a machine that cannot confine is not recorded unconfined: %v", marks)
	}
}
