package integration_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// benchPlugin starts the built binary with a global policy of n bash rules
// and returns it after initialize was answered, with the time that took.
func benchPlugin(b *testing.B, rules int) (*exec.Cmd, time.Duration) {
	b.Helper()
	if buildErr != nil {
		b.Fatalf("toolgate did not build: %v", buildErr)
	}
	root := b.TempDir()
	cfg := filepath.Join(root, "agent", "extensions", "pi-permission-system", "config.json")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o700); err != nil {
		b.Fatal(err)
	}
	var sb strings.Builder
	sb.WriteString(`{"permission": {"*": "ask", "bash": {"*": "ask"`)
	for i := 0; i < rules; i++ {
		fmt.Fprintf(&sb, `, "tool%d sub%d *": "deny"`, i, i)
	}
	sb.WriteString(`}}}`)
	if err := os.WriteFile(cfg, []byte(sb.String()), 0o600); err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(pluginBin, "--audit-log", filepath.Join(root, "audit.jsonl"))
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + root, "PI_CODING_AGENT_DIR=" + filepath.Join(root, "agent")}
	cmd.Dir = root
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	fmt.Fprintf(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"cwd":%q}}`+"\n", root)
	if _, err := bufio.NewReader(stdout).ReadBytes('\n'); err != nil {
		b.Fatal(err)
	}
	took := time.Since(start)
	b.Cleanup(func() { stdin.Close(); _ = cmd.Wait() })
	return cmd, took
}

// BenchmarkStartupToInitialize: process start to initialize answered
// (SPEC §8 budget: under 10 ms), with a 200-rule policy.
func BenchmarkStartupToInitialize(b *testing.B) {
	var total time.Duration
	for i := 0; i < b.N; i++ {
		_, took := benchPlugin(b, 200)
		total += took
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N)/1000, "ms/start")
}

// BenchmarkResidentMemory10000Rules: resident memory once a 10,000-rule
// policy is loaded (SPEC §8 budget: under 30 MB).
func BenchmarkResidentMemory10000Rules(b *testing.B) {
	var worst float64
	for i := 0; i < b.N; i++ {
		cmd, _ := benchPlugin(b, 10000)
		if rss := residentMB(cmd.Process.Pid); rss > worst {
			worst = rss
		}
	}
	b.ReportMetric(worst, "rss-MB")
}

func residentMB(pid int) float64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			f := strings.Fields(line)
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return -1
}
