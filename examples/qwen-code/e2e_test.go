// Package qwencode_test proves `toolgate qwen-hook` inside the real Qwen
// Code CLI (the version pinned in package-lock.json), driven by a scripted
// fake OpenAI-compatible model on 127.0.0.1, from
// `go test ./examples/qwen-code/`.
package qwencode_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/examples/internal/fakemodel"
	"github.com/toolgate/toolgate/examples/internal/hoste2e"
)

// hookCommand is the hook command the README documents. Qwen Code runs
// the tool on every hook failure but exit 2 (exit 1, a missing binary,
// garbage, a timeout), so any failure of toolgate, a hang included
// (`timeout 10`, well inside the hook's timeout of 30000 ms), becomes exit
// 2 with a message: a block.
const hookCommand = "timeout 10 toolgate qwen-hook || { echo 'toolgate failed, so the call is blocked' >&2; exit 2; }"

// runTimeout bounds one run of the CLI (5-25 s here; a hanging toolgate
// adds the 10 s of the documented `timeout`).
const runTimeout = 60 * time.Second

// cliPath is the CLI's entry point in node_modules.
const cliPath = "node_modules/@qwen-code/qwen-code/cli-entry.js"

type qwenEnv struct {
	*hoste2e.Suite
	cli             string
	home, tmp, proj string
	audit           string
	settings        string // the hook's settings.json
}

func TestQwenCodeE2E(t *testing.T) {
	e := newQwenEnv(t)
	proj, home, settings := e.proj, e.home, e.settings
	// One run plays four calls in turn: the i-th tool result the model
	// gets back is the i-th call's. --yolo: Qwen itself would run
	// everything, so whatever is blocked is blocked by toolgate.
	f := e.run(t, e.proj, e.WithTG, []fakemodel.Step{
		shellStep("touch ran-allow.txt"), shellStep("touch ran-deny.txt"),
		{Tool: "read_file", Args: map[string]any{"file_path": filepath.Join(proj, "secret.env")}},
		shellStep("touch ran-ask.txt"), {Text: "done"}})
	res := hoste2e.Results(t, f.Results(), 4, f.ToolNames())
	t.Run("allowed command runs", func(t *testing.T) {
		hoste2e.Ran(t, proj, "ran-allow.txt", res[0:1])
	})
	t.Run("denied command does not run and the model sees the reason", func(t *testing.T) {
		hoste2e.Blocked(t, proj, "ran-deny.txt", res[1:2], "e2e: ran-deny is off limits")
	})
	t.Run("a read of a denied path is blocked", func(t *testing.T) {
		hoste2e.ReadDenied(t, "read", res[2])
	})
	t.Run("an ask with nobody to answer (qwen -p) blocks with how to allow it", func(t *testing.T) {
		hoste2e.Blocked(t, proj, "ran-ask.txt", res[3:4], "add an allow rule")
	})
	play := func(t *testing.T, proj, path, cmd string) []string {
		return e.run(t, proj, path, []fakemodel.Step{shellStep(cmd), {Text: "done"}}).Results()
	}
	e.FailuresBlock(t, proj, "toolgate failed, so the call is blocked", play)
	e.BrokenPolicyBlocks(t, play)
	t.Run("a hook that exits 1 lets Qwen run the tool", func(t *testing.T) {
		// What the documented command exists for (the README says so): a
		// bare `toolgate qwen-hook` that fails with exit 1 is no block.
		file := filepath.Join(home, ".qwen", "settings.json")
		hoste2e.WriteFile(t, file, qwenSettings("toolgate qwen-hook"))
		defer hoste2e.WriteFile(t, file, settings)
		failing := e.Before(hoste2e.CrashingToolgate(t, "exit 1"))
		f := e.run(t, e.proj, failing, []fakemodel.Step{shellStep("touch ran-bare.txt"), {Text: "done"}})
		if !hoste2e.Exists(filepath.Join(proj, "ran-bare.txt")) {
			t.Fatalf("the command did not run after the bare hook failed (did Qwen change?); tool results %v", f.Results())
		}
	})
	t.Run("every decision is in the audit log with the host named", func(t *testing.T) {
		hoste2e.CheckAudit(t, e.Toolgate(), e.audit, "qwen-code",
			map[string]string{"touch ran-allow.txt": "allow", "touch ran-deny.txt": "deny", "touch ran-ask.txt": "ask", "read": "deny"},
			"touch ran-missing.txt", "touch ran-bare.txt")
	})
}

// newQwenEnv installs the pinned CLI, builds toolgate, and makes a home
// with the policy and the hook as the README installs them.
func newQwenEnv(t *testing.T) *qwenEnv {
	t.Helper()
	s := hoste2e.NewSuite(t, 20, 0)
	// The registry this project reaches serves only some of the optional
	// clipboard binaries, so npm ci refuses the lock: the locked install.
	hoste2e.NPMInstallLocked(t, s.Dir, s.NPM, cliPath)

	home, tmp, proj := hoste2e.Dirs(t)
	e := &qwenEnv{Suite: s, cli: filepath.Join(s.Dir, cliPath), home: home, tmp: tmp, proj: proj,
		audit: hoste2e.AuditFile(home)}
	hoste2e.WritePolicy(t, home, e.audit, hoste2e.HookPermission)
	// The hook at user level (~/.qwen/settings.json), as the README
	// installs it, with the auth type a fake OpenAI endpoint needs.
	e.settings = qwenSettings(hookCommand)
	hoste2e.WriteFile(t, filepath.Join(home, ".qwen", "settings.json"), e.settings)
	hoste2e.WriteFile(t, filepath.Join(proj, "secret.env"), "TOKEN=e2e\n")

	return e
}

// qwenSettings is a user-level ~/.qwen/settings.json running command as
// the PreToolUse hook of every tool (with the hook timeout the README
// gives), and the auth type a fake OpenAI endpoint needs.
func qwenSettings(command string) string {
	b, _ := json.Marshal(map[string]any{
		"security": map[string]any{"auth": map[string]any{"selectedType": "openai"}},
		"hooks": map[string]any{"PreToolUse": []any{map[string]any{"matcher": "*", "hooks": []any{
			map[string]any{"type": "command", "command": command, "timeout": 30000}}}}},
	})
	return string(b)
}

func shellStep(cmd string) fakemodel.Step {
	return fakemodel.Step{Tool: "run_shell_command", Args: map[string]any{"command": cmd, "description": "e2e"}}
}

// run plays script against `qwen -p --yolo` in proj, headless.
func (e *qwenEnv) run(t *testing.T, proj, path string, script []fakemodel.Step) *fakemodel.Fake {
	t.Helper()
	f := fakemodel.Start(t, script)
	hoste2e.RunCLI(t, runTimeout, f.Results, proj, hoste2e.Env(path, e.home, e.tmp, "OPENAI_BASE_URL="+f.URL, "OPENAI_API_KEY=fake", "OPENAI_MODEL=fake-model",
		"QWEN_CODE_SUPPRESS_YOLO_WARNING=1", "NO_COLOR=1"), e.Node, e.cli, "-p", "do it", "--yolo")
	return f
}

// A session driven over stream-json (the SDK): Qwen hands its own
// confirmation to the driver (a can_use_tool control request), then runs
// the hook. Qwen Code 0.24.4 never hands a hook's ask to the driver there
// (the session waits forever), so such sessions use `qwen-hook --no-ask`:
// toolgate's ask is a deny that says how to allow the call.
func TestQwenCodeStreamJSONE2E(t *testing.T) {
	e := newQwenEnv(t)
	hoste2e.WriteFile(t, filepath.Join(e.home, ".qwen", "settings.json"),
		qwenSettings(strings.Replace(hookCommand, "qwen-hook", "qwen-hook --no-ask", 1)))
	allow := func(req map[string]any) map[string]any {
		return map[string]any{"behavior": "allow", "updatedInput": req["input"]}
	}
	t.Run("the driver's allow and toolgate's allow run the command", func(t *testing.T) {
		asked := 0
		f := e.runDriven(t, []fakemodel.Step{shellStep("touch ran-allow.txt"), {Text: "done"}}, func(req map[string]any) map[string]any {
			asked++
			return allow(req)
		})
		if asked == 0 || !hoste2e.Exists(filepath.Join(e.proj, "ran-allow.txt")) {
			t.Fatalf("asked %d times, ran = %t; tool results %v", asked, hoste2e.Exists(filepath.Join(e.proj, "ran-allow.txt")), f.Results())
		}
	})
	t.Run("the driver's deny holds", func(t *testing.T) {
		f := e.runDriven(t, []fakemodel.Step{shellStep("touch ran-broken.txt"), {Text: "done"}}, func(req map[string]any) map[string]any {
			return map[string]any{"behavior": "deny", "message": "e2e driver says no"}
		})
		t.Logf("tool result: %q", f.Results())
		if hoste2e.Exists(filepath.Join(e.proj, "ran-broken.txt")) {
			t.Fatal("the command ran although the driver said no")
		}
		if !fakemodel.AnyContains(f.Results(), "e2e driver says no") {
			t.Fatalf("the model did not get the driver's answer: %v", f.Results())
		}
	})
	t.Run("toolgate's ask is a deny with how to allow it, and the session ends", func(t *testing.T) {
		f := e.runDriven(t, []fakemodel.Step{shellStep("touch ran-sdk-ask.txt"), {Text: "done"}}, allow)
		t.Logf("tool result: %q", f.Results())
		if hoste2e.Exists(filepath.Join(e.proj, "ran-sdk-ask.txt")) {
			t.Fatal("the asked command ran")
		}
		if !fakemodel.AnyContains(f.Results(), "--no-ask") || !fakemodel.AnyContains(f.Results(), "add an allow rule") {
			t.Fatalf("the model was not told how to allow it: %v", f.Results())
		}
	})
}

// runDriven plays script against Qwen driven over stream-json: an
// initialize, the prompt, and ask's answer to each of Qwen's confirmations
// on stdin.
func (e *qwenEnv) runDriven(t *testing.T, script []fakemodel.Step, ask func(map[string]any) map[string]any) *fakemodel.Fake {
	t.Helper()
	f := fakemodel.Start(t, script)
	ctx, cancel := context.WithTimeout(t.Context(), runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.Node, e.cli, "--input-format", "stream-json", "--output-format", "stream-json")
	cmd.Dir = e.proj
	cmd.Env = hoste2e.Env(e.WithTG, e.home, e.tmp, "OPENAI_BASE_URL="+f.URL, "OPENAI_API_KEY=fake", "OPENAI_MODEL=fake-model",
		"QWEN_CODE_SUPPRESS_YOLO_WARNING=1", "NO_COLOR=1")
	cmd.WaitDelay = 5 * time.Second
	lines, stderr, err := hoste2e.StreamJSON(t, cmd, ask,
		map[string]any{"type": "control_request", "request_id": "init-1", "request": map[string]any{"subtype": "initialize"}},
		map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": "do it"}, "parent_tool_use_id": nil, "session_id": ""})
	if err != nil && ctx.Err() != nil {
		t.Fatalf("qwen did not finish within %s\nstderr: %s\nstdout:\n%s", runTimeout, stderr, strings.Join(lines, "\n"))
	}
	if len(f.Results()) == 0 {
		t.Fatalf("the fake model never got a tool result\nstderr: %s\nstdout:\n%s", stderr, strings.Join(lines, "\n"))
	}
	return f
}
