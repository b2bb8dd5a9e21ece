package hook

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchCorpus is the mixed workload of integration_test/e2ebench (about
// half bash, the rest file tools and MCP calls), as tool_call lines.
func benchCorpus() [][]byte {
	bash := []string{
		"git status",
		"cd web && npm run lint -- --fix",
		`for f in src/*.ts; do wc -l "$f"; done`,
		"tar czf /tmp/b.tgz src",
		"cat ~/.ssh/config",
		"git log --oneline -n 20 | head -5",
		"npm test 2>&1 | tail -20",
		"ls -la src > /tmp/listing.txt",
		`grep -rn "TODO" src | wc -l`,
		"git diff --stat HEAD~1",
		"make build && ./scripts/release.sh",
		"echo done",
	}
	tools := []struct {
		tool  string
		input map[string]any
	}{
		{"read", map[string]any{"path": "src/index.ts"}},
		{"read", map[string]any{"path": "README.md"}},
		{"edit", map[string]any{"path": "src/util.ts", "oldText": "export {}", "newText": "export const x = 1"}},
		{"write", map[string]any{"path": "src/new.ts", "content": "export {}\n"}},
		{"grep", map[string]any{"pattern": "TODO", "path": "src"}},
		{"find", map[string]any{"pattern": "*.ts", "path": "src"}},
		{"ls", map[string]any{"path": "docs"}},
		{"read", map[string]any{"path": "/etc/hostname"}},
		{"mcp", map[string]any{"tool": "github:list_issues", "arguments": map[string]any{"repo": "a/b"}}},
		{"mcp", map[string]any{"tool": "exa:search", "arguments": map[string]any{"query": "go"}}},
		{"edit", map[string]any{"path": "docs/guide/a.md", "oldText": "a", "newText": "b"}},
		{"grep", map[string]any{"pattern": "x", "path": "test"}},
	}
	var out [][]byte
	add := func(c map[string]any) {
		c["toolCallId"] = "c"
		params, _ := json.Marshal(c)
		out = append(out, []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tool_call","params":%s}`+"\n", len(out)+2, params)))
	}
	for i := range bash {
		add(map[string]any{"toolName": "bash", "input": map[string]any{"command": bash[i]}})
		add(map[string]any{"toolName": tools[i].tool, "input": tools[i].input})
	}
	return out
}

// benchCorpusPolicy is a policy like e2ebench's core.
const benchCorpusPolicy = `{"permission": {"*": "ask",
 "bash": {"*": "ask", "git *": "allow", "git push *": "ask", "npm *": "allow", "ls *": "allow", "cat *": "allow", "echo *": "allow",
   "wc *": "allow", "grep *": "allow", "head *": "allow", "tail *": "allow", "cd *": "allow", "tar *": "allow", "make *": "allow", "rm -rf *": "deny"},
 "read": {"*": "allow"}, "grep": {"*": "allow"}, "find": {"*": "allow"}, "ls": {"*": "allow"},
 "edit": {"*": "ask", "src/*": "allow"}, "write": {"*": "ask", "src/*": "allow"},
 "path": {"*.env": "deny", "~/.ssh/*": "ask"}, "external_directory": {"*": "ask", "/tmp/*": "allow"},
 "mcp": {"*": "ask", "github:*": "allow", "exa:*": "allow"}}}`

// BenchmarkCorpus decides the e2ebench corpus over in-process pipes, one
// call in flight, audit log on; allocations are the whole process's.
func BenchmarkCorpus(b *testing.B) {
	toolgateRuntime(b)
	dir := b.TempDir()
	home, work := filepath.Join(dir, "home"), filepath.Join(dir, "work")
	agentDir := filepath.Join(home, ".pi", "agent")
	for p, c := range map[string]string{
		filepath.Join(agentDir, "extensions", "pi-permission-system", "config.json"): benchCorpusPolicy,
		filepath.Join(home, ".ssh", "config"):                                        "Host *\n",
		filepath.Join(work, "src", "index.ts"):                                       "export {}\n",
		filepath.Join(work, "src", "util.ts"):                                        "export {}\n",
		filepath.Join(work, "web", "package.json"):                                   "{}\n",
		filepath.Join(work, "README.md"):                                             "# x\n",
		filepath.Join(work, "docs", "guide", "a.md"):                                 "a\n",
		filepath.Join(work, "scripts", "release.sh"):                                 "echo\n",
		filepath.Join(work, "test", "util.test.ts"):                                  "x\n",
		filepath.Join(work, "build", "out", "app.js"):                                "x\n",
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o600); err != nil {
			b.Fatal(err)
		}
	}
	c := startServerIn(b, work, home, agentDir, filepath.Join(dir, "audit.jsonl"))
	lines := benchCorpus()
	for _, l := range lines {
		if resp := c.roundTrip(b, l); !strings.Contains(string(resp), `"action"`) {
			b.Fatalf("unexpected answer %s", resp)
		}
	}
	if out := os.Getenv("CORPUS_AUDIT_COPY"); out != "" {
		data, _ := os.ReadFile(filepath.Join(dir, "audit.jsonl"))
		_ = os.WriteFile(out, data, 0o600)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.roundTrip(b, lines[i%len(lines)])
	}
}
