package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// A mistyped subcommand or flag gets "did you mean"; a --cwd that is not a
// directory and an argument a command takes none of are errors (exit 2)
// naming them, never silently ignored.
func TestArgumentMistakesAreNamed(t *testing.T) {
	dir := isolatedHome(t)
	missing := filepath.Join(dir, "nonexistent")
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"explian"}, []string{`unknown command "explian"`, `did you mean "explain"?`}},
		{[]string{"replya", "x"}, []string{`did you mean "replay"?`}},
		{[]string{"explain", "--tol", "bash"}, []string{"-tol", `did you mean "--tool"?`}},
		{[]string{"validate", "--jsno"}, []string{"-jsno", `did you mean "--json"?`}},
		{[]string{"serve", "--audit-lg", "x"}, []string{"-audit-lg", `did you mean "--audit-log"?`}},
		{[]string{"claude-hook", "--confg", "x"}, []string{"-confg", `did you mean "--config"?`}},
		{[]string{"serve", "--cwd", missing}, []string{"--cwd", missing, "no such file or directory"}},
		{[]string{"explain", "--cwd", missing, "--tool", "bash"}, []string{"--cwd", missing}},
		{[]string{"test", "--cwd", missing, "x.jsonl"}, []string{"--cwd", missing}},
		{[]string{"validate", "--cwd", missing}, []string{"--cwd", missing}},
		{[]string{"explain", "--cwd", filepath.Join(dir), "--tool", "bash", "--input", `{"command": "ls"}`, "--cwd", filepath.Join(dir, ".")}, nil}, // a directory: fine (exit 3, not 2)
		{[]string{"serve", "stray"}, []string{`unexpected argument "stray"`}},
		{[]string{"--log-level", "info", "stray"}, []string{`unexpected argument "stray"`}},
		{[]string{"claude-hook", "stray"}, []string{`unexpected argument "stray"`}},
		{[]string{"gemini-hook", "--ask", "stray"}, []string{`unexpected argument "stray"`}},
		{[]string{"version", "stray"}, []string{`unexpected argument "stray"`}},
		{[]string{"audit", "verify", "a", "b"}, []string{`unexpected argument "b"`}},
		{[]string{"replay", "a", "b"}, []string{`unexpected argument "b"`}},
		{[]string{"replay"}, []string{"no AUDITLOG given"}},
		{[]string{"suggest", "a", "b"}, []string{`unexpected argument "b"`}},
		{[]string{"audit", "verfy", "a"}, []string{`did you mean "verify"?`}},
	} {
		var out, errOut bytes.Buffer
		code := run(c.args, strings.NewReader(""), &out, &errOut)
		if c.want == nil {
			if code == 2 {
				t.Errorf("%q: exit 2: %s", c.args, errOut.String())
			}
			continue
		}
		if code != 2 {
			t.Errorf("%q: exit %d, want 2 (stderr %q)", c.args, code, errOut.String())
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(errOut.String(), w) {
				t.Errorf("%q: stderr lacks %q:\n%s", c.args, w, errOut.String())
			}
		}
	}
}
