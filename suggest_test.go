package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// answeringSession runs `toolgate serve` in-process like a host with a
// person at the keyboard: each prompt is answered with choose(prompt).
func answeringSession(t *testing.T, args []string, requests []string, choose func(value string) string) {
	t.Helper()
	inW, lines, end := serveInProcess(t, args)
	for i, req := range requests {
		if _, err := io.WriteString(inW, req+"\n"); err != nil {
			t.Fatal(err)
		}
		for {
			line, err := lines.ReadString('\n')
			if err != nil {
				t.Fatalf("no answer to %s: %v", req, err)
			}
			var msg struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params struct {
					Value string `json:"value"`
				} `json:"params"`
			}
			if json.Unmarshal([]byte(line), &msg) != nil {
				t.Fatalf("not JSON: %s", line)
			}
			if msg.Method == "prompt" {
				answer := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"choice":%q}}`, msg.ID, choose(msg.Params.Value))
				if _, err := io.WriteString(inW, answer+"\n"); err != nil {
					t.Fatal(err)
				}
				continue
			}
			if msg.Method == "" && string(msg.ID) == fmt.Sprint(i+1) {
				break
			}
		}
	}
	end()
}

func TestSuggestApplyValidateExplain(t *testing.T) {
	dir := isolatedHome(t)
	global := filepath.Join(dir, "agent", "extensions", "pi-permission-system", "config.json")
	if err := os.MkdirAll(filepath.Dir(global), 0o700); err != nil {
		t.Fatal(err)
	}
	original := `// my policy
{
  "permission": {
    "*": "ask",
    "read": "allow",
    "bash": {
      "*": "ask",
      "ls *": "allow", // harmless
      "git push --force *": "deny"
    }
  }
}
`
	if err := os.WriteFile(global, []byte(original), 0o600); err != nil {
		t.Fatal(err)
	}
	auditLog := filepath.Join(dir, "audit.jsonl")
	calls := func(cmds ...string) []string {
		reqs := []string{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"cwd":"` + dir + `","hasUI":true}}`}
		for i, c := range cmds {
			input, _ := json.Marshal(map[string]string{"command": c})
			reqs = append(reqs, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tool_call","params":{"toolCallId":"c%d","toolName":"bash","input":%s}}`, i+2, i+1, input))
		}
		return reqs
	}
	refuse := map[string]bool{"git commit --amend": true, "git log": true}
	person := func(value string) string {
		switch {
		case refuse[value]:
			return "deny"
		case strings.HasPrefix(value, "npm "):
			return "allow_session"
		}
		return "allow_once"
	}
	// Two sessions: "allow for this session" in each spares the rest of
	// that session only, so the same approval is given twice.
	for range 2 {
		answeringSession(t, []string{"serve", "--audit-log", auditLog}, calls(
			"git status", "git status --short", "npm run build", "npm run build",
			"sudo apt update", "git push origin main", "git commit -m wip", "cat 'x*y'", "git commit --amend",
			"git log --oneline", "git log"), person)
	}
	answeringSession(t, []string{"serve", "--audit-log", auditLog}, calls("make deploy"), person)

	var out, errOut bytes.Buffer
	if code := run([]string{"suggest", auditLog}, nil, &out, &errOut); code != 0 {
		t.Fatalf("suggest: exit %d\n%s%s", code, out.String(), errOut.String())
	}
	got := out.String()
	for _, want := range []string{
		`bash "git status *": "allow"   approved in 4 calls ("git status", "git status --short")`,
		`bash "npm run build *": "allow"   approved in 2 calls`,
		// git push * would reach the deny of git push --force: exact only.
		`bash "git push origin main": "allow"   approved in 2 calls`,
		// git commit * would reach the refused --amend: exact only.
		`bash "git commit -m wip": "allow"   approved in 2 calls`,
		`bash "sudo apt update" (2): not suggested: toolgate always asks for it (<indirection-bash-wrapper>)`,
		`bash "cat x*y" (2): not suggested: it contains a literal * or ?`,
		`bash "make deploy" (1): approved 1 time(s), fewer than 2`,
		// "git log *" would match the refused bare "git log" (a pattern
		// ending in " *" matches the bare command): exact only.
		`bash "git log --oneline": "allow"   approved in 2 calls`,
		"+      \"git status *\": \"allow\",",
		"5 rules would have spared 12 of them",
		`17 calls with a prompt answered "allow"`,
		"Run again with --apply",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("suggest output lacks %q", want)
		}
	}
	if strings.Contains(got, `"git push *"`) || strings.Contains(got, `"git commit *"`) || strings.Contains(got, `"git log *"`) || strings.Contains(got, `"sudo`+` *"`) {
		t.Errorf("a pattern broader than the approvals:\n%s", got)
	}
	if t.Failed() {
		t.Fatalf("output:\n%s", got)
	}
	if data, _ := os.ReadFile(global); string(data) != original {
		t.Fatalf("suggest without --apply changed the file")
	}
	out.Reset()
	if code := run([]string{"suggest", "--apply", auditLog}, nil, &out, &errOut); code != 0 {
		t.Fatalf("suggest --apply: exit %d\n%s%s", code, out.String(), errOut.String())
	}
	data, _ := os.ReadFile(global)
	edited := string(data)
	if !strings.HasPrefix(edited, "// my policy\n") || !strings.Contains(edited, `"ls *": "allow", // harmless`) ||
		strings.Index(edited, `"git push --force *": "deny"`) > strings.Index(edited, `"git status *": "allow"`) {
		t.Fatalf("the edit lost comments or order:\n%s", edited)
	}
	out.Reset()
	if code := run([]string{"validate"}, nil, &out, &out); code != 0 {
		t.Fatalf("validate after --apply: exit %d\n%s", code, out.String())
	}
	for _, c := range []struct {
		command string
		code    int
	}{
		{"git status", 0}, {"git status --short", 0}, {"git status -v", 0}, {"npm run build", 0}, {"npm run build -- --watch", 0},
		{"git push origin main", 0}, {"git commit -m wip", 0},
		{"git push origin dev", 3}, {"git push --force origin main", 1},
		{"git commit --amend", 3}, {"git log", 3}, {"git log --oneline", 0}, {"git log -p", 3}, {"sudo apt update", 3}, {"make deploy", 3}, {"cat 'x*y'", 3}, {"cat other", 3},
	} {
		input, _ := json.Marshal(map[string]string{"command": c.command})
		out.Reset()
		if code := run([]string{"explain", "--cwd", dir, "--tool", "bash", "--input", string(input)}, nil, &out, &out); code != c.code {
			t.Errorf("after --apply, explain %q: exit %d, want %d\n%s", c.command, code, c.code, out.String())
		}
	}
	// Applied once, there is nothing left to suggest.
	out.Reset()
	if code := run([]string{"suggest", auditLog}, nil, &out, &out); code != 0 || !strings.Contains(out.String(), "No rule to suggest") {
		t.Errorf("suggest after --apply: exit %d\n%s", code, out.String())
	}
}

func TestSuggestRefusesWhatItCannotEdit(t *testing.T) {
	dir := isolatedHome(t)
	log := filepath.Join(dir, "audit.jsonl")
	if err := os.WriteFile(log, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(dir, "broken.json")
	if err := os.WriteFile(broken, []byte(`{"permissions": {}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"suggest", log, log}, 2, `unexpected argument "` + log + `" (one AUDITLOG)`},
		{[]string{"suggest"}, 2, filepath.Join("logs", "toolgate-audit.jsonl")}, // the default log, missing here
		{[]string{"suggest", "--min", "0", log}, 2, "--min must be at least 1"},
		{[]string{"suggest", "--file", filepath.Join(dir, "agent.md"), log}, 2, "is an agent file"},
		{[]string{"suggest", "--file", broken, log}, 1, "has errors; fix them first"},
		{[]string{"suggest", filepath.Join(dir, "missing.jsonl")}, 2, "no such file"},
	} {
		var out, errOut bytes.Buffer
		if code := run(c.args, nil, &out, &errOut); code != c.code || !strings.Contains(errOut.String(), c.want) {
			t.Errorf("%v: exit %d (want %d), stderr %q", c.args, code, c.code, errOut.String())
		}
	}
	var out bytes.Buffer
	if code := run([]string{"suggest", log}, nil, &out, &out); code != 0 || !strings.Contains(out.String(), "No rule to suggest") {
		t.Errorf("an empty log: exit %d\n%s", code, out.String())
	}
}

// A suggestion is never broader than what was approved: three approvals of
// make build (for the session, where the prompt offered make *) suggest
// make build, two of a write to notes.txt that file, not the project's
// folder. Into a project file the path goes relative to the project, never
// absolute (the file is shared; the path is the author's machine's).
func TestSuggestNeverBroaderThanApproved(t *testing.T) {
	dir := isolatedHome(t)
	writeGlobal(t, dir, `{"permission": {"*": "ask", "bash": {"*": "ask"}}}`)
	auditLog := filepath.Join(dir, "audit.jsonl")
	for range 3 {
		bashSession(t, dir, auditLog, func(string) string { return "allow_session" }, "make build")
	}
	reqs := []string{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"cwd":"` + dir + `","hasUI":true}}`}
	for i := range 2 {
		reqs = append(reqs, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tool_call","params":{"toolCallId":"w%d","toolName":"write","input":{"path":"notes.txt","content":"n"}}}`, i+2, i))
	}
	answeringSession(t, []string{"serve", "--audit-log", auditLog}, reqs, func(string) string { return "allow_once" })

	project := filepath.Join(dir, ".toolgate", "config.json")
	for _, c := range []struct {
		args        []string
		want, never []string
	}{
		{[]string{"suggest", auditLog}, []string{`bash "make build": "allow"   approved in 3 calls`, `write "` + filepath.Join(dir, "notes.txt") + `": "allow"   approved in 2 calls`},
			[]string{`"make *"`, `"` + dir + `/*"`}},
		{[]string{"suggest", "--file", project, auditLog}, []string{`bash "make build": "allow"`, `write "notes.txt": "allow"   approved in 2 calls`, `+      "notes.txt": "allow"`},
			[]string{`"make *"`, "+" + strings.Repeat(" ", 6) + `"` + dir}},
	} {
		var out, errOut bytes.Buffer
		if code := run(c.args, nil, &out, &errOut); code != 0 {
			t.Fatalf("%q: exit %d\n%s%s", c.args, code, out.String(), errOut.String())
		}
		for _, w := range c.want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("%q: the output lacks %q", c.args, w)
			}
		}
		for _, n := range c.never {
			if strings.Contains(out.String(), n) {
				t.Errorf("%q: the output has %q", c.args, n)
			}
		}
		if t.Failed() {
			t.Fatalf("output:\n%s", out.String())
		}
	}
}
