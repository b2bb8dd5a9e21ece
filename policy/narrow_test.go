package policy

import "testing"

func TestHasNarrowRule(t *testing.T) {
	for _, tc := range []struct {
		src              string
		deny, ask, allow bool
	}{
		{`{"permission": {"*": "allow", "external_directory": "deny"}}`, false, false, false},
		{`{"permission": {"external_directory": {"*": "allow", "/etc/*": "deny"}}}`, true, false, false},
		{`{"permission": {"external_directory": {"*": "ask", "~/.cache/*": "allow"}}}`, false, false, true},
		{`{"permission": {"bash": {"/etc/*": "deny"}}}`, false, false, false},
	} {
		f := ParseFile("/g.json", []byte(tc.src))
		if len(f.Errors) > 0 {
			t.Fatalf("%s: %v", tc.src, f.Errors)
		}
		p := Compose([]ScopeFile{{Scope: ScopeGlobal, Path: "/g.json", Trusted: true, Exists: true, File: f}}, "/home/u")
		for a, want := range map[Action]bool{Deny: tc.deny, Ask: tc.ask, Allow: tc.allow} {
			if got := p.HasNarrowRule("external_directory", a); got != want {
				t.Errorf("%s: HasNarrowRule(%s) = %v, want %v", tc.src, a, got, want)
			}
		}
	}
}
