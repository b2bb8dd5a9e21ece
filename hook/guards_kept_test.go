package hook

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/toolgate/toolgate/gates"
)

// TestKeptGuardsAreBuilt: a session whose protected paths change under it
// (the project's .pi appears as a link to another folder of the project,
// is replaced by a folder, by a link again, and goes) answers every write
// as the same session whose calls each build their guard set
// (gates.KeepGuards(false)) answers it; and a write through the link's
// target to the project's agents folder asks, as a change to toolgate's
// own files, whenever .pi is that link.
func TestKeptGuardsAreBuilt(t *testing.T) {
	taken := gates.KeptGuardsTaken()
	kept, keptAsked := guardsSession(t, true)
	if gates.KeptGuardsTaken() == taken {
		t.Error("no call took the guard set of the one before")
	}
	taken = gates.KeptGuardsTaken()
	built, builtAsked := guardsSession(t, false)
	if gates.KeptGuardsTaken() != taken {
		t.Error("a call took a kept guard set with KeepGuards(false)")
	}
	sameRuns(t, "kept", kept, "built", built)
	if keptAsked != 12 || builtAsked != 12 {
		t.Errorf("%d and %d writes asked as changes to toolgate's own files, want 12 each", keptAsked, builtAsked)
	}
}

// guardsSession runs the script and returns its answers (the world's root
// spelled $ROOT) and how many writes were asked as changes to toolgate's
// own files; with keep, calls may take the guard set of the call before.
func guardsSession(t *testing.T, keep bool) ([]string, int) {
	defer gates.KeepGuards(keep)()
	root := realTempDir(t)
	agentDir := filepath.Join(root, "agent")
	work := filepath.Join(root, "work")
	hidden := filepath.Join(work, "hidden")
	mkdirs(t, filepath.Join(work, "src"), filepath.Join(hidden, "agents"))
	writePiConfig(t, agentDir, `{"permission": {"*": "ask", "write": "allow", "read": "allow", "bash": {"*": "ask", "echo *": "allow"}}}`)
	s := New(Options{Cwd: work, Home: root, AgentDir: agentDir, AuditLog: filepath.Join(root, "audit.jsonl"), Log: zerolog.Nop()})
	c := servePipes(t, s)
	id := 0
	send := func(method, params string) string {
		t.Helper()
		id++
		line := c.roundTrip(t, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", id, method, params))
		return strings.ReplaceAll(string(line), root, "$ROOT")
	}
	send("initialize", fmt.Sprintf(`{"protocolVersion":1,"cwd":%q,"hasUI":false}`, work))
	var out []string
	asked := 0
	writes := func(protected bool) {
		t.Helper()
		for i := range 3 {
			for _, in := range []string{
				fmt.Sprintf(`{"path":"hidden/agents/a%d.md","content":"x"}`, i),
				fmt.Sprintf(`{"path":"src/b%d.ts","content":"x"}`, i),
			} {
				a := send("tool_call", fmt.Sprintf(`{"toolCallId":"w%d","toolName":"write","input":%s}`, id, in))
				out = append(out, a)
				toTarget := strings.Contains(in, "hidden/agents")
				if own := ownFiles(a); own != (protected && toTarget) {
					t.Errorf("write %s with .pi a link %v: answered %s", in, protected, a)
				} else if own {
					asked++
				}
			}
			a := send("tool_call", fmt.Sprintf(`{"toolCallId":"b%d","toolName":"bash","input":{"command":"echo x > hidden/agents/c%d.md"}}`, id, i))
			out = append(out, a)
			if own := ownFiles(a); own != protected {
				t.Errorf("bash write with .pi a link %v: answered %s", protected, a)
			} else if own {
				asked++
			}
		}
	}
	do := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	pi := filepath.Join(work, ".pi")
	writes(false)
	do(os.Symlink("hidden", pi)) // work/.pi/agents is work/hidden/agents now
	writes(true)
	do(os.Remove(pi))
	do(os.Mkdir(pi, 0o700)) // a folder of its own: hidden/agents is no own file
	writes(false)
	do(os.Remove(pi))
	do(os.Symlink(hidden, pi)) // the link again, absolute
	writes(true)
	do(os.Remove(pi))
	writes(false)
	return out, asked
}

// ownFiles reports whether an answer (JSON, which escapes its < and >)
// names the floor of toolgate's own files.
func ownFiles(answer string) bool {
	return strings.Contains(answer, strings.NewReplacer("<", `\u003c`, ">", `\u003e`).Replace(gates.SentinelProtected))
}
