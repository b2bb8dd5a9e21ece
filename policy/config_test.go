package policy

import (
	"fmt"
	"github.com/tailscale/hujson"
	"strings"
	"testing"
)

// entryLines is each of a file's permission entries as a line to compare:
// surface@line=action for a shorthand, and
// surface@line:pattern@line=action/reason for each pattern.
func entryLines(entries []SurfaceEntry) []string {
	var out []string
	for _, e := range entries {
		if e.Shorthand != nil {
			out = append(out, fmt.Sprintf("%s@%d=%v", e.Surface, e.Line, e.Shorthand.Action))
		}
		for _, p := range e.Patterns {
			out = append(out, fmt.Sprintf("%s@%d:%s@%d=%v/%s", e.Surface, e.Line, p.Pattern, p.Line, p.State.Action, p.State.Reason))
		}
	}
	return out
}

// posOf returns the 1-based line and byte column of the nth (1-based)
// occurrence of needle in text.
func posOf(t *testing.T, text, needle string, nth int) (int, int) {
	t.Helper()
	off := -1
	for i := 0; i < nth; i++ {
		j := strings.Index(text[off+1:], needle)
		if j < 0 {
			t.Fatalf("%q has no occurrence %d of %q", text, nth, needle)
		}
		off += 1 + j
	}
	line := 1 + strings.Count(text[:off], "\n")
	col := off - strings.LastIndex(text[:off], "\n")
	return line, col
}

func TestPosOf(t *testing.T) {
	if l, c := posOf(t, "ab\ncd\ncd", "cd", 2); l != 3 || c != 1 {
		t.Fatalf("posOf = %d:%d, want 3:1", l, c)
	}
	if l, c := posOf(t, "abcd", "cd", 1); l != 1 || c != 3 {
		t.Fatalf("posOf = %d:%d, want 1:3", l, c)
	}
}

func TestParseFileOrderAndLines(t *testing.T) {
	text := `{
  "permission": {
    "*": "ask",
    "bash": {
      "b": "allow",
      "2": "deny",
      "a": "ask",
      "1": {"action": "deny", "reason": "no"},
    },
    "read": "deny",
    "context7_*": {"x": "allow"}
  }
}`
	f := ParseFile("/p.json", []byte(text))
	if len(f.Errors) != 0 {
		t.Fatalf("errors: %v", f.Errors)
	}
	got := entryLines(f.Permission)
	// Integer-like keys keep their place (JavaScript would move them).
	want := []string{
		"*@3=ask",
		"bash@4:b@5=allow/", "bash@4:2@6=deny/", "bash@4:a@7=ask/", "bash@4:1@8=deny/no",
		"read@10=deny",
		"context7_*@11:x@11=allow/",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("permission entries:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestParseFileJSONC(t *testing.T) {
	text := "// leading comment\n" +
		"{\n" +
		"  /* block */ \"permission\": {\n" +
		"    \"bash\": {\n" +
		"      \"curl https://example.com/*\": \"allow\", // trailing comment\n" +
		"      \"echo /* not a comment */\": \"deny\",\n" +
		"      \"echo // x\": /* between */ \"ask\",\n" +
		"    },\n" +
		"  },\n" +
		"  /* multi\n     line */\n" +
		"  \"yoloMode\": false,\n" +
		"} // no newline at the end"
	f := ParseFile("/c.json", []byte(text))
	if len(f.Errors) != 0 {
		t.Fatalf("JSONC must parse: %v", f.Errors)
	}
	if len(f.Permission) != 1 || len(f.Permission[0].Patterns) != 3 {
		t.Fatalf("permission = %+v", f.Permission)
	}
	for i, w := range []struct {
		pattern string
		action  Action
		line    int
	}{
		{"curl https://example.com/*", Allow, 5},
		{"echo /* not a comment */", Deny, 6},
		{"echo // x", Ask, 7},
	} {
		got := f.Permission[0].Patterns[i]
		if got.Pattern != w.pattern || got.State.Action != w.action || got.Line != w.line {
			t.Errorf("pattern %d = %+v, want %+v", i, got, w)
		}
	}
	if f.Knobs.Yolo == nil || *f.Knobs.Yolo {
		t.Errorf("yoloMode = %v, want false", f.Knobs.Yolo)
	}
	// The trailing comment without a newline also works on its own line,
	// and with CRLF line ends.
	for _, s := range []string{"{}\n// end", "{}\r\n// end", "{\r\n  \"permission\": {\"bash\": \"ask\"}, // c\r\n}\r\n", "/* only */ {}"} {
		if f := ParseFile("/c.json", []byte(s)); len(f.Errors) != 0 {
			t.Errorf("ParseFile(%q): %v", s, f.Errors)
		}
	}
}

func TestParseFileStringEscapes(t *testing.T) {
	f := ParseFile("/e.json", []byte(`{"permission": {"bash": {"echo \"hi\" \\ \u00e9 *": "allow"}}}`))
	if len(f.Errors) != 0 {
		t.Fatal(f.Errors)
	}
	if got := f.Permission[0].Patterns[0].Pattern; got != `echo "hi" \ é *` {
		t.Errorf("pattern = %q", got)
	}
}

func TestParseFileAcceptedKeysAndKnobs(t *testing.T) {
	text := `{
  "$schema": "https://example.com/schema.json",
  "permission": {},
  "yoloMode": true,
  "piInfrastructureReadPaths": ["~/x", "/opt/*"],
  "shellTools": {"run_shell": {"commandArgument": "cmd", "workdirArgument": "dir"}, "sh2": {"commandArgument": "c"}},
  "permissionReviewLog": false,
  "debugLog": true,
  "doublePressToConfirm": false,
  "toolInputPreviewMaxLength": 10,
  "toolTextSummaryMaxLength": 1e2,
  "authorizerChain": ["a", "b"],
  "promptTimeoutMs": 1500,
  "auditLog": "/var/log/a.jsonl"
}`
	f := ParseFile("/k.json", []byte(text))
	if len(f.Errors) != 0 {
		t.Fatalf("errors: %v", f.Errors)
	}
	k := f.Knobs
	if k.Yolo == nil || !*k.Yolo {
		t.Errorf("Yolo = %v", k.Yolo)
	}
	if !k.InfraReadPathsSet || strings.Join(k.InfraReadPaths, ",") != "~/x,/opt/*" {
		t.Errorf("InfraReadPaths = %v %v", k.InfraReadPathsSet, k.InfraReadPaths)
	}
	if len(k.ShellTools) != 2 || k.ShellTools[0] != (ShellTool{"run_shell", "cmd", "dir"}) || k.ShellTools[1] != (ShellTool{"sh2", "c", ""}) {
		t.Errorf("ShellTools = %+v", k.ShellTools)
	}
	if k.PermissionReviewLog == nil || *k.PermissionReviewLog {
		t.Errorf("PermissionReviewLog = %v", k.PermissionReviewLog)
	}
	if k.PromptTimeoutMs == nil || *k.PromptTimeoutMs != 1500 {
		t.Errorf("PromptTimeoutMs = %v", k.PromptTimeoutMs)
	}
	if k.AuditLog == nil || *k.AuditLog != "/var/log/a.jsonl" {
		t.Errorf("AuditLog = %v", k.AuditLog)
	}
	if l, c, ok := f.KeyPosition("yoloMode"); !ok || l != 4 || c != 3 {
		t.Errorf("KeyPosition(yoloMode) = %d:%d %t, want 4:3", l, c, ok)
	}
	if _, _, ok := f.KeyPosition("nope"); ok {
		t.Errorf("KeyPosition of an absent key must report false")
	}
	empty := ParseFile("/e.json", []byte(`{}`))
	if len(empty.Errors) != 0 || empty.Knobs.Yolo != nil || empty.Knobs.InfraReadPathsSet || empty.Knobs.AuditLog != nil || empty.Knobs.PromptTimeoutMs != nil {
		t.Errorf("an empty file sets knobs: %+v %v", empty.Knobs, empty.Errors)
	}
}

func TestParseFileDenyWithReason(t *testing.T) {
	f := ParseFile("/r.json", []byte(`{"permission": {
  "bash": {"npm *": {"action": "deny", "reason": "Use pnpm instead"}},
  "read": {"*.env": {"action": "deny"}, "*.key": {"reason": "keys", "action": "deny"}}
}}`))
	if len(f.Errors) != 0 {
		t.Fatal(f.Errors)
	}
	for _, c := range []struct {
		surface, pattern, reason string
		i, j                     int
	}{
		{"bash", "npm *", "Use pnpm instead", 0, 0},
		{"read", "*.env", "", 1, 0},
		{"read", "*.key", "keys", 1, 1},
	} {
		pe := f.Permission[c.i].Patterns[c.j]
		if f.Permission[c.i].Surface != c.surface || pe.Pattern != c.pattern || pe.State != (State{Deny, c.reason}) {
			t.Errorf("%s %s = %+v", c.surface, c.pattern, pe)
		}
	}
}

func TestParseFileReasonLength(t *testing.T) {
	for _, c := range []struct {
		name   string
		reason string
		ok     bool
	}{
		{"500 ascii", strings.Repeat("x", 500), true},
		{"501 ascii", strings.Repeat("x", 501), false},
		{"500 two-byte characters", strings.Repeat("é", 500), true},
		{"501 two-byte characters", strings.Repeat("é", 501), false},
		{"500 four-byte characters", strings.Repeat("😀", 500), true},
	} {
		text := `{"permission": {"bash": {"x": {"action": "deny", "reason": "` + c.reason + `"}}}}`
		f := ParseFile("/r.json", []byte(text))
		if ok := len(f.Problems) == 0; ok != c.ok || len(f.Errors) != 0 {
			t.Errorf("%s: accepted=%t, want %t (%v %v)", c.name, ok, c.ok, f.Errors, f.Problems)
		}
		// A too long reason breaks its entry only: it still denies.
		if st := f.Permission[0].Patterns[0].State; st.Action != Deny || (c.ok && st.Reason != c.reason) {
			t.Errorf("%s: state %+v", c.name, st)
		}
		if !c.ok && len(f.Problems) > 0 {
			l, col := posOf(t, text, `"`+c.reason[:3], 1)
			if e := f.Problems[0]; e.Line != l || e.Column != col || !strings.Contains(e.Message, "longer than 500 characters") {
				t.Errorf("%s: error %v, want %d:%d longer than 500 characters", c.name, e, l, col)
			}
		}
	}
}

type errRow struct {
	name   string
	text   string
	needle string // the error points at this text ...
	nth    int    // ... occurrence (0 means 1)
	line   int    // or, when needle is "", at this position
	col    int
	msg    string // substring of the message
}

// TestParseFileErrors checks that every problem is reported with the path,
// the line and column where it is, and a message that names it; and that
// a file with any error contributes nothing.
func TestParseFileErrors(t *testing.T) {
	rows := []errRow{
		{name: "unknown key", text: "{\n  \"permission\": {},\n  \"debugLo\": true\n}", line: 3, col: 3, msg: "Unrecognized config key 'debugLo'."},
		{name: "misspelt permissions", text: `{"permissions": {"bash": "deny"}}`, line: 1, col: 2, msg: "Unrecognized config key 'permissions'."},
		{name: "unknown key after good ones", text: "{\"yoloMode\": false,\n\t\"x\": 1}", line: 2, col: 2, msg: "Unrecognized config key 'x'."},
		{name: "legacy default of unknown category", text: "{\n\t\"defaultPolicy\": {\"files\": \"ask\"}\n}", line: 2, col: 19, msg: "unknown category 'files'"},
		{name: "duplicate top-level key", text: "{\"yoloMode\": false,\n \"yoloMode\": true}", line: 2, col: 2, msg: `key "yoloMode" appears twice in the policy file`},
		{name: "permission string", text: `{"permission": "allow"}`, needle: `"allow"`, msg: "permission must be an object, not a string"},
		{name: "permission array", text: `{"permission": []}`, needle: `[`, msg: "permission must be an object, not an array"},
		{name: "yolo number", text: `{"permission": {"*": "ask"}, "yoloMode": 1}`, needle: `1}`, msg: "yoloMode must be a boolean, not a number"},
		{name: "yolo string", text: `{"yoloMode": "yes"}`, needle: `"yes"`, msg: "yoloMode must be a boolean, not a string"},
		{name: "debugLog string", text: `{"debugLog": "true"}`, needle: `"true"`, msg: "debugLog must be a boolean"},
		{name: "permissionReviewLog null", text: `{"permissionReviewLog": null}`, needle: `null`, msg: "permissionReviewLog must be a boolean, not null"},
		{name: "prompt timeout zero", text: `{"promptTimeoutMs": 0}`, needle: `0`, msg: "promptTimeoutMs must be at least 1, not 0"},
		{name: "prompt timeout fraction", text: `{"promptTimeoutMs": 1.5}`, needle: `1.5`, msg: "promptTimeoutMs must be a whole number, not 1.5"},
		{name: "prompt timeout string", text: `{"promptTimeoutMs": "10"}`, needle: `"10"`, msg: "must be a whole number, not a string"},
		{name: "prompt timeout huge", text: `{"promptTimeoutMs": 1e300}`, needle: `1e300`, msg: "whole number"},
		{name: "preview length zero", text: `{"toolInputPreviewMaxLength": 0}`, needle: `0`, msg: "at least 1"},
		{name: "summary length negative", text: `{"toolTextSummaryMaxLength": -3}`, needle: `-3`, msg: "at least 1, not -3"},
		{name: "audit log empty", text: `{"auditLog": ""}`, needle: `""`, msg: "auditLog must not be empty"},
		{name: "audit log number", text: `{"auditLog": 1}`, needle: `1`, msg: "auditLog must be a string"},
		{name: "schema number", text: `{"$schema": 1}`, needle: `1`, msg: "$schema must be a string"},
		{name: "infra paths not array", text: `{"piInfrastructureReadPaths": "/x"}`, needle: `"/x"`, msg: "must be an array of strings, not a string"},
		{name: "infra paths element", text: `{"piInfrastructureReadPaths": ["/x", 1]}`, needle: `1]`, msg: "piInfrastructureReadPaths[1] must be a string"},
		{name: "authorizer chain object", text: `{"authorizerChain": {}}`, needle: `{}`, msg: "authorizerChain must be an array"},
		{name: "shellTools not object", text: `{"shellTools": []}`, needle: `[`, msg: "shellTools must be an object"},
		{name: "shellTools entry string", text: `{"shellTools": {"t": "cmd"}}`, needle: `"cmd"`, msg: "shellTools.t must be an object"},
		{name: "shellTools missing command", text: `{"shellTools": {"t": {"workdirArgument": "d"}}}`, needle: `"t"`, msg: "shellTools.t needs a non-empty commandArgument"},
		{name: "shellTools unknown field", text: `{"shellTools": {"t": {"commandArgument": "c", "x": "y"}}}`, needle: `"x"`, msg: "unknown key 'x' in shellTools.t"},
		{name: "shellTools command number", text: `{"shellTools": {"t": {"commandArgument": 5}}}`, needle: `5`, msg: "shellTools.t.commandArgument must be a string"},
		{name: "export not object", text: `{"export": "http://c:4318"}`, needle: `"http`, msg: "export must be an object, not a string"},
		{name: "export empty", text: `{"export": {}}`, needle: `{}`, msg: `export needs "otlp"`},
		{name: "export unknown exporter", text: "{\"export\": {\n \"otlp\": {\"endpoint\": \"http://c:4318\"},\n \"zipkin\": {}}}", line: 3, col: 2, msg: "unknown key 'zipkin' in export (want otlp)"},
		{name: "export no endpoint", text: `{"export": {"otlp": {}}}`, needle: `{}}`, msg: "export.otlp needs an endpoint"},
		{name: "export endpoint number", text: `{"export": {"otlp": {"endpoint": 4318}}}`, needle: `4318`, msg: "export.otlp.endpoint must be a string"},
		{name: "export endpoint scheme", text: `{"export": {"otlp": {"endpoint": "grpc://c:4317"}}}`, needle: `"grpc`, msg: "must be an http:// or https:// URL"},
		{name: "export endpoint no host", text: `{"export": {"otlp": {"endpoint": "http:///x"}}}`, needle: `"http`, msg: "has no host"},
		{name: "export endpoint credentials", text: `{"export": {"otlp": {"endpoint": "https://u:p@c"}}}`, needle: `"https`, msg: "must not carry credentials"},
		{name: "export endpoint query", text: `{"export": {"otlp": {"endpoint": "http://c:4318?x=1"}}}`, needle: `"http`, msg: "must not have a query"},
		{name: "export endpoint with path", text: `{"export": {"otlp": {"endpoint": "http://c:4318/v1/logs"}}}`, needle: `"http`, msg: "without /v1/logs"},
		{name: "export misspelt key", text: "{\"export\": {\"otlp\": {\"endpoint\": \"http://c\",\n  \"header\": {}}}}", line: 2, col: 3, msg: "unknown key 'header' in export.otlp (want endpoint, headers)"},
		{name: "export headers array", text: `{"export": {"otlp": {"endpoint": "http://c", "headers": []}}}`, needle: `[]`, msg: "export.otlp.headers must be an object, not an array"},
		{name: "export header value number", text: `{"export": {"otlp": {"endpoint": "http://c", "headers": {"x-k": 1}}}}`, needle: `1}`, msg: "export.otlp.headers.x-k must be a string"},
		{name: "export header bad name", text: `{"export": {"otlp": {"endpoint": "http://c", "headers": {"a b": "v"}}}}`, needle: `"a b"`, msg: `"a b" is not an HTTP header name`},
		{name: "export header line break", text: `{"export": {"otlp": {"endpoint": "http://c", "headers": {"k": "v\r\nX: y"}}}}`, needle: `"v`, msg: "must not contain a line break"},
		{name: "export header twice", text: `{"export": {"otlp": {"endpoint": "http://c", "headers": {"k": "v", "k": "w"}}}}`, needle: `"k": "w"`, msg: `key "k" appears twice in export.otlp.headers`},
		{name: "top-level array", text: `[]`, line: 1, col: 1, msg: "the policy file must be an object, not an array"},
		{name: "top-level string", text: "\n  \"x\"", line: 2, col: 3, msg: "must be an object, not a string"},
		{name: "missing colon", text: "{\n  \"a\" 1\n}", line: 2, col: 7, msg: "cannot parse JSONC: invalid character '1' after object name"},
		{name: "unterminated string", text: `{"permission": {"bash": "ask}}`, line: 1, col: 31, msg: "cannot parse JSONC"},
		{name: "unterminated block comment", text: "{\n  /* x", line: 2, col: 3, msg: "cannot parse JSONC: parsing comment: unexpected EOF"},
		{name: "trailing garbage", text: "{}\n x", line: 2, col: 2, msg: "invalid character 'x' after top-level value"},
		{name: "empty file", text: "", line: 1, col: 1, msg: "cannot parse JSONC"},
		{name: "only a comment", text: "// nothing\n", line: 2, col: 1, msg: "cannot parse JSONC"},
		{name: "double comma", text: "{\n\"a\": [1,\n 2,,]}", line: 3, col: 4, msg: "invalid character ','"},
		{name: "single quotes", text: `{'permission': {}}`, line: 1, col: 2, msg: "cannot parse JSONC"},
		{name: "unquoted key", text: `{permission: {}}`, line: 1, col: 2, msg: "cannot parse JSONC"},
		{name: "nesting too deep", text: `{"permission": {"bash": ` + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + "}}", line: 1, col: 25 + 998, msg: "nest deeper than 1000 levels"},
	}
	for _, r := range rows {
		f := ParseFile("/cfg/p.json", []byte(r.text))
		if len(f.Errors) == 0 {
			t.Errorf("%s: no error for %q", r.name, r.text)
			continue
		}
		line, col := r.line, r.col
		if r.needle != "" {
			nth := r.nth
			if nth == 0 {
				nth = 1
			}
			line, col = posOf(t, r.text, r.needle, nth)
		}
		e := f.Errors[0]
		if e.Path != "/cfg/p.json" || e.Line != line || e.Column != col || !strings.Contains(e.Message, r.msg) {
			t.Errorf("%s: first error = %q (%s:%d:%d), want %s:%d:%d containing %q", r.name, e.Message, e.Path, e.Line, e.Column, "/cfg/p.json", line, col, r.msg)
		}
		if want := fmt.Sprintf("/cfg/p.json:%d:%d: %s", e.Line, e.Column, e.Message); e.String() != want {
			t.Errorf("%s: String() = %q, want %q", r.name, e.String(), want)
		}
		for _, e := range f.Errors {
			if e.Path == "" || e.Line < 1 || e.Column < 1 || e.Message == "" {
				t.Errorf("%s: error without path, line or column: %+v", r.name, e)
			}
		}
		// A broken file contributes nothing: composed as the global file it
		// leaves only the builtin fallback.
		p := Compose([]ScopeFile{{Scope: ScopeGlobal, Path: f.Path, Trusted: true, Exists: true, File: f}}, testHome)
		if len(p.Rules()) != 1 || !p.Rules()[0].IsFallback() || p.Rules()[0].Origin.Scope != ScopeBuiltin || p.Yolo || p.AuditLog != "" || len(p.ShellTools) != 0 || p.PromptTimeout != DefaultPromptTimeout {
			t.Errorf("%s: the broken file contributed: rules %d, yolo %t, audit %q", r.name, len(p.Rules()), p.Yolo, p.AuditLog)
		}
	}
}

// TestParseFileExactUnknownKeyMessage pins the anchor's literal text.
func TestParseFileExactUnknownKeyMessage(t *testing.T) {
	f := ParseFile("/g.json", []byte("{\n  \"debugLo\": true\n}"))
	if len(f.Errors) != 1 {
		t.Fatalf("errors: %v", f.Errors)
	}
	if got := f.Errors[0].String(); got != "/g.json:2:3: Unrecognized config key 'debugLo'." {
		t.Errorf("got %q", got)
	}
}

func TestParseFileReportsEveryProblem(t *testing.T) {
	text := "{\n \"a\": 1,\n \"permission\": {\"bash\": \"nope\", \"read\": {\"x\": 2}},\n \"yoloMode\": \"y\"\n}"
	f := ParseFile("/m.json", []byte(text))
	var got, want []string
	for _, e := range append(f.Errors, f.Problems...) {
		got = append(got, fmt.Sprintf("%d:%d", e.Line, e.Column))
	}
	// File-level errors first, then the entry problems.
	for _, needle := range []string{`"a"`, `"y"`, `"nope"`, `2}`} {
		l, c := posOf(t, text, needle, 1)
		want = append(want, fmt.Sprintf("%d:%d", l, c))
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("error positions = %v, want %v (%v)", got, want, f.Errors)
	}
}

// A file starting with a UTF-8 byte order mark (some editors write one) is
// read as if it had none: its rules count, and the positions of its
// problems are those an editor shows (the mark is no column).
func TestByteOrderMarkIsSkipped(t *testing.T) {
	text := "{\n \"permission\": {\"bash\": {\"rm *\": \"deny\"}, \"read\": \"nope\"},\n \"x\": 1\n}"
	plain := ParseFile("/p.json", []byte(text))
	f := ParseFile("/p.json", []byte("\ufeff"+text))
	if len(f.Permission) != 2 || len(f.Permission[0].Patterns) != 1 || f.Permission[0].Patterns[0].Pattern != "rm *" {
		t.Fatalf("the rules of a file with a byte order mark: %+v (errors %v)", f.Permission, f.Errors)
	}
	var got, want []string
	for _, e := range append(f.Errors, f.Problems...) {
		got = append(got, fmt.Sprintf("%d:%d %s", e.Line, e.Column, e.Message))
	}
	for _, e := range append(plain.Errors, plain.Problems...) {
		want = append(want, fmt.Sprintf("%d:%d %s", e.Line, e.Column, e.Message))
	}
	if len(want) != 2 || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("problems with the mark:\n%s\nwithout it:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	agent := ParseAgentFile("/a.md", []byte("\ufeff---\npermission:\n  bash:\n    \"rm *\": deny\n---\nbody\n"))
	if len(agent.Errors) > 0 || len(agent.Permission) != 1 {
		t.Fatalf("an agent file with a byte order mark: %+v, errors %v", agent.Permission, agent.Errors)
	}
	edited, err := AddRules([]byte("\ufeff"+`{"permission": {}}`), []Addition{{Surface: "bash", Pattern: "ls", Action: Allow}})
	if err != nil || !strings.HasPrefix(string(edited), "\ufeff{") || !strings.Contains(string(edited), `"ls": "allow"`) {
		t.Fatalf("AddRules on a file with a byte order mark: %v\n%q", err, edited)
	}
}

func TestWarningString(t *testing.T) {
	for _, c := range []struct {
		w    Warning
		want string
	}{
		{Warning{Path: "/a", Line: 2, Column: 3, Message: "m"}, "/a:2:3: m"},
		{Warning{Path: "/a", Message: "m"}, "/a: m"},
		{Warning{Message: "m"}, "m"},
	} {
		if got := c.w.String(); got != c.want {
			t.Errorf("%+v.String() = %q, want %q", c.w, got, c.want)
		}
	}
}

// TestParseFileHugeNestingDoesNotCrash: a megabyte of "[" used to
// overflow the stack of the JSONC parser, a fatal error that no recover
// catches.
func TestParseFileHugeNestingDoesNotCrash(t *testing.T) {
	for _, c := range []struct {
		name string
		text string
		deep bool
		col  int // of the first "{" or "[" past the limit
	}{
		{"4 MiB of [", strings.Repeat("[", 4<<20), true, 1001},
		{"a million objects", strings.Repeat(`{"a":`, 1<<20), true, 5001},
		{"brackets in a string", `{"permission": {"bash": {"x` + strings.Repeat("[", 1<<20) + `": "deny"}}}`, false, 0},
		{"escaped quote in a string", `{"permission": {"bash": {"\"` + strings.Repeat("{", 1<<20) + `": "deny"}}}`, false, 0},
		{"brackets in a line comment", "{\"permission\": {}} // " + strings.Repeat("{", 1<<20), false, 0},
		{"brackets in a block comment", `{"permission": {}} /* ` + strings.Repeat("[", 1<<20) + ` */`, false, 0},
	} {
		f := ParseFile("/deep.json", []byte(c.text))
		if !c.deep {
			if len(f.Errors) != 0 {
				t.Errorf("%s: %v", c.name, f.Errors)
			}
			continue
		}
		if len(f.Errors) != 1 || !strings.Contains(f.Errors[0].Message, "nest deeper than 1000 levels") || f.Errors[0].Line != 1 || f.Errors[0].Column != c.col {
			t.Errorf("%s: errors %v, want one at 1:%d", c.name, f.Errors[:min(1, len(f.Errors))], c.col)
		}
	}
	// Exactly at the limit is fine: 2 objects and 998 arrays.
	ok := strings.Repeat("[", 998) + strings.Repeat("]", 998)
	f := ParseFile("/ok.json", []byte(`{"authorizerChain": [`+ok+`]}`))
	for _, e := range f.Errors {
		if strings.Contains(e.Message, "nest deeper") {
			t.Errorf("1000 levels rejected as too deep: %v", e)
		}
	}
	if len(f.Errors) == 0 {
		t.Errorf("authorizerChain of arrays must still be a schema error")
	}
	deep := strings.Repeat("[", 999) + strings.Repeat("]", 999)
	f = ParseFile("/ok.json", []byte(`{"authorizerChain": [`+deep+`]}`))
	if len(f.Errors) != 1 || !strings.Contains(f.Errors[0].Message, "nest deeper") {
		t.Errorf("1001 levels must be too deep: %v", f.Errors)
	}
}

func FuzzParseFile(f *testing.F) {
	for _, s := range []string{
		`{}`,
		`{"permission": {"*": "allow", "bash": {"*": "ask", "rm -rf *": "deny"}}}`,
		`{"permission": {"bash": {"npm *": {"action": "deny", "reason": "Use pnpm"}}}, "yoloMode": true}`,
		"// c\n{\"permission\": {\"mcp\": {\"exa:*\": \"allow\",},}, /* x */}",
		`{"shellTools": {"t": {"commandArgument": "c"}}, "piInfrastructureReadPaths": ["~/x"], "auditLog": "/a"}`,
		`{"debugLo": true}`,
		`[[[[`,
		`{"permission": {"read": {"~/.ssh/*": "deny", "$HOME/x": "allow"}}}`,
		`{"permission": {"*": "alow", "bash": {"cat *": "dney", "x": {"action": "allow"}, "x": 1}, "read": null}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		pf := ParseFile("/fuzz.json", data)
		for _, e := range append(pf.Errors, pf.Problems...) {
			if e.Path != "/fuzz.json" || e.Line < 1 || e.Column < 1 || e.Message == "" {
				t.Fatalf("error without position: %+v", e)
			}
		}
		g := ScopeFile{Scope: ScopeGlobal, Path: "/fuzz.json", Trusted: true, Exists: true, File: pf}
		proj := ScopeFile{Scope: ScopeProject, Path: "/proj.json", Exists: true, File: ParseFile("/proj.json", data)}
		for _, files := range [][]ScopeFile{{g}, {g, proj}} {
			p := Compose(files, testHome)
			broken := len(pf.Errors) > 0
			if p.Clamped != broken {
				t.Fatalf("Clamped = %t with %d errors", p.Clamped, len(pf.Errors))
			}
			if len(p.Rules()) == 0 || !p.Rules()[0].IsFallback() {
				t.Fatalf("the first rule is not the fallback")
			}
			for _, r := range p.Rules() {
				if broken && r.Action == Allow {
					t.Fatalf("a broken file left an allow: %+v", r)
				}
				if r.Action < Allow || r.Action > Deny {
					t.Fatalf("rule with invalid action: %+v", r)
				}
			}
			if len(files) == 2 && p.Yolo != (!broken && pf.Knobs.Yolo != nil && *pf.Knobs.Yolo) {
				t.Fatalf("yolo %t: only the global file decides", p.Yolo)
			}
			for _, q := range []Query{
				{Surface: "bash", Values: []string{"rm -rf /"}},
				{Surface: "read", Values: []string{"/home/u/.ssh/id_rsa", ".env"}},
				{Surface: "mcp", Values: []string{"exa_search", "exa:search", "exa", "mcp"}, FirstCandidate: true},
				{Surface: "task"},
			} {
				res := p.Resolve(q)
				if res.Rule == nil || res.Action != res.Rule.Action && !res.Floored {
					t.Fatalf("Resolve(%+v) = %+v", q, res)
				}
				if broken && res.Action == Allow {
					t.Fatalf("a broken file allowed %+v", q)
				}
			}
		}
	})
}

// The unquoting shortcut reads every string as JSON does.
func TestLiteralStringShortcut(t *testing.T) {
	for _, raw := range []string{`"git status"`, `""`, `"a\"b"`, `"tab\there"`, `"\u00e9t\u00e9"`, `"été"`, "\"bad\xffutf8\"",
		`"back\\slash"`, `"~/.ssh/*"`, "\"ctl\x01\"", `"emoji 🙂"`} {
		v, err := hujson.Parse([]byte(raw))
		if err != nil {
			continue // not a JSON string: the parser reports it elsewhere
		}
		jv := fromHujson(&v)
		if got, want := literalString(&jv), v.Value.(hujson.Literal).String(); got != want {
			t.Errorf("%s: %q, JSON reads %q", raw, got, want)
		}
	}
}
