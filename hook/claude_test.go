package hook

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/toolgate/toolgate/hook/hosts"
)

// hookEnv is a temporary home, project and policy for one adapter.
type hookEnv struct {
	t     *testing.T
	dir   string
	proj  string
	audit string
	opts  Options
}

func newHookEnv(t *testing.T, policy string) *hookEnv {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e := &hookEnv{t: t, dir: dir, proj: filepath.Join(dir, "proj"), audit: filepath.Join(dir, "audit.jsonl")}
	if err := os.MkdirAll(e.proj, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "policy.json")
	if err := os.WriteFile(cfg, []byte(policy), 0o600); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(dir, "home")
	e.opts = Options{Cwd: e.proj, ConfigFiles: []string{cfg}, AuditLog: e.audit, Home: home,
		AgentDir: filepath.Join(home, ".pi", "agent"), ConfigHome: filepath.Join(home, ".config"), Log: zerolog.Nop()}
	return e
}

func (e *hookEnv) event(fields map[string]any) string {
	base := map[string]any{"session_id": "s1", "cwd": e.proj}
	for k, v := range fields {
		base[k] = v
	}
	return e.marshal(base)
}

// marshal is v as JSON text, for an event.
func (e *hookEnv) marshal(v any) string {
	e.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}

// writeProject writes a file of the project.
func (e *hookEnv) writeProject(name, text string) {
	e.t.Helper()
	if err := os.WriteFile(filepath.Join(e.proj, name), []byte(text), 0o600); err != nil {
		e.t.Fatal(err)
	}
}

// preToolUse is the hookSpecificOutput of an answer to PreToolUse, the
// shape Claude Code reads and Qwen Code reads too.
type preToolUse struct {
	Event    string `json:"hookEventName"`
	Decision string `json:"permissionDecision"`
	Reason   string `json:"permissionDecisionReason"`
}

// readPreToolUse reads the answer out to a PreToolUse event; an answer
// that is not JSON is an error of the call named by label, and ok false.
func readPreToolUse(t *testing.T, label string, out []byte) (h preToolUse, ok bool) {
	t.Helper()
	var reply struct {
		H preToolUse `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(out, &reply); err != nil {
		t.Errorf("%s: reply %q: %v", label, out, err)
		return preToolUse{}, false
	}
	return reply.H, true
}

// checkPreToolUse wants the answer out to a PreToolUse event to be
// decision, with a reason that holds words, and a reason at all for
// anything but an allow.
func checkPreToolUse(t *testing.T, label string, out []byte, decision, words string) {
	t.Helper()
	h, ok := readPreToolUse(t, label, out)
	if !ok {
		return
	}
	if h.Event != "PreToolUse" || h.Decision != decision || !strings.Contains(h.Reason, words) {
		t.Errorf("%s: %+v, want %s mentioning %q", label, h, decision, words)
	}
	if decision != "allow" && h.Reason == "" {
		t.Errorf("%s: a %s without a reason", label, decision)
	}
}

// auditRecords reads the audit log's decision records.
func (e *hookEnv) auditRecords() []map[string]any {
	e.t.Helper()
	f, err := os.Open(e.audit)
	if err != nil {
		e.t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var rec map[string]any
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			e.t.Fatal(err)
		}
		if rec["event"] == "decision" {
			out = append(out, rec)
		}
	}
	return out
}

const hostsPolicy = `{"permission": {
  "*": "ask",
  "bash": {"*": "ask", "git status": "allow", "rm *": "deny"},
  "read": {"*": "allow", "*.env": "deny"},
  "grep": {"*": "allow"},
  "find": {"*": "allow"},
  "path": {"*.pem": "deny"},
  "WebFetch": {"*": "ask", "https://docs.example/*": "allow", "https://evil.example/*": "deny"},
  "web_fetch": {"*": "ask", "https://docs.example/*": "allow", "https://evil.example/*": "deny"},
  "WebSearch": {"*": "allow", "*password*": "deny"},
  "google_web_search": {"*": "allow", "*password*": "deny"},
  "mcp": {"*": "ask", "github:*": "allow", "github:delete_repo": "deny", "other:drop_db": "deny"},
  "skill": {"deploy": "deny"},
  "ExitPlanMode": "deny",
  "Monitor": {"*": "ask", "wss://evil.example/*": "deny"},
  "ReadMcpResourceTool": {"*": "ask", "vault:*": "deny"},
  "exit_plan_mode": "deny"
}}`

func TestClaudeHookDecisions(t *testing.T) {
	e := newHookEnv(t, hostsPolicy)
	e.writeProject("key.pem", "k")
	cases := []struct {
		tool     string
		input    map[string]any
		mode     string
		decision string // "" = no answer (Claude Code decides)
		reason   string
	}{
		{"Bash", map[string]any{"command": "git status"}, "default", "allow", ""},
		{"Bash", map[string]any{"command": "git status && rm -rf build"}, "default", "deny", "rm -rf build"},
		{"Bash", map[string]any{"command": "make"}, "default", "ask", "make"},
		{"Bash", map[string]any{"command": "make"}, "dontAsk", "deny", "dontAsk"},
		{"Bash", map[string]any{"command": "make"}, "bypassPermissions", "ask", "make"},
		{"Bash", map[string]any{"command": "rm -rf build"}, "bypassPermissions", "deny", "rm -rf build"},
		{"Bash", map[string]any{"command": "rm -rf build"}, "acceptEdits", "deny", "rm -rf build"},
		{"Bash", map[string]any{"command": "git status"}, "plan", "", ""},
		{"Bash", map[string]any{"command": "rm -rf build"}, "plan", "deny", "rm -rf build"},
		{"Read", map[string]any{"file_path": "a.txt"}, "default", "allow", ""},
		{"Read", map[string]any{"file_path": ".env"}, "default", "deny", ".env"},
		{"Grep", map[string]any{"pattern": "x", "glob": "*.pem"}, "default", "deny", ""},
		{"Glob", map[string]any{"pattern": "*.pem"}, "default", "deny", ""},
		{"Grep", map[string]any{"pattern": "x", "glob": "*.txt"}, "default", "allow", ""},
		{"WebFetch", map[string]any{"url": "https://docs.example/a", "prompt": "p"}, "default", "allow", ""},
		{"WebFetch", map[string]any{"url": "https://evil.example/x", "prompt": "p"}, "default", "deny", "https://evil.example/x"},
		{"WebFetch", map[string]any{"url": "https://other.example/", "prompt": "p"}, "default", "ask", ""},
		{"WebFetch", map[string]any{"url": "HTTPS://EVIL.Example", "prompt": "p"}, "default", "deny", "https://evil.example/"},
		{"WebSearch", map[string]any{"query": "weather"}, "default", "allow", ""},
		{"WebSearch", map[string]any{"query": "admin password list"}, "default", "deny", ""},
		{"mcp__github__list_issues", map[string]any{}, "default", "allow", ""},
		{"mcp__github__delete_repo", map[string]any{"repo": "r"}, "default", "deny", "github:delete_repo"},
		{"mcp__other__x", map[string]any{}, "default", "ask", ""},
		{"mcp__other__drop_db", map[string]any{}, "default", "deny", "other:drop_db"},
		{"Skill", map[string]any{"skill": "deploy"}, "default", "deny", "deploy"},
		// Built-in allows, and a policy that names the tool overrides them.
		{"TodoWrite", map[string]any{"todos": []any{}}, "default", "allow", ""},
		{"Task", map[string]any{"prompt": "p"}, "default", "allow", ""},
		{"Agent", map[string]any{"prompt": "p"}, "default", "allow", ""},
		{"BashOutput", map[string]any{"bash_id": "1"}, "default", "allow", ""},
		{"KillShell", map[string]any{"shell_id": "1"}, "default", "allow", ""},
		{"ExitPlanMode", map[string]any{"plan": "p"}, "default", "deny", ""},
		{"SlashCommand", map[string]any{"command": "/x"}, "default", "ask", ""},
		{"ReadMcpResourceTool", map[string]any{"server": "vault", "uri": "secret://db"}, "default", "deny", "vault:secret://db"},
		{"ReadMcpResourceTool", map[string]any{"server": "docs", "uri": "file:///readme"}, "default", "ask", ""},
		{"Monitor", map[string]any{"command": "rm -rf build", "description": "d"}, "default", "deny", "rm -rf build"},
		{"Monitor", map[string]any{"ws": map[string]any{"url": "wss://evil.example/s"}}, "default", "deny", "wss://evil.example/s"},
	}
	for _, c := range cases {
		var out bytes.Buffer
		ev := e.event(map[string]any{"hook_event_name": "PreToolUse", "tool_name": c.tool, "tool_input": c.input,
			"permission_mode": c.mode, "tool_use_id": "toolu_1"})
		if err := RunHook(e.opts, hosts.ClaudeHook{}, strings.NewReader(ev), &out); err != nil {
			t.Errorf("%s %v: %v", c.tool, c.input, err)
			continue
		}
		if c.decision == "" {
			if out.Len() != 0 {
				t.Errorf("%s %v (%s): answered %s, want no answer", c.tool, c.input, c.mode, out.String())
			}
			continue
		}
		checkPreToolUse(t, fmt.Sprintf("%s %v (%s)", c.tool, c.input, c.mode), out.Bytes(), c.decision, c.reason)
	}
	recs := e.auditRecords()
	// One record per engine call: the uppercase URL is decided in both
	// of its forms.
	if len(recs) != len(cases)+1 {
		t.Fatalf("%d decision records for %d calls", len(recs), len(cases))
	}
	for i, r := range recs {
		if r["host"] != HostClaudeCode || r["sessionId"] != "s1" || r["toolCallId"] != "toolu_1" {
			t.Errorf("record %d: %v", i, r)
		}
	}
	if got := recs[3]["action"]; got != "deny" || recs[3]["state"] != "ask" {
		t.Errorf("dontAsk record: action %v state %v, want deny and ask", got, recs[3]["state"])
	}
}

// A broken policy file clamps every allow to ask, the built-in allows too.
func TestClaudeHookBuiltinAllowClamped(t *testing.T) {
	e := newHookEnv(t, `{"permission": {"bash": {"*": "allow"}, "bogus": }}`)
	var out bytes.Buffer
	ev := e.event(map[string]any{"hook_event_name": "PreToolUse", "tool_name": "TodoWrite", "tool_input": map[string]any{}})
	if err := RunHook(e.opts, hosts.ClaudeHook{}, strings.NewReader(ev), &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"permissionDecision":"ask"`) {
		t.Fatalf("TodoWrite with a broken policy: %s", out.String())
	}
}

// Writes to toolgate's own files and to the settings that run the hook
// are asked, whatever the policy says.
func TestClaudeHookProtectsItsSettings(t *testing.T) {
	e := newHookEnv(t, `{"permission": {"*": "allow", "bash": {"*": "allow"}, "write": {"*": "allow"}, "edit": {"*": "allow"}}}`)
	for _, c := range []struct{ tool, path string }{
		{"Write", ".claude/settings.json"},
		{"Edit", ".toolgate/config.json"},
		{"Write", filepath.Join(e.opts.Home, ".claude", "settings.json")},
		{"Write", filepath.Join(e.opts.ConfigHome, "toolgate", "config.json")},
	} {
		var out bytes.Buffer
		ev := e.event(map[string]any{"hook_event_name": "PreToolUse", "tool_name": c.tool, "tool_input": map[string]any{"file_path": c.path}})
		if err := RunHook(e.opts, hosts.ClaudeHook{}, strings.NewReader(ev), &out); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), `"permissionDecision":"ask"`) {
			t.Errorf("%s %s: %s", c.tool, c.path, out.String())
		}
	}
	var out bytes.Buffer
	ev := e.event(map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Write", "tool_input": map[string]any{"file_path": "notes.txt"}})
	if err := RunHook(e.opts, hosts.ClaudeHook{}, strings.NewReader(ev), &out); err != nil || !strings.Contains(out.String(), `"allow"`) {
		t.Errorf("an ordinary write: %s %v", out.String(), err)
	}
}
