package policy

import (
	"fmt"
	"strings"
	"testing"
)

// TestResultKeyUnambiguous: no two different (values, args) share a key.
func TestResultKeyUnambiguous(t *testing.T) {
	cases := [][2][]string{
		{{"a", "b"}, nil}, {{"a b"}, nil}, {{"ab"}, nil}, {{"a"}, {"b"}}, {{"a", "b"}, {}}, {{"1:a"}, nil},
		{{"a|"}, nil}, {{"a"}, {"|"}}, {nil, {"a"}}, {{""}, nil}, {nil, nil}, {{"", ""}, nil},
	}
	seen := map[string]string{}
	for _, c := range cases {
		k := resultKey(c[0], c[1])
		id := fmt.Sprintf("%q %q", c[0], c[1])
		if c[1] != nil && len(c[1]) == 0 {
			id = fmt.Sprintf("%q %q", c[0], []string(nil)) // no args and empty args are the same question
		}
		if other, ok := seen[k]; ok && other != id {
			t.Errorf("%s and %s share the key %q", id, other, k)
		}
		seen[k] = id
	}
}

// TestCommandRuleCacheIsPlain: HasCommandRule, remembered, answers as the
// plain scan of the bash rules, on every ask.
func TestCommandRuleCacheIsPlain(t *testing.T) {
	p := global(t, `{"permission": {"*": "ask", "bash": {"*": "ask", "git *": "allow", "git push --force *": "deny",
		"rm -rf *": "deny", "np? publish *": "ask", "docker run *": "deny", "tool7 sub7 *": "deny"}}}`)
	big := global(t, benchPolicyText(400))
	argsList := [][]string{
		{"git", "push", "$o"}, {"git", "commit", "-m", "$msg"}, {"rm", "$o", "x"}, {"/bin/rm", "$o"}, {"npm", "publish", "$x"},
		{"docker", "run", "-v", "$PWD:/app", "img"}, {"docker", "run", "$img"}, {"tool7", "sub7", "$x"}, {"ls", "$d"},
		{"git", "$sub"}, {"rm", "*.txt"}, {"rm", "x"}, {"git"}, {"tool1", "$x"}, {"npm", "run", "script?5", "$y"},
	}
	for round := 0; round < 3; round++ {
		for _, pol := range []*Policy{p, big} {
			for _, args := range argsList {
				for _, above := range []Action{Allow, Ask} {
					if got, want := pol.HasCommandRule(args, above), pol.hasCommandRule(pol.surfaceSet("bash"), args, above); got != want {
						t.Errorf("round %d: HasCommandRule(%q, %v) = %v, plain %v", round, args, above, got, want)
					}
				}
			}
		}
	}
}

// TestCommandCacheBounded: however many different words a session asks
// HasCommandRule about, the policy remembers at most maxCachedResults
// answers, and none longer than maxResultKey; every answer is still the
// plain scan's.
func TestCommandCacheBounded(t *testing.T) {
	p := global(t, `{"permission": {"*": "ask", "bash": {"git *": "allow", "tool7 sub7 *": "deny"}}}`)
	set := p.surfaceSet("bash")
	long := strings.Repeat("x", maxResultKey)
	for i := 0; i < 3*maxCachedResults; i++ {
		for _, args := range [][]string{
			{"git", fmt.Sprintf("log%d", i), "$x"},
			{fmt.Sprintf("tool%d", i%40), fmt.Sprintf("sub%d", i%40), "$y"},
			{"git", long, "$z"},
		} {
			if got, want := p.HasCommandRule(args, Allow), p.hasCommandRule(set, args, Allow); got != want {
				t.Fatalf("HasCommandRule(%q): remembered %v, plain %v", args, got, want)
			}
		}
		set.results.mu.Lock()
		n := len(set.results.commands)
		set.results.mu.Unlock()
		if n > maxCachedResults {
			t.Fatalf("after %d questions the policy remembers %d answers", i, n)
		}
	}
	set.results.mu.Lock()
	total := len(set.results.commands)
	for k := range set.results.commands {
		if len(k) > maxResultKey {
			t.Errorf("a key of %d bytes is remembered", len(k))
		}
	}
	set.results.mu.Unlock()
	if total == 0 {
		t.Error("nothing is remembered")
	}
}
