//go:build linux

package hook

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/rs/zerolog"
)

// TestKeptAuditFailureAsFresh: when the audit record of a call answered
// from a kept encoding cannot be written (the file size limit is reached),
// the call is blocked exactly as a call encoded afresh is (the same
// answer, one failed write counted), and the session goes on as before.
func TestKeptAuditFailureAsFresh(t *testing.T) {
	kept, keptN := keptFailureSession(t, false)
	fresh, _ := keptFailureSession(t, true)
	if keptN == 0 {
		t.Fatal("no call was answered from a kept encoding")
	}
	if strings.Join(kept, "\n") != strings.Join(fresh, "\n") {
		t.Fatalf("kept:\n%s\nfresh:\n%s", strings.Join(kept, "\n"), strings.Join(fresh, "\n"))
	}
	blocked := 0
	for _, m := range kept {
		if strings.Contains(m, "the audit log cannot be written") {
			blocked++
		}
	}
	if blocked != 2 {
		t.Fatalf("%d calls blocked by the failed writes, want 2:\n%s", blocked, strings.Join(kept, "\n"))
	}
}

func keptFailureSession(t *testing.T, fresh bool) ([]string, uint64) {
	dir := t.TempDir()
	wirePolicy(t, dir)
	audit := filepath.Join(dir, "audit.jsonl")
	s := New(Options{Cwd: dir, Home: dir, AgentDir: filepath.Join(dir, "agent"), AuditLog: audit, Log: zerolog.Nop()})
	s.noKept = fresh
	c := servePipes(t, s)
	inW, r := c.w, c.r
	var out []string
	id := 0
	call := func() {
		t.Helper()
		id++
		fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":%d,"method":"tool_call","params":{"toolCallId":"c%d","toolName":"bash","input":{"command":"git status"}}}`+"\n", id, id)
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, strings.ReplaceAll(string(line), dir, "$DIR"))
			if strings.HasPrefix(string(line), fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,`, id)) {
				return
			}
		}
	}
	fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"cwd":%q,"hasUI":false}}`+"\n", dir)
	if _, err := r.ReadBytes('\n'); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 4; i++ {
		call()
	}
	fi, err := os.Stat(audit)
	if err != nil {
		t.Fatal(err)
	}
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Fatal(err)
	}
	limit := old
	limit.Cur = uint64(fi.Size())
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &limit); err != nil {
		t.Fatal(err)
	}
	call()
	call()
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Fatal(err)
	}
	call()
	call()
	inW.Close()
	return append(out, auditCut(t, audit, dir, "$DIR")...), s.keptCalls.Load()
}
