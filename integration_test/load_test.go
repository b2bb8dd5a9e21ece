package integration_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/toolgate/toolgate/hook/audit"
)

// livePlugin is a toolgate process driven directly (for tests that do not
// fit the transcript format: load, kill -9).
type livePlugin struct {
	cmd   *exec.Cmd
	mu    sync.Mutex
	stdin io.WriteCloser
	out   *bufio.Reader
	audit string
	work  string
}

func startLive(t *testing.T, policy string) *livePlugin {
	t.Helper()
	if buildErr != nil {
		t.Fatalf("toolgate did not build: %v", buildErr)
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	work, home := filepath.Join(root, "work"), filepath.Join(root, "home")
	cfg := filepath.Join(home, ".pi", "agent", "extensions", "pi-permission-system", "config.json")
	for _, d := range []string{work, filepath.Dir(cfg)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(cfg, []byte(policy), 0o600); err != nil {
		t.Fatal(err)
	}
	p := &livePlugin{audit: filepath.Join(home, "audit.jsonl"), work: work}
	p.cmd = exec.Command(pluginBin, "--audit-log", p.audit)
	p.cmd.Dir = work
	p.cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TMPDIR=" + os.TempDir()}
	p.stdin, err = p.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.out = bufio.NewReaderSize(stdout, 1<<20)
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.stdin.Close()
		done := make(chan struct{})
		go func() { _ = p.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = p.cmd.Process.Kill()
		}
	})
	return p
}

func (p *livePlugin) send(t *testing.T, msg any) {
	t.Helper()
	if err := p.write(msg); err != nil {
		t.Fatal(err)
	}
}

// write sends one message; safe from any goroutine.
func (p *livePlugin) write(msg any) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	_, err = p.stdin.Write(append(b, '\n'))
	return err
}

type wireMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
	Params json.RawMessage `json:"params"`
}

func (p *livePlugin) read(t *testing.T) wireMsg {
	t.Helper()
	line, err := p.out.ReadBytes('\n')
	if err != nil {
		t.Fatalf("reading the plugin's stdout: %v", err)
	}
	var m wireMsg
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatalf("non-JSON on stdout: %q", line)
	}
	return m
}

func (p *livePlugin) initialize(t *testing.T, hasUI bool) {
	t.Helper()
	p.send(t, map[string]any{"jsonrpc": "2.0", "id": "init", "method": "initialize",
		"params": map[string]any{"protocolVersion": 1, "cwd": p.work, "hasUI": hasUI, "sessionId": "load"}})
	for {
		if m := p.read(t); string(m.ID) == `"init"` {
			return
		}
	}
}

// exit closes the plugin's stdin and waits for it to exit, which it must
// do cleanly.
func (p *livePlugin) exit(t *testing.T) {
	t.Helper()
	p.stdin.Close()
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("exit: %v", err)
	}
}

// wantOneRecordEach wants the audit log at path to hold one decision
// record for each of the calls c0 to c(n-1).
func wantOneRecordEach(t *testing.T, path string, n int) {
	t.Helper()
	counts := auditDecisions(t, path)
	for i := 0; i < n; i++ {
		if c := counts[fmt.Sprintf("c%d", i)]; c != 1 {
			t.Fatalf("call c%d has %d audit records, want 1", i, c)
		}
	}
}

func auditDecisions(t *testing.T, path string) map[string]int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if n, problem := audit.Verify(f); problem != nil {
		t.Fatalf("audit chain broken after %d records: %v", n, problem)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var rec struct {
			Event      string `json:"event"`
			ToolCallID string `json:"toolCallId"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("bad audit line %q", line)
		}
		if rec.Event == "decision" {
			counts[rec.ToolCallID]++
		}
	}
	return counts
}

// TestThousandConcurrentCalls sends 1,000 pipelined tool_calls, a tenth of
// them prompting, answers every prompt, and checks that every call got
// exactly one answer and exactly one audit record (issue 6).
func TestThousandConcurrentCalls(t *testing.T) {
	const n = 1000
	p := startLive(t, `{"permission": {"*": "ask", "bash": {"*": "allow", "make *": "ask"}}}`)
	p.initialize(t, true)
	go func() {
		for i := 0; i < n; i++ {
			cmd := fmt.Sprintf("ls -la dir%d", i)
			if i%10 == 0 {
				cmd = fmt.Sprintf("make deploy-%d", i)
			}
			if err := p.write(map[string]any{"jsonrpc": "2.0", "id": i, "method": "tool_call",
				"params": map[string]any{"toolCallId": fmt.Sprintf("c%d", i), "toolName": "bash", "input": map[string]any{"command": cmd}}}); err != nil {
				return // the reader reports the missing answers
			}
		}
	}()
	// The prompts' answers go out from a goroutine of their own: the
	// feeder may hold the write lock while blocked on toolgate's stdin,
	// and toolgate reads its stdin only while its stdout is read — the
	// loop below must never wait for that lock.
	replies := make(chan any, n)
	replyErr := make(chan error, 1)
	go func() {
		for r := range replies {
			if err := p.write(r); err != nil {
				replyErr <- err
				return
			}
		}
	}()
	defer close(replies)
	answers := map[string]int{}
	prompts := 0
	deadline := time.Now().Add(90 * time.Second)
	for len(answers) < n {
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d calls answered", len(answers), n)
		}
		m := p.read(t)
		switch {
		case m.Method == "prompt" && m.ID != nil:
			prompts++
			select {
			case err := <-replyErr:
				t.Fatalf("answering a prompt: %v", err)
			default:
			}
			replies <- map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(m.ID), "result": map[string]any{"choice": "allow_once"}}
		case m.Method != "":
			// decision notifications
		case m.Result != nil:
			var r struct {
				Action string `json:"action"`
			}
			if err := json.Unmarshal(m.Result, &r); err != nil || r.Action != "allow" {
				t.Fatalf("call %s: %s", m.ID, m.Result)
			}
			answers[string(m.ID)]++
		default:
			t.Fatalf("unexpected message %+v", m)
		}
	}
	for id, c := range answers {
		if c != 1 {
			t.Fatalf("call %s answered %d times", id, c)
		}
	}
	if prompts != n/10 {
		t.Fatalf("%d prompts, want %d", prompts, n/10)
	}
	p.exit(t)
	wantOneRecordEach(t, p.audit, n)
}

// TestAuditSurvivesKill: a process killed with SIGKILL after answering
// loses no answered record, and the chain still verifies.
func TestAuditSurvivesKill(t *testing.T) {
	const n = 50
	p := startLive(t, `{"permission": {"*": "allow", "bash": {"*": "allow", "rm *": "deny"}}}`)
	p.initialize(t, false)
	for i := 0; i < n; i++ {
		cmd := "ls"
		if i%2 == 1 {
			cmd = "rm -rf build"
		}
		p.send(t, map[string]any{"jsonrpc": "2.0", "id": i, "method": "tool_call",
			"params": map[string]any{"toolCallId": fmt.Sprintf("k%d", i), "toolName": "bash", "input": map[string]any{"command": cmd}}})
	}
	for got := 0; got < n; {
		if m := p.read(t); m.Method == "" && m.Result != nil {
			got++
		}
	}
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = p.cmd.Wait()
	counts := auditDecisions(t, p.audit)
	for i := 0; i < n; i++ {
		if c := counts[fmt.Sprintf("k%d", i)]; c != 1 {
			t.Fatalf("answered call k%d has %d audit records after kill -9, want 1", i, c)
		}
	}
}
