// Package e2ecorpus is the workload of the end-to-end benchmark
// (integration_test/e2ebench): the mixed corpus of calls, the policy of
// about n rules and the project's files, in one place for the benchmark and
// the in-process benchmarks and tests that measure or check the same work.
package e2ecorpus

import (
	"fmt"
	"path/filepath"
	"strings"
)

// PolicyText is a realistic policy of about n rules: a hand-written core
// (bash allows and denies, path rules, MCP, external directories) padded
// with generated rules on the bash and path surfaces.
func PolicyText(n int) string {
	core := [][3]string{
		{"bash", "*", "ask"}, {"bash", "git *", "allow"}, {"bash", "git push *", "ask"}, {"bash", "git push --force *", "deny"},
		{"bash", "npm *", "allow"}, {"bash", "npm publish *", "deny"}, {"bash", "ls *", "allow"}, {"bash", "cat *", "allow"},
		{"bash", "echo *", "allow"}, {"bash", "wc *", "allow"}, {"bash", "grep *", "allow"}, {"bash", "head *", "allow"},
		{"bash", "tail *", "allow"}, {"bash", "cd *", "allow"}, {"bash", "tar *", "allow"}, {"bash", "make *", "allow"},
		{"bash", "go test *", "allow"}, {"bash", "rm -rf *", "deny"}, {"bash", "curl *", "ask"}, {"bash", "sudo *", "deny"},
		{"read", "*", "allow"}, {"grep", "*", "allow"}, {"find", "*", "allow"}, {"ls", "*", "allow"},
		{"edit", "*", "ask"}, {"edit", "src/*", "allow"}, {"write", "*", "ask"}, {"write", "src/*", "allow"},
		{"path", "*.env", "deny"}, {"path", "~/.ssh/*", "ask"}, {"external_directory", "*", "ask"}, {"external_directory", "/tmp/*", "allow"},
		{"mcp", "*", "ask"}, {"mcp", "github:*", "allow"}, {"mcp", "github:delete_repo", "deny"}, {"mcp", "exa:*", "allow"},
	}
	bySurface := map[string][][2]string{}
	var order []string
	add := func(surface, pattern, state string) {
		if _, ok := bySurface[surface]; !ok {
			order = append(order, surface)
		}
		bySurface[surface] = append(bySurface[surface], [2]string{pattern, state})
	}
	for _, r := range core {
		add(r[0], r[1], r[2])
	}
	for i := len(core); i < n; i++ {
		switch i % 4 {
		case 0, 1:
			add("bash", fmt.Sprintf("tool%d sub%d *", i, i), "deny")
		case 2:
			add("path", fmt.Sprintf("/srv/data%d/*", i), "deny")
		default:
			add("mcp", fmt.Sprintf("server%d:*", i), "ask")
		}
	}
	var sb strings.Builder
	sb.WriteString("{\"permission\": {\"*\": \"ask\"")
	for _, surface := range order {
		fmt.Fprintf(&sb, ",\n  %q: {", surface)
		for j, r := range bySurface[surface] {
			if j > 0 {
				sb.WriteString(", ")
			}
			fmt.Fprintf(&sb, "%q: %q", r[0], r[1])
		}
		sb.WriteString("}")
	}
	sb.WriteString("}}\n")
	return sb.String()
}

// Calls is the mixed workload: about half bash (simple and compound
// commands, pipes, loops, redirects, paths inside and outside the
// project), the rest file tools and MCP calls.
func Calls() []map[string]any {
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
	var out []map[string]any
	for i := range bash {
		out = append(out, map[string]any{"toolName": "bash", "input": map[string]any{"command": bash[i]}})
		out = append(out, map[string]any{"toolName": tools[i].tool, "input": tools[i].input})
	}
	return out
}

// Files are the files of the benchmark's world, by path, for a home and a
// project (work) directory; the policy is not among them.
func Files(home, work string) map[string]string {
	return map[string]string{
		filepath.Join(home, ".ssh", "config"):         "Host *\n",
		filepath.Join(work, "src", "index.ts"):        "export {}\n",
		filepath.Join(work, "src", "util.ts"):         "export {}\n",
		filepath.Join(work, "web", "package.json"):    "{}\n",
		filepath.Join(work, "README.md"):              "# x\n",
		filepath.Join(work, ".env"):                   "K=v\n",
		filepath.Join(work, "docs", "guide", "a.md"):  "a\n",
		filepath.Join(work, "scripts", "release.sh"):  "echo\n",
		filepath.Join(work, "test", "util.test.ts"):   "x\n",
		filepath.Join(work, "node_modules", ".keep"):  "",
		filepath.Join(work, "build", "out", "app.js"): "x\n",
	}
}

// UntrustedProjectText is a project file (.toolgate/config.json) as a
// cloned repository might carry it, never trusted: it loosens (allows that
// wait for trust) and tightens (denies that hold at once), so that every
// gate runs on both sides of the policy.
const UntrustedProjectText = `{"permission": {
  "bash": {"*": "allow", "npm publish *": "deny", "curl *": "deny"},
  "edit": {"*": "allow", "docs/*": "deny"},
  "write": {"*": "allow"},
  "path": {"*.pem": "deny"},
  "mcp": {"*": "allow"}
}}
`

// BashCommands are the corpus's bash commands, in order.
func BashCommands() []string {
	var out []string
	for _, c := range Calls() {
		if c["toolName"] == "bash" {
			out = append(out, c["input"].(map[string]any)["command"].(string))
		}
	}
	return out
}

// FreshCallSized is FreshCall(n) with the text a write or an edit carries
// (the write's content, the edit's oldText and newText) made about size
// bytes of source of its own, as an agent writes a whole file or edits a
// function: lines of code with quotes, tabs and line breaks to escape.
// size 0 is FreshCall itself.
func FreshCallSized(n, size int) map[string]any {
	call := FreshCall(n)
	if size <= 0 {
		return call
	}
	input := call["input"].(map[string]any)
	switch call["toolName"] {
	case "write":
		input["content"] = freshSource(n, size)
	case "edit":
		input["oldText"], input["newText"] = freshSource(n, size/2), freshSource(n+1, size/2)
	}
	return call
}

// freshSource is about size bytes of TypeScript that name n.
func freshSource(n, size int) string {
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "export function handler%d_%d(req: Request): Response {\n\tconst name = \"item-%d\";\n\treturn json({ name, n: %d });\n}\n\n", n, i, i, n)
	}
	return b.String()
}

// FreshDirs and FreshFilesPerDir size the tree the fresh corpus works in:
// src/m<d>/f<i>.ts, so that the paths of consecutive calls differ and a
// file's directory is seldom the one the call before asked about.
const (
	// FreshShapes is how many calls the fresh corpus cycles through: call
	// n has the shape of call n+FreshShapes, with its own numbers, text
	// and paths.
	FreshShapes = 24

	FreshDirs        = 64
	FreshFilesPerDir = 16
)

// FreshFiles are the files the fresh corpus touches besides Files.
func FreshFiles(work string) map[string]string {
	out := map[string]string{}
	for d := range FreshDirs {
		for i := range FreshFilesPerDir {
			out[filepath.Join(work, "src", fmt.Sprintf("m%d", d), fmt.Sprintf("f%d.ts", i))] = "export {}\n"
		}
		out[filepath.Join(work, "docs", fmt.Sprintf("d%d", d), "notes.md")] = "a\n"
	}
	return out
}

// FreshCall is the n-th call of the fresh corpus, where no call repeats
// an earlier one: the same mix as Calls (half bash; reads, edits, writes,
// greps, finds, ls and MCP), but every call names its own numbers, words
// and text, and its paths move through FreshFiles' tree (and past it, for
// files that do not exist yet), as a session's calls do.
func FreshCall(n int) map[string]any {
	d, f := (n*7)%FreshDirs, (n*5)%FreshFilesPerDir
	dir := fmt.Sprintf("src/m%d", d)
	file := fmt.Sprintf("%s/f%d.ts", dir, f)
	if n%2 == 0 {
		bash := []string{
			fmt.Sprintf("git log -n %d -- %s", n, file),
			fmt.Sprintf("cd %s && npm run lint -- --fix f%d.ts --max-warnings %d", dir, f, n),
			fmt.Sprintf(`for f in %s/*.ts; do wc -l "$f" > /tmp/wc%d.txt; done`, dir, n),
			fmt.Sprintf("tar czf /tmp/b%d.tgz %s", n, dir),
			fmt.Sprintf("cat ~/.ssh/config docs/d%d/notes.md | head -%d", d, n),
			fmt.Sprintf("git log --oneline -n %d | head -%d", n, n%50+1),
			fmt.Sprintf("npm test -- %s --seed %d 2>&1 | tail -%d", file, n, n%90+10),
			fmt.Sprintf("ls -la %s > /tmp/listing%d.txt", dir, n),
			fmt.Sprintf(`grep -rn "TODO-%d" %s | wc -l`, n, dir),
			fmt.Sprintf("git diff --stat=%d HEAD~%d -- %s", n, n%40+1, dir),
			fmt.Sprintf("make build-%d && ./scripts/release.sh %d", n, n),
			fmt.Sprintf("echo step %d done; sed -n %dp %s", n, n%30+1, file),
		}
		return map[string]any{"toolName": "bash", "input": map[string]any{"command": bash[(n/2)%len(bash)]}}
	}
	var tool string
	var input map[string]any
	switch (n / 2) % 12 {
	case 0:
		tool, input = "read", map[string]any{"path": file, "offset": n}
	case 1:
		tool, input = "read", map[string]any{"path": fmt.Sprintf("docs/d%d/notes.md", d), "limit": n}
	case 2:
		tool, input = "edit", map[string]any{"path": file, "oldText": fmt.Sprintf("export {} // %d", n), "newText": fmt.Sprintf("export const x%d = %d", n, n)}
	case 3:
		tool, input = "write", map[string]any{"path": fmt.Sprintf("%s/new%d.ts", dir, n), "content": fmt.Sprintf("export const n = %d\n", n)}
	case 4:
		tool, input = "grep", map[string]any{"pattern": fmt.Sprintf("TODO-%d", n), "path": dir}
	case 5:
		tool, input = "find", map[string]any{"pattern": fmt.Sprintf("*%d.ts", n%10), "path": dir, "limit": n}
	case 6:
		tool, input = "ls", map[string]any{"path": dir, "limit": n}
	case 7:
		tool, input = "read", map[string]any{"path": fmt.Sprintf("/tmp/out%d.log", n)}
	case 8:
		tool, input = "mcp", map[string]any{"tool": "github:list_issues", "arguments": map[string]any{"repo": fmt.Sprintf("a/b%d", n)}}
	case 9:
		tool, input = "mcp", map[string]any{"tool": "exa:search", "arguments": map[string]any{"query": fmt.Sprintf("go %d", n)}}
	case 10:
		tool, input = "edit", map[string]any{"path": fmt.Sprintf("docs/d%d/notes.md", d), "oldText": "a", "newText": fmt.Sprintf("b%d", n)}
	default:
		tool, input = "grep", map[string]any{"pattern": fmt.Sprintf("x%d", n), "path": "test"}
	}
	return map[string]any{"toolName": tool, "input": input}
}
