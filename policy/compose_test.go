package policy

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// dump lists the composed rules as "surface|pattern|action|scope|line|layer".
func dump(p *Policy) []string {
	var out []string
	for _, r := range p.Rules() {
		out = append(out, fmt.Sprintf("%s|%s|%v|%s|%d|%d", r.Surface, r.Pattern, r.Action, r.Origin.Scope, r.Origin.Line, r.Layer))
	}
	return out
}

func checkDump(t *testing.T, name string, p *Policy, want []string) {
	t.Helper()
	got := dump(p)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s: rules\n  %s\nwant\n  %s", name, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

func hasWarning(p *Policy, path string, line, col int, text string) bool {
	for _, w := range p.Warnings {
		if w.Path == path && w.Line == line && w.Column == col && strings.Contains(w.Message, text) {
			return true
		}
	}
	return false
}

// ---- the original extension's behavior (toolgate where it differs) --------------------------------

func TestAnchorRuleModelRows(t *testing.T) {
	none := composeOK(t)
	empty := global(t, `{}`)
	row21 := global(t, `{"permission": {"*": "allow"}}`)
	row22 := global(t, `{"permission": {"*": "deny", "third_party_tool": "allow", "mcp": {"*": "deny"}}}`)
	row23 := global(t, `{"permission": {"*": "ask", "find": "allow", "ls": "deny"}}`)
	row24 := composeOK(t,
		scopeFile(t, ScopeGlobal, `{"permission": {"*": "allow", "bash": {"*": "ask", "rm -rf *": "deny"}}}`),
		scopeFile(t, ScopeProject, `{"permission": {"bash": {"rm -rf build": "allow"}}}`))
	row25 := composeOK(t,
		scopeFile(t, ScopeGlobal, `{"permission": {"bash": {"git *": "ask", "npm *": "ask"}}}`),
		scopeFile(t, ScopeProject, `{"permission": {"bash": "allow"}}`))
	row26 := composeOK(t,
		scopeFile(t, ScopeGlobal, `{"permission": {"read": "ask"}}`),
		scopeFile(t, ScopeProject, `{"permission": {"read": {"*": "allow"}}}`))
	row29 := Compose([]ScopeFile{scopeFile(t, ScopeGlobal, "{\n  \"debugLo\": true,\n  \"permission\": {\"*\": \"allow\"}\n}")}, testHome)
	row30 := Compose([]ScopeFile{scopeFile(t, ScopeGlobal, `{"permission": {"bash": {"npm *": {"action": "deny", "reason": 42}}}}`)}, testHome)
	row31 := global(t, `{"permission": {"bash": {"npm *": {"action": "deny", "reason": "Use pnpm instead"}}}}`)
	row32 := global(t, `{"permission": {"read": {"*.env": {"action": "deny", "reason": "Environment files contain secrets"}}}}`)
	row33 := global(t, "{\n  // comment\n  \"permission\": {\n    /* block */\n    \"bash\": {\"curl https://example.com/*\": \"allow\"}, // trailing\n  },\n}\n")
	row34 := global(t, `{"yoloMode": true, "permission": {"bash": {"*": "ask", "rm *": "deny"}}}`)

	floored := denied(ScopeGlobal, "rm -rf *")
	floored.floored = true
	withReason := func(w want, r string) want { w.reason = r; return w }
	runResolveRows(t, []resolveRow{
		{"row 20 (no files)", none, "read", vals("*"), false, nil, fallback(Ask, ScopeBuiltin)},
		{"row 20", empty, "read", vals("*"), false, nil, fallback(Ask, ScopeBuiltin)},
		{"row 21", row21, "third_party_tool", vals("*"), false, nil, fallback(Allow, ScopeGlobal)},
		{"row 22 named tool", row22, "third_party_tool", vals("*"), false, nil, allowed(ScopeGlobal, "*")},
		{"row 22 other tool", row22, "another_extension_tool", vals("*"), false, nil, fallback(Deny, ScopeGlobal)},
		{"row 23 find", row23, "find", vals("*"), false, nil, allowed(ScopeGlobal, "*")},
		{"row 23 ls", row23, "ls", vals("*"), false, nil, denied(ScopeGlobal, "*")},
		// the design differs from the anchor: the project cannot loosen the
		// global deny; the answer reports the global rule.
		{"row 24 build (toolgate: floored)", row24, "bash", vals("rm -rf build"), false, nil, floored},
		{"row 24 node_modules", row24, "bash", vals("rm -rf node_modules"), false, nil, denied(ScopeGlobal, "rm -rf *")},
		{"row 24 other", row24, "bash", vals("ls"), false, nil, asked(ScopeGlobal, "*")},
		{"row 25", row25, "bash", vals("anything"), false, nil, allowed(ScopeProject, "*")},
		{"row 25 former pattern", row25, "bash", vals("git status"), false, nil, allowed(ScopeProject, "*")},
		{"row 26", row26, "read", vals("*"), false, nil, allowed(ScopeProject, "*")},
		{"row 29 read", row29, "read", vals("*"), false, nil, fallback(Ask, ScopeBuiltin)},
		{"row 29 bash", row29, "bash", vals("ls"), false, nil, fallback(Ask, ScopeBuiltin)},
		// the design differs from the anchor (which rejects the file, so
		// the fallback asks): the bad entry is a deny at its position.
		{"row 30", row30, "bash", vals("npm install"), false, nil, withReason(denied(ScopeGlobal, "npm *"),
			"the policy entry at /cfg/global.json:1 is broken (the reason of bash pattern \"npm *\" must be a string, not a number), so it denies until it is fixed")},
		{"row 31", row31, "bash", vals("npm install"), false, nil, withReason(denied(ScopeGlobal, "npm *"), "Use pnpm instead")},
		{"row 32", row32, "read", vals(".env"), false, nil, withReason(denied(ScopeGlobal, "*.env"), "Environment files contain secrets")},
		{"row 33", row33, "bash", vals("curl https://example.com/x"), false, nil, allowed(ScopeGlobal, "curl https://example.com/*")},
		{"row 34 ls", row34, "bash", vals("ls"), false, nil, want{action: Allow, layer: LayerConfig, scope: ScopeYolo, pattern: "*"}},
		{"row 34 rm", row34, "bash", vals("rm x"), false, nil, denied(ScopeGlobal, "rm *")},
		{"row 34 fallback", row34, "task", vals("*"), false, nil, fallback(Allow, ScopeYolo)},
	})
	if !hasWarning(row29, "/cfg/global.json", 2, 3, "Unrecognized config key 'debugLo'.") {
		t.Errorf("row 29: warnings %v lack the unknown-key issue at 2:3", row29.Warnings)
	}
	if row29.Sources[0].Loaded || !row29.Sources[0].Exists {
		t.Errorf("row 29: source %+v, want exists and not loaded", row29.Sources[0])
	}
	if !row34.Yolo || row24.Yolo {
		t.Errorf("Yolo flags: row34 %t row24 %t", row34.Yolo, row24.Yolo)
	}
}

// Row 28: the startup advice about bash inheriting a top-level allow.
func TestAdviceBashInheritsAllow(t *testing.T) {
	for _, c := range []struct {
		text string
		warn bool
	}{
		{`{"permission": {"*": "allow"}}`, true},
		{`{"permission": {"*": "allow", "bash": {"git *": "allow"}}}`, true},
		{`{"permission": {"*": "allow", "bash": {"*": "ask"}}}`, false},
		{`{"permission": {"*": "allow", "bash": "deny"}}`, false},
		{`{"permission": {"*": "ask"}}`, false},
		{`{"permission": {"bash": {"git *": "allow"}}}`, false},
	} {
		p := global(t, c.text)
		l, col := 0, 0
		if c.warn {
			l = 1
		}
		got := hasWarning(p, "/cfg/global.json", l, col, `no "bash" catch-all`)
		if got != c.warn || len(p.Warnings) != map[bool]int{true: 1, false: 0}[c.warn] {
			t.Errorf("%s: warnings %v, want advice %t", c.text, p.Warnings, c.warn)
		}
	}
}

// ---- merge order and provenance ------------------

func TestMergeOrder(t *testing.T) {
	g := scopeFile(t, ScopeGlobal, `{"permission": {
  "bash": {"*": "allow", "rm *": "deny"},
  "read": "ask",
  "edit": {"*.lock": "deny"}
}}`)
	pr := scopeFile(t, ScopeProject, `{"permission": {
  "bash": {"*": "ask", "ls": "allow"},
  "write": "deny",
  "read": {"x": "allow"}
}}`)
	ag := scopeFile(t, ScopeAgent, `{"permission": {
  "edit": {"*.md": "allow", "*.lock": "ask"},
  "bash": {"rm *": "ask", "mv *": "deny"}
}}`)
	p := composeOK(t, g, pr, ag)
	checkDump(t, "global+project+agent", p, []string{
		"*|*|ask|builtin|0|1",
		// bash keeps its first position; "*" is redefined by the project
		// in place, "rm *" by the agent in place, new keys go last.
		"bash|*|ask|project|2|3",
		"bash|rm *|ask|agent|3|3",
		"bash|ls|allow|project|2|3",
		"bash|mv *|deny|agent|3|3",
		// A map replaces the string in place, with the replacing origin.
		"read|x|allow|project|4|3",
		"edit|*.lock|ask|agent|2|3",
		"edit|*.md|allow|agent|2|3",
		"write|*|deny|project|3|3",
	})
	// The anchor's example: global {"*": allow, "rm *": deny} + project
	// {"*": ask} → ["*": ask (project), "rm *": deny (global)].
	q := composeOK(t,
		scopeFile(t, ScopeGlobal, `{"permission": {"bash": {"*": "allow", "rm *": "deny"}}}`),
		scopeFile(t, ScopeProject, `{"permission": {"bash": {"*": "ask"}}}`))
	checkDump(t, "anchor example", q, []string{"*|*|ask|builtin|0|1", "bash|*|ask|project|1|3", "bash|rm *|deny|global|1|3"})
	runResolveRows(t, []resolveRow{
		{"anchor example rm", q, "bash", vals("rm x"), false, nil, denied(ScopeGlobal, "rm *")},
		{"anchor example ls", q, "bash", vals("ls"), false, nil, asked(ScopeProject, "*")},
	})
}

func TestMergeReplaceOrigin(t *testing.T) {
	g := scopeFileAt(t, ScopeGlobal, "/g.json", "{\"permission\": {\n  \"bash\": {\"git *\": \"ask\", \"npm *\": \"ask\"},\n  \"read\": \"ask\",\n  \"grep\": \"deny\"\n}}")
	pr := scopeFileAt(t, ScopeProject, "/p.json", "{\"permission\": {\n\n  \"read\": {\n    \"*\": \"allow\",\n    \"*.env\": \"deny\"\n  },\n  \"bash\": \"allow\"\n}}")
	p := composeOK(t, g, pr)
	type o struct {
		surface, pattern, scope, path string
		line                          int
	}
	var got []o
	for _, r := range p.Rules()[1:] {
		got = append(got, o{r.Surface, r.Pattern, r.Origin.Scope, r.Origin.Path, r.Origin.Line})
	}
	want := []o{
		{"bash", "*", ScopeProject, "/p.json", 7}, // string replaced the map
		{"read", "*", ScopeProject, "/p.json", 4}, // map replaced the string
		{"read", "*.env", ScopeProject, "/p.json", 5},
		{"grep", "*", ScopeGlobal, "/g.json", 4},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("origins\n  %v\nwant\n  %v", got, want)
	}
	// Trusted marks rules of trusted scopes.
	for _, r := range p.Rules() {
		if wantT := r.Origin.Scope == ScopeGlobal; r.Trusted != wantT {
			t.Errorf("rule %s %s from %s: Trusted %t", r.Surface, r.Pattern, r.Origin.Scope, r.Trusted)
		}
	}
}

// ---- fallback --------------------------------------------------------------

func TestFallbackOrigin(t *testing.T) {
	for _, c := range []struct {
		name   string
		files  []ScopeFile
		action Action
		scope  string
		line   int
	}{
		{"unset", []ScopeFile{scopeFile(t, ScopeGlobal, `{"permission": {"bash": "deny"}}`)}, Ask, ScopeBuiltin, 0},
		{"global", []ScopeFile{scopeFile(t, ScopeGlobal, "{\"permission\": {\n \"*\": \"deny\"}}")}, Deny, ScopeGlobal, 2},
		{"project overrides", []ScopeFile{
			scopeFile(t, ScopeGlobal, `{"permission": {"*": "deny"}}`),
			scopeFile(t, ScopeProject, "{\n\"permission\": {\"*\": \"allow\"}}"),
		}, Allow, ScopeProject, 2},
		{"agent overrides", []ScopeFile{
			scopeFile(t, ScopeGlobal, `{"permission": {"*": "deny"}}`),
			scopeFile(t, ScopeAgent, `{"permission": {"*": "ask"}}`),
		}, Ask, ScopeAgent, 1},
	} {
		p := composeOK(t, c.files...)
		fb := p.Rules()[0]
		if !fb.IsFallback() || fb.Surface != "*" || fb.Pattern != "*" || fb.Action != c.action || fb.Origin.Scope != c.scope || fb.Origin.Line != c.line {
			t.Errorf("%s: fallback %+v, want %v from %s line %d", c.name, *fb, c.action, c.scope, c.line)
		}
		for _, r := range p.Rules()[1:] {
			if r.IsFallback() {
				t.Errorf("%s: a second fallback %+v", c.name, *r)
			}
		}
		res := p.Resolve(Query{Surface: "anything", Values: vals("x")})
		if res.Rule != fb {
			t.Errorf("%s: an unnamed surface is not decided by the fallback", c.name)
		}
	}
	// The fallback does not count for the floor: a project may loosen it.
	p := composeOK(t,
		scopeFile(t, ScopeGlobal, `{"permission": {"*": "deny"}}`),
		scopeFile(t, ScopeProject, `{"permission": {"bash": "allow"}}`))
	q := Query{Surface: "bash", Values: vals("rm -rf /")}
	checkResult(t, "project loosens the fallback", q, p.Resolve(q), allowed(ScopeProject, "*"))
	// A "*" map is not the fallback but rules on every surface.
	m := global(t, `{"permission": {"*": {"*.env": "deny"}}}`)
	if !m.Rules()[0].IsFallback() || m.Rules()[0].Origin.Scope != ScopeBuiltin {
		t.Errorf("a \"*\" map replaced the fallback: %v", dump(m))
	}
	for _, s := range []string{"read", "bash"} {
		q := Query{Surface: s, Values: vals("x.env")}
		checkResult(t, "\"*\" map on "+s, q, m.Resolve(q), denied(ScopeGlobal, "*.env"))
	}
}

// ---- MCP baseline --------------------------------------------

func TestMCPBaseline(t *testing.T) {
	baseline := []string{
		"mcp|mcp_status|allow|baseline|0|2", "mcp|mcp_list|allow|baseline|0|2", "mcp|mcp_search|allow|baseline|0|2",
		"mcp|mcp_describe|allow|baseline|0|2", "mcp|mcp_connect|allow|baseline|0|2",
	}
	for _, c := range []struct {
		name string
		text string
		has  bool
	}{
		{"string allow", `{"permission": {"bash": "deny", "mcp": "allow"}}`, true},
		{"pattern allow", `{"permission": {"bash": "deny", "mcp": {"*": "deny", "exa:*": "allow"}}}`, true},
		{"mcp ask", `{"permission": {"bash": "deny", "mcp": {"*": "ask"}}}`, false},
		{"mcp deny", `{"permission": {"bash": "deny", "mcp": "deny"}}`, false},
		{"fallback allow", `{"permission": {"*": "allow", "bash": "deny"}}`, false},
		{"other surface allow", `{"permission": {"bash": "allow"}}`, false},
		{"wildcard surface key is not mcp", `{"permission": {"bash": "deny", "mcp*": "allow"}}`, false},
	} {
		p := global(t, c.text)
		d := dump(p)
		got := len(d) > 6 && strings.Join(d[1:6], ",") == strings.Join(baseline, ",")
		if got != c.has {
			t.Errorf("%s: baseline %t, want %t: %v", c.name, got, c.has, d)
		}
		if !c.has {
			for _, r := range p.Rules() {
				if r.Layer == LayerBaseline {
					t.Errorf("%s: stray baseline rule %+v", c.name, *r)
				}
			}
		} else if d[6] != "bash|*|deny|global|1|3" {
			t.Errorf("%s: config rules must follow the baseline, got %s", c.name, d[6])
		}
	}
	// Explicit config denies on baseline targets still win.
	p := global(t, `{"permission": {"mcp": {"exa:*": "allow", "mcp_status": "deny"}}}`)
	q := Query{Surface: "mcp", Values: candStatus, FirstCandidate: true}
	checkResult(t, "config deny beats baseline", q, p.Resolve(q), denied(ScopeGlobal, "mcp_status"))
	q = Query{Surface: "mcp", Values: vals("mcp_server_exa", "exa", "mcp_list", "mcp"), FirstCandidate: true}
	checkResult(t, "baseline mcp_list", q, p.Resolve(q), want{action: Allow, layer: LayerBaseline, scope: ScopeBaseline, pattern: "mcp_list", value: "mcp_list"})
}

// ---- yolo ------------------------------------------------------------------

func TestYolo(t *testing.T) {
	rules := `"permission": {"*": "ask", "bash": {"*": "ask", "ls": "allow", "rm *": "deny"}}`
	yoloDump := []string{
		"*|*|allow|yolo|1|1", "bash|*|allow|yolo|1|3", "bash|ls|allow|global|1|3", "bash|rm *|deny|global|1|3",
	}
	p := global(t, `{"yoloMode": true, `+rules+`}`)
	checkDump(t, "global yolo", p, yoloDump)
	if !p.Yolo {
		t.Errorf("global yolo not on")
	}
	// A --config file has the global scope.
	c := composeOK(t, scopeFile(t, ScopeGlobal, `{`+rules+`}`), scopeFileAt(t, ScopeGlobal, "/extra.json", `{"yoloMode": true}`))
	checkDump(t, "--config yolo", c, yoloDump)
	off := composeOK(t, scopeFile(t, ScopeGlobal, `{"yoloMode": true, `+rules+`}`), scopeFileAt(t, ScopeGlobal, "/extra.json", `{"yoloMode": false}`))
	if off.Yolo {
		t.Errorf("a later --config yoloMode false must turn yolo off")
	}

	noYolo := []string{"*|*|ask|global|1|1", "bash|*|ask|global|1|3", "bash|ls|allow|global|1|3", "bash|rm *|deny|global|1|3"}
	for _, scope := range []string{ScopeProject, ScopeAgent, ScopeProjectAgent} {
		text := "{\n  \"permission\": {},\n    \"yoloMode\": true\n}"
		p := composeOK(t, scopeFile(t, ScopeGlobal, `{`+rules+`}`), scopeFile(t, scope, text))
		if p.Yolo {
			t.Errorf("%s yoloMode turned yolo on", scope)
		}
		checkDump(t, scope+" yolo ignored", p, noYolo)
		if !hasWarning(p, "/cfg/"+scope+".json", 3, 5, "'yoloMode' in a "+scope+" file is ignored") {
			t.Errorf("%s yolo: no warning naming the file at 3:5: %v", scope, p.Warnings)
		}
	}
	// Yolo never lifts the trust floor.
	f := composeOK(t,
		scopeFile(t, ScopeGlobal, `{"yoloMode": true, "permission": {"bash": {"rm *": "deny"}}}`),
		scopeFile(t, ScopeProject, `{"permission": {"bash": {"rm x": "ask"}}}`))
	q := Query{Surface: "bash", Values: vals("rm x")}
	w := denied(ScopeGlobal, "rm *")
	w.floored = true
	checkResult(t, "yolo and floor", q, f.Resolve(q), w)
}

// ---- fail closed ----------------------------------------------

func TestFailClosed(t *testing.T) {
	g := `{"permission": {"*": "allow", "bash": {"ls": "allow", "rm *": "deny", "git *": "ask"}, "mcp": {"exa:*": "allow"}}}`
	// A file-level error (a misspelt top-level key) breaks the whole file;
	// an entry error would break only its entry (TestEntryProblemsInEveryScope).
	brokenProject := "{\"permission\": {\"bash\": {\n  \"curl *\": \"deny\",\n  \"rm *\": \"deny\"}},\n \"yoloMod\": true}"
	clampedDump := []string{
		"*|*|ask|fail-closed|1|1",
		"mcp|mcp_status|ask|fail-closed|0|2", "mcp|mcp_list|ask|fail-closed|0|2", "mcp|mcp_search|ask|fail-closed|0|2",
		"mcp|mcp_describe|ask|fail-closed|0|2", "mcp|mcp_connect|ask|fail-closed|0|2",
		"bash|ls|ask|fail-closed|1|3", "bash|rm *|deny|global|1|3", "bash|git *|ask|global|1|3",
		"mcp|exa:*|ask|fail-closed|1|3",
	}
	for _, scope := range []string{ScopeProject, ScopeAgent, ScopeProjectAgent} {
		p := Compose([]ScopeFile{scopeFile(t, ScopeGlobal, g), scopeFile(t, scope, brokenProject)}, testHome)
		if !p.Clamped {
			t.Errorf("broken %s: not clamped", scope)
		}
		checkDump(t, "broken "+scope, p, clampedDump)
		path := "/cfg/" + scope + ".json"
		if !hasWarning(p, path, 4, 2, `Unrecognized config key 'yoloMod'.`) {
			t.Errorf("broken %s: no warning with the position of the problem: %v", scope, p.Warnings)
		}
		if !hasWarning(p, path, 0, 0, "fail-closed") {
			t.Errorf("broken %s: no fail-closed notice: %v", scope, p.Warnings)
		}
		if src := p.Sources[1]; src.Loaded || !src.Exists || src.Scope != scope || src.Path != path {
			t.Errorf("broken %s: source %+v", scope, src)
		}
		// The broken file's valid deny is not applied either.
		q := Query{Surface: "bash", Values: vals("curl x")}
		checkResult(t, "broken "+scope+": curl", q, p.Resolve(q), want{action: Ask, layer: LayerFallback, scope: ScopeFailClosed})
	}
	// Yolo does not re-permit what the clamp made ask: fail closed wins.
	y := Compose([]ScopeFile{scopeFile(t, ScopeGlobal, `{"yoloMode": true, "permission": {"bash": {"*": "ask", "ls": "allow"}}}`), scopeFile(t, ScopeProject, `{"x": 1}`)}, testHome)
	checkDump(t, "yolo and clamp", y, []string{"*|*|ask|fail-closed|0|1", "bash|*|ask|fail-closed|1|3", "bash|ls|ask|fail-closed|1|3"})
	if !y.Clamped || !y.Yolo {
		t.Errorf("yolo and clamp: Clamped %t Yolo %t", y.Clamped, y.Yolo)
	}
	// A broken global file clamps too (the project's allows ask).
	bg := Compose([]ScopeFile{scopeFile(t, ScopeGlobal, `{"permission": {"bash": "deny"}, "permisions": {}}`), scopeFile(t, ScopeProject, `{"permission": {"bash": {"ls": "allow"}}}`)}, testHome)
	checkDump(t, "broken global", bg, []string{"*|*|ask|builtin|0|1", "bash|ls|ask|fail-closed|1|3"})
	// No clamp when every file is fine.
	ok := composeOK(t, scopeFile(t, ScopeGlobal, g), scopeFile(t, ScopeProject, `{"permission": {"bash": {"curl *": "deny"}}}`))
	if ok.Clamped {
		t.Errorf("clamped without a broken file")
	}
	for _, r := range ok.Rules() {
		if r.Origin.Scope == ScopeFailClosed {
			t.Errorf("fail-closed rule without a broken file: %+v", *r)
		}
	}
}

// ---- trust floor ------------------------------------------------

func TestTrustFloor(t *testing.T) {
	gp := func(g, pr string) *Policy {
		return composeOK(t, scopeFile(t, ScopeGlobal, g), scopeFile(t, ScopeProject, pr))
	}
	fl := func(w want) want { w.floored = true; return w }
	withValue := func(w want, v string) want { w.value = v; return w }
	withReason := func(w want, r string) want { w.reason = r; return w }

	tighten := gp(`{"permission": {"bash": {"*": "allow"}}}`, `{"permission": {"bash": {"rm *": "deny"}}}`)
	loosenAsk := gp(`{"permission": {"bash": {"*": "ask"}}}`, `{"permission": {"bash": {"ls *": "allow"}}}`)
	sameKey := gp(`{"permission": {"bash": {"rm *": "deny"}}}`, `{"permission": {"bash": {"rm *": "allow"}}}`)
	sameKeyAsk := gp(`{"permission": {"bash": {"rm *": "deny"}}}`, `{"permission": {"bash": {"rm *": "ask"}}}`)
	stringReplaces := gp(`{"permission": {"bash": {"rm *": "deny", "ls": "allow"}}}`, `{"permission": {"bash": "allow"}}`)
	projectFallback := gp(`{"permission": {"bash": {"rm *": "deny"}}}`, `{"permission": {"*": "allow"}}`)
	aliases := gp(`{"permission": {"read": {"*.env": {"action": "deny", "reason": "secrets"}}}}`, `{"permission": {"read": {"/p/*": "allow"}}}`)
	surfaceKey := gp(`{"permission": {"context7_*": "deny"}}`, `{"permission": {"context7_query": "allow"}}`)
	shorthand := gp(`{"permission": {"bash": "deny"}}`, `{"permission": {"bash": {"git status": "allow"}}}`)
	agentLoosens := composeOK(t,
		scopeFile(t, ScopeGlobal, `{"permission": {"bash": {"rm -rf *": "deny"}}}`),
		scopeFile(t, ScopeAgent, `{"permission": {"bash": {"rm -rf build": "allow"}}}`),
		scopeFile(t, ScopeProjectAgent, `{"permission": {"bash": {"rm -rf dist": "allow", "curl *": "allow"}}}`))
	projectAgent := composeOK(t,
		scopeFile(t, ScopeGlobal, `{}`),
		scopeFile(t, ScopeAgent, `{"permission": {"bash": {"curl *": "deny"}}}`),
		scopeFile(t, ScopeProjectAgent, `{"permission": {"bash": {"curl *": "allow"}}}`))
	// The --config file comes after the project: its redefinition of
	// "sudo *" keeps the global position, before the project's "sudo ls".
	configFile := composeOK(t,
		scopeFile(t, ScopeGlobal, `{"permission": {"bash": {"sudo *": "ask"}}}`),
		scopeFile(t, ScopeProject, `{"permission": {"bash": {"sudo ls": "allow"}}}`),
		scopeFileAt(t, ScopeGlobal, "/extra.json", `{"permission": {"bash": {"sudo *": "deny"}}}`))
	rmDeny := denied(ScopeGlobal, "rm *")

	runResolveRows(t, []resolveRow{
		{"project tightens", tighten, "bash", vals("rm x"), false, nil, denied(ScopeProject, "rm *")},
		{"project keeps the rest", tighten, "bash", vals("ls"), false, nil, allowed(ScopeGlobal, "*")},
		{"project loosens an ask", loosenAsk, "bash", vals("ls -l"), false, nil, allowed(ScopeProject, "ls *")},
		{"redefined key", sameKey, "bash", vals("rm x"), false, nil, fl(rmDeny)},
		{"redefined key to ask", sameKeyAsk, "bash", vals("rm x"), false, nil, fl(rmDeny)},
		{"string replaces map: floored", stringReplaces, "bash", vals("rm x"), false, nil, fl(rmDeny)},
		{"string replaces map: allow elsewhere", stringReplaces, "bash", vals("cat f"), false, nil, allowed(ScopeProject, "*")},
		{"project fallback does not loosen an explicit deny", projectFallback, "bash", vals("rm x"), false, nil, rmDeny},
		{"project fallback", projectFallback, "bash", vals("ls"), false, nil, fallback(Allow, ScopeProject)},
		{"path aliases", aliases, "read", vals("/p/.env", ".env"), false, nil, withReason(fl(withValue(denied(ScopeGlobal, "*.env"), "/p/.env")), "secrets")},
		{"path aliases, second alias", aliases, "read", vals("/p/x", "x.env"), false, nil, withReason(fl(withValue(denied(ScopeGlobal, "*.env"), "x.env")), "secrets")},
		{"path aliases allow", aliases, "read", vals("/p/a", "a"), false, nil, allowed(ScopeProject, "/p/*")},
		{"wildcard surface key", surfaceKey, "context7_query", vals("*"), false, nil, fl(denied(ScopeGlobal, "*"))},
		{"shorthand deny", shorthand, "bash", vals("git status"), false, nil, fl(denied(ScopeGlobal, "*"))},
		{"agent may loosen global", agentLoosens, "bash", vals("rm -rf build"), false, nil, allowed(ScopeAgent, "rm -rf build")},
		{"project-agent may not", agentLoosens, "bash", vals("rm -rf dist"), false, nil, fl(denied(ScopeGlobal, "rm -rf *"))},
		{"project-agent elsewhere", agentLoosens, "bash", vals("curl x"), false, nil, allowed(ScopeProjectAgent, "curl *")},
		{"project-agent vs agent deny", projectAgent, "bash", vals("curl x"), false, nil, fl(denied(ScopeAgent, "curl *"))},
		{"--config deny", configFile, "bash", vals("sudo ls"), false, nil, fl(denied(ScopeGlobal, "sudo *"))},
		{"floored deny beats session", sameKey, "bash", vals("rm x"), false, []*Rule{sessionRule("bash", "rm x")}, fl(rmDeny)},
		{"session beats the project ask", sameKeyAsk, "bash", vals("ls"), false, []*Rule{sessionRule("bash", "ls")}, sessionWant("ls")},
	})
	// The floored answer reports the trusted rule and its file.
	if res := configFile.Resolve(Query{Surface: "bash", Values: vals("sudo ls")}); res.Rule.Origin.Path != "/extra.json" {
		t.Errorf("--config floor reports %+v", res.Rule.Origin)
	}
	res := sameKey.Resolve(Query{Surface: "bash", Values: vals("rm x")})
	if res.Rule.Origin.Path != "/cfg/global.json" || res.Rule.Origin.Line != 1 || !res.Rule.Trusted {
		t.Errorf("floored rule origin %+v trusted %t", res.Rule.Origin, res.Rule.Trusted)
	}
}

// TestTrustFloorFirstCandidate: for MCP the floor is what the trusted
// scopes decide over the candidate forms, so a project catch-all cannot
// loosen a global deny on any form.
func TestTrustFloorFirstCandidate(t *testing.T) {
	gp := func(g, pr string) *Policy {
		return composeOK(t, scopeFile(t, ScopeGlobal, g), scopeFile(t, ScopeProject, pr))
	}
	server := gp(`{"permission": {"mcp": {"exa": "deny"}}}`, `{"permission": {"mcp": {"*": "allow"}}}`)
	qualified := gp(`{"permission": {"mcp": {"exa:*": "deny"}}}`, `{"permission": {"mcp": {"exa_*": "allow"}}}`)
	globalAllowsFirst := gp(`{"permission": {"mcp": {"exa_search": "allow", "exa:*": "deny"}}}`, `{"permission": {"mcp": {"*": "ask"}}}`)
	other := gp(`{"permission": {"mcp": {"exa": "deny"}}}`, `{"permission": {"mcp": {"*": "allow"}}}`)
	fl := func(w want, v string) want { w.floored, w.value = true, v; return w }
	runResolveRows(t, []resolveRow{
		{"server deny", server, "mcp", candExaSearch, true, nil, fl(denied(ScopeGlobal, "exa"), "exa")},
		{"qualified deny", qualified, "mcp", candExaSearch, true, nil, fl(denied(ScopeGlobal, "exa:*"), "exa:search")},
		// The global file's own decision for the target is its last rule
		// matching any form (exa:* deny), so the floor holds.
		{"trusted earlier allow on the first form", globalAllowsFirst, "mcp", candExaSearch, true, nil, fl(denied(ScopeGlobal, "exa:*"), "exa:search")},
		{"other server", other, "mcp", candSearchProvider, true, nil, allowed(ScopeProject, "*")},
		{"floor and session", server, "mcp", candExaSearch, true, []*Rule{sessionRule("mcp", "exa_*")}, fl(denied(ScopeGlobal, "exa"), "exa")},
	})
}

// ---- knobs -------------------------------------------------------------------

func TestKnobScopes(t *testing.T) {
	g := scopeFile(t, ScopeGlobal, `{
  "auditLog": "/g/audit.jsonl",
  "piInfrastructureReadPaths": ["/g/infra"],
  "shellTools": {"run": {"commandArgument": "cmd"}},
  "promptTimeoutMs": 1000
}`)
	pr := scopeFile(t, ScopeProject, `{
  "auditLog": "/tmp/evil",
  "piInfrastructureReadPaths": ["/"],
  "permissionReviewLog": false,
  "shellTools": {"run": {"commandArgument": "other"}, "py": {"commandArgument": "code"}},
  "promptTimeoutMs": 2000
}`)
	p := composeOK(t, g, pr)
	if p.AuditLog != "/g/audit.jsonl" || strings.Join(p.InfraReadPaths, ",") != "/g/infra" {
		t.Errorf("project knobs applied: audit %q infra %v", p.AuditLog, p.InfraReadPaths)
	}
	// A project shellTools entry would re-route a tool to the bash rules:
	// neither replacing nor adding one is allowed.
	if p.ShellTools["run"] != (ShellTool{"run", "cmd", ""}) || len(p.ShellTools) != 1 {
		t.Errorf("shellTools = %+v", p.ShellTools)
	}
	// A project file sets no knob but sandbox.
	if p.PromptTimeout != time.Second {
		t.Errorf("PromptTimeout = %v, want the global 1s", p.PromptTimeout)
	}
	for _, c := range []struct {
		key       string
		line, col int
	}{{"auditLog", 2, 3}, {"piInfrastructureReadPaths", 3, 3}, {"permissionReviewLog", 4, 3}, {"shellTools", 5, 3}, {"promptTimeoutMs", 6, 3}} {
		if !hasWarning(p, "/cfg/project.json", c.line, c.col, "'"+c.key+"' in a project file is ignored") {
			t.Errorf("no warning for project %s at %d:%d: %v", c.key, c.line, c.col, p.Warnings)
		}
	}
	// Even a new entry for a built-in tool, with no global shellTools.
	w := composeOK(t, scopeFile(t, ScopeGlobal, `{"permission": {"write": "deny"}}`),
		scopeFile(t, ScopeProject, `{"shellTools": {"write": {"commandArgument": "content"}}}`))
	if len(w.ShellTools) != 0 || !hasWarning(w, "/cfg/project.json", 1, 2, "'shellTools' in a project file is ignored") {
		t.Errorf("project shellTools for write: %+v %v", w.ShellTools, w.Warnings)
	}
	// Agent scopes are trusted for the floor but set no knobs either.
	a := composeOK(t, g, scopeFile(t, ScopeAgent, `{"auditLog": "/a", "piInfrastructureReadPaths": ["/a"]}`))
	if a.AuditLog != "/g/audit.jsonl" || strings.Join(a.InfraReadPaths, ",") != "/g/infra" {
		t.Errorf("agent knobs applied: audit %q infra %v", a.AuditLog, a.InfraReadPaths)
	}
	// A --config file (scope global) may set them and comes later.
	c := composeOK(t, g, scopeFileAt(t, ScopeGlobal, "/extra.json", `{"auditLog": "/c", "piInfrastructureReadPaths": [], "shellTools": {"run": {"commandArgument": "c2"}}}`))
	if c.AuditLog != "/c" || len(c.InfraReadPaths) != 0 || c.ShellTools["run"].CommandArgument != "c2" || len(c.Warnings) != 0 {
		t.Errorf("--config knobs: audit %q infra %v shell %+v warnings %v", c.AuditLog, c.InfraReadPaths, c.ShellTools, c.Warnings)
	}
	d := composeOK(t)
	if d.PromptTimeout != DefaultPromptTimeout || DefaultPromptTimeout != 600*time.Second || d.AuditLog != "" || d.Yolo || d.Clamped {
		t.Errorf("defaults: %+v", d)
	}
}

func TestSourcesAndSkipped(t *testing.T) {
	files := []ScopeFile{
		scopeFile(t, ScopeGlobal, `{}`),
		{Scope: ScopeProject, Path: "/p/config.json", Exists: true, Skipped: true, SkipReason: "not trusted"},
		{Scope: ScopeGlobal, Path: "/missing.json", Trusted: true},
	}
	p := Compose(files, testHome)
	want := []Source{
		{ScopeGlobal, "/cfg/global.json", true, true, false, false},
		{ScopeProject, "/p/config.json", true, false, false, false},
		{ScopeGlobal, "/missing.json", false, false, false, false},
	}
	if fmt.Sprint(p.Sources) != fmt.Sprint(want) {
		t.Errorf("sources %+v, want %+v", p.Sources, want)
	}
	if !hasWarning(p, "/p/config.json", 0, 0, "not trusted") || len(p.Warnings) != 1 {
		t.Errorf("warnings %v", p.Warnings)
	}
	if p.Clamped || p.Home() != testHome {
		t.Errorf("Clamped %t Home %q", p.Clamped, p.Home())
	}
}

func TestHasExplicitPathRule(t *testing.T) {
	p := global(t, `{"permission": {"*": "allow", "path": {"/etc/*": "deny"}, "read": {"*": "allow"}}}`)
	if !p.HasExplicitPathRule(Deny) || p.HasExplicitPathRule(Allow) || p.HasExplicitPathRule(Ask) {
		t.Errorf("explicit path rules: deny %t allow %t ask %t", p.HasExplicitPathRule(Deny), p.HasExplicitPathRule(Allow), p.HasExplicitPathRule(Ask))
	}
	q := global(t, `{"permission": {"*": "deny", "read": "allow"}}`)
	if q.HasExplicitPathRule(Deny) || q.HasExplicitPathRule(Allow) {
		t.Errorf("the fallback is not an explicit path rule")
	}
}

func TestHomeExpansionInComposedRules(t *testing.T) {
	p := global(t, `{"permission": {"read": {"~/.ssh/*": "deny", "$HOME/ok/*": "allow"}, "~/bin/*": "deny"}}`)
	runResolveRows(t, []resolveRow{
		{"tilde", p, "read", vals("/home/u/.ssh/id_rsa"), false, nil, denied(ScopeGlobal, "~/.ssh/*")},
		{"dir itself", p, "read", vals("/home/u/.ssh"), false, nil, denied(ScopeGlobal, "~/.ssh/*")},
		{"$HOME", p, "read", vals("/home/u/ok/x"), false, nil, allowed(ScopeGlobal, "$HOME/ok/*")},
		{"other home", p, "read", vals("/home/v/.ssh/id_rsa"), false, nil, fallback(Ask, ScopeBuiltin)},
		{"surface key expanded", p, "/home/u/bin/tool", vals("*"), false, nil, denied(ScopeGlobal, "*")},
	})
}
