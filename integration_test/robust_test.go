package integration_test

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// unreadCalls is how many calls TestUnreadHostBoundsMemory writes; the
// issue's figure is 100,000 (go test ./integration_test/ -run Unread
// -unread-calls=100000, under a minute on two busy cores); the suite uses
// fewer to stay quick. Either is far more than toolgate holds in flight.
var unreadCalls = flag.Int("unread-calls", 10000, "calls written by TestUnreadHostBoundsMemory before any answer is read")

// TestUnreadHostBoundsMemory: a host writes many calls and reads none of the
// answers. toolgate stops reading stdin (the host's writes stall) and its
// resident memory stays under 64 MB; once the host reads, every call is
// answered exactly once and has exactly one audit record (PROTOCOL.md,
// flow control).
func TestUnreadHostBoundsMemory(t *testing.T) {
	n := *unreadCalls
	p := startLive(t, `{"permission": {"*": "ask", "bash": {"*": "allow", "rm *": "deny", "make *": "ask"}}}`)
	p.initialize(t, false)
	var written atomic.Int64
	writeErr := make(chan error, 1)
	go func() {
		w := bufio.NewWriterSize(p.stdin, 64<<10)
		for i := 0; i < n; i++ {
			cmd := fmt.Sprintf("ls -la dir%d", i)
			switch i % 10 {
			case 3:
				cmd = "rm -rf build" + strconv.Itoa(i)
			case 7:
				cmd = "make deploy" // asks; no UI: confirmation_unavailable
			}
			b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": i, "method": "tool_call",
				"params": map[string]any{"toolCallId": fmt.Sprintf("c%d", i), "toolName": "bash", "input": map[string]any{"command": cmd}}})
			if _, err := w.Write(append(b, '\n')); err != nil {
				writeErr <- err
				return
			}
			written.Store(int64(i + 1))
		}
		writeErr <- w.Flush()
	}()
	// Wait until the host's writes stall: toolgate has stopped reading.
	last, still := int64(-1), 0
	for still < 10 {
		time.Sleep(100 * time.Millisecond)
		if now := written.Load(); now == last {
			still++
		} else {
			last, still = now, 0
		}
	}
	if last >= int64(n) {
		t.Fatalf("all %d calls were read with no answer read: toolgate buffers without bound", n)
	}
	rssUnread := procStatus(t, p.cmd.Process.Pid, "VmRSS")
	answers := map[string]int{}
	for len(answers) < n {
		m := p.read(t)
		if m.Method != "" {
			continue // decision notifications
		}
		if m.Result == nil {
			t.Fatalf("unexpected message %+v", m)
		}
		var r struct {
			Action   string `json:"action"`
			Decision struct {
				Resolution string `json:"resolution"`
			} `json:"decision"`
		}
		if err := json.Unmarshal(m.Result, &r); err != nil {
			t.Fatal(err)
		}
		i, err := strconv.Atoi(string(m.ID))
		if err != nil {
			t.Fatalf("answer with id %s", m.ID)
		}
		want := map[int]string{3: "policy_deny", 7: "confirmation_unavailable"}[i%10]
		if want == "" {
			want = "policy_allow"
		}
		if r.Decision.Resolution != want {
			t.Fatalf("call %d: %s, want %s", i, m.Result, want)
		}
		answers[string(m.ID)]++
		if answers[string(m.ID)] > 1 {
			t.Fatalf("call %s answered twice", m.ID)
		}
	}
	if err := <-writeErr; err != nil {
		t.Fatal(err)
	}
	peak := procStatus(t, p.cmd.Process.Pid, "VmHWM")
	t.Logf("%d calls: %d kB resident while unread (%d calls written by then), %d kB peak", n, rssUnread, last, peak)
	if peak >= 64<<10 {
		t.Fatalf("peak resident memory %d kB, want under 64 MB", peak)
	}
	p.stdin.Close()
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("exit: %v", err)
	}
	counts := auditDecisions(t, p.audit)
	for i := 0; i < n; i++ {
		if c := counts[fmt.Sprintf("c%d", i)]; c != 1 {
			t.Fatalf("call c%d has %d audit records, want 1", i, c)
		}
	}
}

// procStatus reads one kB field of /proc/PID/status.
func procStatus(t *testing.T, pid int, field string) int {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatalf("reading /proc: %v", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			if err != nil {
				t.Fatalf("bad %s line %q", field, line)
			}
			return kb
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// TestTooLongCallAnsweredByID: a tool_call line longer than the 32 MiB
// limit is not kept, but its id is read from its top level, so it is
// answered by that id with a block (invalid_request); the next call is
// served (issue 13, item 7).
func TestTooLongCallAnsweredByID(t *testing.T) {
	p := startLive(t, `{"permission": {"*": "allow", "bash": {"*": "allow"}}}`)
	p.initialize(t, false)
	long := strings.Repeat("a", 33<<20)
	line := `{"jsonrpc":"2.0","method":"tool_call","params":{"toolCallId":"big","toolName":"bash","input":{"command":"echo ` + long + `"}},"id":"big-1"}` + "\n"
	go func() { _, _ = p.stdin.Write([]byte(line)) }()
	m := p.read(t)
	for m.Method != "" {
		m = p.read(t)
	}
	var r struct {
		Action   string `json:"action"`
		Decision struct {
			Resolution string `json:"resolution"`
		} `json:"decision"`
	}
	if err := json.Unmarshal(m.Result, &r); err != nil || string(m.ID) != `"big-1"` || r.Action != "block" || r.Decision.Resolution != "invalid_request" {
		t.Fatalf("answer %s %s %s, want id big-1 blocked as invalid_request", m.ID, m.Result, m.Error)
	}
	p.send(t, map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tool_call",
		"params": map[string]any{"toolCallId": "c2", "toolName": "bash", "input": map[string]any{"command": "ls"}}})
	for m = p.read(t); m.Method != ""; m = p.read(t) {
	}
	if string(m.ID) != "2" || !strings.Contains(string(m.Result), `"allow"`) {
		t.Fatalf("next call: %s %s", m.ID, m.Result)
	}
}
