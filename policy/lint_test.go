package policy

import (
	"strings"
	"testing"
)

func lintsOf(t *testing.T, text string) []Lint {
	t.Helper()
	f := ParseFile("/p.json", []byte(text))
	if len(f.Errors) > 0 {
		t.Fatalf("errors: %v", f.Errors)
	}
	return LintPolicy(Compose([]ScopeFile{{Scope: ScopeGlobal, Path: "/p.json", Trusted: true, Exists: true, File: f}}, "/home/u"))
}

func TestLints(t *testing.T) {
	cases := []struct {
		name   string
		policy string
		kind   string
		text   string // "" = the lint must not appear
	}{
		{"shadowed by a later catch-all", `{"permission": {"bash": {"git push *": "deny", "*": "allow"}}}`, "shadowed", `"git push *" can never win`},
		{"shadowed by a later prefix", `{"permission": {"bash": {"git status": "deny", "git *": "allow"}}}`, "shadowed", `"git status" can never win`},
		{"specific after general is fine", `{"permission": {"bash": {"*": "allow", "git push *": "deny"}}}`, "shadowed", ""},
		{"different surfaces do not shadow", `{"permission": {"read": {"*.env": "deny"}, "write": {"*": "allow"}}}`, "shadowed", ""},
		{"unrelated prefix does not shadow", `{"permission": {"bash": {"npm *": "deny", "git *": "allow"}}}`, "shadowed", ""},
		{"mcp rule after a catch-all is alive", `{"permission": {"mcp": {"*": "ask", "github:delete_repo": "deny"}}}`, "shadowed", ""},
		{"mcp server rule after a catch-all is alive", `{"permission": {"mcp": {"*": "ask", "github_*": "deny", "github:list": "allow"}}}`, "shadowed", ""},
		{"mcp tool rule shadowed by a later server rule", `{"permission": {"mcp": {"github:delete_repo": "deny", "github": "allow"}}}`, "shadowed", `is also named "github"`},
		{"mcp tool rule shadowed by a later underscore form", `{"permission": {"mcp": {"github:delete_repo": "deny", "github_*": "allow"}}}`, "shadowed", `is also named "github_delete_repo"`},
		{"mcp server wildcard shadowed by a later underscore form", `{"permission": {"mcp": {"github:*": "deny", "github_*": "allow"}}}`, "shadowed", `is also named "github_*"`},
		{"mcp rule shadowed by a later mcp rule", `{"permission": {"mcp": {"exa:search": "deny", "mcp": "allow"}}}`, "shadowed", `is also named "mcp"`},
		{"mcp underscore rule is not shadowed by a colon form", `{"permission": {"mcp": {"github_*": "deny", "github:*": "allow"}}}`, "shadowed", ""},
		{"bash rules have no forms", `{"permission": {"bash": {"git:x": "deny", "git": "allow"}}}`, "shadowed", ""},
		{"allow on sudo", `{"permission": {"bash": {"sudo *": "allow"}}}`, "risky-allow", "sudo is a wrapper"},
		{"allow on python", `{"permission": {"bash": {"python *": "allow"}}}`, "risky-allow", "python is an interpreter"},
		{"allow on a shell", `{"permission": {"bash": {"bash *": "allow"}}}`, "risky-allow", "bash is a shell"},
		{"allow on xargs", `{"permission": {"bash": {"xargs *": "allow"}}}`, "risky-allow", "xargs is a wrapper"},
		{"allow on a transparent wrapper allows only itself", `{"permission": {"bash": {"nohup *": "allow", "timeout *": "allow", "exec *": "allow"}}}`, "risky-allow", ""},
		{"deny on sudo is fine", `{"permission": {"bash": {"sudo *": "deny"}}}`, "risky-allow", ""},
		{"allow on git is fine", `{"permission": {"bash": {"git *": "allow"}}}`, "risky-allow", ""},
		{"typo surface", `{"permission": {"Bash": "deny"}}`, "unknown-surface", `did you mean "bash"`},
		{"plural surface", `{"permission": {"skills": "deny"}}`, "unknown-surface", `did you mean "skill"`},
		{"wildcard surface is fine", `{"permission": {"context7_*": "allow"}}`, "unknown-surface", ""},
		{"builtin surface is fine", `{"permission": {"external_directory": "ask"}}`, "unknown-surface", ""},
		{"Claude Code surface is fine", `{"permission": {"WebFetch": {"https://evil.example/*": "deny"}, "TodoWrite": "deny"}}`, "unknown-surface", ""},
		{"Gemini CLI surface is fine", `{"permission": {"google_web_search": "deny", "web_fetch": "ask"}}`, "unknown-surface", ""},
		{"mapped Gemini tool", `{"permission": {"run_shell_command": "deny"}}`, "unknown-surface", `did you mean "bash"`},
		{"mapped Claude tool", `{"permission": {"Glob": "deny"}}`, "unknown-surface", `decides the host tool Glob on the "find" surface`},
		{"a declared shell tool is not unknown", `{"shellTools": {"run_shell": {"commandArgument": "cmd"}}, "permission": {"run_shell": "deny"}}`, "unknown-surface", ""},
		{"a declared shell tool is decided on bash", `{"shellTools": {"run_shell": {"commandArgument": "cmd"}}, "permission": {"run_shell": "deny"}}`, "shell-tool", `decided on the "bash" surface`},
		{"permissive fallback", `{"permission": {"*": "allow"}}`, "permissive-fallback", "bash"},
		{"fallback with bash catch-all", `{"permission": {"*": "allow", "bash": {"*": "ask"}}}`, "permissive-fallback", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var found *Lint
			lints := lintsOf(t, tc.policy)
			for i := range lints {
				if lints[i].Kind == tc.kind {
					found = &lints[i]
				}
			}
			switch {
			case tc.text == "" && found != nil:
				t.Fatalf("unexpected %s lint: %s", tc.kind, found.Message)
			case tc.text != "" && found == nil:
				t.Fatalf("no %s lint in %+v", tc.kind, lints)
			case tc.text != "" && !strings.Contains(found.Message, tc.text):
				t.Fatalf("lint %q does not mention %q", found.Message, tc.text)
			case found != nil && (found.Path != "/p.json" || found.Line == 0):
				t.Fatalf("lint without a position: %+v", found)
			}
		})
	}
}

func TestSubsumes(t *testing.T) {
	cases := []struct {
		a, b string
		want bool
	}{
		{"*", "anything *", true},
		{"git *", "git status", true},
		{"git *", "git", true},
		{"git *", "git push *", true},
		{"git *", "gitk", false},
		{"git*", "gitk --all", true},
		{"git push *", "git *", false},
		{"*.env", ".env", true},
		{"*.env", "*.env.*", false},
		{"src/*", "src/a/*", true},
		{"a?c", "abc", true},
		{"a?c", "a*c", false},
	}
	for _, c := range cases {
		if got := subsumes(c.a, c.b); got != c.want {
			t.Errorf("subsumes(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
