package hook

import (
	"bytes"
	"path/filepath"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// TestPhaseTimer: the phases of a call are the spans between its steps in
// order; a call that leaves the fast path, or steps out of order, are not
// recorded and do not disturb the next call.
func TestPhaseTimer(t *testing.T) {
	clock := time.Unix(0, 0)
	var got []phases
	hook := phaseTimer(func() time.Time { return clock }, func(p phases) { got = append(got, p) })
	run := func(steps ...string) {
		for i, s := range steps {
			clock = clock.Add(time.Duration(i+1) * time.Microsecond)
			hook(s)
		}
	}
	run("read", "precheck", "decide", "frame", "sent")
	run("read", "precheck") // needs a prompt: leaves the fast path
	run("read", "precheck", "frame", "sent")
	run("decide", "frame", "sent")
	run("read", "precheck", "decide", "frame", "sent")
	want := phases{2 * time.Microsecond, 3 * time.Microsecond, 4 * time.Microsecond, 5 * time.Microsecond}
	if len(got) != 2 || got[0] != want || got[1] != want {
		t.Fatalf("recorded %v, want twice %v", got, want)
	}
}

// TestFastPathMarksEveryStep: a call on the fast path passes the steps
// the phase timer expects, in order.
func TestFastPathMarksEveryStep(t *testing.T) {
	dir := t.TempDir()
	wirePolicy(t, dir)
	var in bytes.Buffer
	in.WriteString(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"cwd":"` + dir + `","hasUI":false}}` + "\n")
	in.WriteString(`{"jsonrpc":"2.0","id":1,"method":"tool_call","params":{"toolCallId":"c1","toolName":"bash","input":{"command":"git status"}}}` + "\n")
	var out bytes.Buffer
	s := New(Options{Cwd: dir, Home: dir, AgentDir: filepath.Join(dir, "agent"), AuditLog: filepath.Join(dir, "audit.jsonl"), Log: zerolog.Nop()})
	var got []phases
	s.fastHook = phaseTimer(time.Now, func(p phases) { got = append(got, p) })
	if err := s.Serve(&in, &out); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || s.fastCalls.Load() != 1 {
		t.Fatalf("%d calls timed, %d on the fast path; want 1 and 1 (answers %q)", len(got), s.fastCalls.Load(), out.String())
	}
}
