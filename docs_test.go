package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// docBlock is one fenced block of a document: its info words and text.
type docBlock struct {
	info []string
	text string
	line int
}

func fencedBlocks(t *testing.T, path string) []docBlock {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []docBlock
	var cur *docBlock
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.HasPrefix(line, "```"):
			cur = &docBlock{info: strings.Fields(strings.TrimPrefix(line, "```")), line: n}
		case cur != nil && line == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.text += line + "\n"
		}
	}
	if cur != nil {
		t.Fatalf("%s:%d: a fenced block is not closed", path, cur.line)
	}
	return out
}

// TestPolicyDocExamples runs every example of docs/policy.md: each block
// tagged "policy" (a --config file), "policy global", "policy project" or
// "policy agent NAME" is a policy file, and each "cases" block after them must pass `toolgate
// test` with the files written since the last cases block. "policy
// invalid" must fail validation with a "did you mean" hint; "cases-pending"
// is behavior not there yet, and must still fail.
func TestPolicyDocExamples(t *testing.T) {
	type file struct{ scope, name, text string }
	var files []file
	afterCases := false
	ran := 0
	for _, b := range fencedBlocks(t, "docs/policy.md") {
		if len(b.info) < 2 {
			continue
		}
		where := fmt.Sprintf("docs/policy.md:%d", b.line)
		switch b.info[1] {
		case "policy":
			if afterCases {
				files, afterCases = nil, false
			}
			scope, name := "config", ""
			if len(b.info) > 2 {
				scope = b.info[2]
			}
			if len(b.info) > 3 {
				name = b.info[3]
			}
			if scope == "invalid" {
				checkInvalidExample(t, where, b.text)
				continue
			}
			files = append(files, file{scope, name, b.text})
		case "cases", "cases-pending":
			afterCases = true
			dir := isolatedHome(t)
			project := filepath.Join(dir, "project")
			args := []string{"test", "--cwd", project}
			for i, f := range files {
				var path string
				switch f.scope {
				case "global":
					path = filepath.Join(dir, "agent", "extensions", "pi-permission-system", "config.json")
				case "project", "project-trusted":
					path = filepath.Join(project, ".pi", "extensions", "pi-permission-system", "config.json")
				case "agent":
					path = filepath.Join(dir, "agent", "agents", f.name+".md")
				case "config":
					path = filepath.Join(dir, fmt.Sprintf("policy-%d.jsonc", i))
					args = append(args, "--config", path)
				default:
					t.Fatalf("%s: unknown policy scope %q", where, f.scope)
				}
				if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(f.text), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.MkdirAll(project, 0o700); err != nil {
				t.Fatal(err)
			}
			for _, f := range files {
				if f.scope != "project-trusted" {
					continue
				}
				// The person trusts the project file as it is (SPEC §1.1).
				var out bytes.Buffer
				if code := run([]string{"trust", "--yes", project}, nil, &out, &out); code != 0 {
					t.Fatalf("%s: toolgate trust --yes: exit %d\n%s", where, code, out.String())
				}
			}
			cases := filepath.Join(dir, "cases.jsonl")
			if err := os.WriteFile(cases, []byte(b.text), 0o600); err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			code := run(append(args, cases), nil, &out, &out)
			switch {
			case len(files) == 0:
				t.Errorf("%s: cases without a policy before them", where)
			case b.info[1] == "cases" && code != 0:
				t.Errorf("%s: the example's cases fail (exit %d):\n%s", where, code, out.String())
			case b.info[1] == "cases-pending" && code != 1:
				t.Errorf("%s: these pending cases now pass (exit %d): mark the block `cases`\n%s", where, code, out.String())
			}
			ran++
		}
	}
	if ran < 10 {
		t.Fatalf("only %d example blocks ran", ran)
	}
}

func checkInvalidExample(t *testing.T, where, text string) {
	dir := isolatedHome(t)
	path := filepath.Join(dir, "bad.jsonc")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if code := run([]string{"validate", path}, nil, &out, &out); code != 1 || !strings.Contains(out.String(), "did you mean") {
		t.Errorf("%s: the invalid example: validate exit %d\n%s", where, code, out.String())
	}
	// What the comment in the example says is what validate says.
	for _, line := range strings.Split(text, "\n") {
		if _, comment, ok := strings.Cut(line, "// "); ok && !strings.Contains(out.String(), strings.TrimSpace(comment)) {
			t.Errorf("%s: validate does not say %q:\n%s", where, comment, out.String())
		}
	}
}

// TestDocsStayInTheRepository checks that no document links outside the
// repository, and that relative links name files that exist.
func TestDocsStayInTheRepository(t *testing.T) {
	// The project folder beside the repository (spelled apart so that this
	// check is not itself a pointer there).
	outside := "../" + "shared"
	docs, _ := filepath.Glob("docs/*.md")
	docs = append(docs, "README.md")
	for _, d := range docs {
		data, err := os.ReadFile(d)
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		if strings.Contains(text, outside) {
			t.Errorf("%s points outside the repository (%s)", d, outside)
		}
		for rest := text; ; {
			i := strings.Index(rest, "](")
			if i < 0 {
				break
			}
			rest = rest[i+2:]
			j := strings.IndexByte(rest, ')')
			if j < 0 {
				break
			}
			link := rest[:j]
			if strings.Contains(link, "://") || strings.HasPrefix(link, "#") {
				continue
			}
			target, _, _ := strings.Cut(link, "#")
			if _, err := os.Stat(filepath.Join(filepath.Dir(d), target)); err != nil {
				t.Errorf("%s links to %s, which does not exist", d, link)
			}
		}
	}
}

// TestProtocolDocExamplesAreJSON checks that every json block of
// docs/protocol.md is JSON: one value, or one value per line.
func TestProtocolDocExamplesAreJSON(t *testing.T) {
	n := 0
	for _, b := range fencedBlocks(t, "docs/protocol.md") {
		if len(b.info) == 0 || b.info[0] != "json" {
			continue
		}
		n++
		if json.Valid([]byte(b.text)) {
			continue
		}
		for i, line := range strings.Split(strings.TrimSpace(b.text), "\n") {
			if !json.Valid([]byte(line)) {
				t.Errorf("docs/protocol.md:%d: not JSON: %s", b.line+1+i, line)
			}
		}
	}
	if n < 5 {
		t.Fatalf("only %d json blocks", n)
	}
}

// TestReadmeExamples runs the README's policy in five minutes: its policy
// block as ~/.config/toolgate/config.json, its test case, and what the
// words around them say it decides.
func TestReadmeExamples(t *testing.T) {
	var policyText, caseText string
	for _, b := range fencedBlocks(t, "README.md") {
		switch {
		case len(b.info) > 0 && b.info[0] == "jsonc" && policyText == "":
			policyText = b.text
		case len(b.info) > 0 && b.info[0] == "json" && strings.Contains(b.text, `"expect"`):
			caseText += b.text
		}
	}
	if policyText == "" || caseText == "" {
		t.Fatalf("README.md: no policy block (jsonc) or no case block (json with \"expect\")")
	}
	dir := isolatedHome(t)
	t.Setenv("XDG_CONFIG_HOME", "")
	path := filepath.Join(dir, ".config", "toolgate", "config.json")
	project := filepath.Join(dir, "project")
	for _, d := range []string{filepath.Dir(path), project} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(path, []byte(policyText), 0o600); err != nil {
		t.Fatal(err)
	}
	claims := caseText + `{"tool": "bash", "input": {"command": "git status"}, "expect": "allow"}
{"tool": "bash", "input": {"command": "git diff --stat"}, "expect": "allow"}
{"tool": "bash", "input": {"command": "make deploy"}, "expect": "ask"}
{"tool": "bash", "input": {"command": "git status && rm -rf build"}, "expect": "deny"}
{"tool": "bash", "input": {"command": "echo $(rm -rf build)"}, "expect": "deny"}
{"tool": "bash", "input": {"command": "for f in a b; do rm $f; done"}, "expect": "deny"}
{"tool": "bash", "input": {"command": "bash -c 'rm -rf build'"}, "expect": "deny"}
{"tool": "bash", "input": {"command": "rm -fr build"}, "expect": "deny"}
{"tool": "read", "input": {"path": "src/main.go"}, "expect": "allow"}
{"tool": "read", "input": {"path": ".env"}, "expect": "deny"}
{"tool": "bash", "input": {"command": "cat .env"}, "expect": "deny"}
{"tool": "write", "input": {"path": "notes.txt", "content": "x"}, "expect": "ask"}
`
	cases := filepath.Join(dir, "cases.jsonl")
	if err := os.WriteFile(cases, []byte(claims), 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if code := run([]string{"test", "--cwd", project, cases}, nil, &out, &out); code != 0 {
		t.Fatalf("README.md's policy does not decide as the README says (exit %d):\n%s", code, out.String())
	}
}

// TestProtocolDocContentLength checks the Content-Length framing example
// of docs/protocol.md: the header gives the body's length in bytes.
func TestProtocolDocContentLength(t *testing.T) {
	n := 0
	for _, b := range fencedBlocks(t, "docs/protocol.md") {
		lines := strings.Split(strings.TrimSuffix(b.text, "\n"), "\n")
		if len(lines) != 3 || !strings.HasPrefix(lines[0], "Content-Length: ") {
			continue
		}
		n++
		want := fmt.Sprintf("Content-Length: %d\\r\\n", len(lines[2]))
		if lines[0] != want || lines[1] != `\r\n` {
			t.Errorf("docs/protocol.md:%d: %q for a %d-byte body, want %q", b.line+1, lines[0], len(lines[2]), want)
		}
	}
	if n != 1 {
		t.Fatalf("%d Content-Length examples in docs/protocol.md, want 1", n)
	}
}

// TestDocsStandAlone checks that no document cites the design documents
// the repository does not hold, or speaks of the sessions it was written
// in.
func TestDocsStandAlone(t *testing.T) {
	docs, _ := filepath.Glob("docs/*.md")
	more, _ := filepath.Glob("examples/*/README.md")
	docs = append(append(docs, more...), "README.md", "integration_test/README.md", "integration_test/testdata/SKIP")
	for _, d := range docs {
		data, err := os.ReadFile(d)
		if err != nil {
			t.Fatal(err)
		}
		for _, bad := range []string{"SPEC.md", "SPEC §", "PROTOCOL.md", "TRANSCRIPTS.md", "STYLE.md", "the session before", "the last session", "an earlier session", "this session's", "this session won"} {
			if strings.Contains(string(data), bad) {
				t.Errorf("%s says %q", d, bad)
			}
		}
	}
}
