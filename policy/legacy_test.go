package policy

import (
	"strings"
	"testing"
)

func TestLegacyTranslation(t *testing.T) {
	text := `{
  // the original extension's format
  "defaultPolicy": {"tools": "ask", "bash": "deny", "mcp": "ask", "skills": "allow", "special": "ask"},
  "tools": {"read": "allow", "write": "deny", "bash": "ask"},
  "bash": {"git *": "allow", "rm -rf *": "deny"},
  "mcp": {"exa:*": "allow"},
  "skills": {"web-*": "deny"},
  "special": {"external_directory": "deny", "doom_loop": "ask", "tool_call_limit": "deny"}
}`
	f := ParseFile("/legacy.jsonc", []byte(text))
	if len(f.Errors) > 0 {
		t.Fatalf("errors: %v", f.Errors)
	}
	want := `{"permission": {"*": "ask", "read": "allow", "write": "deny", "bash": {"*": "ask", "git *": "allow", "rm -rf *": "deny"}, "mcp": {"exa:*": "allow"}, "skill": {"*": "allow", "web-*": "deny"}, "external_directory": {"*": "deny"}}}`
	if got := flatJSON(f.Permission); got != want {
		t.Fatalf("translated\n got %s\nwant %s", got, want)
	}
	if len(f.Notes) != 1 || !strings.Contains(f.Notes[0].Message, want) || f.Notes[0].Line != 3 {
		t.Fatalf("notes = %+v", f.Notes)
	}
	p := Compose([]ScopeFile{{Scope: ScopeGlobal, Path: "/legacy.jsonc", Trusted: true, Exists: true, File: f}}, "")
	cases := []struct {
		surface, value string
		want           Action
	}{
		{"bash", "git status", Allow},
		{"bash", "rm -rf build", Deny},
		{"bash", "make", Ask}, // tools.bash is the coarse fallback, ahead of defaultPolicy.bash
		{"read", "x", Allow},
		{"write", "x", Deny},
		{"skill", "web-design", Deny},
		{"skill", "other", Allow},
		{"external_directory", "/etc/hosts", Deny},
		{"grep", "x", Ask},
	}
	for _, c := range cases {
		if got := p.Resolve(Query{Surface: c.surface, Values: []string{c.value}}); got.Action != c.want {
			t.Errorf("%s %q = %s, want %s", c.surface, c.value, got.Action, c.want)
		}
	}
	found := false
	for _, w := range p.Warnings {
		found = found || strings.Contains(w.Message, "legacy")
	}
	if !found {
		t.Fatalf("no legacy warning in %v", p.Warnings)
	}
}

func TestLegacyDefaultsOnly(t *testing.T) {
	f := ParseFile("/l.jsonc", []byte(`{"defaultPolicy": {"tools": "deny", "bash": "deny", "special": "allow"}}`))
	want := `{"permission": {"*": "deny", "external_directory": "allow"}}`
	if got := flatJSON(f.Permission); got != want {
		t.Fatalf("got %s, want %s (a category default equal to the tools default adds nothing)", got, want)
	}
}

func TestLegacyAndFlatTogether(t *testing.T) {
	f := ParseFile("/c.json", []byte(`{"bash": {"rm *": "deny"}, "permission": {"bash": {"rm -rf build": "ask"}}}`))
	if len(f.Errors) > 0 {
		t.Fatal(f.Errors)
	}
	p := Compose([]ScopeFile{{Scope: ScopeGlobal, Path: "/c.json", Trusted: true, Exists: true, File: f}}, "")
	if got := p.Resolve(Query{Surface: "bash", Values: []string{"rm -rf build"}}); got.Action != Ask {
		t.Fatalf("flat entries come after translated ones and win: got %s", got.Action)
	}
}
