package hoste2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// Suite is what every real-host suite starts from: Node and npm found,
// toolgate built from this checkout, and the PATHs a CLI runs with.
type Suite struct {
	Node, NPM string
	Dir       string // the example's directory (go test runs there)
	Bin       string // the directory holding the built toolgate
	WithTG    string // PATH with toolgate first
	WithoutTG string // PATH without it (SystemPath)
}

// NewSuite is RequireNode, RecordInputs and BuildToolgate in the order
// each suite needs them; it installs nothing (the suites' installs differ).
func NewSuite(t *testing.T, minMajor, minMinor int) *Suite {
	t.Helper()
	node, npm := RequireNode(t, minMajor, minMinor)
	root := ModuleRoot(t)
	RecordInputs(t, root)
	bin := BuildToolgate(t, root)
	dir, err := os.Getwd() // go test runs in the package directory
	if err != nil {
		t.Fatal(err)
	}
	s := &Suite{Node: node, NPM: npm, Dir: dir, Bin: bin, WithoutTG: SystemPath(node)}
	s.WithTG = s.Before(bin)
	return s
}

// Before is the PATH without toolgate with dir in front of it: the built
// toolgate's directory, or a CrashingToolgate.
func (s *Suite) Before(dir string) string {
	return dir + string(os.PathListSeparator) + s.WithoutTG
}

// Toolgate is the built toolgate binary.
func (s *Suite) Toolgate() string {
	return filepath.Join(s.Bin, "toolgate")
}

// AuditFile is where the suites' policies put the audit log: in the
// temporary home of the run.
func AuditFile(home string) string {
	return filepath.Join(home, "toolgate-audit.jsonl")
}

// WritePolicy writes toolgate's global policy file of home (toolgate's
// own file, no host's folder) with the audit log at audit and the given
// "permission" object, as JSON text so that its key order stays.
func WritePolicy(t *testing.T, home, audit, permission string) {
	t.Helper()
	WriteFile(t, filepath.Join(home, ".config", "toolgate", "config.json"),
		fmt.Sprintf("{\n  \"auditLog\": %q,\n  \"permission\": %s\n}", audit, permission))
}

// HookPermission is the "permission" object (for WritePolicy) of the hook
// suites' first run: ran-allow, ran-missing and ran-broken allowed (the
// last two for the runs where toolgate is missing or a policy file is
// broken), ran-deny denied with a reason, any other command asked, and a
// read of a .env file denied with a reason. Its key order is its meaning.
const HookPermission = `{
    "*": "ask",
    "bash": {"*": "ask", "touch ran-allow.txt": "allow", "touch ran-missing.txt": "allow", "touch ran-broken.txt": "allow",
             "touch ran-deny.txt": {"action": "deny", "reason": "e2e: ran-deny is off limits"}},
    "read": {"*": "allow", "*.env": {"action": "deny", "reason": "e2e: no env files"}}
  }`

// Decisions reads the decision records of the audit log at path: each
// one's action by what it decided, the bash command or "read" for any
// read. A record that does not name host fails the test (the rest are
// still read); a line that is not JSON stops it.
func Decisions(t testing.TB, path, host string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var rec struct {
			Event, Host, ToolName, Action string
			Input                         struct{ Command string }
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("audit line %q: %v", line, err)
		}
		if rec.Event != "decision" {
			continue
		}
		if rec.Host != host {
			t.Errorf("a record without the host %s: %s", host, line)
		}
		key := rec.Input.Command
		if rec.ToolName == "read" {
			key = "read"
		}
		got[key] = rec.Action
	}
	return got
}

// CheckAudit is the audit check of every suite: the log at path holds
// want's decisions (Decisions' keys), all naming host, none for the
// commands in unseen (runs toolgate never saw), and `toolgate audit
// verify` accepts its chain.
func CheckAudit(t testing.TB, toolgate, path, host string, want map[string]string, unseen ...string) {
	t.Helper()
	got := Decisions(t, path, host)
	for k, v := range want {
		if got[k] != v {
			t.Errorf("audit: %s = %q, want %q (all: %v)", k, got[k], v, got)
		}
	}
	for _, cmd := range unseen {
		if _, ok := got[cmd]; ok {
			t.Errorf("a decision was recorded for %q, which toolgate never saw", cmd)
		}
	}
	if out, err := exec.Command(toolgate, "audit", "verify", path).CombinedOutput(); err != nil {
		t.Errorf("audit verify: %v\n%s", err, out)
	}
}

// Ran fails the test unless the command that makes marker in dir ran
// (results, the tool results the model got, are in the message).
func Ran(t testing.TB, dir, marker string, results []string) {
	t.Helper()
	if !Exists(filepath.Join(dir, marker)) {
		t.Fatalf("the command making %s did not run; tool results %q", marker, results)
	}
}

// Blocked fails the test if the command that makes marker in dir ran, or
// if any of want is in none of results: the model was not told why.
func Blocked(t testing.TB, dir, marker string, results []string, want ...string) {
	t.Helper()
	if Exists(filepath.Join(dir, marker)) {
		t.Fatalf("the command making %s ran; tool results %q", marker, results)
	}
	for _, w := range want {
		if !slices.ContainsFunc(results, func(r string) bool { return strings.Contains(r, w) }) {
			t.Fatalf("no tool result says %q: %q", w, results)
		}
	}
}

// Results fails the test unless the model got exactly want tool results
// (one run plays several calls, the i-th result being the i-th call's),
// and logs them and the tools the CLI offered (offered, if any) for
// whoever reads a failure.
func Results(t testing.TB, results []string, want int, offered []string) []string {
	t.Helper()
	if len(results) != want {
		t.Fatalf("%d tool results, want %d: %v", len(results), want, results)
	}
	if offered != nil {
		t.Logf("tools offered: %v", offered)
	}
	for i, r := range results {
		t.Logf("tool result %d: %q", i, r)
	}
	return results
}

// RunCLI runs argv in dir with env, headless, killed after timeout, and
// fails the test if it did not finish, failed, or if results (the fake
// model's) is still empty after it: a run that never reached a tool proves
// nothing. It returns the CLI's output.
func RunCLI(t testing.TB, timeout time.Duration, results func() []string, dir string, env []string, argv ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	name := filepath.Base(argv[0])
	if ctx.Err() != nil {
		t.Fatalf("%s did not finish within %s (an ask nobody answers hangs some CLIs)\n%s", name, timeout, out)
	}
	if err != nil {
		t.Fatalf("%s: %v\n%s", name, err, out)
	}
	if len(results()) == 0 {
		t.Fatalf("the fake model never got a tool result\n%s", out)
	}
	return out
}

// Play plays one call of command against a suite's CLI, in proj with PATH
// path, and returns the tool results the model got.
type Play func(t *testing.T, proj, path, command string) []string

// Crash is a way for toolgate to fail under a hook command: a subtest's
// name and the script of a CrashingToolgate.
type Crash struct{ Name, Script string }

// FailuresBlock runs the hook suites' subtests of a toolgate that cannot
// answer: missing from PATH, killed, hanging, and each of more. In each,
// play runs `touch ran-missing.txt` in proj, which must not run, and a
// tool result must say want.
func (s *Suite) FailuresBlock(t *testing.T, proj, want string, play Play, more ...Crash) {
	t.Helper()
	failures := append([]Crash{{"a crashing toolgate blocks", "kill -9 $$"}}, more...)
	failures = append(failures, Crash{"a hanging toolgate blocks", "sleep 300"})
	run := func(t *testing.T, path string) {
		t.Helper()
		res := play(t, proj, path, "touch ran-missing.txt")
		Blocked(t, proj, "ran-missing.txt", res, want)
		t.Logf("tool result: %q", res)
	}
	t.Run("toolgate missing from PATH blocks", func(t *testing.T) { run(t, s.WithoutTG) })
	for _, c := range failures {
		t.Run(c.Name, func(t *testing.T) { run(t, s.Before(CrashingToolgate(t, c.Script))) })
	}
}

// BrokenPolicyBlocks is the hook suites' subtest of a broken policy file:
// play runs `touch ran-broken.txt`, with toolgate on PATH, in a new
// project whose .toolgate/config.json does not parse; it must not run, and
// a tool result must name that file.
func (s *Suite) BrokenPolicyBlocks(t *testing.T, play Play) {
	t.Helper()
	t.Run("a broken policy file is named in the answer", func(t *testing.T) {
		broken := filepath.Join(t.TempDir(), "proj")
		file := filepath.Join(broken, ".toolgate", "config.json")
		WriteFile(t, file, `{"permission": {"bash": {"*": "allow"}, }`)
		res := play(t, broken, s.WithTG, "touch ran-broken.txt")
		Blocked(t, broken, "ran-broken.txt", res, file)
		t.Logf("tool result: %q", res)
	})
}

// ReadDenied fails the test unless result, the tool result of a read of
// a secret.env holding TOKEN=e2e under HookPermission, gives toolgate's
// reason and not the file's text; what names the tool in the message.
func ReadDenied(t testing.TB, what, result string) {
	t.Helper()
	if !strings.Contains(result, "e2e: no env files") || strings.Contains(result, "TOKEN=e2e") {
		t.Fatalf("the %s was not blocked with toolgate's reason: %q", what, result)
	}
}
