package hook

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"
)

// The cross-call memory of directories' real paths never outlives a
// change: when toolgate's own agents directory is replaced mid-session by
// a symlink to an outside directory, the next write there is a change of
// toolgate's own files, asked (not allowed from a stale real path).
func TestDirCacheSeesReplacedDirectory(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	agentDir := filepath.Join(root, "agent")
	work, outside := filepath.Join(root, "work"), filepath.Join(root, "outside")
	for _, d := range []string{filepath.Join(agentDir, "extensions", "pi-permission-system"), filepath.Join(agentDir, "agents"), work, outside} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	cfg := filepath.Join(agentDir, "extensions", "pi-permission-system", "config.json")
	if err := os.WriteFile(cfg, []byte(`{"permission": {"*": "allow"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := New(Options{Cwd: work, Home: root, AgentDir: agentDir, AuditLog: filepath.Join(root, "audit.jsonl"), Log: zerolog.Nop()})
	go func() { _ = s.Serve(inR, outW); outW.Close() }()
	defer inW.Close()
	r := bufio.NewReader(outR)
	call := func(id int, method, params string) map[string]any {
		t.Helper()
		fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", id, method, params)
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(line), `"method":"decision"`) {
				continue
			}
			var m map[string]any
			if err := json.Unmarshal(line, &m); err != nil {
				t.Fatal(err)
			}
			return m
		}
	}
	call(1, "initialize", fmt.Sprintf(`{"protocolVersion":1,"cwd":%q,"hasUI":false}`, work))
	target := filepath.Join(outside, "reviewer.md")
	write := fmt.Sprintf(`{"toolCallId":"w","toolName":"write","input":{"path":%q,"content":"x"}}`, target)
	action := func(id int) string {
		res, _ := call(id, "tool_call", write)["result"].(map[string]any)
		a, _ := res["action"].(string)
		return a
	}
	for i := 2; i < 6; i++ { // warm: the real paths are remembered now
		if a := action(i); a != "allow" {
			t.Fatalf("call %d: %s before the change", i, a)
		}
	}
	agents := filepath.Join(agentDir, "agents")
	if err := os.Remove(agents); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, agents); err != nil {
		t.Fatal(err)
	}
	if a := action(7); a != "block" {
		t.Fatalf("after the agents directory became a link to %s, a write there was %s, want block (toolgate's own files are asked; no UI)", outside, a)
	}
	// The project's .pi does not exist yet: its agents directory is
	// remembered as missing. Made a link to an outside directory, writes
	// there are writes to the project's agent files.
	other := filepath.Join(root, "other")
	if err := os.MkdirAll(filepath.Join(other, "agents"), 0o700); err != nil {
		t.Fatal(err)
	}
	target = filepath.Join(other, "agents", "x.md")
	write = fmt.Sprintf(`{"toolCallId":"w","toolName":"write","input":{"path":%q,"content":"x"}}`, target)
	for i := 8; i < 11; i++ {
		if a := action(i); a != "allow" {
			t.Fatalf("call %d: %s before .pi existed", i, a)
		}
	}
	if err := os.Symlink(other, filepath.Join(work, ".pi")); err != nil {
		t.Fatal(err)
	}
	if a := action(12); a != "block" {
		t.Fatalf("after .pi became a link to %s, a write to its agents was %s, want block", other, a)
	}
}

// The cache also keeps entries directly in the working directory (it is
// watched): a file there replaced by a link into toolgate's own files, or
// a directory there replaced by one, is seen by the next call.
func TestDirCacheSeesReplacedEntry(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	agentDir := filepath.Join(root, "agent")
	work := filepath.Join(root, "work")
	own := filepath.Join(agentDir, "agents")
	for _, d := range []string{filepath.Join(agentDir, "extensions", "pi-permission-system"), own, filepath.Join(work, "src")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	cfg := filepath.Join(agentDir, "extensions", "pi-permission-system", "config.json")
	if err := os.WriteFile(cfg, []byte(`{"permission": {"*": "allow"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	notes := filepath.Join(work, "notes.md")
	if err := os.WriteFile(notes, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := New(Options{Cwd: work, Home: root, AgentDir: agentDir, AuditLog: filepath.Join(root, "audit.jsonl"), Log: zerolog.Nop()})
	go func() { _ = s.Serve(inR, outW); outW.Close() }()
	defer inW.Close()
	r := bufio.NewReader(outR)
	id := 0
	action := func(path string) string {
		t.Helper()
		id++
		fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":%d,"method":"tool_call","params":{"toolCallId":"w","toolName":"write","input":{"path":%q,"content":"x"}}}`+"\n", id, path)
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(line), `"method":"decision"`) {
				continue
			}
			var m map[string]any
			if err := json.Unmarshal(line, &m); err != nil {
				t.Fatal(err)
			}
			res, _ := m["result"].(map[string]any)
			a, _ := res["action"].(string)
			return a
		}
	}
	fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"cwd":%q,"hasUI":false}}`+"\n", work)
	if _, err := r.ReadBytes('\n'); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ { // warm: work/notes.md and work/src are kept now
		if a := action("notes.md"); a != "allow" {
			t.Fatalf("notes.md: %s before the change", a)
		}
		if a := action("src/x.md"); a != "allow" {
			t.Fatalf("src/x.md: %s before the change", a)
		}
	}
	if err := os.Remove(notes); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(own, "x.md"), notes); err != nil {
		t.Fatal(err)
	}
	if a := action("notes.md"); a != "block" {
		t.Fatalf("after notes.md became a link into toolgate's own agents, a write to it was %s, want block", a)
	}
	if err := os.Remove(filepath.Join(work, "src")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(own, filepath.Join(work, "src")); err != nil {
		t.Fatal(err)
	}
	if a := action("src/x.md"); a != "block" {
		t.Fatalf("after src became a link to toolgate's own agents, a write below it was %s, want block", a)
	}
}
