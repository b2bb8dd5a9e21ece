package policy

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// ---- the design: a bad entry breaks only itself ----------------------------

// TestEntryProblems puts one bad entry between good ones: the file is not
// rejected, every other rule applies, and the bad entry denies at its own
// position (its pattern, or the whole surface for a bad surface value),
// with a reason naming file:line and the problem.
func TestEntryProblems(t *testing.T) {
	long := strings.Repeat("r", 501)
	rows := []struct {
		name    string
		entry   string // a member of "permission"
		needle  string // the problem is reported here ...
		nth     int    // ... at this occurrence (0: the first)
		msg     string
		surface string // a call the bad entry must deny
		value   string
		pattern string // the deny's pattern
	}{
		{"misspelt allow", `"bash": {"cat *": "alow"}`, `"alow"`, 0, `invalid state "alow" for bash pattern "cat *"`, "bash", "cat a.txt", "cat *"},
		{"misspelt deny", `"bash": {"rm -rf *": "dney"}`, `"dney"`, 0, `invalid state "dney"`, "bash", "rm -rf build", "rm -rf *"},
		{"upper case", `"bash": {"git *": "Allow"}`, `"Allow"`, 0, `invalid state "Allow"`, "bash", "git push", "git *"},
		{"trailing space", `"bash": {"git *": "allow "}`, `"allow "`, 0, `invalid state "allow "`, "bash", "git push", "git *"},
		{"empty state", `"bash": {"git *": ""}`, `""`, 0, `invalid state ""`, "bash", "git push", "git *"},
		{"pattern number", `"bash": {"git *": 1}`, `1}`, 0, `invalid state for bash pattern "git *": a number`, "bash", "git push", "git *"},
		{"pattern boolean", `"bash": {"git *": true}`, `true`, 0, "a boolean", "bash", "git push", "git *"},
		{"pattern null", `"bash": {"git *": null}`, `null`, 0, "null", "bash", "git push", "git *"},
		{"pattern array", `"bash": {"git *": ["allow"]}`, `["allow"]`, 0, "an array", "bash", "git push", "git *"},
		{"shorthand typo", `"bash": "alow"`, `"alow"`, 0, `invalid state "alow" for surface "bash"`, "bash", "ls", "*"},
		{"surface number", `"bash": 1`, `1`, 0, "permission.bash must be a state or an object of patterns, not a number", "bash", "ls", "*"},
		{"surface null", `"bash": null`, `null`, 0, "not null", "bash", "ls", "*"},
		{"surface array", `"bash": ["deny"]`, `["deny"]`, 0, "not an array", "bash", "ls", "*"},
		{"surface boolean", `"bash": false`, `false`, 0, "not a boolean", "bash", "ls", "*"},
		{"object state action typo", `"bash": {"npm *": {"action": "dney", "reason": "use pnpm"}}`, `"dney"`, 0, `the action of bash pattern "npm *" must be "deny"`, "bash", "npm i", "npm *"},
		{"object state action allow", `"bash": {"npm *": {"action": "allow"}}`, `"allow"}`, 0, `must be "deny"`, "bash", "npm i", "npm *"},
		{"object state action number", `"bash": {"npm *": {"action": 1}}`, `1}`, 0, `must be "deny"`, "bash", "npm i", "npm *"},
		{"object state reason number", `"bash": {"npm *": {"action": "deny", "reason": 42}}`, `42`, 0, "must be a string, not a number", "bash", "npm i", "npm *"},
		{"object state unknown key", `"bash": {"npm *": {"action": "deny", "resaon": "x"}}`, `"resaon"`, 0, "unknown key 'resaon'", "bash", "npm i", "npm *"},
		{"object state without action", `"bash": {"npm *": {"reason": "x"}}`, `{"reason"`, 0, `has no "action": "deny"`, "bash", "npm i", "npm *"},
		{"object state empty", `"bash": {"npm *": {}}`, `{}`, 0, `has no "action": "deny"`, "bash", "npm i", "npm *"},
		{"object state reason too long", `"bash": {"npm *": {"action": "deny", "reason": "` + long + `"}}`, `"rrr`, 0, "longer than 500 characters", "bash", "npm i", "npm *"},
		{"object state repeated key", `"bash": {"npm *": {"action": "deny", "action": "deny"}}`, `"action"`, 2, "appears twice", "bash", "npm i", "npm *"},
		{"surface object state with a bad action", `"bash": {"action": "alow", "reason": "no shell"}`, `"alow"`, 0, `the action of surface "bash" must be "deny"`, "bash", "ls", "*"},
		{"repeated pattern", `"bash": {"git *": "allow", "git *": "ask"}`, `"git *"`, 2, `key "git *" appears twice in permission.bash`, "bash", "git push", "git *"},
		{"repeated pattern by escape", `"bash": {"a": "allow", "\u0061": "allow"}`, `"\u0061"`, 0, "appears twice", "bash", "a", "a"},
		{"empty pattern key", `"bash": {"": "allow"}`, `""`, 0, `surface "bash" has an empty pattern key`, "bash", "", ""},
		{"repeated surface", `"read": "allow"`, `"read"`, 2, `key "read" appears twice in permission`, "read", "a.txt", "*"},
		{"empty surface key", `"": "allow"`, `""`, 0, "permission has an empty surface key", "", "x", "*"},
	}
	for _, r := range rows {
		text := "{\"permission\": {\n  \"read\": \"allow\",\n  \"edit\": {\"secret*\": \"deny\"},\n  " + r.entry + ",\n  \"write\": {\"*.md\": \"allow\"}\n}}"
		f := ParseFile("/cfg/g.json", []byte(text))
		if len(f.Errors) != 0 || len(f.Problems) == 0 {
			t.Errorf("%s: errors %v, problems %v: want problems only", r.name, f.Errors, f.Problems)
			continue
		}
		nth := max(r.nth, 1)
		line, col := posOf(t, text, r.needle, nth)
		if e := f.Problems[0]; e.Path != "/cfg/g.json" || e.Line != line || e.Column != col || !strings.Contains(e.Message, r.msg) {
			t.Errorf("%s: problem %s, want /cfg/g.json:%d:%d containing %q", r.name, e, line, col, r.msg)
		}
		p := Compose([]ScopeFile{{Scope: ScopeGlobal, Path: "/cfg/g.json", Trusted: true, Exists: true, File: f}}, testHome)
		if p.Clamped || p.BrokenNote() != "" {
			t.Errorf("%s: an entry problem clamped the policy (%q)", r.name, p.BrokenNote())
		}
		if !hasWarning(p, "/cfg/g.json", line, col, r.msg) {
			t.Errorf("%s: the problem is not a policy warning: %v", r.name, p.Warnings)
		}
		// Every other rule of the file still applies.
		for _, c := range []struct {
			surface, value string
			want           Action
		}{{"read", "a.txt", Allow}, {"edit", "secret.env", Deny}, {"edit", "main.go", Ask}, {"write", "a.md", Allow}} {
			if c.surface == r.surface {
				continue
			}
			if got := p.Resolve(Query{Surface: c.surface, Values: []string{c.value}}); got.Action != c.want {
				t.Errorf("%s: %s %q = %v, want %v: the bad entry broke more than itself", r.name, c.surface, c.value, got.Action, c.want)
			}
		}
		// The bad entry denies, naming where it is and what is wrong.
		got := p.Resolve(Query{Surface: r.surface, Values: []string{r.value}})
		where := fmt.Sprintf("/cfg/g.json:%d", line)
		if got.Action != Deny || got.Rule.Pattern != r.pattern || got.Rule.IsFallback() || got.Rule.Origin.Scope != ScopeGlobal ||
			!strings.Contains(got.Rule.Reason, where) || !strings.Contains(got.Rule.Reason, r.msg[:min(len(r.msg), 40)]) {
			t.Errorf("%s: %s %q = %v by %q (fallback %t, %s), reason %q: want a deny by %q naming %s", r.name, r.surface, r.value,
				got.Action, got.Rule.Pattern, got.Rule.IsFallback(), got.Rule.Origin.Scope, got.Rule.Reason, r.pattern, where)
		}
		if n := len([]rune(got.Rule.Reason)); n > MaxReasonLength {
			t.Errorf("%s: the reason has %d characters", r.name, n)
		}
	}
}

// TestBadFallback: a bad top-level "*" becomes a deny fallback (fail
// closed: "dney" still denies, "alow" is loud, never an ask that one
// "yes" would turn into a run).
func TestBadFallback(t *testing.T) {
	for _, state := range []string{`"alow"`, `"dney"`, `"Ask"`, `5`, `null`, `["allow"]`} {
		text := `{"permission": {"*": ` + state + `, "read": "allow"}}`
		f := ParseFile("/cfg/g.json", []byte(text))
		if len(f.Errors) != 0 || len(f.Problems) != 1 {
			t.Errorf("%s: errors %v problems %v", state, f.Errors, f.Problems)
			continue
		}
		p := Compose([]ScopeFile{{Scope: ScopeGlobal, Path: "/cfg/g.json", Trusted: true, Exists: true, File: f}}, testHome)
		got := p.Resolve(Query{Surface: "task", Values: []string{"*"}})
		if got.Action != Deny || !got.Rule.IsFallback() || got.Rule.Origin.Scope != ScopeGlobal || !strings.Contains(got.Rule.Reason, "/cfg/g.json:1") {
			t.Errorf("%s: task = %v (fallback %t, %s, %q), want the fallback deny", state, got.Action, got.Rule.IsFallback(), got.Rule.Origin.Scope, got.Rule.Reason)
		}
		if a := p.Resolve(Query{Surface: "read", Values: []string{"x"}}).Action; a != Allow {
			t.Errorf("%s: read = %v, want allow", state, a)
		}
	}
}

// TestEntryProblemKeepsPosition: key order is meaning, so the deny stands
// where the bad entry was written: a later rule still wins over it, and
// merged across scopes a redefined pattern keeps its first position.
func TestEntryProblemKeepsPosition(t *testing.T) {
	p := global(t, `{"permission": {"bash": {"*": "allow", "cat *": "alow", "cat README.md": "allow"}}}`)
	for value, want := range map[string]Action{"ls": Allow, "cat a.txt": Deny, "cat README.md": Allow} {
		if got := p.Resolve(Query{Surface: "bash", Values: []string{value}}).Action; got != want {
			t.Errorf("%s = %v, want %v", value, got, want)
		}
	}
	m := Compose([]ScopeFile{
		scopeFile(t, ScopeGlobal, `{"permission": {"bash": {"*": "ask", "cat *": "allow", "cat README.md": "allow"}}}`),
		scopeFile(t, ScopeProject, `{"permission": {"bash": {"cat *": "alow"}}}`),
	}, testHome)
	checkDump(t, "merged", m, []string{"*|*|ask|builtin|0|1", "bash|*|ask|global|1|3", "bash|cat *|deny|project|1|3", "bash|cat README.md|allow|global|1|3"})
}

// TestObjectStateAsSurfaceValue: the design lets a surface map to a state,
// and a state may be {"action": "deny", "reason": "…"}.
func TestObjectStateAsSurfaceValue(t *testing.T) {
	p := global(t, `{"permission": {"bash": {"action": "deny", "reason": "no shell here"}, "read": {"action": "ask", "reason": "allow"}}}`)
	got := p.Resolve(Query{Surface: "bash", Values: []string{"ls"}})
	if got.Action != Deny || got.Rule.Pattern != "*" || got.Rule.Reason != "no shell here" {
		t.Errorf("bash ls = %v by %q (%q)", got.Action, got.Rule.Pattern, got.Rule.Reason)
	}
	// Both values are states: a pattern map (patterns "action", "reason").
	if a := p.Resolve(Query{Surface: "read", Values: []string{"reason"}}).Action; a != Allow {
		t.Errorf("read reason = %v", a)
	}
}

// TestAgentEntryProblems: the YAML front matter of agent files follows the
// same rule.
func TestAgentEntryProblems(t *testing.T) {
	for _, c := range []struct {
		name, entry, msg, value, pattern string
		line, col                        int
	}{
		{"misspelt allow", `  bash:\n    "cat *": alow\n`, `invalid state "alow" for bash pattern "cat *"`, "cat x", "cat *", 4, 14},
		{"misspelt deny", `  bash:\n    "cat *": dney\n`, `invalid state "dney"`, "cat x", "cat *", 4, 14},
		{"shorthand typo", `  bash: alow\n`, `invalid state "alow" for surface "bash"`, "ls", "*", 3, 9},
		{"empty shorthand", `  bash:\n`, `invalid state "" for surface "bash"`, "ls", "*", 3, 8},
		{"surface a list", `  bash: [deny]\n`, "permission.bash must be a state or a mapping", "ls", "*", 3, 9},
		{"pattern a list", `  bash:\n    "cat *": [allow]\n`, `invalid state for bash pattern "cat *"`, "cat x", "cat *", 4, 14},
		{"object state action", `  bash:\n    "cat *": {action: allow}\n`, `must be "deny"`, "cat x", "cat *", 4, 23},
		{"object state unknown key", `  bash:\n    "cat *": {action: deny, why: x}\n`, "unknown key 'why'", "cat x", "cat *", 4, 29},
		{"object state without action", `  bash:\n    "cat *": {reason: x}\n`, "has no action: deny", "cat x", "cat *", 4, 14},
		{"repeated pattern", `  bash:\n    "cat *": allow\n    "cat *": ask\n`, `appears twice in permission.bash`, "cat x", "cat *", 5, 5},
		{"alias", `  read: &a {x: allow}\n  bash: *a\n`, "permission.bash must be a state or a mapping", "ls", "*", 4, 9},
	} {
		text := strings.ReplaceAll("---\npermission:\n"+c.entry+"  read: allow\n  edit:\n    \"secret*\": deny\n---\nbody\n", `\n`, "\n")
		f := ParseAgentFile("/a.md", []byte(text))
		if len(f.Errors) != 0 || len(f.Problems) == 0 {
			t.Errorf("%s: errors %v problems %v", c.name, f.Errors, f.Problems)
			continue
		}
		if e := f.Problems[0]; e.Line != c.line || e.Column != c.col || !strings.Contains(e.Message, c.msg) {
			t.Errorf("%s: problem %s, want /a.md:%d:%d containing %q", c.name, e, c.line, c.col, c.msg)
		}
		p := Compose([]ScopeFile{{Scope: ScopeAgent, Path: "/a.md", Trusted: true, Exists: true, File: f}}, testHome)
		got := p.Resolve(Query{Surface: "bash", Values: []string{c.value}})
		if got.Action != Deny || got.Rule.Pattern != c.pattern || !strings.Contains(got.Rule.Reason, fmt.Sprintf("/a.md:%d", c.line)) {
			t.Errorf("%s: bash %q = %v by %q (%q)", c.name, c.value, got.Action, got.Rule.Pattern, got.Rule.Reason)
		}
		if p.Clamped {
			t.Errorf("%s: clamped", c.name)
		}
		if c.name != "alias" {
			if a := p.Resolve(Query{Surface: "read", Values: []string{"x"}}).Action; a != Allow {
				t.Errorf("%s: read = %v, want allow", c.name, a)
			}
		}
		if a := p.Resolve(Query{Surface: "edit", Values: []string{"secret.env"}}).Action; a != Deny {
			t.Errorf("%s: edit secret = %v, want deny", c.name, a)
		}
	}
}

func TestNearPermission(t *testing.T) {
	for key, want := range map[string]bool{
		"permissions": true, "Permission": true, "permision": true, "premission": true, "PERMISSIONS": true, "permisions": true,
		"name": false, "description": false, "model": false, "tools": false, "permit": false, "submission": false, "": false,
	} {
		if nearPermission(key) != want {
			t.Errorf("nearPermission(%q) = %t", key, !want)
		}
	}
}

// ---- every scope, through the loader ------------------------------------

// typoScope is one kind of policy file the loader reads.
type typoScope struct {
	name   string
	global bool // trusted for knobs: the other file of a test is the project's
	path   func(e *loaderEnv) string
	loc    func(e *loaderEnv) Locations
	// text renders a file of this kind from bash patterns in order.
	text func(patterns ...[2]string) string
	// line is the line of the i-th pattern in text.
	line func(i int) int
	// broken are file-level errors of this kind (the file cannot be used).
	broken []string
}

func jsonPolicy(patterns ...[2]string) string {
	var b strings.Builder
	b.WriteString("{\"permission\": {\n  \"bash\": {\n")
	for i, p := range patterns {
		fmt.Fprintf(&b, "    %q: %q%s\n", p[0], p[1], map[bool]string{true: ",", false: ""}[i < len(patterns)-1])
	}
	b.WriteString("  }\n}}\n")
	return b.String()
}

func legacyText(patterns ...[2]string) string {
	var b strings.Builder
	b.WriteString("{\"bash\": {\n")
	for i, p := range patterns {
		fmt.Fprintf(&b, "  %q: %q%s\n", p[0], p[1], map[bool]string{true: ",", false: ""}[i < len(patterns)-1])
	}
	b.WriteString("}}\n")
	return b.String()
}

func agentPolicy(patterns ...[2]string) string {
	var b strings.Builder
	b.WriteString("---\nname: reviewer\npermission:\n  bash:\n")
	for _, p := range patterns {
		fmt.Fprintf(&b, "    %q: %s\n", p[0], p[1])
	}
	b.WriteString("---\nYou review.\n")
	return b.String()
}

var jsonBroken = []string{
	"{\"permission\": {\"bash\": {\"ls\": \"allow\"}}\n",   // cannot be parsed
	"{\"permissions\": {\"bash\": {\"ls\": \"allow\"}}}\n", // misspelt top-level key
	"{\"permission\": \"allow\"}\n",                        // permission not an object
	"{\"permission\": {}, \"yoloMode\": \"yes\"}\n",        // a knob of the wrong type
}

func typoScopes() []typoScope {
	withAgent := func(e *loaderEnv) Locations { l := e.loc; l.AgentName = "reviewer"; return l }
	plain := func(e *loaderEnv) Locations { return e.loc }
	jsonLine := func(i int) int { return 3 + i }
	return []typoScope{
		{name: "global", global: true, path: func(e *loaderEnv) string { return e.global }, loc: plain, text: jsonPolicy, line: jsonLine, broken: jsonBroken},
		{name: "project", path: func(e *loaderEnv) string { return e.project }, loc: plain, text: jsonPolicy, line: jsonLine, broken: jsonBroken},
		{name: "--config", global: true, path: func(e *loaderEnv) string { return filepath.Join(filepath.Dir(e.loc.Cwd), "extra.json") },
			loc: func(e *loaderEnv) Locations {
				l := e.loc
				l.ConfigFiles = []string{filepath.Join(filepath.Dir(e.loc.Cwd), "extra.json")}
				return l
			}, text: jsonPolicy, line: jsonLine, broken: jsonBroken},
		{name: "agent", path: func(e *loaderEnv) string { return AgentPath(filepath.Join(e.loc.AgentDir, "agents"), "reviewer") },
			loc: withAgent, text: agentPolicy, line: func(i int) int { return 5 + i }, broken: []string{
				"---\npermission:\n  bash:\n    ls: allow\n", // front matter never closed
				"---\npermission:\n  bash: [allow\n---\n",    // not YAML
				"---\npermission: allow\n---\n",              // permission not a mapping
				"---\n- permission\n---\n",                   // front matter not a mapping
			}},
		{name: "project-agent", path: func(e *loaderEnv) string { return AgentPath(filepath.Join(e.loc.Cwd, ".pi", "agents"), "reviewer") },
			loc: withAgent, text: agentPolicy, line: func(i int) int { return 5 + i }, broken: []string{
				"---\npermission:\n  bash:\n    ls: allow\n",
				"---\npermission: allow\n---\n",
			}},
		{name: "legacy global", global: true, path: func(e *loaderEnv) string { return LegacyGlobalPath(e.loc.AgentDir) }, loc: plain,
			text: legacyText, line: func(i int) int { return 2 + i }, broken: []string{
				"{\"defaultPolicy\": {\"files\": \"ask\"}}\n", // unknown category
				"{\"bash\": \"allow\"}\n",                     // a legacy map that is no map
				"{\"bash\": {\"ls\": \"allow\"}\n",            // cannot be parsed
			}},
		{name: "legacy project", path: func(e *loaderEnv) string { return LegacyProjectPath(e.loc.Cwd) }, loc: plain,
			text: legacyText, line: func(i int) int { return 2 + i }, broken: []string{
				"{\"special\": {\"doom\": \"ask\"}}\n",
				"{\"tools\": []}\n",
			}},
	}
}

// other is a file of the other trust level that allows ls: a broken file
// must clamp its allow too.
func (s typoScope) other(e *loaderEnv) string {
	if s.global {
		return e.project
	}
	return e.global
}

// TestEntryProblemsEveryScope: in every scope a typo breaks only its entry:
// the file's other denies and allows still apply, the typo denies with a
// reason naming file:line, and a warning says where.
func TestEntryProblemsEveryScope(t *testing.T) {
	t0 := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, s := range typoScopes() {
		for _, typo := range []struct{ cat, rm string }{{"alow", "deny"}, {"allow", "dney"}, {"Allow", "deny"}} {
			name := fmt.Sprintf("%s %s/%s", s.name, typo.cat, typo.rm)
			e := newLoaderEnv(t)
			path := s.path(e)
			e.write(path, s.text([2]string{"*", "allow"}, [2]string{"cat *", typo.cat}, [2]string{"rm -rf *", typo.rm}), t0)
			p := NewLoader().Policy(s.loc(e))
			if p.Clamped || p.BrokenNote() != "" {
				t.Errorf("%s: clamped %t note %q: %v", name, p.Clamped, p.BrokenNote(), p.Warnings)
			}
			for _, c := range []struct {
				value string
				want  Action
				i     int // the pattern that decides
			}{{"ls -la", Allow, 0}, {"cat a.txt", map[bool]Action{true: Deny, false: Allow}[typo.cat != "allow"], 1}, {"rm -rf build", Deny, 2}} {
				got := p.Resolve(Query{Surface: "bash", Values: []string{c.value}})
				if got.Action != c.want || got.Rule.Origin.Path != path || got.Rule.Origin.Line != s.line(c.i) {
					t.Errorf("%s: %s = %v from %s:%d, want %v from %s:%d", name, c.value, got.Action, got.Rule.Origin.Path, got.Rule.Origin.Line, c.want, path, s.line(c.i))
				}
			}
			bad := 1
			if typo.rm != "deny" {
				bad = 2
			}
			where := fmt.Sprintf("%s:%d", path, s.line(bad))
			value := []string{"", "cat a.txt", "rm -rf build"}[bad]
			if got := p.Resolve(Query{Surface: "bash", Values: []string{value}}); !strings.Contains(got.Rule.Reason, where) || !strings.Contains(got.Rule.Reason, "invalid state") {
				t.Errorf("%s: the reason %q does not name %s and the problem", name, got.Rule.Reason, where)
			}
			found := false
			for _, w := range p.Warnings {
				found = found || w.Path == path && w.Line == s.line(bad) && strings.Contains(w.Message, "invalid state")
			}
			if !found {
				t.Errorf("%s: no warning at %s: %v", name, where, p.Warnings)
			}
		}
	}
}

// TestBrokenFilesEveryScope: a file-level error keeps the file's last good
// version from this process; with none (broken at start), the file
// contributes nothing and every allow of the composed policy asks, the
// global scope included; while it is broken the policy's BrokenNote names
// it; fixed, it applies again.
func TestBrokenFilesEveryScope(t *testing.T) {
	t0 := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, s := range typoScopes() {
		for i, broken := range s.broken {
			name := fmt.Sprintf("%s #%d", s.name, i)
			e := newLoaderEnv(t)
			path := s.path(e)
			e.write(s.other(e), `{"permission": {"bash": {"git *": "allow"}}}`, t0)

			// Broken at start: no rules from it, every allow asks.
			e.write(path, broken, t0)
			l := NewLoader()
			p := l.Policy(s.loc(e))
			if !p.Clamped {
				t.Errorf("%s: broken at start does not clamp: %v", name, p.Warnings)
			}
			if got := p.Resolve(Query{Surface: "bash", Values: []string{"git status"}}); got.Action != Ask || got.Rule.Origin.Scope != ScopeFailClosed {
				t.Errorf("%s: broken at start: git status = %v from %s, want ask from fail-closed", name, got.Action, got.Rule.Origin.Scope)
			}
			if note := p.BrokenNote(); !strings.Contains(note, path) || !strings.Contains(note, "not applied") {
				t.Errorf("%s: broken at start: note %q", name, note)
			}
			if !hasPathWarning(p, path, true) {
				t.Errorf("%s: broken at start: no warning with a line for %s: %v", name, path, p.Warnings)
			}
			if src := sourceOf(p, path); src == nil || src.Loaded || !src.Exists {
				t.Errorf("%s: broken at start: source %+v", name, src)
			}

			// Fixed (the same process), then broken again by an edit: the
			// last good version applies.
			e.write(path, s.text([2]string{"ls", "allow"}, [2]string{"rm *", "deny"}), t0.Add(time.Second))
			good := l.Policy(s.loc(e))
			if good.Clamped || good.BrokenNote() != "" {
				t.Fatalf("%s: the good version is broken: %v", name, good.Warnings)
			}
			e.write(path, broken, t0.Add(2*time.Second))
			for _, stale := range []*Policy{l.Policy(s.loc(e)), l.Reload(s.loc(e))} {
				if stale.Clamped {
					t.Errorf("%s: a file with a good version clamps", name)
				}
				for value, want := range map[string]Action{"ls": Allow, "rm x": Deny} {
					if got := stale.Resolve(Query{Surface: "bash", Values: []string{value}}); got.Action != want || got.Rule.Origin.Path != path {
						t.Errorf("%s: last good: %s = %v from %s, want %v from the last good version", name, value, got.Action, got.Rule.Origin.Path, want)
					}
				}
				if note := stale.BrokenNote(); !strings.Contains(note, path) || !strings.Contains(note, "last good version") {
					t.Errorf("%s: last good: note %q", name, note)
				}
				if !hasPathWarning(stale, path, true) || !hasPathWarning(stale, path, false) {
					t.Errorf("%s: last good: warnings %v", name, stale.Warnings)
				}
				if src := sourceOf(stale, path); src == nil || src.Loaded {
					t.Errorf("%s: last good: source %+v", name, src)
				}
			}

			// Fixed: the new version applies, nothing is reported.
			e.write(path, s.text([2]string{"ls", "allow"}, [2]string{"rm *", "ask"}), t0.Add(3*time.Second))
			fixed := l.Policy(s.loc(e))
			if got := fixed.Resolve(Query{Surface: "bash", Values: []string{"rm x"}}); got.Action != Ask || got.Rule.Origin.Path != path {
				t.Errorf("%s: fixed: rm x = %v from %s", name, got.Action, got.Rule.Origin.Path)
			}
			if fixed.Clamped || fixed.BrokenNote() != "" || hasPathWarning(fixed, path, false) {
				t.Errorf("%s: fixed: clamped %t note %q warnings %v", name, fixed.Clamped, fixed.BrokenNote(), fixed.Warnings)
			}
		}
	}
}

// TestDeletedFileForgetsItsGoodVersion: a file deleted and written again
// broken has no good version any more (what was deleted is not the
// policy), so it clamps.
func TestDeletedFileForgetsItsGoodVersion(t *testing.T) {
	e := newLoaderEnv(t)
	t0 := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	e.write(e.global, `{"permission": {"bash": {"ls": "allow"}}}`, t0)
	l := NewLoader()
	if p := l.Policy(e.loc); p.Clamped {
		t.Fatal("good file clamps")
	}
	e.remove(e.global)
	l.Policy(e.loc)
	e.write(e.global, `{"permission": {"bash": {"ls": "allow"}}`, t0.Add(time.Second))
	if p := l.Policy(e.loc); !p.Clamped {
		t.Errorf("a broken file written after a delete used the deleted version")
	}
}

func (e *loaderEnv) remove(path string) {
	e.t.Helper()
	if err := os.RemoveAll(path); err != nil {
		e.t.Fatal(err)
	}
}

func hasPathWarning(p *Policy, path string, withLine bool) bool {
	for _, w := range p.Warnings {
		if strings.Contains(w.Message, "this project file is not trusted") {
			continue // not about the file being broken
		}
		if w.Path == path && (w.Line > 0) == withLine {
			return true
		}
	}
	return false
}

func sourceOf(p *Policy, path string) *Source {
	for i := range p.Sources {
		if p.Sources[i].Path == path {
			return &p.Sources[i]
		}
	}
	return nil
}

// TestBrokenNote words the broken files for prompts and block reasons.
func TestBrokenNote(t *testing.T) {
	ok := scopeFile(t, ScopeGlobal, `{"permission": {"bash": "ask"}}`)
	if p := Compose([]ScopeFile{ok}, testHome); p.BrokenNote() != "" {
		t.Errorf("no broken file: note %q", p.BrokenNote())
	}
	broken := scopeFileAt(t, ScopeProject, "/w/p.json", "{\n  \"permision\": {}\n}")
	p := Compose([]ScopeFile{ok, broken}, testHome)
	want := " (note: policy file /w/p.json:2 is broken: Unrecognized config key 'permision'.; its rules are not applied, so every allow asks)"
	if p.BrokenNote() != want {
		t.Errorf("note\n got %q\nwant %q", p.BrokenNote(), want)
	}
	stale := scopeFileAt(t, ScopeProject, "/w/p.json", `{"permission": {"bash": "ask"}}`)
	stale.Stale = broken.File.Errors
	if n := Compose([]ScopeFile{stale}, testHome).BrokenNote(); !strings.Contains(n, "/w/p.json:2 is broken") || !strings.Contains(n, "last good version is used") {
		t.Errorf("stale note %q", n)
	}
	both := Compose([]ScopeFile{stale, broken}, testHome).BrokenNote()
	if strings.Count(both, "is broken") != 2 {
		t.Errorf("two broken files: note %q", both)
	}
}

// TestMisspeltSurfaceKeepsDenies: a surface key that is a likely typo of a
// surface toolgate uses keeps its denies and asks on the surface meant (a
// typo never drops a deny), never its allows, and warns; a key
// that is no near miss (an extension tool) is left alone.
func TestMisspeltSurfaceKeepsDenies(t *testing.T) {
	rows := []struct {
		key, surface, value string
		want                Action
		warns               bool
	}{
		{"bahs", "bash", "rm -rf x", Deny, true},
		{"Bash", "bash", "rm -rf x", Deny, true},
		{"bash ", "bash", "rm -rf x", Deny, true},
		{"BASH", "bash", "git push -f", Ask, true},
		{"mpc", "mcp", "github:delete_repo", Deny, true},
		{"pth", "path", "/h/.ssh/id_rsa", Deny, true},
		{"external_directroy", "external_directory", "/etc/x", Deny, true},
		{"bahs", "bash", "ls", Allow, true}, // its allows are not copied: the top-level allow decides
		{"context7_docs", "bash", "rm -rf x", Allow, false},
		{"lsp", "ls", "/h/.ssh/id_rsa", Allow, false},
		{"bash*", "bash", "rm -rf x", Deny, false}, // a surface pattern applies as written
	}
	for _, r := range rows {
		text := fmt.Sprintf(`{"permission": {"*": "allow", %q: {"*": "allow", "rm -rf *": "deny", "git push -f*": "ask", "/h/.ssh/*": "deny", "/etc/*": "deny", "github:*": "deny"}}}`, r.key)
		p := global(t, text)
		got := p.Resolve(Query{Surface: r.surface, Values: []string{r.value}})
		if got.Action != r.want {
			t.Errorf("%q: %s %q is %s, want %s", r.key, r.surface, r.value, got.Action, r.want)
		}
		warned := false
		for _, w := range p.Warnings {
			warned = warned || strings.Contains(w.Message, "is not one toolgate uses")
		}
		if warned != r.warns {
			t.Errorf("%q: warned %t, want %t: %+v", r.key, warned, r.warns, p.Warnings)
		}
	}
}
