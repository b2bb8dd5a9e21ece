package integration_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// benchProc is a running binary started by benchPlugin.
type benchProc struct {
	cmd   *exec.Cmd
	stdin io.Writer
	out   *bufio.Reader
}

// writeGlobalPolicy writes text as pi's global policy file of the agent
// directory root/agent, making the folders above it.
func writeGlobalPolicy(b *testing.B, root, text string) {
	b.Helper()
	cfg := filepath.Join(root, "agent", "extensions", "pi-permission-system", "config.json")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o700); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte(text), 0o600); err != nil {
		b.Fatal(err)
	}
}

// denyRules is n bash deny rules, each after a comma, none of which
// matches a command the benchmarks run.
func denyRules(n int) string {
	var sb strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&sb, `, "tool%d sub%d *": "deny"`, i, i)
	}
	return sb.String()
}

// benchPlugin starts the built binary with a global policy of n bash rules
// and returns it after initialize was answered, with the time that took.
func benchPlugin(b *testing.B, rules int) (*benchProc, time.Duration) {
	b.Helper()
	if buildErr != nil {
		b.Fatalf("toolgate did not build: %v", buildErr)
	}
	root := b.TempDir()
	writeGlobalPolicy(b, root, `{"permission": {"*": "ask", "bash": {"*": "ask"`+denyRules(rules)+`}}}`)
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
	out := bufio.NewReader(stdout)
	if _, err := out.ReadBytes('\n'); err != nil {
		b.Fatal(err)
	}
	took := time.Since(start)
	b.Cleanup(func() { stdin.Close(); _ = cmd.Wait() })
	return &benchProc{cmd: cmd, stdin: stdin, out: out}, took
}

// BenchmarkStartupToInitialize: process start to initialize answered
// (the design budget: under 10 ms), with a 200-rule policy.
func BenchmarkStartupToInitialize(b *testing.B) {
	var total time.Duration
	for i := 0; i < b.N; i++ {
		_, took := benchPlugin(b, 200)
		total += took
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N)/1000, "ms/start")
}

// BenchmarkResidentMemory10000Rules: resident memory once a 10,000-rule
// policy is loaded (the design budget: under 30 MB).
func BenchmarkResidentMemory10000Rules(b *testing.B) {
	var worst float64
	for i := 0; i < b.N; i++ {
		p, _ := benchPlugin(b, 10000)
		if rss := residentMB(p.cmd.Process.Pid); rss > worst {
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

// BenchmarkToolCall64KiBBash: a tool_call whose bash command is 64 KiB of
// everyday statements (about 2,700 commands), decided by the binary with a
// 200-rule policy: the bash analysis of the design inside a whole decision
// (decoding, every unit matched against the policy, the audit record).
func BenchmarkToolCall64KiBBash(b *testing.B) {
	bench64KiBCall(b, func(i int) string {
		return []string{
			`cd /tmp/project && npm install --save-dev typescript@5 2>&1 | tail -5`,
			`for f in src/*.ts; do echo "$f"; wc -l "$f"; done`,
			`git log --oneline -n 20 -- src/ | head -3`,
			`find . -name '*.py' -not -path './node_modules/*' | xargs grep -n TODO`,
			`bash -c 'echo inline && ls -la ~/projects'`,
		}[i%5]
	})
}

// BenchmarkToolCall64KiBDistinct: a tool_call of 64 KiB of short commands
// no two alike (about 5,000 units, each its own line in the prompt), the
// case where the gates' work per unit once grew with the number of units.
func BenchmarkToolCall64KiBDistinct(b *testing.B) {
	bench64KiBCall(b, func(i int) string { return fmt.Sprintf("echo w%d; ls d%d", i, i) })
}

// bench64KiBCall decides a tool_call of as many statements as fit in 64 KiB,
// statement i being stmt(i).
func bench64KiBCall(b *testing.B, stmt func(i int) string) {
	p, _ := benchPlugin(b, 200)
	var cmd strings.Builder
	for i := 0; ; i++ {
		s := stmt(i) + "\n"
		if cmd.Len()+len(s) > 64*1024 {
			break
		}
		cmd.WriteString(s)
	}
	params, err := json.Marshal(map[string]any{"toolCallId": "c", "toolName": "bash",
		"input": map[string]any{"command": cmd.String()}})
	if err != nil {
		b.Fatal(err)
	}
	line := []byte(`{"jsonrpc":"2.0","id":2,"method":"tool_call","params":` + string(params) + "}\n")
	for b.Loop() {
		if _, err := p.stdin.Write(line); err != nil {
			b.Fatal(err)
		}
		for {
			resp, err := p.out.ReadBytes('\n')
			if err != nil {
				b.Fatal(err)
			}
			if strings.Contains(string(resp), `"id":2`) {
				if !strings.Contains(string(resp), `"action":"block"`) {
					b.Fatalf("a 64 KiB command of asks was not blocked: %.200s", resp)
				}
				break
			}
		}
	}
}
