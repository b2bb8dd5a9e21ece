// Package claudecode_test proves `toolgate claude-hook` inside the real
// Claude Code CLI (the version pinned in package-lock.json), driven by a
// scripted fake Anthropic Messages API on 127.0.0.1, from `go test ./...`.
package claudecode_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/examples/internal/fakemodel"
	"github.com/toolgate/toolgate/examples/internal/hoste2e"
)

// hookCommand is the hook command the README documents: any failure of
// toolgate, a missing binary included (the shell's 127), becomes exit 2,
// the one exit code Claude Code treats as a block.
const hookCommand = "toolgate claude-hook || { echo 'toolgate failed, so the call is blocked' >&2; exit 2; }"

// runTimeout bounds one run of the CLI (0.4-1.2 s here).
const runTimeout = 60 * time.Second

type claudeEnv struct {
	t       *testing.T
	claude  string
	home    string
	tmp     string
	proj    string
	audit   string
	withTG  string // PATH with toolgate
	without string // PATH without it
}

func TestClaudeCodeE2E(t *testing.T) {
	s := hoste2e.NewSuite(t, 18, 0)
	native := nativeBinary()
	hoste2e.NPMCI(t, s.Dir, s.NPM, native)

	home, tmp, proj := hoste2e.Dirs(t)
	e := &claudeEnv{t: t, claude: filepath.Join(s.Dir, native), home: home, tmp: tmp, proj: proj,
		audit: hoste2e.AuditFile(home), withTG: s.WithTG, without: s.WithoutTG}
	// toolgate's own global file: no .pi folder anywhere.
	hoste2e.WritePolicy(t, home, e.audit, `{
    "*": "ask",
    "bash": {"*": "ask", "touch ran-allow.txt": "allow", "touch ran-missing.txt": "allow",
             "touch ran-plan.txt": "allow", "touch ran-broken.txt": "allow", "touch ran-deny.txt": {"action": "deny", "reason": "e2e: ran-deny is off limits"}},
    "read": {"*": "allow", "*.env": {"action": "deny", "reason": "e2e: no env files"}}
  }`)
	hoste2e.WriteFile(t, filepath.Join(proj, ".claude", "settings.json"),
		`{"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "`+hookCommand+`"}]}]}}`)
	hoste2e.WriteFile(t, filepath.Join(proj, "secret.env"), "TOKEN=e2e\n")

	t.Run("allowed bash runs", func(t *testing.T) {
		f := e.run(t, e.withTG, bashStep("touch ran-allow.txt"), nil)
		if !hoste2e.Exists(filepath.Join(proj, "ran-allow.txt")) {
			t.Fatalf("the allowed command did not run; tool results %v", f.results())
		}
		t.Logf("tools offered: %v", f.toolNames())
	})
	t.Run("denied bash does not run and the model sees the reason", func(t *testing.T) {
		f := e.run(t, e.withTG, bashStep("touch ran-deny.txt"), nil)
		if hoste2e.Exists(filepath.Join(proj, "ran-deny.txt")) {
			t.Fatal("the denied command ran")
		}
		if !fakemodel.AnyContains(f.results(), "e2e: ran-deny is off limits") {
			t.Fatalf("the model did not get toolgate's reason: %v", f.results())
		}
	})
	t.Run("read of a denied path is blocked", func(t *testing.T) {
		f := e.run(t, e.withTG, []step{{Tool: "Read", Input: map[string]any{"file_path": filepath.Join(proj, "secret.env")}}, {Text: "done"}}, nil)
		res := f.results()
		if !fakemodel.AnyContains(res, "e2e: no env files") || fakemodel.AnyContains(res, "TOKEN=e2e") {
			t.Fatalf("the read was not blocked with toolgate's reason: %v", res)
		}
	})
	for _, answer := range []string{"allow", "deny"} {
		t.Run("ask reaches the driver, who answers "+answer, func(t *testing.T) {
			marker := "ran-ask-" + answer + ".txt"
			var asked []map[string]any
			f := e.run(t, e.withTG, bashStep("touch "+marker), func(req map[string]any) map[string]any {
				asked = append(asked, req)
				if answer == "allow" {
					return map[string]any{"behavior": "allow", "updatedInput": req["input"]}
				}
				return map[string]any{"behavior": "deny", "message": "e2e driver says no"}
			})
			if len(asked) != 1 || asked[0]["tool_name"] != "Bash" || !strings.Contains(fmt.Sprint(asked[0]["decision_reason"]), "touch "+marker) {
				t.Fatalf("the driver was asked %d times: %v", len(asked), asked)
			}
			ran := hoste2e.Exists(filepath.Join(proj, marker))
			if ran != (answer == "allow") {
				t.Fatalf("answer %s: the command ran = %t; tool results %v", answer, ran, f.results())
			}
			if answer == "deny" && !fakemodel.AnyContains(f.results(), "e2e driver says no") {
				t.Fatalf("the model did not get the driver's reason: %v", f.results())
			}
		})
	}
	for _, mode := range []string{"bypassPermissions", "acceptEdits", "dontAsk"} {
		t.Run("permission mode "+mode+" does not loosen an ask or a deny", func(t *testing.T) {
			marker := "ran-mode-" + mode + ".txt"
			asked := 0
			f := e.run(t, e.withTG, bashStep("touch "+marker), func(req map[string]any) map[string]any {
				asked++
				return map[string]any{"behavior": "deny", "message": "e2e driver says no"}
			}, "--permission-mode", mode)
			if hoste2e.Exists(filepath.Join(proj, marker)) {
				t.Fatalf("an ask of toolgate ran unasked in %s mode; results %v", mode, f.results())
			}
			// Claude Code passes toolgate's ask on in every mode but
			// dontAsk, where toolgate answers deny itself.
			if wantAsked := map[bool]int{true: 0, false: 1}[mode == "dontAsk"]; asked != wantAsked {
				t.Fatalf("%s: the driver was asked %d times, want %d; results %v", mode, asked, wantAsked, f.results())
			}
			if mode == "dontAsk" && !fakemodel.AnyContains(f.results(), "permission mode dontAsk") {
				t.Fatalf("dontAsk: the model did not get toolgate's reason: %v", f.results())
			}
			f = e.run(t, e.withTG, bashStep("touch ran-deny.txt"), func(req map[string]any) map[string]any {
				return map[string]any{"behavior": "allow", "updatedInput": req["input"]}
			}, "--permission-mode", mode)
			if hoste2e.Exists(filepath.Join(proj, "ran-deny.txt")) || !fakemodel.AnyContains(f.results(), "e2e: ran-deny is off limits") {
				t.Fatalf("a deny of toolgate did not hold in %s mode; results %v", mode, f.results())
			}
		})
	}
	t.Run("plan mode runs no command, even one toolgate allows", func(t *testing.T) {
		// toolgate's allow is no answer in plan mode: Claude Code's own
		// plan-mode checks decide (2.1.332 also holds plan mode against a
		// hook's allow; toolgate does not rely on that).
		asked := 0
		f := e.run(t, e.withTG, bashStep("touch ran-plan.txt"), func(req map[string]any) map[string]any {
			asked++
			return map[string]any{"behavior": "deny", "message": "e2e driver says no"}
		}, "--permission-mode", "plan")
		if hoste2e.Exists(filepath.Join(proj, "ran-plan.txt")) {
			t.Fatalf("a command ran in plan mode; results %v (driver asked %d times)", f.results(), asked)
		}
	})
	t.Run("toolgate missing from PATH blocks", func(t *testing.T) {
		// Claude Code itself would allow this command (--allowedTools), and
		// the policy allows it too: only the hook's failure can block it.
		f := e.run(t, e.without, bashStep("touch ran-missing.txt"), nil, "--allowedTools", "Bash")
		if hoste2e.Exists(filepath.Join(proj, "ran-missing.txt")) {
			t.Fatal("the command ran although the hook could not run toolgate")
		}
		if !fakemodel.AnyContains(f.results(), "PreToolUse:Bash hook error") || !fakemodel.AnyContains(f.results(), "toolgate: not found") {
			t.Fatalf("the block does not say why: %v", f.results())
		}
	})
	t.Run("a crashing toolgate blocks", func(t *testing.T) {
		// Killed by a signal, toolgate would exit 137, which Claude Code
		// does not treat as a block; the documented command makes it 2.
		crash := s.Before(hoste2e.CrashingToolgate(t, "kill -9 $$"))
		f := e.run(t, crash, bashStep("touch ran-missing.txt"), nil, "--allowedTools", "Bash")
		if hoste2e.Exists(filepath.Join(proj, "ran-missing.txt")) {
			t.Fatalf("the command ran although toolgate crashed; results %v", f.results())
		}
		if !fakemodel.AnyContains(f.results(), "PreToolUse:Bash hook error") || !fakemodel.AnyContains(f.results(), "toolgate failed, so the call is blocked") {
			t.Fatalf("the block is not the hook's: %v", f.results())
		}
	})
	t.Run("a broken policy file is named in the answer", func(t *testing.T) {
		broken := filepath.Join(proj, ".toolgate", "config.json")
		hoste2e.WriteFile(t, broken, `{"permission": {"bash": {"*": "allow"}, }`)
		defer os.RemoveAll(filepath.Dir(broken))
		f := e.run(t, e.withTG, bashStep("touch ran-broken.txt"), nil)
		if hoste2e.Exists(filepath.Join(proj, "ran-broken.txt")) {
			t.Fatalf("the command ran while a policy file is broken; results %v", f.results())
		}
		if !fakemodel.AnyContains(f.results(), broken) {
			t.Fatalf("the answer does not name the broken file: %v", f.results())
		}
	})
	t.Run("every decision is in the audit log with the host named", func(t *testing.T) {
		hoste2e.CheckAudit(t, s.Toolgate(), e.audit, "claude-code",
			map[string]string{"touch ran-allow.txt": "allow", "touch ran-deny.txt": "deny",
				"touch ran-ask-allow.txt": "ask", "touch ran-ask-deny.txt": "ask", "read": "deny"},
			"touch ran-missing.txt")
	})
}

func bashStep(cmd string) []step {
	return []step{{Tool: "Bash", Input: map[string]any{"command": cmd, "description": "e2e"}}, {Text: "done"}}
}

// nativeBinary is the CLI's own executable in its platform package (the
// install script that links it over bin/claude.exe is not run).
func nativeBinary() string {
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	return filepath.Join("node_modules", "@anthropic-ai", "claude-code-"+runtime.GOOS+"-"+arch, "claude")
}

// run plays script against the CLI in the project. With ask nil it is a
// plain `-p` run; otherwise the prompt goes in as stream-json and every
// can_use_tool control request is answered by ask.
func (e *claudeEnv) run(t *testing.T, path string, script []step, ask func(map[string]any) map[string]any, extra ...string) *fakeAnthropic {
	t.Helper()
	f := startFakeAnthropic(t, script)
	ctx, cancel := context.WithTimeout(t.Context(), runTimeout)
	defer cancel()
	args := []string{"-p", "--output-format", "stream-json", "--verbose"}
	if ask == nil {
		args = append(args, "do it")
	} else {
		args = append(args, "--input-format", "stream-json", "--permission-prompt-tool", "stdio")
	}
	cmd := exec.CommandContext(ctx, e.claude, append(args, extra...)...)
	cmd.Dir = e.proj
	cmd.Env = hoste2e.Env(path, e.home, e.tmp, "ANTHROPIC_BASE_URL="+f.url, "ANTHROPIC_API_KEY=sk-ant-fake",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1",
		// bypassPermissions refuses to start as root outside a sandbox;
		// this run is one (a temporary home, 127.0.0.1 only).
		"IS_SANDBOX=1")
	cmd.WaitDelay = 5 * time.Second
	var first []map[string]any
	if ask != nil {
		first = append(first, map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": "do it"},
			"parent_tool_use_id": nil, "session_id": ""})
	}
	lines, stderr, err := hoste2e.StreamJSON(t, cmd, ask, first...)
	if err != nil {
		t.Fatalf("claude: %v\nstderr: %s\nstdout:\n%s", err, stderr, strings.Join(lines, "\n"))
	}
	if len(f.results()) == 0 {
		t.Fatalf("the fake model never got a tool result\nstderr: %s\nstdout:\n%s", stderr, strings.Join(lines, "\n"))
	}
	return f
}
