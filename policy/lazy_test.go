package policy

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// eagerRules is how Compose made every rule of the files before the rules
// were made per surface when first asked for (ruleGroup): the reference the
// lazy rules must equal, field by field and in order.
func eagerRules(files []ScopeFile, home string, yolo, broken bool) (rules []*Rule, explicitPath map[Action]bool) {
	config, fallback := configRules(merge(files), home, false)
	if fallback == nil {
		r := NewRule("*", "*", Ask, LayerFallback, Origin{Scope: ScopeBuiltin}, home)
		fallback = &r
	}
	rules = append(rules, fallback)
	for _, r := range config {
		if r.Surface == "mcp" && r.Action == Allow {
			for _, t := range mcpBaselineTargets {
				b := NewRule("mcp", t, Allow, LayerBaseline, Origin{Scope: ScopeBaseline}, home)
				rules = append(rules, &b)
			}
			break
		}
	}
	rules = append(rules, config...)
	for _, r := range rules {
		r.Trusted = r.Layer == LayerConfig && isTrustedOrigin(files, r.Origin)
	}
	if yolo {
		for _, r := range rules {
			if r.Action == Ask {
				r.Action, r.Origin.Scope = Allow, ScopeYolo
			}
		}
	}
	if broken {
		for _, r := range rules {
			if r.Action == Allow && r.Layer != LayerBaseline {
				r.Action, r.Origin.Scope = Ask, ScopeFailClosed
			}
		}
		for _, r := range rules {
			if r.Layer == LayerBaseline {
				r.Action, r.Origin.Scope = Ask, ScopeFailClosed
			}
		}
	}
	explicitPath = map[Action]bool{}
	for _, r := range rules {
		if r.Layer == LayerConfig && r.MatchesSurface("path") {
			explicitPath[r.Action] = true
		}
	}
	return rules, explicitPath
}

// isTrustedOrigin is the trust of o's file, as eager composition read it.
func isTrustedOrigin(files []ScopeFile, o Origin) bool {
	for _, sf := range files {
		if sf.Path == o.Path && sf.Scope == o.Scope {
			return sf.Trusted
		}
	}
	return false
}

// sameRule reports how a and b differ ("" for not at all), their compiled
// patterns included.
func sameRule(a, b *Rule) string {
	if a.Surface != b.Surface || a.Pattern != b.Pattern || a.Action != b.Action || a.Reason != b.Reason ||
		a.Layer != b.Layer || a.Origin != b.Origin || a.Trusted != b.Trusted || a.Exact != b.Exact {
		return fmt.Sprintf("%+v != %+v", *a, *b)
	}
	if !reflect.DeepEqual(a.pattern, b.pattern) || !reflect.DeepEqual(*a.surface, *b.surface) {
		return fmt.Sprintf("compiled patterns differ: %+v %+v != %+v %+v", a.pattern, *a.surface, b.pattern, *b.surface)
	}
	return ""
}

// TestLazyRulesMatchEager: the rules a policy makes per surface, when a
// call first asks for them, are the rules composing made of every file at
// once — the same fields, the same order, the same compiled patterns, the
// same trust, yolo and clamp — whichever surface is asked for first, and a
// rule is one object whether it is reached through a surface or Rules.
func TestLazyRulesMatchEager(t *testing.T) {
	const mixed = `{"permission": {"*": "ask", "bash": {"*": "ask", "git *": "allow", "rm *": {"action": "deny", "reason": "no"}},
		"read": "allow", "path": {"~/.ssh/*": "deny", "*.env": "ask", "/srv/*": "allow"}, "mcp": {"*": "ask", "github:*": "allow"},
		"e*": {"x": "deny"}, "external_directory": {"/tmp/*": "allow"}, "write": {}, "bahs": {"rm *": "deny", "ls": "allow"}}}`
	cases := []struct {
		name          string
		files         []string // scope, text pairs
		yolo, broken  bool
		wantClampYolo bool
	}{
		{name: "one global file", files: []string{ScopeGlobal, mixed}},
		{name: "no fallback in the files", files: []string{ScopeGlobal, `{"permission": {"bash": {"a": "allow"}, "*": {"b": "deny"}}}`}},
		{name: "merged files", files: []string{ScopeGlobal, mixed,
			ScopeProject, `{"permission": {"bash": {"git *": "deny", "make *": "allow"}, "read": {"a": "deny"}, "mcp": "deny"}}`,
			ScopeAgent, `{"permission": {"bash": {"make *": "ask"}, "path": "allow"}}`}},
		{name: "yolo", files: []string{ScopeGlobal, `{"yoloMode": true, "permission": {"bash": {"*": "ask", "x": "deny"}, "mcp": {"a:*": "allow"}, "path": {"a": "ask"}}}`}, yolo: true},
		{name: "broken file", files: []string{ScopeGlobal, mixed, ScopeProject, `{"permission": `}, broken: true},
		{name: "yolo and a broken file", files: []string{ScopeGlobal, `{"yoloMode": true, "permission": {"bash": {"*": "ask"}, "mcp": {"a:*": "allow"}, "path": {"b": "allow"}}}`,
			ScopeProject, `{"nope": 1}`}, yolo: true, broken: true},
		{name: "entry problems", files: []string{ScopeGlobal, `{"permission": {"bash": {"a": "maybe", "": "allow", "b": 3}, "path": ["x"]}}`}},
	}
	surfaces := []string{"bash", "path", "read", "mcp", "edit", "external_directory", "write", "bahs", "nothing"}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var files []ScopeFile
			for i := 0; i+1 < len(c.files); i += 2 {
				files = append(files, scopeFile(t, c.files[i], c.files[i+1]))
			}
			want, wantPath := eagerRules(files, testHome, c.yolo, c.broken)
			p := Compose(files, testHome)
			if p.Yolo != c.yolo || p.Clamped != c.broken {
				t.Fatalf("Yolo %t Clamped %t, want %t %t", p.Yolo, p.Clamped, c.yolo, c.broken)
			}
			// Surfaces first, in an order of their own, then all rules.
			bySurface := map[string][]*Rule{}
			for i := len(surfaces) - 1; i >= 0; i-- {
				bySurface[surfaces[i]] = p.forSurface(surfaces[i])
			}
			got := p.Rules()
			if len(got) != len(want) {
				t.Fatalf("%d rules, want %d", len(got), len(want))
			}
			for i := range want {
				if d := sameRule(got[i], want[i]); d != "" {
					t.Errorf("rule %d: %s", i, d)
				}
			}
			for _, s := range surfaces {
				var wantIdx []int
				for i, r := range want {
					if r.MatchesSurface(s) {
						wantIdx = append(wantIdx, i)
					}
				}
				if len(bySurface[s]) != len(wantIdx) {
					t.Errorf("%s: %d rules, want %d", s, len(bySurface[s]), len(wantIdx))
					continue
				}
				for j, i := range wantIdx {
					if bySurface[s][j] != got[i] {
						t.Errorf("%s: rule %d is not rule %d of Rules", s, j, i)
					}
				}
			}
			// The floor's rules: the trusted files' alone, when an
			// untrusted one has rules.
			var trustedFiles []ScopeFile
			floor := false
			for _, f := range files {
				if f.File == nil || len(f.File.Errors) > 0 {
					continue
				}
				if f.Trusted {
					trustedFiles = append(trustedFiles, f)
				} else if len(f.File.Permission) > 0 {
					floor = true
				}
			}
			var wantTrusted []*Rule
			if floor {
				wantTrusted, _ = configRules(merge(trustedFiles), testHome, true)
			}
			gotTrusted := p.trustedRules()
			if p.floor != floor || len(gotTrusted) != len(wantTrusted) {
				t.Fatalf("floor %t with %d trusted rules, want %t with %d", p.floor, len(gotTrusted), floor, len(wantTrusted))
			}
			for i := range wantTrusted {
				if d := sameRule(gotTrusted[i], wantTrusted[i]); d != "" {
					t.Errorf("trusted rule %d: %s", i, d)
				}
			}
			if !reflect.DeepEqual(p.explicitPath, wantPath) {
				t.Errorf("explicit path actions %v, want %v", p.explicitPath, wantPath)
			}
			// All rules first: the same rules, the surfaces share them.
			q := Compose(files, testHome)
			all := q.Rules()
			for i := range want {
				if d := sameRule(all[i], want[i]); d != "" {
					t.Errorf("all first: rule %d: %s", i, d)
				}
			}
			for _, s := range surfaces {
				k := 0
				for _, r := range q.forSurface(s) {
					for k < len(all) && all[k] != r {
						k++
					}
					if k == len(all) {
						t.Errorf("all first: a %s rule is not one of Rules, in order", s)
						break
					}
				}
			}
		})
	}
}

// TestLazyRulesConcurrent: calls that ask for the rules of surfaces at once
// (the serve loop decides calls in parallel) get one set of rules (run with
// -race).
func TestLazyRulesConcurrent(t *testing.T) {
	p := global(t, `{"permission": {"bash": {"*": "ask", "git *": "allow"}, "b*": {"x": "deny"}, "path": {"*.env": "deny"}}}`)
	surfaces := []string{"bash", "path", "bash", "read", "bash"}
	got := make([][]*Rule, len(surfaces)+1)
	done := make(chan struct{})
	for i, s := range surfaces {
		go func() {
			defer func() { done <- struct{}{} }()
			got[i] = p.forSurface(s)
		}()
	}
	go func() {
		defer func() { done <- struct{}{} }()
		got[len(surfaces)] = p.Rules()
	}()
	for range len(got) {
		<-done
	}
	all := got[len(surfaces)]
	for i, s := range surfaces {
		for _, r := range got[i] {
			found := false
			for _, a := range all {
				found = found || a == r
			}
			if !found {
				t.Errorf("a %s rule %q is not one of Rules", s, r.Pattern)
			}
		}
	}
	if n := len(got[0]); n != 4 || len(got[2]) != n || len(got[4]) != n {
		t.Errorf("bash rules: %d %d %d, want 4 each", len(got[0]), len(got[2]), len(got[4]))
	}
}

// TestLazyRulesValidateAtLoad: making rules when first asked for defers no
// check. A bad entry near the end of a 10,000-rule file is a warning of the
// composed policy, with its file, line and column, before any rule is made,
// and its deny is there when the surface is asked for.
func TestLazyRulesValidateAtLoad(t *testing.T) {
	var b strings.Builder
	b.WriteString("{\"permission\": {\"*\": \"ask\", \"bash\": {\n")
	for i := range 9998 {
		fmt.Fprintf(&b, "  \"tool%d *\": \"allow\",\n", i)
	}
	b.WriteString("  \"broken *\": \"alow\",\n  \"last *\": \"deny\"\n}}}\n")
	p := Compose([]ScopeFile{scopeFileAt(t, ScopeGlobal, "/cfg/big.json", b.String())}, testHome)
	for i := range p.groups {
		if p.groups[i].rules != nil {
			t.Fatalf("the rules of %q were made at load", p.groups[i].m.surface)
		}
	}
	found := false
	for _, w := range p.Warnings {
		if w.Path == "/cfg/big.json" && w.Line == 10000 && w.Column == 15 && strings.Contains(w.Message, `invalid state "alow"`) {
			found = true
		}
	}
	if !found {
		t.Fatalf("no warning names /cfg/big.json:10000:15: %v", p.Warnings)
	}
	r := p.Resolve(Query{Surface: "bash", Values: []string{"broken x"}})
	if r.Action != Deny || r.Rule.Origin.Line != 10000 || !strings.Contains(r.Rule.Reason, "/cfg/big.json:10000") {
		t.Errorf("broken x: %v by %+v", r.Action, r.Rule)
	}
	if got := p.Resolve(Query{Surface: "bash", Values: []string{"tool9997 x"}}).Action; got != Allow {
		t.Errorf("tool9997 x: %v, want allow", got)
	}
}
