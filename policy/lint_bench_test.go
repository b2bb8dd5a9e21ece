package policy

import (
	"fmt"
	"testing"

	"github.com/toolgate/toolgate/internal/e2ecorpus"
)

// BenchmarkLintPolicy lints policies of 10,000 and 160,000 rules (what
// `toolgate validate` does after parsing): it must grow with the rules,
// not with their pairs.
//
//	go test -run '^$' -bench LintPolicy -benchtime 1x ./policy/
func BenchmarkLintPolicy(b *testing.B) {
	for _, n := range []int{10000, 160000} {
		f := ParseFile("/p/config.json", []byte(e2ecorpus.PolicyText(n)))
		if len(f.Errors) > 0 {
			b.Fatal(f.Errors)
		}
		p := Compose([]ScopeFile{{Scope: ScopeGlobal, Path: "/p/config.json", Trusted: true, Exists: true, File: f}}, "/home/u")
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				LintPolicy(p)
			}
		})
	}
}

// shadowedBy finds, for every rule, the same later rule as comparing every
// pair does (what LintPolicy did before it indexed the later rules).
func TestShadowedByIsThePairwiseScan(t *testing.T) {
	words := []string{"*", "git", "git ", "git *", "git s*", "git status", "g?t", "*st*", "mcp", "gh:*", "gh:x", "gh_x", "gh", "x", "gh:x*", "*:x", " *", "a b", "a b *", "a *", "a"}
	surfaces := []string{"bash", "mcp", "read"}
	rng := uint64(7)
	next := func(n int) int { // xorshift: the same sets every run
		rng ^= rng << 13
		rng ^= rng >> 7
		rng ^= rng << 17
		return int(rng % uint64(n))
	}
	for set := 0; set < 400; set++ {
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
