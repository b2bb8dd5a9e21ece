package hoste2e

import (
	"bufio"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// StreamJSON runs cmd as a CLI driven over stream-json, the SDK protocol
// of Claude Code and Qwen Code (cmd made with exec.CommandContext, whose
// deadline ends a run that hangs): it writes each of first to stdin as a
// line, answers every can_use_tool control request with ask's response,
// and closes stdin at the result message. With ask nil, stdin is closed
// after first and nothing is answered. It returns the stdout lines, the
// stderr text and what Wait returned; a failed write fails the test.
func StreamJSON(t testing.TB, cmd *exec.Cmd, ask func(map[string]any) map[string]any, first ...map[string]any) (lines []string, stderr string, err error) {
	t.Helper()
	var errs strings.Builder
	cmd.Stderr = &errs
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	send := func(msg map[string]any) {
		b, _ := json.Marshal(msg)
		if _, err := stdin.Write(append(b, '\n')); err != nil {
			t.Errorf("writing to %s: %v", cmd.Path, err)
		}
	}
	for _, msg := range first {
		send(msg)
	}
	if ask == nil {
		_ = stdin.Close()
	}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		var msg map[string]any
		if json.Unmarshal(sc.Bytes(), &msg) != nil {
			continue
		}
		switch msg["type"] {
		case "control_request":
			req, _ := msg["request"].(map[string]any)
			if ask != nil && req["subtype"] == "can_use_tool" {
				send(map[string]any{"type": "control_response", "response": map[string]any{
					"subtype": "success", "request_id": msg["request_id"], "response": ask(req)}})
			}
		case "result":
			if ask != nil {
				_ = stdin.Close()
			}
		}
	}
	err = cmd.Wait()
	return lines, errs.String(), err
}
