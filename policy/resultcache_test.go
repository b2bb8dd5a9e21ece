package policy

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// TestResultCacheIsPlain: Resolve with the result cache decides every
// query exactly as the plain matching (resolveFiles and the session
// approvals, with no cache), on the first ask and on every later one, with
// and without session approvals, across the trust floor and the canonical
// option spelling; and values that differ only in how they split into
// forms are different questions.
func TestResultCacheIsPlain(t *testing.T) {
	globalText := `{"permission": {"*": "ask",
		"bash": {"*": "ask", "git *": "allow", "git push --force *": "deny", "rm -rf *": "deny", "npm *": "allow", "cat *": "allow"},
		"read": {"*": "allow", "src/*": "allow", "~/.ssh/*": "deny"},
		"path": {"*.env": "deny", "/srv/*": "ask"},
		"mcp": {"*": "ask", "github:*": "allow", "github:delete_repo": "deny"},
		"external_directory": {"*": "ask", "/tmp/*": "allow"}}}`
	projectText := `{"permission": {"bash": {"rm *": "allow", "git *": "allow"}, "read": {"*": "allow"}, "path": {"*": "allow"}}}`
	policies := map[string]*Policy{
		"global":        global(t, globalText),
		"with project":  composeOK(t, scopeFile(t, ScopeGlobal, globalText), scopeFile(t, ScopeProject, projectText)),
		"many bash":     global(t, benchPolicyText(300)),
		"project alone": composeOK(t, scopeFile(t, ScopeProject, projectText)),
	}
	queries := []Query{
		{Surface: "bash", Values: []string{"git status"}, Args: []string{"git", "status"}},
		{Surface: "bash", Values: []string{"git push -f origin"}, Args: []string{"git", "push", "-f", "origin"}},
		{Surface: "bash", Values: []string{"git push -f origin"}},
		{Surface: "bash", Values: []string{"rm -fr x"}, Args: []string{"rm", "-fr", "x"}},
		{Surface: "bash", Values: []string{"rm -fr x"}, Args: []string{"rm", "-f", "-r", "x"}},
		{Surface: "bash", Values: []string{"rm x"}, Args: []string{"rm", "x"}},
		{Surface: "bash", Values: []string{benchValue}},
		{Surface: "bash", Values: []string{"npm run script?7"}},
		{Surface: "read", Values: []string{testHome + "/.ssh/id_rsa", ".ssh/id_rsa"}},
		{Surface: "read", Values: []string{"src/a.ts"}},
		{Surface: "read", Values: []string{"src/a.ts", "x"}},
		{Surface: "read", Values: []string{"src/a.ts x"}},
		{Surface: "read", Values: []string{"1:src/a.ts"}},
		{Surface: "read", Values: nil},
		{Surface: "path", Values: []string{"/w/.env"}},
		{Surface: "path", Values: []string{"/srv/data"}},
		{Surface: "mcp", Values: []string{"github:delete_repo", "github_delete_repo"}, FirstCandidate: true},
		{Surface: "mcp", Values: []string{"github:list", "github_list"}, FirstCandidate: true, SessionValues: []string{"github_list"}},
		{Surface: "external_directory", Values: []string{"/tmp/x"}},
		{Surface: "acme_tool", Values: []string{"*"}},
	}
	sessions := [][]*Rule{nil, {sessionRule("bash", "rm *"), sessionRule("read", "*")}, {sessionRule("mcp", "github_list"), sessionRule("path", "/srv/*")}}
	for name, p := range policies {
		for round := 0; round < 3; round++ {
			for _, session := range sessions {
				for _, q := range queries {
					q.Session = session
					got := p.Resolve(q)
					if want := plainResolve(p, q); !reflect.DeepEqual(got, want) {
						t.Errorf("%s, round %d, %+v:\n cached %+v\n plain  %+v", name, round, q, got, want)
					}
				}
			}
		}
	}
}

// plainResolve is Resolve without the result cache.
func plainResolve(p *Policy, q Query) Result {
	values, sessionValues := q.valueSets()
	res := p.resolveFiles(p.surfaceSet(q.Surface), q.Surface, values, q.Args)
	if res.Action != Deny && len(q.Session) > 0 {
		if s, sv := Evaluate(q.Surface, sessionValues, q.Session); s != nil {
			res = Result{Action: Allow, Rule: s, Value: sv, Session: true}
		}
	}
	return res
}

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

// TestResultCacheBounded: however many different questions a session
// asks, the policy remembers at most maxPolicyResults answers, and none
// longer than maxResultKey; every answer is still the plain one.
func TestResultCacheBounded(t *testing.T) {
	p := global(t, `{"permission": {"*": "ask", "bash": {"git *": "allow"}, "read": {"src/*": "allow"}}}`)
	long := strings.Repeat("x", maxResultKey)
	for i := 0; i < maxPolicyResults+3000; i++ {
		for _, q := range []Query{
			{Surface: "bash", Values: []string{fmt.Sprintf("git log -%d", i)}},
			{Surface: fmt.Sprintf("tool%d", i%1500), Values: []string{fmt.Sprintf("v%d", i)}},
			{Surface: "read", Values: []string{"src/" + long}},
		} {
			if got, want := p.Resolve(q), plainResolve(p, q); !reflect.DeepEqual(got, want) {
				t.Fatalf("%+v: cached %+v, plain %+v", q, got, want)
			}
		}
		if n := p.results.Load(); n > maxPolicyResults {
			t.Fatalf("after %d questions the policy remembers %d answers", i, n)
		}
	}
	total := 0
	p.cache.Range(func(_, v any) bool {
		set := v.(*surfaceRules)
		set.results.mu.Lock()
		total += len(set.results.m) + len(set.results.commands)
		for k := range set.results.m {
			if len(k) > maxResultKey {
				t.Errorf("a key of %d bytes is remembered", len(k))
			}
		}
		set.results.mu.Unlock()
		return true
	})
	if int64(total) != p.results.Load() {
		t.Errorf("the count says %d, the caches hold %d", p.results.Load(), total)
	}
}
