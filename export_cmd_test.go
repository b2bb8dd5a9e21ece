package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/export"
	"github.com/toolgate/toolgate/internal/otlptest"
)

// exportEnv is a home with a global policy that allows git status and
// exports to endpoint.
func exportEnv(t *testing.T, endpoint string) (home, agentDir string) {
	home = t.TempDir()
	agentDir = filepath.Join(home, "agent")
	cfg := filepath.Join(agentDir, "extensions", "pi-permission-system", "config.json")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o700); err != nil {
		t.Fatal(err)
	}
	policy := fmt.Sprintf(`{"export": {"otlp": {"endpoint": %q, "headers": {"x-tenant": "t1"}}}, "permission": {"bash": {"git status": "allow"}}}`, endpoint)
	if err := os.WriteFile(cfg, []byte(policy), 0o600); err != nil {
		t.Fatal(err)
	}
	return home, agentDir
}

// TestHookProcessesStartDrains: the real binary as each hook host runs
// it (Claude Code, Gemini CLI, Codex, Copilot CLI, Qwen Code), one
// process per call, a few times in a row against a listening receiver:
// every answer is given, each process's detached drain sends its record
// before the next call is made, and every record arrives once, in order.
func TestHookProcessesStartDrains(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	col := otlptest.New(t)
	home, agentDir := exportEnv(t, col.URL)
	bin := filepath.Join(t.TempDir(), "toolgate")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	log := filepath.Join(home, "audit.jsonl")
	// Each host's event of an allowed `git status` and what its allow
	// looks like (Codex's PreToolUse allow is no answer at all).
	hostEvents := []struct{ cmd, name, event, allow string }{
		{"claude-hook", "claude-code", `{"hook_event_name":"PreToolUse","session_id":"s1","cwd":%q,"tool_name":"Bash","tool_use_id":"t%d","tool_input":{"command":"git status"}}`, `"permissionDecision":"allow"`},
		{"gemini-hook", "gemini-cli", `{"hook_event_name":"BeforeTool","session_id":"s1","cwd":%q,"tool_name":"run_shell_command","tool_input":{"command":"git status","description":"t%d"}}`, `"decision":"allow"`},
		{"codex-hook", "codex", `{"hook_event_name":"PreToolUse","session_id":"s1","cwd":%q,"tool_name":"Bash","tool_use_id":"t%d","tool_input":{"command":"git status"}}`, ""},
		{"copilot-hook", "copilot-cli", `{"sessionId":"s1","timestamp":1,"cwd":%q,"toolName":"bash","toolArgs":{"command":"git status","description":"t%d"}}`, `"permissionDecision":"allow"`},
		{"qwen-hook", "qwen-code", `{"hook_event_name":"PreToolUse","session_id":"s1","cwd":%q,"permission_mode":"default","tool_name":"run_shell_command","tool_use_id":"t%d","tool_input":{"command":"git status"}}`, `"permissionDecision":"allow"`},
	}
	const calls = 10
	for i := 0; i < calls; i++ {
		h := hostEvents[i%len(hostEvents)]
		cmd := exec.Command(bin, h.cmd, "--audit-log", log)
		cmd.Env = append(os.Environ(), "HOME="+home, "PI_CODING_AGENT_DIR="+agentDir, "XDG_CONFIG_HOME="+filepath.Join(home, "config"))
		cmd.Stdin = strings.NewReader(fmt.Sprintf(h.event, home, i))
		var out bytes.Buffer
		cmd.Stdout = &out
		if err := cmd.Run(); err != nil || !strings.Contains(out.String(), h.allow) || h.allow == "" && out.Len() != 0 {
			t.Fatalf("%s %d: %v: %s", h.cmd, i, err, out.String())
		}
		// This call's own drain sends its record: nobody else would.
		deadline := time.Now().Add(30 * time.Second)
		for len(col.Received()) < i+1 {
			if time.Now().After(deadline) {
				t.Fatalf("%s %d: its record was not sent within 30 s (%d received)", h.cmd, i, len(col.Received()))
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		more, _ := export.Pending(log)
		if len(col.Received()) >= calls && !more && !export.Busy(log) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 60 s, %d records received of %d (pending %v)", len(col.Received()), calls, more)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The drains are done when no process runs the binary any more (a
	// late one finds nothing to send, but must not outlive the test's
	// directory).
	for running(bin) {
		if time.Now().After(deadline) {
			t.Fatal("drain processes still running after 60 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	recs := col.Received()
	if len(recs) != calls {
		t.Fatalf("%d records received, want %d", len(recs), calls)
	}
	for i, r := range recs {
		host := hostEvents[i%len(hostEvents)].name
		if r.Seq != int64(i+1) || r.Event != "decision" || r.Attrs["toolgate.agent_host"] != host || r.Attrs["session.id"] != "s1" {
			t.Errorf("record %d: seq %d, %v", i, r.Seq, r.Attrs)
		}
	}
	if got := col.Header().Get("X-Tenant"); got != "t1" {
		t.Errorf("the drain did not send the policy's header: %q", got)
	}
}

// TestExportDrainCommand: `toolgate export --drain` sends what is past the
// cursor and says how much; without an export knob it says so; a bad flag
// is a usage error.
func TestExportDrainCommand(t *testing.T) {
	col := otlptest.New(t)
	home, agentDir := exportEnv(t, col.URL)
	t.Setenv("HOME", home)
	t.Setenv("PI_CODING_AGENT_DIR", agentDir)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	log := filepath.Join(home, "audit.jsonl")
	for i := 0; i < 3; i++ {
		var out, errOut bytes.Buffer
		ev := fmt.Sprintf(`{"hook_event_name":"PreToolUse","cwd":%q,"tool_name":"Bash","tool_input":{"command":"git status"}}`, home)
		if code := run([]string{"claude-hook", "--audit-log", log}, strings.NewReader(ev), &out, &errOut); code != 0 {
			t.Fatalf("claude-hook: %d %s", code, errOut.String())
		}
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"export", "--drain", "--audit-log", log}, nil, &out, &errOut); code != 0 || !strings.Contains(out.String(), "3 records sent") {
		t.Fatalf("export --drain: %d %q %q", code, out.String(), errOut.String())
	}
	if n := len(col.Received()); n != 3 {
		t.Errorf("%d records received, want 3", n)
	}
	out.Reset()
	if code := run([]string{"export", "--drain", "--audit-log", log}, nil, &out, &errOut); code != 0 || !strings.Contains(out.String(), "0 records sent") {
		t.Errorf("a second drain: %d %q", code, out.String())
	}
	t.Setenv("PI_CODING_AGENT_DIR", t.TempDir())
	out.Reset()
	if code := run([]string{"export", "--drain", "--audit-log", log}, nil, &out, &errOut); code != 0 || !strings.Contains(out.String(), "exports nothing") {
		t.Errorf("without the knob: %d %q", code, out.String())
	}
	errOut.Reset()
	if code := run([]string{"export", "--drian"}, nil, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "-drian") {
		t.Errorf("a misspelt flag: %d %q", code, errOut.String())
	}
	if code := run([]string{"export"}, nil, &out, &errOut); code != 2 {
		t.Errorf("export without --drain: %d", code)
	}
}

// running reports whether a process runs the binary bin (Linux: /proc).
func running(bin string) bool {
	exes, _ := filepath.Glob("/proc/[0-9]*/exe")
	for _, e := range exes {
		if target, err := os.Readlink(e); err == nil && target == bin {
			return true
		}
	}
	return false
}
