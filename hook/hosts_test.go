package hook

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
			return ClaudeHook(e.opts, strings.NewReader(e.event(map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Bash",
				"tool_input": cmd, "permission_mode": "default"})), out)
		}},
		{HostGeminiCLI, func(out *bytes.Buffer) error {
			return GeminiHook(e.opts, GeminiOptions{}, strings.NewReader(e.event(map[string]any{"hook_event_name": "BeforeTool",
				"tool_name": "run_shell_command", "tool_input": cmd})), out)
		}},
		{HostCodex, func(out *bytes.Buffer) error {
			return CodexHook(e.opts, strings.NewReader(e.codexEventJSON("PreToolUse", "Bash", cmd)), out)
		}},
		{HostCopilotCLI, func(out *bytes.Buffer) error {
			return CopilotHook(e.opts, CopilotOptions{Deadline: time.Minute}, strings.NewReader(e.copilotEventJSON("bash", cmd)), out)
		}},
		{HostQwenCode, func(out *bytes.Buffer) error {
			return QwenHook(e.opts, strings.NewReader(e.qwenEventJSON("run_shell_command", cmd, "yolo")), out)
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
