package policy

import (
	"fmt"
	"strings"
	"testing"
)

// ---- helpers shared by the policy tests ---------------------------------

// scopeFile parses text as the file of scope. Project scopes are
// untrusted; global, --config and agent scopes are trusted.
func scopeFile(t testing.TB, scope, text string) ScopeFile {
	t.Helper()
	return scopeFileAt(t, scope, "/cfg/"+scope+".json", text)
}

func scopeFileAt(t testing.TB, scope, path, text string) ScopeFile {
	t.Helper()
	trusted := scope != ScopeProject && scope != ScopeProjectAgent
	return ScopeFile{Scope: scope, Path: path, Trusted: trusted, Exists: true, File: ParseFile(path, []byte(text))}
}

// composeOK composes files that must all parse cleanly.
func composeOK(t testing.TB, files ...ScopeFile) *Policy {
	t.Helper()
	for _, f := range files {
		if f.File != nil && len(f.File.Errors) > 0 {
			t.Fatalf("%s file does not parse: %v", f.Scope, f.File.Errors)
		}
	}
	return Compose(files, testHome)
}

// global composes a policy from one global file.
func global(t testing.TB, text string) *Policy {
	t.Helper()
	return composeOK(t, scopeFile(t, ScopeGlobal, text))
}

func sessionRule(surface, pattern string) *Rule {
	r := NewRule(surface, pattern, Allow, LayerSession, Origin{Scope: ScopeSession}, testHome)
	return &r
}

// want describes the expected Result. pattern "" with layer
// LayerFallback means the fallback decided.
type want struct {
	action  Action
	layer   Layer
	scope   string // origin scope of the deciding rule
	pattern string // pattern of the deciding rule
	value   string // "" means the first value of the query
	reason  string
	floored bool
	session bool
}

func checkResult(t *testing.T, name string, q Query, got Result, w want) {
	t.Helper()
	if got.Rule == nil {
		t.Errorf("%s: Result.Rule is nil", name)
		return
	}
	wv := w.value
	if wv == "" {
		wv = "*"
		if len(q.Values) > 0 {
			wv = q.Values[0]
		}
	}
	wp := w.pattern
	if w.layer == LayerFallback && wp == "" {
		wp = "*"
	}
	var problems []string
	if got.Action != w.action {
		problems = append(problems, fmt.Sprintf("action %v, want %v", got.Action, w.action))
	}
	if got.Rule.Layer != w.layer {
		problems = append(problems, fmt.Sprintf("layer %d, want %d", got.Rule.Layer, w.layer))
	}
	if got.Rule.Origin.Scope != w.scope {
		problems = append(problems, fmt.Sprintf("origin %q, want %q", got.Rule.Origin.Scope, w.scope))
	}
	if got.Rule.Pattern != wp {
		problems = append(problems, fmt.Sprintf("pattern %q, want %q", got.Rule.Pattern, wp))
	}
	if got.Value != wv {
		problems = append(problems, fmt.Sprintf("value %q, want %q", got.Value, wv))
	}
	if got.Rule.Reason != w.reason {
		problems = append(problems, fmt.Sprintf("reason %q, want %q", got.Rule.Reason, w.reason))
	}
	if got.Floored != w.floored {
		problems = append(problems, fmt.Sprintf("floored %t, want %t", got.Floored, w.floored))
	}
	if got.Session != w.session {
		problems = append(problems, fmt.Sprintf("session %t, want %t", got.Session, w.session))
	}
	if got.Rule.IsFallback() != (w.layer == LayerFallback) {
		problems = append(problems, fmt.Sprintf("IsFallback %t", got.Rule.IsFallback()))
	}
	if len(problems) > 0 {
		t.Errorf("%s: Resolve(%s %q) → %s", name, q.Surface, q.Values, strings.Join(problems, "; "))
	}
}

func allowed(scope, pattern string) want {
	return want{action: Allow, layer: LayerConfig, scope: scope, pattern: pattern}
}
func asked(scope, pattern string) want {
	return want{action: Ask, layer: LayerConfig, scope: scope, pattern: pattern}
}
func denied(scope, pattern string) want {
	return want{action: Deny, layer: LayerConfig, scope: scope, pattern: pattern}
}
func fallback(a Action, scope string) want {
	return want{action: a, layer: LayerFallback, scope: scope}
}

type resolveRow struct {
	name    string
	policy  *Policy
	surface string
	values  []string
	first   bool // FirstCandidate
	session []*Rule
	want    want
}

func runResolveRows(t *testing.T, rows []resolveRow) {
	t.Helper()
	for _, r := range rows {
		q := Query{Surface: r.surface, Values: r.values, FirstCandidate: r.first, Session: r.session}
		checkResult(t, r.name, q, r.policy.Resolve(q), r.want)
	}
}

func vals(v ...string) []string { return v }

// ---- Evaluate ---------------------------------------------------------------

func rulesOf(specs ...[3]string) []*Rule {
	var out []*Rule
	for i, s := range specs {
		a, err := ParseAction(s[2])
		if err != nil {
			panic(err)
		}
		r := NewRule(s[0], s[1], a, LayerConfig, Origin{Scope: ScopeGlobal, Line: i + 1}, testHome)
		out = append(out, &r)
	}
	return out
}

func TestEvaluate(t *testing.T) {
	rules := rulesOf(
		[3]string{"*", "*", "ask"},
		[3]string{"bash", "git *", "allow"},
		[3]string{"bash", "git push *", "deny"},
		[3]string{"context7_*", "*", "allow"},
		[3]string{"read", "/p/*", "allow"},
		[3]string{"read", "*.env", "deny"},
		[3]string{"read", "~/.ssh/*", "deny"},
	)
	for _, r := range []struct {
		surface   string
		values    []string
		wantLine  int // 0: nil
		wantValue string
	}{
		{"bash", vals("git status"), 2, "git status"},
		{"bash", vals("git push origin"), 3, "git push origin"},
		{"bash", vals("git"), 2, "git"},
		{"bash", vals("ls"), 1, "ls"},
		{"context7_resolve", vals("*"), 4, "*"},
		{"context7", vals("*"), 1, "*"},
		{"Context7_x", vals("*"), 1, "*"},
		// Any-of-values: rule order dominates value order.
		{"read", vals("/p/a", "/p/.env"), 6, "/p/.env"},
		{"read", vals("/p/.env", "/p/a"), 6, "/p/.env"},
		// The reported value is the first value the winning rule matches.
		{"read", vals("/p/a", "/p/b"), 5, "/p/a"},
		// A "/*" pattern covers the directory itself on path surfaces.
		{"read", vals("/home/u/.ssh"), 7, "/home/u/.ssh"},
		{"read", vals("/home/u/.ssh_old"), 1, "/home/u/.ssh_old"},
	} {
		got, v := Evaluate(r.surface, r.values, rules)
		// Resolve evaluates the rules of one surface without matching the
		// surface again; both must agree.
		var onSurface []*Rule
		for _, rule := range rules {
			if rule.MatchesSurface(r.surface) {
				onSurface = append(onSurface, rule)
			}
		}
		if got2, v2 := evaluateOn(r.surface, r.values, onSurface); got2 != got || v2 != v {
			t.Errorf("evaluateOn(%s, %q) = %v %q, Evaluate = %v %q", r.surface, r.values, got2, v2, got, v)
		}
		if got == nil || got.Origin.Line != r.wantLine || v != r.wantValue {
			line := 0
			if got != nil {
				line = got.Origin.Line
			}
			t.Errorf("Evaluate(%s, %q) = rule line %d value %q, want line %d value %q", r.surface, r.values, line, v, r.wantLine, r.wantValue)
		}
	}
	// "/*" covers the directory only on path surfaces.
	dirRules := rulesOf([3]string{"bash", "/x/*", "deny"})
	if r, _ := Evaluate("bash", vals("/x"), dirRules); r != nil {
		t.Errorf("bash is not a path surface: /x/* must not match /x")
	}
	if r, _ := Evaluate("mcp", vals("x"), rules[1:]); r != nil {
		t.Errorf("Evaluate without a matching rule = %+v, want nil", r)
	}
	if r, v := Evaluate("bash", nil, rules); r != nil || v != "" {
		t.Errorf("Evaluate with no values = %+v %q, want nil", r, v)
	}
}

func TestIsPathSurface(t *testing.T) {
	for _, s := range []string{"path", "external_directory", "read", "write", "edit", "grep", "find", "ls"} {
		if !IsPathSurface(s) {
			t.Errorf("%s must be a path surface", s)
		}
	}
	for _, s := range []string{"bash", "mcp", "skill", "*", "task", "Read", ""} {
		if IsPathSurface(s) {
			t.Errorf("%s must not be a path surface", s)
		}
	}
}

func TestActions(t *testing.T) {
	for s, a := range map[string]Action{"allow": Allow, "ask": Ask, "deny": Deny} {
		got, err := ParseAction(s)
		if err != nil || got != a || got.String() != s {
			t.Errorf("ParseAction(%q) = %v, %v", s, got, err)
		}
	}
	for _, s := range []string{"", "Allow", "DENY", "yes", " ask"} {
		if _, err := ParseAction(s); err == nil {
			t.Errorf("ParseAction(%q) must fail", s)
		}
	}
	if !Deny.MoreRestrictive(Ask) || !Ask.MoreRestrictive(Allow) || Allow.MoreRestrictive(Allow) || Ask.MoreRestrictive(Deny) {
		t.Errorf("MoreRestrictive order is wrong")
	}
	if Action(0).String() != "invalid" {
		t.Errorf("zero Action must print invalid")
	}
}

// ---- the original extension's behavior at the policy level --------------------------------------

func TestAnchorWildcardPolicyRows(t *testing.T) {
	gitAny := global(t, `{"permission": {"bash": {"git *": "allow"}}}`)
	gitStatus := global(t, `{"permission": {"bash": {"git status *": "allow"}}}`)
	gStarT := global(t, `{"permission": {"bash": {"g*t": "allow"}}}`)
	gitStar := global(t, `{"permission": {"bash": {"git*": "allow"}}}`)
	statuQ := global(t, `{"permission": {"bash": {"git statu?": "allow"}}}`)
	gitQStar := global(t, `{"permission": {"bash": {"git?*": "allow"}}}`)
	toolName := global(t, `{"permission": {"skill": {"tool.name": "allow"}}}`)
	read := global(t, `{"permission": {"skill": {"read": "allow"}}}`)
	lastWins := global(t, `{"permission": {"bash": {"*": "deny", "git status": "allow"}}}`)
	push := global(t, `{"permission": {"bash": {"git *": "allow", "git push *": "deny"}}}`)
	dotAll := global(t, `{"permission": {"*": "allow", "bash": {"rm -rf *": "deny"}}}`)
	qPath := global(t, `{"permission": {"path": {"a?b": "deny"}}}`)
	devTilde := global(t, `{"permission": {"external_directory": {"*": "ask", "~/dev/*": "allow"}}}`)
	devHome := global(t, `{"permission": {"external_directory": {"*": "ask", "$HOME/dev/*": "allow"}}}`)
	devDeny := global(t, `{"permission": {"external_directory": {"*": "ask", "~/dev/*": "deny"}}}`)
	win := global(t, `{"permission": {"external_directory": {"*": "deny", "C:/Users/Foo/AppData/Roaming/*": "allow"}}}`)

	ask := fallback(Ask, ScopeBuiltin)
	runResolveRows(t, []resolveRow{
		{"row 1", gitAny, "bash", vals("git"), false, nil, allowed(ScopeGlobal, "git *")},
		{"row 2", gitAny, "bash", vals("git status --short"), false, nil, allowed(ScopeGlobal, "git *")},
		{"row 3", gitAny, "bash", vals("npm install"), false, nil, ask},
		{"row 4", gitStatus, "bash", vals("git status"), false, nil, allowed(ScopeGlobal, "git status *")},
		{"row 5 g", gStarT, "bash", vals("g"), false, nil, ask},
		{"row 5 git", gStarT, "bash", vals("git"), false, nil, allowed(ScopeGlobal, "g*t")},
		{"row 6 git", gitStar, "bash", vals("git"), false, nil, allowed(ScopeGlobal, "git*")},
		{"row 6 gitfoo", gitStar, "bash", vals("gitfoo"), false, nil, allowed(ScopeGlobal, "git*")},
		{"row 7 status", statuQ, "bash", vals("git status"), false, nil, allowed(ScopeGlobal, "git statu?")},
		{"row 7 statux", statuQ, "bash", vals("git statux"), false, nil, allowed(ScopeGlobal, "git statu?")},
		{"row 7 statu", statuQ, "bash", vals("git statu"), false, nil, ask},
		{"row 8", gitQStar, "bash", vals("git"), false, nil, ask},
		{"row 9 toolXname", toolName, "skill", vals("toolXname"), false, nil, ask},
		{"row 9 tool.name", toolName, "skill", vals("tool.name"), false, nil, allowed(ScopeGlobal, "tool.name")},
		{"row 10 read space", read, "skill", vals("read "), false, nil, ask},
		{"row 10 readonly", read, "skill", vals("readonly"), false, nil, ask},
		{"row 11", lastWins, "bash", vals("git status"), false, nil, allowed(ScopeGlobal, "git status")},
		{"row 11 other", lastWins, "bash", vals("git log"), false, nil, denied(ScopeGlobal, "*")},
		{"row 12", push, "bash", vals("git push origin main"), false, nil, denied(ScopeGlobal, "git push *")},
		{"row 13", dotAll, "bash", vals("node -e \"\nimport('x')\n\""), false, nil, fallback(Allow, ScopeGlobal)},
		{"row 13 multi-line deny", dotAll, "bash", vals("rm -rf a\nb"), false, nil, denied(ScopeGlobal, "rm -rf *")},
		{"row 14 a/b", qPath, "path", vals("a/b"), false, nil, denied(ScopeGlobal, "a?b")},
		{"row 14 a.b", qPath, "path", vals("a.b"), false, nil, denied(ScopeGlobal, "a?b")},
		{"row 14 a\\nb", qPath, "path", vals("a\nb"), false, nil, denied(ScopeGlobal, "a?b")},
		{"row 15", devTilde, "external_directory", vals("/home/u/dev/project/file.ts"), false, nil, allowed(ScopeGlobal, "~/dev/*")},
		{"row 16", devHome, "external_directory", vals("/home/u/dev/project/file.ts"), false, nil, allowed(ScopeGlobal, "$HOME/dev/*")},
		{"row 17", devDeny, "external_directory", vals("/other/user/dev/file.ts"), false, nil, asked(ScopeGlobal, "*")},
		{"row 18 (posix)", win, "external_directory", vals(`c:\users\foo\appdata\roaming\npm\x.md`), false, nil, denied(ScopeGlobal, "*")},
		{"row 18 exact spelling", win, "external_directory", vals(`C:/Users/Foo/AppData/Roaming/npm/x.md`), false, nil, allowed(ScopeGlobal, "C:/Users/Foo/AppData/Roaming/*")},
		{"row 19", gitAny, "bash", vals("GIT push"), false, nil, ask},
	})
}

// ---- sessions (with the design: a session approval never
// overrides a policy-file deny) --------------------------------------------------

func TestSessionRows(t *testing.T) {
	none := global(t, `{}`)
	readEnv := global(t, `{"permission": {"read": {"*": "allow", "*.env": "deny"}}}`)
	pathEnv := global(t, `{"permission": {"path": {"*": "allow", "*.env": "deny"}}}`)
	asks := global(t, `{"permission": {"*": "ask", "bash": {"*": "ask", "rm *": "deny"}, "edit": {"*.lock": "deny"}}}`)
	fbDeny := global(t, `{"permission": {"*": "deny"}}`)

	gitStatus := []*Rule{sessionRule("bash", "git status")}
	gitAny := []*Rule{sessionRule("bash", "git *")}
	sess := sessionWant
	runResolveRows(t, []resolveRow{
		{"row 35", none, "bash", vals("git status"), false, gitStatus, sess("git status")},
		{"row 36", none, "bash", vals("git push origin main"), false, gitStatus, fallback(Ask, ScopeBuiltin)},
		{"row 37 push", none, "bash", vals("git push origin main"), false, gitAny, sess("git *")},
		{"row 37 status", none, "bash", vals("git status"), false, gitAny, sess("git *")},
		// the design differs from anchor rows 38/39: the file's deny stands.
		{"row 38 (toolgate)", readEnv, "read", vals(".env"), false, []*Rule{sessionRule("read", ".env")}, denied(ScopeGlobal, "*.env")},
		{"row 39 (toolgate)", pathEnv, "path", vals("/project/.env"), false, []*Rule{sessionRule("path", "/project/.env")}, denied(ScopeGlobal, "*.env")},
		{"row 40", none, "mcp", vals("x_y", "x:y", "x", "y", "mcp_call", "mcp"), true, []*Rule{sessionRule("bash", "*")}, want{action: Ask, layer: LayerFallback, scope: ScopeBuiltin, value: "x_y"}},
		{"session beats ask rule", asks, "bash", vals("ls -l"), false, []*Rule{sessionRule("bash", "ls *")}, sess("ls *")},
		{"session beats fallback ask", asks, "task", vals("*"), false, []*Rule{sessionRule("task", "*")}, sess("*")},
		{"broad session glob does not beat narrower deny", asks, "edit", vals("/proj/go.lock"), false, []*Rule{sessionRule("edit", "/proj/*")}, denied(ScopeGlobal, "*.lock")},
		{"session allows the rest", asks, "edit", vals("/proj/main.go"), false, []*Rule{sessionRule("edit", "/proj/*")}, sess("/proj/*")},
		{"session never beats a deny fallback set by a file", fbDeny, "task", vals("*"), false, []*Rule{sessionRule("task", "*")}, fallback(Deny, ScopeGlobal)},
		{"session does not beat bash deny", asks, "bash", vals("rm -rf /"), false, []*Rule{sessionRule("bash", "*")}, denied(ScopeGlobal, "rm *")},
		{"cross-surface: edit session does not touch path", pathEnv, "path", vals("/p/x.env"), false, []*Rule{sessionRule("edit", "*")}, denied(ScopeGlobal, "*.env")},
		{"last session rule that matches", none, "bash", vals("git status"), false, []*Rule{sessionRule("bash", "git *"), sessionRule("bash", "git status")}, sess("git status")},
	})
}

// ---- MCP: Resolve with FirstCandidate ----------------

// The candidate lists are those the original extension's behavior derives (gates.MCPTargets is
// tested against the same lists in gates/mcp_test.go).
var (
	candResearchQueryDocs = vals("research_query-docs", "research:query-docs", "research", "query-docs", "mcp_call", "mcp")
	candResearchResolve   = vals("research_resolve-context", "research:resolve-context", "research", "resolve-context", "mcp_call", "mcp")
	candSearchProvider    = vals("search_provider", "search:provider", "search", "provider", "mcp_call", "mcp")
	candGetCodeContextExa = vals("exa_get_code_context_exa", "exa:get_code_context_exa", "exa", "get_code_context_exa", "mcp_call", "mcp")
	candLegacy            = vals("some_tool_legacy-server", "mcp_call", "mcp")
	candDescribeWebSearch = vals("exa_web_search_exa", "exa:web_search_exa", "exa", "web_search_exa", "mcp_describe", "mcp")
	candToolWebSearch     = vals("exa_web_search_exa", "exa:web_search_exa", "exa", "web_search_exa", "mcp_call", "mcp")
	candOtherExa          = vals("exa_other_exa", "exa:other_exa", "exa", "other_exa", "mcp_call", "mcp")
	candStatus            = vals("mcp_status", "mcp")
	candConnectExa        = vals("mcp_connect_exa", "exa", "mcp_connect", "mcp")
	candExaSearch         = vals("exa_search", "exa:search", "exa", "search", "mcp_call", "mcp")
)

func TestMCPFirstCandidateRows(t *testing.T) {
	research := global(t, `{"permission": {"mcp": {"*": "deny", "research_*": "ask", "research_query-*": "allow"}}}`)
	exaCtx := global(t, `{"permission": {"mcp": {"exa_*": "deny", "exa_get_code_context_exa": "allow"}}}`)
	legacy := global(t, `{"permission": {"mcp": {"legacy-server_*": "allow"}}}`)
	exaDescribe := global(t, `{"permission": {"mcp": {"exa_*": "deny", "exa_web_search_exa": "allow"}}}`)
	agentAllow := composeOK(t, scopeFile(t, ScopeGlobal, `{}`), scopeFile(t, ScopeAgent, `{"permission": {"mcp": {"*": "allow", "exa_web_search_exa": "deny"}}}`))
	agentDeny := composeOK(t, scopeFile(t, ScopeGlobal, `{}`), scopeFile(t, ScopeAgent, `{"permission": {"mcp": {"*": "deny", "exa_web_search_exa": "allow"}}}`))
	row27 := composeOK(t, scopeFile(t, ScopeGlobal, `{"permission": {"*": "deny"}}`), scopeFile(t, ScopeAgent, `{"permission": {"mcp": "allow"}}`))
	baseline := global(t, `{"permission": {"*": "ask", "mcp": {"exa:*": "allow"}}}`)
	shadowed := global(t, `{"permission": {"*": "ask", "mcp": {"*": "ask", "exa:*": "allow"}}}`)
	catchAll := global(t, `{"permission": {"mcp": {"*": "ask", "exa": "allow"}}}`)
	serverLevel := global(t, `{"permission": {"mcp": {"exa": "deny"}}}`)

	withValue := func(w want, v string) want { w.value = v; return w }
	base := func(v string) want {
		return want{action: Allow, layer: LayerBaseline, scope: ScopeBaseline, pattern: v, value: v}
	}
	runResolveRows(t, []resolveRow{
		{"row 45", research, "mcp", candResearchQueryDocs, true, nil, allowed(ScopeGlobal, "research_query-*")},
		{"row 46", research, "mcp", candResearchResolve, true, nil, asked(ScopeGlobal, "research_*")},
		{"row 47", research, "mcp", candSearchProvider, true, nil, denied(ScopeGlobal, "*")},
		{"row 48", exaCtx, "mcp", candGetCodeContextExa, true, nil, allowed(ScopeGlobal, "exa_get_code_context_exa")},
		{"row 49", legacy, "mcp", candLegacy, true, nil, fallback(Ask, ScopeBuiltin)},
		{"row 50", exaDescribe, "mcp", candDescribeWebSearch, true, nil, allowed(ScopeGlobal, "exa_web_search_exa")},
		{"row 51", agentAllow, "mcp", candToolWebSearch, true, nil, denied(ScopeAgent, "exa_web_search_exa")},
		{"row 52 web_search_exa", agentDeny, "mcp", candToolWebSearch, true, nil, allowed(ScopeAgent, "exa_web_search_exa")},
		{"row 52 other_exa", agentDeny, "mcp", candOtherExa, true, nil, denied(ScopeAgent, "*")},
		{"row 27 mcp", row27, "mcp", candToolWebSearch, true, nil, allowed(ScopeAgent, "*")},
		{"row 27 read", row27, "read", vals("*"), false, nil, fallback(Deny, ScopeGlobal)},
		{"row 53", global(t, `{"permission": {"*": "ask"}}`), "mcp", candStatus, true, nil, fallback(Ask, ScopeGlobal)},
		{"row 54 connect via baseline", baseline, "mcp", candConnectExa, true, nil, base("mcp_connect")},
		{"row 54 server rule on connect", serverLevel, "mcp", candConnectExa, true, nil, withValue(denied(ScopeGlobal, "exa"), "exa")},
		{"row 55", baseline, "mcp", candStatus, true, nil, base("mcp_status")},
		{"row 56", shadowed, "mcp", candStatus, true, nil, asked(ScopeGlobal, "*")},
		// Anchor row 57 (derived, not pinned) asked: its first candidate hit
		// the catch-all. Candidates are forms of one target: the
		// later server rule wins.
		{"row 57", catchAll, "mcp", candExaSearch, true, nil, withValue(allowed(ScopeGlobal, "exa"), "exa")},
		{"server-level rule without catch-all", serverLevel, "mcp", candExaSearch, true, nil, withValue(denied(ScopeGlobal, "exa"), "exa")},
		{"all fallback: first candidate reported", legacy, "mcp", candExaSearch, true, nil, fallback(Ask, ScopeBuiltin)},
		{"empty candidate list is *", research, "mcp", nil, true, nil, denied(ScopeGlobal, "*")},
	})
}

// TestFirstCandidateSessionNeverBeatsFileDeny: a session approval that
// matches an earlier candidate must not override the deny the files reach
// through a later candidate.
func TestFirstCandidateSessionNeverBeatsFileDeny(t *testing.T) {
	p := global(t, `{"permission": {"mcp": {"exa:delete_*": "deny"}}}`)
	exaAll := []*Rule{sessionRule("mcp", "exa_*")}
	del := vals("exa_delete_all", "exa:delete_all", "exa", "delete_all", "mcp_call", "mcp")
	sess := sessionWant("exa_*")
	catchAsk := global(t, `{"permission": {"mcp": {"*": "ask"}}}`)
	ghDelete := global(t, `{"permission": {"mcp": {"*": "ask", "github:delete_repo": "deny"}}}`)
	ghDeleteRepo := vals("github_delete_repo", "github:delete_repo", "github", "delete_repo", "mcp_call", "mcp")
	withForm := func(w want, v string) want { w.value = v; return w }
	runResolveRows(t, []resolveRow{
		{"file deny via a later candidate", p, "mcp", del, true, exaAll, want{action: Deny, layer: LayerConfig, scope: ScopeGlobal, pattern: "exa:delete_*", value: "exa:delete_all"}},
		{"session still allows what the files only ask", p, "mcp", candExaSearch, true, exaAll, sess},
		// Candidates are forms: a session approval of any form
		// approves what the files only ask.
		{"session on a later candidate", catchAsk, "mcp", candExaSearch, true, []*Rule{sessionRule("mcp", "exa")}, want{action: Allow, layer: LayerSession, scope: ScopeSession, pattern: "exa", value: "exa", session: true}},
		{"catch-all first, a later form denies", ghDelete, "mcp", ghDeleteRepo, true, nil, withForm(denied(ScopeGlobal, "github:delete_repo"), "github:delete_repo")},
		{"catch-all first, session on the server", ghDelete, "mcp", ghDeleteRepo, true, []*Rule{sessionRule("mcp", "github:*")}, withForm(denied(ScopeGlobal, "github:delete_repo"), "github:delete_repo")},
		{"catch-all first, other tool asks", ghDelete, "mcp", vals("github_list", "github:list", "github", "list", "mcp_call", "mcp"), true, nil, asked(ScopeGlobal, "*")},
		{"session server form", catchAsk, "mcp", candExaSearch, true, []*Rule{sessionRule("mcp", "exa:*")}, sessionValue("exa:*", "exa:search")},
		{"session on the first candidate", catchAsk, "mcp", candExaSearch, true, []*Rule{sessionRule("mcp", "exa_search")}, sessionWant("exa_search")},
	})
}

func sessionValue(pattern, value string) want {
	w := sessionWant(pattern)
	w.value = value
	return w
}

func sessionWant(pattern string) want {
	return want{action: Allow, layer: LayerSession, scope: ScopeSession, pattern: pattern, session: true}
}

func TestResolveEmptyValuesIsStar(t *testing.T) {
	p := global(t, `{"permission": {"write": {"*": "deny", "src/*": "allow"}}}`)
	q := Query{Surface: "write"}
	checkResult(t, "tool-level state", q, p.Resolve(q), want{action: Deny, layer: LayerConfig, scope: ScopeGlobal, pattern: "*", value: "*"})
}

func TestResolveIsPureAndCached(t *testing.T) {
	p := global(t, `{"permission": {"bash": {"*": "ask", "ls *": "allow"}}}`)
	for i := 0; i < 3; i++ {
		q := Query{Surface: "bash", Values: vals("ls -l")}
		checkResult(t, fmt.Sprintf("repeat %d", i), q, p.Resolve(q), allowed(ScopeGlobal, "ls *"))
	}
	// Many distinct surfaces: the per-surface cache is bounded and the
	// answers stay right past the bound.
	for i := 0; i < maxCachedSurfaces+10; i++ {
		q := Query{Surface: fmt.Sprintf("tool%d", i), Values: vals("*")}
		checkResult(t, q.Surface, q, p.Resolve(q), fallback(Ask, ScopeBuiltin))
	}
	if n := p.cacheSize.Load(); n > maxCachedSurfaces {
		t.Errorf("surface cache holds %d entries, bound is %d", n, maxCachedSurfaces)
	}
}

// SessionValues narrow what a session approval may match: the MCP gate
// passes the forms naming the server the person approved, so github:*
// approved for the session does not allow a call that names github only in
// a raw reference while its server is gitlab.
func TestSessionValuesNarrowSessionMatch(t *testing.T) {
	p := global(t, `{"permission": {"*": "ask"}}`)
	sess := []*Rule{sessionRule("mcp", "github:*")}
	cands := []string{"gitlab_list", "gitlab:list", "gitlab", "list", "github:list", "mcp_call", "mcp"}
	if r := p.Resolve(Query{Surface: "mcp", Values: cands, Session: sess}); !r.Session {
		t.Fatalf("without SessionValues every form may match: %+v", r)
	}
	r := p.Resolve(Query{Surface: "mcp", Values: cands, Session: sess, SessionValues: []string{"gitlab_list", "gitlab:list"}})
	if r.Session || r.Action != Ask {
		t.Fatalf("a session approval matched a form outside SessionValues: %+v", r)
	}
	r = p.Resolve(Query{Surface: "mcp", Values: []string{"github_list", "github:list"}, Session: sess, SessionValues: []string{"github_list", "github:list"}})
	if !r.Session || r.Action != Allow {
		t.Fatalf("the approved server's target is not approved: %+v", r)
	}
}
