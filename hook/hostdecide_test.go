package hook

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/hook/hosts"
)

// While a policy file is broken, every host's answer to a call that is
// not allowed names the file (it could have decided the call).
func TestHostAnswersNameABrokenPolicyFile(t *testing.T) {
	e := newHookEnv(t, `{"permission": {"bash": {"*": "allow", "rm *": "deny"}, "bogus": }}`)
	broken := filepath.Join(e.dir, "policy.json")
	cmd := map[string]any{"command": "rm -rf build"}
	hosts := []struct {
		name string
		run  func(out *bytes.Buffer) error
	}{
		{HostClaudeCode, func(out *bytes.Buffer) error {
			return RunHook(e.opts, hosts.ClaudeHook{}, strings.NewReader(e.event(map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Bash",
				"tool_input": cmd, "permission_mode": "default"})), out)
		}},
		{HostGeminiCLI, func(out *bytes.Buffer) error {
			return RunHook(e.opts, hosts.GeminiHook{}, strings.NewReader(e.event(map[string]any{"hook_event_name": "BeforeTool",
				"tool_name": "run_shell_command", "tool_input": cmd})), out)
		}},
		{HostCodex, func(out *bytes.Buffer) error {
			return RunHook(e.opts, hosts.CodexHook{}, strings.NewReader(e.codexEventJSON("PreToolUse", "Bash", cmd)), out)
		}},
		{HostCopilotCLI, func(out *bytes.Buffer) error {
			return RunHook(e.opts, hosts.CopilotHook{Deadline: time.Minute}, strings.NewReader(e.copilotEventJSON("bash", cmd)), out)
		}},
		{HostQwenCode, func(out *bytes.Buffer) error {
			return RunHook(e.opts, hosts.QwenHook{}, strings.NewReader(e.qwenEventJSON("run_shell_command", cmd, "yolo")), out)
		}},
	}
	for _, h := range hosts {
		var out bytes.Buffer
		if err := h.run(&out); err != nil {
			t.Errorf("%s: %v", h.name, err)
			continue
		}
		if !strings.Contains(out.String(), broken) {
			t.Errorf("%s: the answer does not name the broken file %s: %s", h.name, broken, out.String())
		}
		if strings.Contains(out.String(), `"allow"`) {
			t.Errorf("%s: allowed while the policy is broken: %s", h.name, out.String())
		}
	}
}

// explain --host decides a host's own call as its adapter does, for every
// host; a call that is several engine calls (a patch) is decided by the
// most restrictive of them.
func TestExplainAsEveryHost(t *testing.T) {
	e := newHookEnv(t, `{"permission": {"*": "ask", "bash": {"*": "ask", "git status": "allow", "rm *": "deny"},
  "read": {"*": "allow", "*.env": "deny"}, "write": {"*": "allow"}, "edit": {"*": "allow", "vendor/*": "deny"}}}`)
	patch := func(files ...string) string {
		return `"*** Begin Patch\n` + strings.Join(files, `\n`) + `\n*** End Patch\n"`
	}
	cases := []struct{ host, tool, input, want string }{
		{"pi", "bash", `{"command":"rm -rf build"}`, "deny"},
		{"pi", "read", `{"path":"a.txt"}`, "allow"},
		{HostClaudeCode, "Bash", `{"command":"git status"}`, "allow"},
		{HostClaudeCode, "Read", `{"file_path":".env"}`, "deny"},
		{HostGeminiCLI, "run_shell_command", `{"command":"rm -rf build"}`, "deny"},
		{HostGeminiCLI, "read_many_files", `{"include":["a.txt",".env"]}`, "deny"},
		{HostOpenCode, "bash", `{"command":"git status","description":"d"}`, "allow"},
		{HostOpenCode, "read", `{"filePath":".env"}`, "deny"},
		{HostOpenCode, "apply_patch", `{"patchText":` + patch(`*** Add File: notes.txt`, `+x`) + `}`, "allow"},
		{HostOpenCode, "apply_patch", `{"patchText":` + patch(`*** Add File: notes.txt`, `+x`, `*** Delete File: vendor/lib.go`) + `}`, "deny"},
		{HostOpenCode, "patch", `{"patchText":` + patch(`*** Update File: vendor/lib.go`, `@@`, `-a`, `+b`) + `}`, "deny"},
		{HostCodex, "Bash", `{"command":"rm -rf build"}`, "deny"},
		{HostCodex, "apply_patch", `{"command":` + patch(`*** Update File: vendor/old.go`, `*** Move to: src/new.go`) + `}`, "deny"},
		{HostCopilotCLI, "bash", `{"command":"git status","description":"d"}`, "allow"},
		{HostCopilotCLI, "view", `{"path":".env"}`, "deny"},
		{HostQwenCode, "run_shell_command", `{"command":"make"}`, "ask"},
		{HostQwenCode, "tool_call", `{"name":"read_file","arguments":{"file_path":".env"}}`, "deny"},
	}
	for _, c := range cases {
		if !KnownHost(c.host) {
			t.Errorf("%s is not a known host", c.host)
		}
		opts := e.opts
		opts.Host = c.host
		ex, err := NewDryRun(opts).Decide(c.tool, json.RawMessage(c.input), "", "")
		if err != nil {
			t.Errorf("%s %s %s: %v", c.host, c.tool, c.input, err)
			continue
		}
		if ex.State != c.want {
			t.Errorf("%s %s %s: %s, want %s (%s)", c.host, c.tool, c.input, ex.State, c.want, ex.Reason)
		}
	}
	for _, name := range HostNames {
		if !KnownHost(name) {
			t.Errorf("%s: listed but not known", name)
		}
	}
	if KnownHost("claude") {
		t.Errorf("an unknown host is known")
	}
}

// Claude Code's tools that run code, leave worktrees, publish files and
// schedule jobs are decided on the surfaces of what they do.
func TestClaudeToolsOnWhatTheyTouch(t *testing.T) {
	e := newHookEnv(t, `{"permission": {"*": "ask",
  "bash": {"*": "allow", "pwsh -Command Get-Date": "allow", "pwsh -Command *Remove-Item*": "deny"},
  "read": {"*": "allow", "*.env": "deny"}, "write": {"*": "allow"}, "edit": {"*": "allow", "*/wt": "deny"},
  "CronCreate": "allow"}}`)
	wt := filepath.Join(e.proj, "wt")
	cases := []struct {
		tool  string
		input map[string]any
		cwd   string
		want  string
		words string // in the reason
	}{
		// Foreign code: a bash "*" allow does not cover it; the code is shown.
		{"PowerShell", map[string]any{"command": "Get-ChildItem C:\\ | Out-File 'x.txt'"}, "", "ask", "Out-File"},
		{"PowerShell", map[string]any{"command": "Get-Date"}, "", "allow", ""},
		{"PowerShell", map[string]any{"command": "Remove-Item -Recurse build"}, "", "deny", "Remove-Item"},
		{"ExitWorktree", map[string]any{"action": "keep"}, wt, "allow", ""},
		{"ExitWorktree", map[string]any{"action": "remove", "discard_changes": true}, wt, "deny", ""},
		{"Artifact", map[string]any{"file_path": "secret.env"}, "", "deny", "secret.env"},
		{"CronCreate", map[string]any{"cron": "*/5 * * * *", "prompt": "check the build"}, "", "allow", ""},
		{"CronCreate", map[string]any{"cron": "*/5 * * * *", "prompt": "check the build", "durable": true}, "", "ask", "scheduled_tasks.json"},
	}
	if err := os.MkdirAll(wt, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		fields := map[string]any{"hook_event_name": "PreToolUse", "tool_name": c.tool, "tool_input": c.input, "permission_mode": "default"}
		if c.cwd != "" {
			fields["cwd"] = c.cwd
		}
		var out bytes.Buffer
		if err := RunHook(e.opts, hosts.ClaudeHook{}, strings.NewReader(e.event(fields)), &out); err != nil {
			t.Errorf("%s %v: %v", c.tool, c.input, err)
			continue
		}
		h, ok := readPreToolUse(t, c.tool, out.Bytes())
		if !ok {
			continue
		}
		if h.Decision != c.want || !strings.Contains(h.Reason, c.words) {
			t.Errorf("%s %v: %s %q, want %s mentioning %q", c.tool, c.input, h.Decision, h.Reason, c.want, c.words)
		}
	}
}
