package gates

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/policy"
)

// Globs that pick files in path tools (grep's glob, find's pattern) select
// paths: what they match today is checked like input.path (issue 11 item 5).
func TestGlobSelectsPaths(t *testing.T) {
	s := newSandbox(t)
	for _, d := range []string{"config/deep", "web"} {
		if err := os.MkdirAll(filepath.Join(s.work, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"config/deep/.env", "config/app.yaml", "web/index.ts", "web/secret.pem"} {
		if err := os.WriteFile(filepath.Join(s.work, f), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	envDeny := `{"permission": {"*": "allow", "path": {"*.env": "deny"}}}`
	cases := []struct {
		name    string
		policy  string
		gate    func(*Call, Resolver) Outcome
		tool    string
		input   map[string]any
		state   policy.Action
		surface string
	}{
		{"grep glob selects a denied name at depth", envDeny, Tool, "grep", map[string]any{"pattern": "KEY", "glob": "*.env"}, policy.Deny, "path"},
		{"grep glob under input.path", envDeny, Tool, "grep", map[string]any{"pattern": "KEY", "path": "config", "glob": "**/.e*"}, policy.Deny, "path"},
		{"grep brace glob", envDeny, Tool, "grep", map[string]any{"pattern": "KEY", "glob": "{*.yaml,.en?}"}, policy.Deny, "path"},
		{"grep glob that selects nothing denied", envDeny, Tool, "grep", map[string]any{"pattern": "KEY", "glob": "*.ts"}, policy.Allow, "grep"},
		{"find pattern selects a denied file", envDeny, Tool, "find", map[string]any{"pattern": "**/.env"}, policy.Deny, "path"},
		{"find pattern on the tool surface", `{"permission": {"*": "allow", "find": {"*": "allow", "*.pem": "ask"}}}`, Tool, "find", map[string]any{"pattern": "*.pem", "path": "web"}, policy.Ask, "find"},
		{"find pattern, nothing matches", envDeny, Tool, "find", map[string]any{"pattern": "*.go"}, policy.Allow, "find"},
		{"read has no glob", envDeny, Tool, "read", map[string]any{"path": "web/index.ts", "glob": "*.env"}, policy.Allow, "read"},
		{"glob leaving the project asks outside", `{"permission": {"*": "allow", "external_directory": "deny"}}`, ExternalDirectory, "grep", map[string]any{"pattern": "x", "glob": "../outside/*"}, policy.Deny, "external_directory"},
		{"absolute glob outside", `{"permission": {"*": "allow", "external_directory": "deny"}}`, ExternalDirectory, "find", map[string]any{"pattern": s.outside + "/*.txt"}, policy.Deny, "external_directory"},
		{"home glob on the path surface", `{"permission": {"*": "allow", "external_directory": "allow", "path": {"~/.ssh/*": "deny"}}}`, Tool, "grep", map[string]any{"pattern": "x", "glob": "~/.ssh/*"}, policy.Deny, "path"},
		{"grep glob with a backslash escape", envDeny, Tool, "grep", map[string]any{"pattern": "KEY", "glob": `.\env`}, policy.Deny, "path"},
		{"grep star matches a leading dot as ripgrep's does", envDeny, Tool, "grep", map[string]any{"pattern": "KEY", "path": "config/deep", "glob": "*"}, policy.Deny, "path"},
		{"find star matches a leading dot as fd's does", envDeny, Tool, "find", map[string]any{"pattern": "config/*/*"}, policy.Deny, "path"},
		{"grep negated glob selects every other file", envDeny, Tool, "grep", map[string]any{"pattern": "KEY", "glob": "!*.ts"}, policy.Deny, "path"},
		{"grep negated glob excluding the denied file", envDeny, Tool, "grep", map[string]any{"pattern": "KEY", "glob": "!*.env"}, policy.Allow, "grep"},
		{"find has no negated glob", envDeny, Tool, "find", map[string]any{"pattern": "!*.ts"}, policy.Allow, "find"},
		{"glob inside needs no external check", `{"permission": {"*": "allow", "external_directory": "deny"}}`, ExternalDirectory, "grep", map[string]any{"pattern": "x", "glob": "**/*.ts"}, 0, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := compose(t, s.home, s.expand(tc.policy))
			o := tc.gate(s.call(tc.tool, tc.input), r)
			if tc.surface == "" {
				if o.Kind == Checked {
					t.Fatalf("gate applied: %+v", o.D)
				}
				return
			}
			if o.Kind != Checked || o.D.State != tc.state || o.D.Surface != tc.surface {
				t.Fatalf("got %v %s on %s (%s), want %s on %s", o.Kind, o.D.State, o.D.Surface, o.D.Value, tc.state, tc.surface)
			}
			if tc.state != policy.Allow && o.D.Prompt.Message == "" {
				t.Fatalf("no message: %+v", o.D)
			}
		})
	}
}

// A selection cut by the budget asks when a path rule could apply.
func TestGlobSelectionBudget(t *testing.T) {
	s := newSandbox(t)
	dir := filepath.Join(s.work, "many")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// Links to one file: a name each, one system call each.
	one := filepath.Join(s.work, "one.txt")
	if err := os.WriteFile(one, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for i := 0; i <= maxGlobEntries; i++ {
		if err := os.Link(one, filepath.Join(dir, fmt.Sprintf("f%05d.txt", i))); err != nil {
			t.Fatal(err)
		}
	}
	in := map[string]any{"pattern": "x", "path": "many", "glob": "*.txt"}
	r := compose(t, s.home, `{"permission": {"*": "allow", "path": {"*.env": "deny"}}}`)
	if o := Tool(s.call("grep", in), r); o.D.State != policy.Ask || o.D.Sentinel != SentinelGlobIncomplete {
		t.Fatalf("over budget with a path rule: %s %q", o.D.State, o.D.Sentinel)
	}
	r = compose(t, s.home, `{"permission": {"*": "allow"}}`)
	if o := Tool(s.call("grep", in), r); o.D.State != policy.Allow {
		t.Fatalf("over budget without path rules: %s %q", o.D.State, o.D.Sentinel)
	}
}

// A path tool's directory spelled with a no-break space is opened by the
// host with a plain space: its glob selects below that directory
// too.
func TestGlobBelowHostSpelling(t *testing.T) {
	s := newSandbox(t)
	if err := os.MkdirAll(filepath.Join(s.work, "a b"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.work, "a b", "prod.env"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	r := compose(t, s.home, `{"permission": {"*": "allow", "path": {"*.env": "deny"}}}`)
	for _, c := range []struct {
		glob string
		want policy.Action
	}{{"*", policy.Deny}, {"*.env", policy.Deny}, {"!*.ts", policy.Deny}, {"*.ts", policy.Allow}} {
		o := Tool(s.call("grep", map[string]any{"pattern": "K", "path": "a\u00a0b", "glob": c.glob}), r)
		if o.D.State != c.want {
			t.Errorf("glob %q below a\\u00a0b: %s, want %s", c.glob, o.D.State, c.want)
		}
	}
}

// TestGlobTailEndsEveryMatch: every path compileGlob(g) matches ends with
// globTail(g), for random globs of wildcards, classes, braces, escapes,
// "**" and slashes against random paths (so that the walk may pass over a
// name without that end without asking the expression).
func TestGlobTailEndsEveryMatch(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	parts := []string{"a", "b", ".", "/", "*", "?", "[ab]", "[!a]", "{a,b}", "{a,}", "**", "**/", "\\*", "\\a", ".ts", "x"}
	names := []string{"a", "b", ".", "/", "x", "t", "s", "*", "ab", ".ts"}
	matched := 0
	for range 20000 {
		var g strings.Builder
		for n := 1 + r.IntN(5); n > 0; n-- {
			g.WriteString(parts[r.IntN(len(parts))])
		}
		re, err := compileGlob(g.String())
		if err != nil {
			continue
		}
		tail := globTail(g.String())
		for range 20 {
			var p strings.Builder
			for n := r.IntN(7); n > 0; n-- {
				p.WriteString(names[r.IntN(len(names))])
			}
			if re.MatchString(p.String()) {
				matched++
				if !strings.HasSuffix(p.String(), tail) {
					t.Fatalf("glob %q matches %q, which does not end with its tail %q", g.String(), p.String(), tail)
				}
			}
		}
	}
	if matched < 1000 {
		t.Errorf("only %d matches: the test says little", matched)
	}
}
