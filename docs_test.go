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
