// Package codex_test proves `toolgate codex-hook` inside the real Codex CLI
// (the version pinned in package-lock.json), driven by a scripted fake
// Responses API on 127.0.0.1, from `go test ./examples/codex/`.
package codex_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/examples/internal/fakemodel"
	"github.com/toolgate/toolgate/examples/internal/hoste2e"
)

// hookCommand is the hook command the README documents: Codex runs the
// tool when a hook exits 1, is killed, is missing or times out, so any
// failure of toolgate, a missing binary and a hang included (`timeout`,
// well below the hook's own timeout), becomes exit 2 with a message: a
// deny.
const hookCommand = "timeout 10 toolgate codex-hook || { echo 'toolgate failed, so the call is blocked' >&2; exit 2; }"

// runTimeout bounds one run of the CLI (1-3 s here; a hanging toolgate
// adds the 10 s of the documented `timeout`).
const runTimeout = 90 * time.Second

type codexEnv struct {
	codex           string
	home, tmp, proj string
	audit           string
	withTG          string
}

func TestCodexE2E(t *testing.T) {
	s := hoste2e.NewSuite(t, 16, 0)
	native := nativeBinary()
	hoste2e.NPMCI(t, s.Dir, s.NPM, native)

	home, tmp, proj := hoste2e.Dirs(t)
	e := &codexEnv{codex: filepath.Join(s.Dir, native), home: home, tmp: tmp, proj: proj,
		audit: hoste2e.AuditFile(home), withTG: s.WithTG}
	hoste2e.WritePolicy(t, home, e.audit, `{
    "*": "ask",
    "bash": {"*": "ask", "touch ran-allow.txt": "allow", "touch ran-missing.txt": "allow", "touch ran-broken.txt": "allow",
             "touch ran-deny.txt": {"action": "deny", "reason": "e2e: ran-deny is off limits"}, "apply_patch": "allow"},
    "write": {"*": "allow"},
    "edit": {"*": "allow", "protected.txt": {"action": "deny", "reason": "e2e: protected.txt is off limits"}}
  }`)
	// The hooks at user level ($CODEX_HOME/hooks.json), as the README
	// installs them.
	hook := map[string]any{"matcher": "*", "hooks": []any{map[string]any{"type": "command", "command": hookCommand, "timeout": 30}}}
	hooks, _ := json.Marshal(map[string]any{"hooks": map[string]any{"PreToolUse": []any{hook}, "PermissionRequest": []any{hook}}})
	hoste2e.WriteFile(t, filepath.Join(home, ".codex", "hooks.json"), string(hooks))

	// One run plays three calls in turn (each CLI start costs a second or
	// two): the i-th tool result the model gets back is the i-th call's.
	f := e.run(t, e.proj, e.withTG, []fakemodel.Step{
		execStep("touch ran-allow.txt"), execStep("touch ran-deny.txt"), execStep("touch ran-ask.txt"), {Text: "done"}})
	res := hoste2e.Results(t, f.Results(), 3, f.ToolNames())
	t.Run("allowed command runs", func(t *testing.T) {
		hoste2e.Ran(t, proj, "ran-allow.txt", res[0:1])
	})
	t.Run("denied command does not run and the model sees the reason", func(t *testing.T) {
		hoste2e.Blocked(t, proj, "ran-deny.txt", res[1:2], "e2e: ran-deny is off limits")
	})
	t.Run("an ask Codex cannot raise blocks with how to allow it", func(t *testing.T) {
		hoste2e.Blocked(t, proj, "ran-ask.txt", res[2:3], "add an allow rule")
	})
	t.Run("a patch through the shell is decided with the files it names", func(t *testing.T) {
		// Codex applies `apply_patch <<'EOF'` itself and reports it as Bash;
		// the policy allows the command, and denies an edit of protected.txt.
		hoste2e.WriteFile(t, filepath.Join(proj, "protected.txt"), "keep me\n")
		patch := func(body string) fakemodel.Step {
			return execStep("apply_patch <<'EOF'\n*** Begin Patch\n" + body + "\n*** End Patch\nEOF")
		}
		f := e.run(t, e.proj, e.withTG, []fakemodel.Step{patch("*** Add File: patched.txt\n+hi"),
			patch("*** Add File: sneaky.txt\n+x\n*** Delete File: protected.txt"), {Text: "done"}})
		res := f.Results()
		t.Logf("tool results: %q", res)
		if len(res) != 2 {
			t.Fatalf("%d tool results, want 2: %v", len(res), res)
		}
		if !hoste2e.Exists(filepath.Join(proj, "patched.txt")) {
			t.Fatalf("the allowed patch was not applied: %q", res[0])
		}
		if !hoste2e.Exists(filepath.Join(proj, "protected.txt")) || hoste2e.Exists(filepath.Join(proj, "sneaky.txt")) {
			t.Fatalf("the patch that deletes protected.txt was applied: %q", res[1])
		}
		if !strings.Contains(res[1], "e2e: protected.txt is off limits") {
			t.Fatalf("the model did not get toolgate's reason: %q", res[1])
		}
	})
	play := func(t *testing.T, proj, path, cmd string) []string {
		return e.run(t, proj, path, []fakemodel.Step{execStep(cmd), {Text: "done"}}).Results()
	}
	s.FailuresBlock(t, proj, "toolgate failed, so the call is blocked", play)
	t.Run("a hook that is not trusted is skipped and Codex runs the tool", func(t *testing.T) {
		// What no hook command can catch (the README says so): Codex
		// skips a new or changed hook until it is trusted in /hooks.
		f := e.runTrust(t, e.proj, e.withTG, []fakemodel.Step{execStep("touch ran-untrusted.txt"), {Text: "done"}}, false)
		if !hoste2e.Exists(filepath.Join(proj, "ran-untrusted.txt")) {
			t.Fatalf("the command did not run without a trusted hook (did Codex change?); tool results %v", f.Results())
		}
	})
	s.BrokenPolicyBlocks(t, play)
	t.Run("every decision is in the audit log with the host named", func(t *testing.T) {
		hoste2e.CheckAudit(t, s.Toolgate(), e.audit, "codex",
			map[string]string{"touch ran-allow.txt": "allow", "touch ran-deny.txt": "deny", "touch ran-ask.txt": "deny"},
			"touch ran-missing.txt", "touch ran-untrusted.txt")
	})
}

func execStep(cmd string) fakemodel.Step {
	return fakemodel.Step{Tool: "exec_command", Args: map[string]any{"cmd": cmd}}
}

// nativeBinary is the CLI's own executable in its platform package (the
// JS launcher only finds and starts it).
func nativeBinary() string {
	arch := map[string]string{"amd64": "x86_64", "arm64": "aarch64"}[runtime.GOARCH]
	pkg := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	return filepath.Join("node_modules", "@openai", "codex-"+runtime.GOOS+"-"+pkg, "vendor", arch+"-unknown-linux-musl", "bin", "codex")
}

// run plays script against `codex exec` in proj, headless, with the hooks
// of the home trusted for this run only (--dangerously-bypass-hook-trust:
// an installed hook is trusted once in /hooks, see the README).
func (e *codexEnv) run(t *testing.T, proj, path string, script []fakemodel.Step) *fakemodel.Fake {
	t.Helper()
	return e.runTrust(t, proj, path, script, true)
}

// runTrust is run with the hooks trusted for the run (trust) or as Codex
// finds them.
func (e *codexEnv) runTrust(t *testing.T, proj, path string, script []fakemodel.Step, trust bool) *fakemodel.Fake {
	t.Helper()
	f := fakemodel.Start(t, script)
	hoste2e.WriteFile(t, filepath.Join(e.home, ".codex", "config.toml"), fmt.Sprintf(`model = "fake-model"
model_provider = "fake"

[model_providers.fake]
name = "fake"
base_url = %q
wire_api = "responses"
env_key = "FAKE_KEY"
`, f.URL))
	args := []string{e.codex, "exec", "--skip-git-repo-check", "--sandbox", "workspace-write", "do it"}
	if trust {
		args = append(args, "--dangerously-bypass-hook-trust")
	}
	hoste2e.RunCLI(t, runTimeout, f.Results, proj, hoste2e.Env(path, e.home, e.tmp, "CODEX_HOME="+filepath.Join(e.home, ".codex"), "FAKE_KEY=fake", "NO_COLOR=1"), args...)
	return f
}
