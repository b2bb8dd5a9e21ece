package integration_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// runCLI runs the built binary with a home and agent directory of its own
// and returns its exit status, stdout and stderr.
func runCLI(t *testing.T, home string, args ...string) (int, string, string) {
	t.Helper()
	if buildErr != nil {
		t.Fatalf("no binary: %v", buildErr)
	}
	recordBuildInputs()
	cmd := exec.Command(pluginBin, args...)
	cmd.Dir = home
	cmd.Env = append(os.Environ(), "HOME="+home, "PI_CODING_AGENT_DIR="+filepath.Join(home, "agent"))
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return exit.ExitCode(), out.String(), errOut.String()
	case err != nil:
		t.Fatal(err)
	}
	return 0, out.String(), errOut.String()
}

// TestPolicyAuthorCommands drives the commands a policy author uses, as a
// script would: the exit statuses are the process's own.
func TestPolicyAuthorCommands(t *testing.T) {
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	policy, err := os.ReadFile(filepath.Join("..", "examples", "policy.jsonc"))
	if err != nil {
		t.Fatal(err)
	}
	cases, err := os.ReadFile(filepath.Join("..", "examples", "toolgate-tests.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	// The example policy as the global file, its cases beside it.
	global := filepath.Join(home, "agent", "extensions", "pi-permission-system", "config.json")
	if err := os.MkdirAll(filepath.Dir(global), 0o700); err != nil {
		t.Fatal(err)
	}
	write := func(text string) {
		if err := os.WriteFile(global, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(string(policy))
	// Without their "cwd": "." (the examples folder) the cases run in the
	// current directory, the home here.
	cases = bytes.ReplaceAll(cases, []byte(`"cwd": ".", `), nil)
	if err := os.WriteFile(filepath.Join(filepath.Dir(global), "toolgate-tests.jsonl"), cases, 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runCLI(t, home, "test"); code != 0 || !strings.Contains(out, "12 passed") {
		t.Fatalf("test: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, _ := runCLI(t, home, "validate"); code != 0 || !strings.Contains(out, "12 cases pass") {
		t.Fatalf("validate: exit %d\n%s", code, out)
	}
	for _, c := range []struct {
		input string
		code  int
	}{
		{`{"command":"git status"}`, 0}, {`{"command":"rm -rf build"}`, 1}, {`{"command":"make"}`, 3}, {`{"command":`, 2},
	} {
		if code, out, errOut := runCLI(t, home, "explain", "--tool", "bash", "--input", c.input); code != c.code {
			t.Errorf("explain %s: exit %d, want %d\n%s%s", c.input, code, c.code, out, errOut)
		}
	}
	write(strings.Replace(string(policy), `"npm *": { "action": "deny", "reason": "This project uses pnpm" }`, `"npm *": "allow"`, 1))
	code, out, _ := runCLI(t, home, "test")
	if code != 1 || !strings.Contains(out, `FAIL "npm is denied with the policy's reason"`) || !strings.Contains(out, `rule "npm *", global `+global+":18") {
		t.Fatalf("test after breaking the policy: exit %d\n%s", code, out)
	}
	if code, _, _ := runCLI(t, home, "validate"); code != 1 {
		t.Fatalf("validate with a failing case: exit %d", code)
	}
	for _, sub := range []string{"serve", "explain", "validate", "test", "suggest", "replay", "audit", "claude-hook", "version"} {
		if code, out, errOut := runCLI(t, home, sub, "--help"); code != 0 || !strings.HasPrefix(out, "usage: toolgate") || errOut != "" {
			t.Errorf("%s --help: exit %d, stdout %q, stderr %q", sub, code, out, errOut)
		}
	}
}
