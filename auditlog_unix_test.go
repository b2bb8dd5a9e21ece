//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// An audit log that is not a regular file — a FIFO, a link to /dev/null —
// is not written: toolgate starts, warns in initialize, and blocks every
// call with a reason naming the file (a FIFO does not hang it).
func TestServeBlocksOnALogThatIsNoFile(t *testing.T) {
	dir := isolatedHome(t)
	writeGlobal(t, dir, `{"permission": {"*": "allow", "bash": {"*": "allow"}}}`)
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	null := filepath.Join(dir, "null.jsonl")
	if err := os.Symlink("/dev/null", null); err != nil {
		t.Fatal(err)
	}
	for _, log := range []string{fifo, null} {
		in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"cwd":"` + dir + `"}}` + "\n" +
			`{"jsonrpc":"2.0","id":2,"method":"tool_call","params":{"toolCallId":"c1","toolName":"bash","input":{"command":"ls"}}}` + "\n")
		var out, errOut bytes.Buffer
		done := make(chan int)
		go func() { done <- run([]string{"serve", "--audit-log", log}, in, &out, &errOut) }()
		select {
		case code := <-done:
			if code != 0 {
				t.Fatalf("%s: serve exit %d\n%s", log, code, errOut.String())
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("%s: serve hangs", log)
		}
		var answers []map[string]any
		for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatalf("%s: not JSON: %s", log, line)
			}
			answers = append(answers, m)
		}
		init, _ := json.Marshal(answers[0])
		if !strings.Contains(string(init), "the audit log cannot be written") || !strings.Contains(string(init), log) {
			t.Errorf("%s: initialize does not warn about the log:\n%s", log, init)
		}
		last := answers[len(answers)-1]
		res, _ := last["result"].(map[string]any)
		reason, _ := res["reason"].(string)
		if res["action"] != "block" || !strings.Contains(reason, log) || !strings.Contains(reason, "not a regular file") {
			t.Errorf("%s: the call was not blocked naming the log: %v", log, last)
		}
	}
}
