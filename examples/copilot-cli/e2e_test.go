// Package copilotcli_test proves `toolgate copilot-hook` inside the real
// GitHub Copilot CLI (the version pinned in package-lock.json), driven by a
// scripted fake OpenAI-compatible model on 127.0.0.1 (Copilot's own
// bring-your-own-key provider), from `go test ./examples/copilot-cli/`.
package copilotcli_test

import (
	"encoding/json"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/toolgate/toolgate/examples/internal/fakemodel"
	"github.com/toolgate/toolgate/examples/internal/hoste2e"
)

// hookCommand is the hook command the README documents. Copilot runs the
// tool when a hook times out or prints something it cannot parse, so the
// command prints toolgate's answer only when toolgate finished, and a
// deny otherwise (missing, crashed, or still running after `timeout 15`,
// well inside the hook's timeoutSec of 30).
const hookCommand = `out=$(timeout 15 toolgate copilot-hook); case $? in 0) printf '%s\n' "$out";; ` +
	`*) echo '{"permissionDecision":"deny","permissionDecisionReason":"toolgate failed, so the call is blocked"}';; esac`

// runTimeout bounds one run of the CLI (2-5 s here; a hanging toolgate
// adds the 15 s of the documented `timeout`).
const runTimeout = 90 * time.Second

type copilotEnv struct {
	copilot         string
	home, tmp, proj string
	audit           string
	withTG          string
}

func TestCopilotCLIE2E(t *testing.T) {
	s := hoste2e.NewSuite(t, 18, 0)
	native := nativeBinary()
	hoste2e.NPMCI(t, s.Dir, s.NPM, native)

	home, tmp, proj := hoste2e.Dirs(t)
	e := &copilotEnv{copilot: filepath.Join(s.Dir, native), home: home, tmp: tmp, proj: proj,
		audit: hoste2e.AuditFile(home), withTG: s.WithTG}
	hoste2e.WritePolicy(t, home, e.audit, hoste2e.HookPermission)
	// The hook at user level (~/.copilot/hooks/), as the README installs it.
	hooks, _ := json.Marshal(map[string]any{"version": 1, "hooks": map[string]any{"preToolUse": []any{
		map[string]any{"type": "command", "bash": hookCommand, "timeoutSec": 30}}}})
	hoste2e.WriteFile(t, filepath.Join(home, ".copilot", "hooks", "toolgate.json"), string(hooks))
	hoste2e.WriteFile(t, filepath.Join(proj, "secret.env"), "TOKEN=e2e\n")

	// One run plays four calls in turn: the i-th tool result the model
	// gets back is the i-th call's. No --allow-all-tools: toolgate's allow
	// is what lets a command run unprompted.
	f := e.run(t, e.proj, e.withTG, []fakemodel.Step{
		bashStep("touch ran-allow.txt"), bashStep("touch ran-deny.txt"),
		{Tool: "view", Args: map[string]any{"path": filepath.Join(proj, "secret.env")}},
		bashStep("touch ran-ask.txt"), {Text: "done"}})
	res := hoste2e.Results(t, f.Results(), 4, f.ToolNames())
	t.Run("allowed command runs without a prompt", func(t *testing.T) {
		hoste2e.Ran(t, proj, "ran-allow.txt", res[0:1])
	})
	t.Run("denied command does not run and the model sees the reason", func(t *testing.T) {
		hoste2e.Blocked(t, proj, "ran-deny.txt", res[1:2], "e2e: ran-deny is off limits")
	})
	t.Run("a view of a denied path is blocked", func(t *testing.T) {
		hoste2e.ReadDenied(t, "view", res[2])
	})
	t.Run("an ask with nobody to answer (copilot -p) is denied by Copilot", func(t *testing.T) {
		hoste2e.Blocked(t, proj, "ran-ask.txt", res[3:4], "unable to ask user", "add an allow rule")
	})
	play := func(extra ...string) hoste2e.Play {
		return func(t *testing.T, proj, path, cmd string) []string {
			return e.run(t, proj, path, []fakemodel.Step{bashStep(cmd), {Text: "done"}}, extra...).Results()
		}
	}
	s.FailuresBlock(t, proj, "toolgate failed, so the call is blocked", play(),
		hoste2e.Crash{Name: "a toolgate printing garbage blocks", Script: "echo not json; exit 1"})
	s.BrokenPolicyBlocks(t, play("--allow-all-tools"))
	t.Run("a timeoutSec below the command's own timeout lets Copilot run the tool", func(t *testing.T) {
		// What no hook command can catch (the README says so): Copilot
		// runs the tool when the hook outlives timeoutSec.
		short, _ := json.Marshal(map[string]any{"version": 1, "hooks": map[string]any{"preToolUse": []any{
			map[string]any{"type": "command", "bash": hookCommand, "timeoutSec": 2}}}})
		file := filepath.Join(e.home, ".copilot", "hooks", "toolgate.json")
		hoste2e.WriteFile(t, file, string(short))
		defer hoste2e.WriteFile(t, file, string(hooks))
		hang := s.Before(hoste2e.CrashingToolgate(t, "sleep 300"))
		f := e.run(t, e.proj, hang, []fakemodel.Step{bashStep("touch ran-timeout.txt"), {Text: "done"}}, "--allow-all-tools")
		if !hoste2e.Exists(filepath.Join(proj, "ran-timeout.txt")) {
			t.Fatalf("the command did not run after the hook timed out (did Copilot change?); tool results %v", f.Results())
		}
	})
	t.Run("every decision is in the audit log with the host named", func(t *testing.T) {
		hoste2e.CheckAudit(t, s.Toolgate(), e.audit, "copilot-cli",
			map[string]string{"touch ran-allow.txt": "allow", "touch ran-deny.txt": "deny", "touch ran-ask.txt": "ask", "read": "deny"},
			"touch ran-missing.txt")
	})
}

func bashStep(cmd string) fakemodel.Step {
	return fakemodel.Step{Tool: "bash", Args: map[string]any{"command": cmd, "description": "e2e"}}
}

// nativeBinary is the CLI's own executable in its platform package (the
// JS loader only finds and starts it).
func nativeBinary() string {
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	return filepath.Join("node_modules", "@github", "copilot-"+runtime.GOOS+"-"+arch, "copilot")
}

// run plays script against `copilot -p` in proj, headless.
func (e *copilotEnv) run(t *testing.T, proj, path string, script []fakemodel.Step, extra ...string) *fakemodel.Fake {
	t.Helper()
	f := fakemodel.Start(t, script)
	argv := append([]string{e.copilot, "-p", "do it", "--model", "fake-model"}, extra...)
	hoste2e.RunCLI(t, runTimeout, f.Results, proj, hoste2e.Env(path, e.home, e.tmp, "COPILOT_PROVIDER_BASE_URL="+f.URL, "COPILOT_PROVIDER_TYPE=openai",
		"COPILOT_PROVIDER_API_KEY=fake", "NO_COLOR=1"), argv...)
	return f
}
