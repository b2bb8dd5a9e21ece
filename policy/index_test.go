package policy

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// indexPatterns mix every route and key kind: plain words, trailing " *",
// "/*" directories, leading wildcards, a leading space, "~" and $HOME,
// wildcards before and after the first space, literals and the empty
// pattern.
var indexPatterns = []string{
	"*", "*.env", "git *", "git push *", "git", "git*", "g?t *", "a? *", " x*", " *", "ls", "ls -la",
	"/x/*", "/*", "/x", "~/.ssh/*", "$HOME/*", "~", "*/.ssh/*", "?", "??*", "", "a b c", "a b *",
	"tool1 sub1 *", "tool1*", "tool1 *", "npm run *", "npm", "n*m run", "x *y", "x* y", "é *", "é",
	"/home/u/p/*", "/home/u/p", "rm -rf *", "rm *", "*rm*", "r?", "cd /tmp *", "cd", " git push *", "  rm -rf *", " git",
}

var indexValues = []string{
	"", " ", " x", " xy", "git", "git status", "git push origin", "gitk", "got x", "a", "ab", "ab c",
	"ls", "ls -la", "ls -l", "/x", "/x/y", "/", "/home/u/.ssh", "/home/u/.ssh/id", "/home/u/p",
	"/home/u/p/q", "tool1 sub1 z", "tool1", "tool1 sub1", "npm run build", "npm", "nxm run", "x y",
	"xa y", "é", "é x", "rm -rf /", "rm x", "farm", "r", "rx", "cd /tmp", "cd /tmp x", "cd", "a b c",
	"a b x", ".env", "x.env", "~", "$HOME",
}

func indexRules(surface string, patterns []string) []*Rule {
	out := make([]*Rule, len(patterns))
	for i, pat := range patterns {
		r := NewRule(surface, pat, Action(i%3), LayerConfig, Origin{Scope: ScopeGlobal, Line: i + 1}, "/home/u")
		out[i] = &r
	}
	return out
}

// checkIndex fails when the index and a scan of every rule disagree.
func checkIndex(t *testing.T, surface string, rules []*Rule, values []string) {
	t.Helper()
	ix := newRuleIndex(rules, IsPathSurface(surface))
	got, gv := ix.evaluate(surface, values, rules)
	want, wv := evaluateOn(surface, values, rules)
	if got != want || gv != wv {
		t.Fatalf("surface %s, values %q: index gives %s %q, a scan %s %q",
			surface, values, ruleName(got), gv, ruleName(want), wv)
	}
}

func ruleName(r *Rule) string {
	if r == nil {
		return "no rule"
	}
	return r.Pattern
}

// TestIndexMatchesScan: on bash, a path surface and an MCP-like surface,
// for random rule lists drawn from indexPatterns and every one to three
// values of indexValues, the index decides what scanning every rule does.
func TestIndexMatchesScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, surface := range []string{"bash", "read", "mcp"} {
		for round := range 300 {
			n := 1 + rng.IntN(3*len(indexPatterns))
			patterns := make([]string, n)
			for i := range patterns {
				patterns[i] = indexPatterns[rng.IntN(len(indexPatterns))]
			}
			rules := indexRules(surface, patterns)
			for _, v := range indexValues {
				checkIndex(t, surface, rules, []string{v})
			}
			for range 20 {
				values := make([]string, 1+rng.IntN(5))
				for i := range values {
					values[i] = indexValues[rng.IntN(len(indexValues))]
				}
				checkIndex(t, surface, rules, values)
			}
			_ = round
		}
	}
}

// TestIndexNarrows: with 10,000 rules of distinct commands, a value is
// checked against a handful of candidates, not every rule.
func TestIndexNarrows(t *testing.T) {
	patterns := make([]string, 0, 10001)
	patterns = append(patterns, "*")
	for i := range 10000 {
		patterns = append(patterns, "tool"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+" sub *")
	}
	rules := indexRules("bash", patterns)
	ix := newRuleIndex(rules, false)
	if got := len(ix.word("toolxb")) + len(ix.any) + len(ix.prefix("t")); got > 1000 {
		t.Errorf("%d candidates for one command, want a few hundred at most", got)
	}
	checkIndex(t, "bash", rules, []string{"toolxb sub x"})
	checkIndex(t, "bash", rules, []string{"echo hi"})
}

// FuzzIndex: for any patterns (one per line) and value, the index decides
// what a scan of every rule does, on a command surface and a path surface.
func FuzzIndex(f *testing.F) {
	f.Add(strings.Join(indexPatterns, "\n"), "git push origin")
	f.Add("git *\n*.env\n/x/*", "/x")
	f.Add(" x*\n a", " x")
	f.Fuzz(func(t *testing.T, patterns, value string) {
		if len(patterns) > 4096 || len(value) > 1024 {
			return
		}
		list := strings.Split(patterns, "\n")
		for _, surface := range []string{"bash", "read"} {
			rules := indexRules(surface, list)
			checkIndex(t, surface, rules, []string{value})
			checkIndex(t, surface, rules, []string{value, strings.TrimSpace(value), "/" + value})
		}
	})
}

// TestLazyIndexDecidesAsScan: a surface's list is scanned at its first
// evaluation and indexed from its indexAfterUses-th; every query decides
// the same either way (rule, value, action), words and canonical pass
// included, on bash, a path surface and mcp.
func TestLazyIndexDecidesAsScan(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"permission": {"*": "ask", "bash": {"*": "ask"`)
	for i, pat := range indexPatterns {
		fmt.Fprintf(&b, ", %q: %q", pat, []string{"allow", "ask"}[i%2]) // no deny: the canonical pass can add one
	}
	for i := range 100 {
		fmt.Fprintf(&b, ", \"tool%d sub%d *\": \"deny\"", i, i)
	}
	b.WriteString(`, "git push --force *": "deny", "rm --recursive --force *": "deny"}, "read": {`)
	for i, pat := range indexPatterns {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q: %q", pat, []string{"deny", "allow", "ask"}[i%3])
	}
	for i := range 100 {
		fmt.Fprintf(&b, ", \"/srv/data%d/*\": \"deny\"", i)
	}
	b.WriteString(`}, "mcp": {"*": "ask"`)
	for i := range 100 {
		fmt.Fprintf(&b, ", \"server%d:*\": \"allow\"", i)
	}
	b.WriteString("}}}")
	text := b.String()
	var queries []Query
	for _, v := range append(indexValues, "tool7 sub7 x", "/srv/data7/x", "server7:tool", "git push --force origin main",
		"git push -f origin main", "rm -rf /x", "rm -fr /x", "rm -r -f /x", "tool7 sub7 -f") {
		queries = append(queries,
			Query{Surface: "bash", Values: []string{v}, Args: strings.Fields(v)},
			Query{Surface: "read", Values: []string{v}},
			Query{Surface: "mcp", Values: []string{v, "mcp"}, FirstCandidate: true})
	}
	// warm: every list indexed before its first evaluation, as when the
	// index was built with the list (the canonical pass reads it too).
	warm := global(t, text)
	for _, s := range []string{"bash", "read", "mcp"} {
		if warm.surfaceSet(s).ruleIndexNow(s) == nil {
			t.Fatalf("%s: no index", s)
		}
	}
	// reused: one policy for every query, scanned first, indexed later.
	reused := global(t, text)
	for _, q := range queries {
		cold := global(t, text) // its first evaluation of q.Surface scans
		if cold.surfaceSet(q.Surface).index.Load() != nil {
			t.Fatalf("%s: indexed before its first evaluation", q.Surface)
		}
		want := warm.Resolve(q)
		for _, got := range []Result{cold.Resolve(q), reused.Resolve(q), reused.Resolve(q)} {
			if got.Action != want.Action || ruleRow(got.Rule) != ruleRow(want.Rule) || got.Value != want.Value || got.Canonical != want.Canonical {
				t.Fatalf("%+v: decided %v by %s, with the index built first %v by %s", q, got.Action, ruleRow(got.Rule), want.Action, ruleRow(want.Rule))
			}
		}
	}
	for _, s := range []string{"bash", "read", "mcp"} {
		if reused.surfaceSet(s).index.Load() == nil {
			t.Fatalf("%s: no index after %d evaluations", s, indexAfterUses)
		}
	}
	canonSeen := false
	for _, q := range queries {
		canonSeen = canonSeen || warm.Resolve(q).Canonical
	}
	if !canonSeen {
		t.Fatal("no query was decided by the canonical pass")
	}
}

// filedUnderWord lists what the index files under a word.
func TestFiledUnderWordMatchesIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for round := range 200 {
		n := 1 + rng.IntN(3*len(indexPatterns))
		pats := make([]string, n)
		for i := range pats {
			pats[i] = indexPatterns[rng.IntN(len(indexPatterns))]
		}
		for _, ps := range []bool{false, true} {
			rules := indexRules("bash", pats)
			ix := newRuleIndex(rules, ps)
			words := []string{"", "git", "ls", "a", "tool1", "npm", "rm", "cd", "é", "x", "/x", "~", "nope"}
			ix.byWord.each(func(s *keySlot) { words = append(words, ix.byWord.key(s)) })
			for _, w := range words {
				if got, want := filedUnderWord(rules, w, ps), ix.word(w); !slices.Equal(got, want) {
					t.Fatalf("round %d, %q (path %v): %v, the index files %v", round, w, ps, got, want)
				}
			}
		}
	}
}

// TestLeadingSpaceRuleDecidesAtAnySize: a bash rule whose pattern starts
// with a space (" git push *", which the canonical reading takes for "git
// push *") decides the same in a policy of a few rules, whose canonical
// pass reads every rule, and in one of more than indexMinRules, whose
// pass reads the rules filed under the command's name.
func TestLeadingSpaceRuleDecidesAtAnySize(t *testing.T) {
	for _, pad := range []int{0, 100} {
		var b strings.Builder
		b.WriteString(`{"permission": {"bash": {"*": "ask"`)
		for i := range pad {
			fmt.Fprintf(&b, `, "tool%d sub%d *": "ask"`, i, i)
		}
		b.WriteString(`, "git push origin main": "allow", " git push *": "deny", "rm -rf /tmp/x": "allow", "  rm -rf *": "deny"}}}`)
		p := global(t, b.String())
		for _, v := range []string{"git push origin main", "rm -rf /tmp/x"} {
			got := p.Resolve(Query{Surface: "bash", Values: []string{v}, Args: strings.Fields(v)})
			if got.Action != Deny {
				t.Fatalf("%d rules more: %q decided %v by %s, want deny", pad, v, got.Action, ruleRow(got.Rule))
			}
		}
	}
}
