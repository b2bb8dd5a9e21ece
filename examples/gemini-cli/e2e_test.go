// Package geminicli_test proves `toolgate gemini-hook` inside the real
// Gemini CLI (the version pinned in package-lock.json), driven by a
// scripted fake Gemini API on 127.0.0.1, from `go test ./...`.
package geminicli_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/toolgate/toolgate/examples/internal/fakemodel"
	"github.com/toolgate/toolgate/examples/internal/hoste2e"
)

// hookCommand is the hook command the README documents: any failure of
// toolgate, a missing binary included, becomes exit 2 with a message
// (Gemini CLI treats exit 1 as a warning only, and a failed hook that
// prints nothing as no decision at all: the tool runs).
const hookCommand = "toolgate gemini-hook || { echo 'toolgate failed, so the call is blocked' >&2; exit 2; }"

// runTimeout bounds one run of the CLI (2-8 s here); an ask that
// Gemini cannot answer would hang until it.
const runTimeout = 60 * time.Second

// cliPath is the CLI's entry point in node_modules.
const cliPath = "node_modules/@google/gemini-cli/bundle/gemini.js"

type geminiEnv struct {
	node, cli         string
	home, tmp, proj   string
	audit, policy     string
	withTG, withoutTG string
}

func TestGeminiCLIE2E(t *testing.T) {
	s := hoste2e.NewSuite(t, 20, 0)
	hoste2e.NPMCI(t, s.Dir, s.NPM, cliPath)

	home, tmp, proj := hoste2e.Dirs(t)
	e := &geminiEnv{node: s.Node, cli: filepath.Join(s.Dir, cliPath), home: home, tmp: tmp, proj: proj,
		audit: hoste2e.AuditFile(home), policy: filepath.Join(home, "allow-tools.toml"),
		withTG: s.WithTG, withoutTG: s.WithoutTG}
	hoste2e.WritePolicy(t, home, e.audit, hoste2e.HookPermission)
	// Gemini CLI with a fake API key and base URL needs the auth type set
	// (the base URL alone selects an auth type it then rejects).
	hoste2e.WriteFile(t, filepath.Join(home, ".gemini", "settings.json"),
		`{"security": {"auth": {"selectedType": "gemini-api-key"}}, "privacy": {"usageStatisticsEnabled": false}}`)
	hoste2e.WriteFile(t, filepath.Join(proj, ".gemini", "settings.json"), `{"hooks": {"BeforeTool": [{"matcher": ".*", "hooks": [
  {"name": "toolgate", "type": "command", "command": "`+hookCommand+`", "timeout": 60000}]}]}}`)
	// Headless Gemini offers its shell and write tools only when its own
	// policy allows them: toolgate is the one that decides here.
	hoste2e.WriteFile(t, e.policy, "[[rule]]\ntoolName = [\"run_shell_command\", \"write_file\", \"read_file\"]\ndecision = \"allow\"\npriority = 500\n")
	hoste2e.WriteFile(t, filepath.Join(proj, "secret.env"), "TOKEN=e2e\n")

	// One run plays the four calls in turn (each CLI start costs seconds):
	// the i-th function response the model gets back is the i-th call's.
	f := e.run(t, e.withTG, []fakemodel.Step{
		{Tool: "run_shell_command", Args: map[string]any{"command": "touch ran-allow.txt", "description": "e2e"}},
		{Tool: "run_shell_command", Args: map[string]any{"command": "touch ran-deny.txt", "description": "e2e"}},
		{Tool: "read_file", Args: map[string]any{"file_path": filepath.Join(proj, "secret.env")}},
		{Tool: "run_shell_command", Args: map[string]any{"command": "touch ran-ask.txt", "description": "e2e"}},
		{Text: "done"},
	})
	res := hoste2e.Results(t, f.results(), 4, nil)
	t.Run("allowed bash runs", func(t *testing.T) {
		hoste2e.Ran(t, proj, "ran-allow.txt", res[0:1])
	})
	t.Run("denied bash does not run and the model sees the reason", func(t *testing.T) {
		hoste2e.Blocked(t, proj, "ran-deny.txt", res[1:2], "e2e: ran-deny is off limits")
	})
	t.Run("read of a denied path is blocked", func(t *testing.T) {
		hoste2e.ReadDenied(t, "read", res[2])
	})
	t.Run("an ask Gemini cannot show blocks instead of hanging", func(t *testing.T) {
		hoste2e.Blocked(t, proj, "ran-ask.txt", res[3:4], "cannot show the question")
	})
	t.Run("toolgate missing from PATH blocks", func(t *testing.T) {
		f := e.run(t, e.withoutTG, shellStep("touch ran-missing.txt"))
		if hoste2e.Exists(filepath.Join(proj, "ran-missing.txt")) {
			t.Fatal("the command ran although the hook could not run toolgate")
		}
		if !fakemodel.AnyContains(f.results(), "toolgate: not found") && !fakemodel.AnyContains(f.results(), "toolgate: command not found") {
			t.Fatalf("the block does not say why: %v", f.results())
		}
	})
	t.Run("a crashing toolgate blocks", func(t *testing.T) {
		// Gemini CLI treats a hook's exit 1 as a warning only, and runs the
		// tool; the documented command makes any failure exit 2.
		crash := s.Before(hoste2e.CrashingToolgate(t, "exit 1"))
		f := e.run(t, crash, shellStep("touch ran-missing.txt"))
		hoste2e.Blocked(t, proj, "ran-missing.txt", f.results(), "toolgate failed, so the call is blocked")
	})
	t.Run("a broken policy file is named in the answer", func(t *testing.T) {
		broken := filepath.Join(proj, ".toolgate", "config.json")
		hoste2e.WriteFile(t, broken, `{"permission": {"bash": {"*": "allow"}, }`)
		defer os.RemoveAll(filepath.Dir(broken))
		f := e.run(t, e.withTG, shellStep("touch ran-broken.txt"))
		hoste2e.Blocked(t, proj, "ran-broken.txt", f.results(), broken)
	})
	t.Run("every decision is in the audit log with the host named", func(t *testing.T) {
		hoste2e.CheckAudit(t, s.Toolgate(), e.audit, "gemini-cli",
			map[string]string{"touch ran-allow.txt": "allow", "touch ran-deny.txt": "deny", "touch ran-ask.txt": "deny", "read": "deny"},
			"touch ran-missing.txt")
	})
}

func shellStep(cmd string) []fakemodel.Step {
	return []fakemodel.Step{{Tool: "run_shell_command", Args: map[string]any{"command": cmd, "description": "e2e"}}, {Text: "done"}}
}

// run plays script against the CLI in the project, headless.
func (e *geminiEnv) run(t *testing.T, path string, script []fakemodel.Step) *fakeGemini {
	t.Helper()
	f := startFakeGemini(t, script)
	hoste2e.RunCLI(t, runTimeout, f.results, e.proj, hoste2e.Env(path, e.home, e.tmp, "GEMINI_API_KEY=fake-key", "GOOGLE_GEMINI_BASE_URL="+f.url,
		"GEMINI_CLI_TRUST_WORKSPACE=true", "NO_COLOR=1"), e.node, e.cli, "-p", "do it", "-o", "stream-json", "-m", "gemini-2.5-flash", "--policy", e.policy)
	return f
}
