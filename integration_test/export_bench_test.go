package integration_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/otlptest"
)

// benchClaudeHook runs the built binary as Claude Code does, one process
// per call, and reports the wall and CPU time (user + system) of a whole
// process, start to exit: the design's hook budget. export names the policy's
// export knob ("" for none); prepare sets up the export's state first.
func benchClaudeHook(b *testing.B, export string, prepare func(b *testing.B, log string)) {
	if buildErr != nil {
		b.Fatalf("toolgate did not build: %v", buildErr)
	}
	root := b.TempDir()
	writeGlobalPolicy(b, root, `{`+export+`"permission": {"*": "ask", "bash": {"*": "ask"`+denyRules(199)+`, "git status": "allow"}}}`)
	log := filepath.Join(root, "audit.jsonl")
	if prepare != nil {
		prepare(b, log)
	}
	event := fmt.Sprintf(`{"hook_event_name":"PreToolUse","session_id":"s","cwd":%q,"tool_name":"Bash","tool_input":{"command":"git status"}}`, root)
	var wall, cpu time.Duration
	for b.Loop() {
		cmd := exec.Command(pluginBin, "claude-hook", "--audit-log", log)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + root, "PI_CODING_AGENT_DIR=" + filepath.Join(root, "agent")}
		cmd.Dir = root
		cmd.Stdin = strings.NewReader(event)
		start := time.Now()
		out, err := cmd.Output()
		wall += time.Since(start)
		if err != nil || !strings.Contains(string(out), `"allow"`) {
			b.Fatalf("claude-hook: %v %s", err, out)
		}
		cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	b.ReportMetric(float64(wall.Microseconds())/float64(b.N)/1000, "wall-ms/call")
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N)/1000, "cpu-ms/call")
}

// BenchmarkClaudeHookProcess is a claude-hook process with a 200-rule
// policy and no export: the baseline of the two below.
func BenchmarkClaudeHookProcess(b *testing.B) { benchClaudeHook(b, "", nil) }

// refused is an export to a collector that refuses connections.
const refused = `"export": {"otlp": {"endpoint": "http://127.0.0.1:1"}}, `

// BenchmarkClaudeHookProcessExportBackoff: the collector is down and the
// last drain left its outage in the cursor, with a next attempt not due
// yet: the hook reads the cursor and starts nothing.
func BenchmarkClaudeHookProcessExportBackoff(b *testing.B) {
	benchClaudeHook(b, refused, func(b *testing.B, log string) {
		c := `{"version":1,"outage":{"since":"2026-01-01T00:00:00Z","attempts":9,"retryAt":"2999-01-01T00:00:00Z"}}`
		if err := os.WriteFile(log+".export.cursor", []byte(c), 0o600); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkClaudeHookProcessExportBusy: the collector is down and a drain
// holds the export lock (retrying): the hook sees the lock taken and
// starts nothing.
func BenchmarkClaudeHookProcessExportBusy(b *testing.B) {
	benchClaudeHook(b, refused, func(b *testing.B, log string) {
		f, err := os.OpenFile(log+".export.lock", os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			b.Fatal(err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { f.Close() })
	})
}

// BenchmarkClaudeHookProcessExportUp: the collector accepts: after each
// answer the hook starts a detached drain (unless the last one still
// holds the lock). What the hook pays for starting it is in its times;
// the drains' own are not.
func BenchmarkClaudeHookProcessExportUp(b *testing.B) {
	col := otlptest.New(b)
	benchClaudeHook(b, `"export": {"otlp": {"endpoint": "`+col.URL+`"}}, `, func(b *testing.B, log string) {
		b.Cleanup(func() {
			// The drains end before the directory is removed.
			for deadline := time.Now().Add(time.Minute); drainsRunning() && time.Now().Before(deadline); {
				time.Sleep(10 * time.Millisecond)
			}
		})
	})
}

// drainsRunning reports whether a process runs the built binary (Linux:
// /proc).
func drainsRunning() bool {
	exes, _ := filepath.Glob("/proc/[0-9]*/exe")
	for _, e := range exes {
		if target, err := os.Readlink(e); err == nil && target == pluginBin {
			return true
		}
	}
	return false
}
