package hook

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/toolgate/toolgate/internal/testmount"
)

// A session with the memo of evaluations (gates.Evals) answers and audits
// every call of a script as a session without it, while the script
// repeats calls and changes the file system, the policy file and the
// working directory between two identical calls; and the memo is used.
func TestEvalsSessionAnswersAsWithout(t *testing.T) {
	on, hits := evalsSession(t, false)
	off, _ := evalsSession(t, true)
	sameRuns(t, "memo", on, "without", off)
	if hits == 0 {
		t.Error("the memo answered no call")
	}
	t.Logf("%d answers and records, %d calls answered from the memo", len(on), hits)
	changed := 0
	for i := 1; i < len(off); i++ {
		if off[i] != off[i-1] {
			changed++
		}
	}
	if changed < 6 {
		t.Errorf("the script's changes changed only %d answers", changed)
	}
}

// evalsSession runs the script in a fresh world and returns each answer
// and audit record (the world's root spelled $ROOT, times and chain left
// out) and the memo's hits.
func evalsSession(t *testing.T, noEvals bool) ([]string, uint64) {
	root := realTempDir(t)
	agentDir := filepath.Join(root, "agent")
	work, other, outside := filepath.Join(root, "work"), filepath.Join(root, "other"), filepath.Join(root, "outside")
	mkdirs(t, filepath.Join(work, "src"), filepath.Join(work, "docs", "guide"), filepath.Join(other, "src"), outside)
	writeFile := func(p, text string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	policy := `{"permission": {"*": "ask", "read": "allow", "grep": "allow", "find": "allow", "write": {"*": "ask", "src/*": "allow"},
	  "path": {"*.env": "deny"}, "bash": {"*": "ask", "git *": "allow", "cat *": "allow", "echo *": "allow"}, "external_directory": "ask"}}`
	cfg := writePiConfig(t, agentDir, policy)
	writeFile(filepath.Join(work, "src", "index.ts"), "x")
	writeFile(filepath.Join(work, "docs", "guide", "a.md"), "x")
	writeFile(filepath.Join(outside, "x.txt"), "x")
	audit := filepath.Join(root, "audit.jsonl")

	s := New(Options{Cwd: work, Home: root, AgentDir: agentDir, AuditLog: audit, Log: zerolog.Nop()})
	s.noEvals = noEvals
	c := servePipes(t, s)
	id := 0
	send := func(method, params string) string {
		t.Helper()
		id++
		line := c.roundTrip(t, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", id, method, params))
		return strings.ReplaceAll(string(line), root, "$ROOT")
	}
	var out []string
	tool := func(name, input string) {
		out = append(out, send("tool_call", fmt.Sprintf(`{"toolCallId":"c%d","toolName":%q,"input":%s}`, id, name, input)))
	}
	initialize := func(cwd string) { send("initialize", fmt.Sprintf(`{"protocolVersion":1,"cwd":%q,"hasUI":false}`, cwd)) }
	reinitialize := func(cwd, session string) {
		send("initialize", fmt.Sprintf(`{"protocolVersion":1,"cwd":%q,"hasUI":false,"sessionId":%q}`, cwd, session))
	}
	initialize(work)
	calls := [][2]string{
		{"write", `{"path":"src/index.ts","content":"x"}`},
		{"read", `{"path":"src/index.ts"}`},
		{"bash", `{"command":"echo x > src/index.ts"}`},
		{"grep", `{"pattern":"x","path":"src","glob":"*.env"}`},
		{"find", `{"pattern":"*.env","path":"docs"}`},
		{"read", `{"path":"docs/guide/a.md"}`},
		{"bash", `{"command":"git status"}`},
		{"bash", `{"command":"cat src/*"}`},
		{"run", `{"cmd":"git status"}`},
		{"run", `{"cmd":"echo x","dir":"src"}`},
	}
	round := func() {
		for _, c := range calls {
			tool(c[0], c[1])
			tool(c[0], c[1]) // the same call again
		}
	}
	mustDo := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	round()
	// Again: the answers the policy watch now vouches for (src, docs/guide
	// are watched since the calls were remembered) are kept, asked no
	// more; each change below must be seen by the next call all the same.
	round()
	// A file replaced by a link to outside, then to the audit log.
	mustDo(os.Remove(filepath.Join(work, "src", "index.ts")))
	mustDo(os.Symlink(filepath.Join(outside, "x.txt"), filepath.Join(work, "src", "index.ts")))
	round()
	mustDo(os.Remove(filepath.Join(work, "src", "index.ts")))
	mustDo(os.Symlink(audit, filepath.Join(work, "src", "index.ts")))
	round()
	// New files matching the grep glob, the find pattern, the shell glob.
	writeFile(filepath.Join(work, "src", "k.env"), "")
	writeFile(filepath.Join(work, "docs", "guide", "b.env"), "")
	round()
	// Renamed out of the watched directory, and back in.
	mustDo(os.Rename(filepath.Join(work, "src", "k.env"), filepath.Join(outside, "k.env")))
	round()
	mustDo(os.Rename(filepath.Join(outside, "k.env"), filepath.Join(work, "src", "k.env")))
	round()
	// Permissions of an entry and of the directory.
	mustDo(os.Chmod(filepath.Join(work, "docs", "guide", "a.md"), 0o644))
	mustDo(os.Chmod(filepath.Join(work, "src"), 0o755))
	round()
	// A file system mounted over a watched directory (root, allowed to
	// mount, only), then gone again.
	if src := filepath.Join(work, "src"); os.Geteuid() == 0 && testmount.Tmpfs(src) == nil {
		t.Cleanup(func() { _ = testmount.Unmount(src, true) })
		writeFile(filepath.Join(src, "m.env"), "")
		round()
		mustDo(testmount.Unmount(src, false))
		round()
	}
	// A directory above replaced: docs by a new one, whose guide holds
	// other files.
	mustDo(os.Rename(filepath.Join(work, "docs"), filepath.Join(outside, "docs.old")))
	mustDo(os.MkdirAll(filepath.Join(work, "docs", "guide"), 0o700))
	writeFile(filepath.Join(work, "docs", "guide", "a.md"), "y")
	writeFile(filepath.Join(work, "docs", "guide", "c.env"), "")
	round()
	// A directory replaced by a link to outside.
	mustDo(os.RemoveAll(filepath.Join(work, "docs", "guide")))
	mustDo(os.Symlink(outside, filepath.Join(work, "docs", "guide")))
	round()
	// The policy file edited.
	writeFile(cfg, strings.Replace(strings.Replace(policy, `"read": "allow"`, `"read": "deny"`, 1), `"git *": "allow"`, `"git *": "deny"`, 1))
	round()
	// The policy file edited: run runs its cmd in a shell (the same input
	// is another call: a shell command).
	writeFile(cfg, strings.Replace(policy, `{"permission"`, `{"shellTools": {"run": {"commandArgument": "cmd", "workdirArgument": "dir"}}, "permission"`, 1))
	round()
	// Another working directory, by initialize.
	initialize(other)
	round()
	// Back, in another session (with no UI: a UI would prompt for the
	// calls that ask, which this script does not answer).
	reinitialize(work, "s2")
	round()
	// The working directory moved away, a link to it in its place: the
	// same files under the same names, but the directory cache's answer
	// for the working directory (kept under the watch's generation).
	moved := filepath.Join(outside, "work")
	mustDo(os.Rename(work, moved))
	mustDo(os.Symlink(moved, work))
	round()
	// Audit records, in order, without what differs between two runs.
	c.w.Close()
	data, err := os.ReadFile(audit)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"time", "ts", "prev", "hash", "seq"} {
			delete(m, k)
		}
		b, _ := json.Marshal(m)
		out = append(out, strings.ReplaceAll(string(b), root, "$ROOT"))
	}
	hits, _ := s.evals.Stats()
	return out, hits
}
