package policy

import (
	"fmt"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/e2ecorpus"
)

// BenchmarkLintPolicy lints policies of 10,000 and 160,000 rules (what
// `toolgate validate` does after parsing): it must grow with the rules,
// not with their pairs.
//
//	go test -run '^$' -bench LintPolicy -benchtime 1x ./policy/
func BenchmarkLintPolicy(b *testing.B) {
	texts := map[string]string{}
	for _, n := range []int{10000, 160000} {
		texts[fmt.Sprint(n)] = e2ecorpus.PolicyText(n)
		// Literals and patterns with a wildcard inside or first, on one
		// surface: the lint's worst case.
		var sb strings.Builder
		sb.WriteString(`{"permission": {"path": {"*": "ask"`)
		for i := range n {
			switch i % 4 {
			case 0:
				fmt.Fprintf(&sb, `, "/srv/f%d.txt": "deny"`, i)
			case 1:
				fmt.Fprintf(&sb, `, "/srv/d%d/*/x": "ask"`, i)
			case 2:
				fmt.Fprintf(&sb, `, "*.e%d": "deny"`, i)
			default:
				fmt.Fprintf(&sb, `, "/srv/g%d?": "allow"`, i)
			}
		}
		sb.WriteString("}}}\n")
		texts[fmt.Sprint(n, "-wildcards")] = sb.String()
	}
	for _, name := range []string{"10000", "10000-wildcards", "160000", "160000-wildcards"} {
		f := ParseFile("/p/config.json", []byte(texts[name]))
		if len(f.Errors) > 0 {
			b.Fatal(f.Errors)
		}
		p := Compose([]ScopeFile{{Scope: ScopeGlobal, Path: "/p/config.json", Trusted: true, Exists: true, File: f}}, "/home/u")
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				LintPolicy(p)
			}
		})
	}
}

// shadowedBy finds, for every rule, the same later rule as comparing every
// pair does (what LintPolicy did before it indexed the later rules).
func TestShadowedByIsThePairwiseScan(t *testing.T) {
	words := []string{"*", "git", "git ", "git *", "git s*", "git status", "g?t", "*st*", "mcp", "gh:*", "gh:x", "gh_x", "gh", "x", "gh:x*", "*:x", " *", "a b", "a b *", "a *", "a",
		"*.env", "a?b", "g*t", "?", "*x", "x*y*", "*a *", "a? *", "git ?tatus", ".env", "s"}
	surfaces := []string{"bash", "mcp", "read"}
	rng := uint64(7)
	next := func(n int) int { // xorshift: the same sets every run
		rng ^= rng << 13
		rng ^= rng >> 7
		rng ^= rng << 17
		return int(rng % uint64(n))
	}
	for set := 0; set < 2000; set++ {
		var rules []*Rule
		for i := 0; i < 1+next(12); i++ {
			p := words[next(len(words))]
			if next(3) == 0 {
				p += words[next(len(words))]
			}
			r := NewRule(surfaces[next(len(surfaces))], p, Allow, LayerConfig, Origin{Line: i + 1}, "")
			rules = append(rules, &r)
		}
		got := shadowedBy(rules)
		for i, r := range rules {
			want := -1
			for j := i + 1; j < len(rules); j++ {
				if rules[j].Surface == r.Surface && shadows(rules[j], r) {
					want = j
					break
				}
			}
			if got[i] != want {
				var ps []string
				for _, r := range rules {
					ps = append(ps, r.Surface+" "+r.Pattern)
				}
				t.Fatalf("rule %d of %q: shadowed by %d, the pairwise scan says %d", i, ps, got[i], want)
			}
		}
	}
}
