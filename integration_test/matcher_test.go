package integration_test

import (
	"strings"
	"testing"
	"time"
)

func mustDecode(t *testing.T, s string) any {
	t.Helper()
	v, err := decodeJSON([]byte(s))
	if err != nil {
		t.Fatalf("decode %s: %v", s, err)
	}
	return v
}

// matchCase: pattern and actual are JSON texts; an empty actual means the
// value is missing (the key is absent).
type matchCase struct {
	name            string
	pattern, actual string
	want            bool
}

func runMatchCases(t *testing.T, cases []matchCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var actual any = absentValue{}
			if c.actual != "" {
				actual = mustDecode(t, c.actual)
			}
			r, err := match(mustDecode(t, c.pattern), actual, "$")
			if err != nil {
				t.Fatalf("match(%s, %s): unexpected error %v", c.pattern, c.actual, err)
			}
			if got := r == ""; got != c.want {
				t.Fatalf("match(%s, %s) = %v (%q), want %v", c.pattern, c.actual, got, r, c.want)
			}
			if !c.want && !strings.HasPrefix(r, "$") {
				t.Errorf("mismatch %q does not start with its path", r)
			}
		})
	}
}

func TestMatcherStructure(t *testing.T) {
	runMatchCases(t, []matchCase{
		{"object subset", `{"a": 1}`, `{"a": 1, "b": 2}`, true},
		{"empty object pattern matches any object", `{}`, `{"a": 1}`, true},
		{"empty object pattern needs an object", `{}`, `[]`, false},
		{"object key missing", `{"a": 1, "c": 3}`, `{"a": 1, "b": 2}`, false},
		{"object value differs", `{"a": 1}`, `{"a": 2}`, false},
		{"nested subset", `{"r": {"d": {"x": "y"}}}`, `{"r": {"d": {"x": "y", "z": 1}, "t": []}}`, true},
		{"nested mismatch", `{"r": {"d": {"x": "y"}}}`, `{"r": {"d": {"x": "Y"}}}`, false},
		{"object vs array", `{"a": 1}`, `[1]`, false},
		{"object vs scalar", `{"a": 1}`, `"a"`, false},
		{"array same length elementwise", `[1, {"a": 2}]`, `[1, {"a": 2, "b": 3}]`, true},
		{"array longer actual", `[1]`, `[1, 2]`, false},
		{"array shorter actual", `[1, 2]`, `[1]`, false},
		{"array order matters", `[1, 2]`, `[2, 1]`, false},
		{"empty array", `[]`, `[]`, true},
		{"empty array vs non-empty", `[]`, `[1]`, false},
		{"array vs object", `[]`, `{}`, false},
		{"plain key missing in actual", `{"a": null}`, `{}`, false},
		{"null equals null", `{"a": null}`, `{"a": null}`, true},
		{"null is not false", `null`, `false`, false},
		{"missing top-level value", `1`, ``, false},
		{"two-key object with $ keys is not an operator", `{"$any": true, "b": 1}`, `{"$any": true, "b": 1}`, true},
		{"two-key object with $ keys is a subset pattern", `{"$any": true, "b": 1}`, `{"b": 1}`, false},
		{"key that does not start with $ is not an operator", `{"any": true}`, `{"any": true}`, true},
	})
}

func TestMatcherScalars(t *testing.T) {
	runMatchCases(t, []matchCase{
		{"string equal", `"abc"`, `"abc"`, true},
		{"string differs", `"abc"`, `"abd"`, false},
		{"string is case sensitive", `"abc"`, `"ABC"`, false},
		{"string vs number", `"1"`, `1`, false},
		{"number vs string", `1`, `"1"`, false},
		{"int equal", `42`, `42`, true},
		{"int differs", `42`, `43`, false},
		{"int equals float by value", `1`, `1.0`, true},
		{"float equals int by value", `1.0`, `1`, true},
		{"exponent by value", `100`, `1e2`, true},
		{"negative zero", `0`, `-0.0`, true},
		{"fraction differs from int", `1`, `1.5`, false},
		{"floats by value", `0.5`, `5e-1`, true},
		{"big ints exact", `9007199254740993`, `9007199254740993`, true},
		{"big ints differ past float precision", `9007199254740993`, `9007199254740992`, false},
		{"big int vs float is exact", `9007199254740993`, `9007199254740992.0`, false},
		{"true equals true", `true`, `true`, true},
		{"true is not false", `true`, `false`, false},
		{"true is not 1", `true`, `1`, false},
		{"1 is not true", `1`, `true`, false},
		{"false is not 0", `false`, `0`, false},
		{"0 is not false", `0`, `false`, false},
		{"null is not 0", `null`, `0`, false},
		{"scalar vs object", `1`, `{}`, false},
	})
}

func TestMatcherOperators(t *testing.T) {
	runMatchCases(t, []matchCase{
		// $any: any present value, null included
		{"$any string", `{"a": {"$any": true}}`, `{"a": "x"}`, true},
		{"$any null", `{"a": {"$any": true}}`, `{"a": null}`, true},
		{"$any object", `{"$any": true}`, `{"b": 1}`, true},
		{"$any missing", `{"a": {"$any": true}}`, `{"b": 1}`, false},

		// $absent: the key is missing
		{"$absent missing", `{"a": {"$absent": true}}`, `{"b": 1}`, true},
		{"$absent present", `{"a": {"$absent": true}}`, `{"a": 1}`, false},
		{"$absent present null", `{"a": {"$absent": true}}`, `{"a": null}`, false},

		// $regex: search (not anchored), dot matches newline
		{"$regex finds", `{"$regex": "b+c"}`, `"abbcd"`, true},
		{"$regex no match", `{"$regex": "^b"}`, `"abc"`, false},
		{"$regex anchored full", `{"$regex": "^a.c$"}`, `"abc"`, true},
		{"$regex dot matches newline", `{"$regex": "a.c"}`, `"a\nc"`, true},
		{"$regex non-space", `{"$regex": "\\S"}`, `"0.1.0"`, true},
		{"$regex empty string fails \\S", `{"$regex": "\\S"}`, `""`, false},
		{"$regex non-string", `{"$regex": "1"}`, `1`, false},
		{"$regex missing", `{"a": {"$regex": "."}}`, `{}`, false},

		// $contains: substring of a string
		{"$contains yes", `{"$contains": "shutting down"}`, `"toolgate: shutting down now"`, true},
		{"$contains no", `{"$contains": "shutting down"}`, `"toolgate: shut down"`, false},
		{"$contains case sensitive", `{"$contains": "Deny"}`, `"deny"`, false},
		{"$contains array is not a string", `{"$contains": "a"}`, `["a"]`, false},
		{"$contains missing", `{"r": {"$contains": "a"}}`, `{}`, false},

		// $oneOf: any alternative
		{"$oneOf first", `{"$oneOf": [1, 2]}`, `1`, true},
		{"$oneOf second", `{"$oneOf": [{"id": 2}, {"id": 3}]}`, `{"id": 3, "result": {}}`, true},
		{"$oneOf none", `{"$oneOf": [1, 2]}`, `3`, false},
		{"$oneOf empty", `{"$oneOf": []}`, `1`, false},
		{"$oneOf with $absent accepts missing", `{"a": {"$oneOf": [{"$absent": true}, null]}}`, `{}`, true},
		{"$oneOf with $absent accepts null", `{"a": {"$oneOf": [{"$absent": true}, null]}}`, `{"a": null}`, true},
		{"$oneOf with $absent rejects other", `{"a": {"$oneOf": [{"$absent": true}, null]}}`, `{"a": 0}`, false},
		{"$oneOf missing", `{"a": {"$oneOf": [1]}}`, `{}`, false},

		// $not: the value does not match; a missing key matches
		{"$not different", `{"$not": "allow"}`, `"block"`, true},
		{"$not same", `{"$not": "allow"}`, `"allow"`, false},
		{"$not missing key matches", `{"a": {"$not": "x"}}`, `{}`, true},
		{"$not $absent on missing", `{"a": {"$not": {"$absent": true}}}`, `{}`, false},
		{"$not $absent on present", `{"a": {"$not": {"$absent": true}}}`, `{"a": 1}`, true},
		{"$not nested operator", `{"$not": {"$contains": "rm"}}`, `"ls -la"`, true},
		{"$not nested operator fails", `{"$not": {"$contains": "rm"}}`, `"rm -rf"`, false},

		// $len: length of an array or string (code points)
		{"$len array", `{"$len": 2}`, `[1, {}]`, true},
		{"$len array wrong", `{"$len": 2}`, `[1]`, false},
		{"$len empty array", `{"$len": 0}`, `[]`, true},
		{"$len string", `{"$len": 3}`, `"abc"`, true},
		{"$len string wrong", `{"$len": 2}`, `"abc"`, false},
		{"$len string counts code points", `{"$len": 2}`, `"é😀"`, true},
		{"$len by value", `{"$len": 2.0}`, `[1, 2]`, true},
		{"$len number has none", `{"$len": 1}`, `1`, false},
		{"$len null has none", `{"$len": 0}`, `null`, false},
		{"$len missing", `{"a": {"$len": 0}}`, `{}`, false},

		// $includes: at least one element matches
		{"$includes yes", `{"$includes": {"scope": "global"}}`, `[{"scope": "project"}, {"scope": "global", "x": 1}]`, true},
		{"$includes no", `{"$includes": {"scope": "agent"}}`, `[{"scope": "project"}, {"scope": "global"}]`, false},
		{"$includes empty array", `{"$includes": 1}`, `[]`, false},
		{"$includes scalar", `{"$includes": "b"}`, `["a", "b"]`, true},
		{"$includes needs an array", `{"$includes": "b"}`, `"abc"`, false},
		{"$includes object is not an array", `{"$includes": 1}`, `{"a": 1}`, false},
		{"$includes missing", `{"a": {"$includes": 1}}`, `{}`, false},
		{"$includes nested operator", `{"$includes": {"reason": {"$contains": "deny"}}}`, `[{"reason": "x"}, {"reason": "deny rule"}]`, true},
	})
}

func TestMatcherBrokenPatterns(t *testing.T) {
	for _, c := range []struct{ pattern, actual string }{
		{`{"$anything": 1}`, `1`},
		{`{"a": {"$bogus": 1}}`, `{"a": 1}`},
		{`{"$oneOf": 1}`, `1`},
		{`{"$regex": "("}`, `"x"`},
		{`{"$regex": 1}`, `"x"`},
		{`{"$contains": 1}`, `"x"`},
		{`{"$len": "2"}`, `"ab"`},
		{`{"$not": {"$bogus": 1}}`, `1`},
		{`{"$includes": {"$bogus": 1}}`, `[1]`},
	} {
		if _, err := match(mustDecode(t, c.pattern), mustDecode(t, c.actual), "$"); err == nil {
			t.Errorf("match(%s, %s): no error for a broken pattern", c.pattern, c.actual)
		}
	}
	// Like replay.py, a broken part that is never reached is not an error.
	if r, err := match(mustDecode(t, `{"a": 1, "b": {"$bogus": 1}}`), mustDecode(t, `{"a": 2}`), "$"); err != nil || r == "" {
		t.Errorf("unreached broken operator: r=%q err=%v, want a mismatch and no error", r, err)
	}
}

func TestMatcherMismatchPath(t *testing.T) {
	// The first mismatch in pattern key order is reported, with its path.
	r, _ := match(mustDecode(t, `{"result": {"b": 1, "a": [0, {"c": "x"}]}}`), mustDecode(t, `{"result": {"a": [0, {"c": "y"}], "b": 2}}`), "$")
	if !strings.HasPrefix(r, "$.result.b:") {
		t.Errorf("mismatch %q, want it at $.result.b", r)
	}
	r, _ = match(mustDecode(t, `{"result": {"a": [0, {"c": "x"}]}}`), mustDecode(t, `{"result": {"a": [0, {"c": "y"}]}}`), "$")
	if !strings.HasPrefix(r, "$.result.a[1].c:") {
		t.Errorf("mismatch %q, want it at $.result.a[1].c", r)
	}
}

// TestMatcherNotVacuous guards against a matcher that accepts everything:
// patterns shaped like the suite's, one per operator, each reject a message
// they do not describe.
func TestMatcherNotVacuous(t *testing.T) {
	other := mustDecode(t, `{"jsonrpc": "2.0", "id": 999, "error": {"code": -32601, "message": "nope"}}`)
	for _, p := range []string{
		`{"id": 1, "result": {"protocolVersion": 1}}`,
		`{"method": "prompt", "params": {"toolCallId": "c2"}}`,
		`{"id": 999, "result": {"$any": true}}`,
		`{"id": 999, "error": {"code": -32600}}`,
		`{"id": {"$oneOf": [1, 2]}}`,
		`{"error": {"message": {"$regex": "^x"}}}`,
		`{"error": {"message": {"$contains": "yes"}}}`,
		`{"error": {"$len": 1}}`,
		`{"error": {"code": {"$not": -32601}}}`,
		`{"error": {"$absent": true}}`,
		`{"id": {"$includes": 999}}`,
	} {
		if r, err := match(mustDecode(t, p), other, "$"); err != nil || r == "" {
			t.Errorf("pattern %s accepted %s (err %v)", p, show(other), err)
		}
	}
}

func TestMatcherDecodeKeepsOrderAndNumbers(t *testing.T) {
	v := mustDecode(t, `{"b": 1, "a": {"y": 2.50, "x": 12345678901234567890}, "b": 3}`)
	if got, want := pyDumps(v, -1), `{"b": 3, "a": {"y": 2.50, "x": 12345678901234567890}}`; got != want {
		t.Errorf("pyDumps = %s, want %s", got, want)
	}
	for _, bad := range []string{``, `{`, `{"a": 1} x`, `{"a": 1}{}`, `[1,]`, `{"a" 1}`, "\"\xff\"", `NaN`} {
		if _, err := decodeJSON([]byte(bad)); err == nil {
			t.Errorf("decodeJSON(%q): no error", bad)
		}
	}
}

func TestPyDumps(t *testing.T) {
	v := mustDecode(t, `{"s": "é\n\"\\\u0001\u007f😀<>&", "a": [], "o": {}, "l": [1, true, null], "n": {"k": [1, {"x": "y"}]}}`)
	if got, want := pyDumps(v, -1), `{"s": "\u00e9\n\"\\\u0001\u007f\ud83d\ude00<>&", "a": [], "o": {}, "l": [1, true, null], "n": {"k": [1, {"x": "y"}]}}`; got != want {
		t.Errorf("compact:\n got %s\nwant %s", got, want)
	}
	want := "{\n  \"permission\": {\n    \"*\": \"ask\",\n    \"bash\": [\n      1,\n      {}\n    ]\n  },\n  \"e\": []\n}"
	if got := pyDumps(mustDecode(t, `{"permission": {"*": "ask", "bash": [1, {}]}, "e": []}`), 2); got != want {
		t.Errorf("indent 2:\n got %s\nwant %s", got, want)
	}
}

func TestSubstitute(t *testing.T) {
	repl := []placeholder{{"OUTSIDE", "/o"}, {"AUDIT", "/h/audit.jsonl"}, {"WORK", "/w"}, {"HOME", "/h"}}
	for in, want := range map[string]string{
		"$WORK/a":            "/w/a",
		"$HOME/.pi":          "/h/.pi",
		"$AUDIT":             "/h/audit.jsonl",
		"$OUTSIDE/x $WORK":   "/o/x /w",
		"$$HOME/.ssh/*":      "$HOME/.ssh/*",
		"$$$WORK":            "$/w",
		"cost: $5":           "cost: $5",
		"$HOMEWORK":          "/hWORK",
		"no placeholders $$": "no placeholders $",
	} {
		if got := substString(in, repl); got != want {
			t.Errorf("substString(%q) = %q, want %q", in, got, want)
		}
	}
	v := subst(mustDecode(t, `{"$WORK/f": ["$HOME", 1, {"k": "$OUTSIDE"}]}`), repl)
	if got, want := pyDumps(v, -1), `{"/w/f": ["/h", 1, {"k": "/o"}]}`; got != want {
		t.Errorf("subst = %s, want %s", got, want)
	}
}

func TestSandboxPlaceholderOrder(t *testing.T) {
	sb, err := newSandbox()
	if err != nil {
		t.Fatal(err)
	}
	defer sb.remove()
	var names []string
	for _, p := range sb.repl {
		names = append(names, p.name)
	}
	if got := strings.Join(names, " "); got != "OUTSIDE AUDIT WORK HOME" {
		t.Errorf("replacement order %s, want replay.py's OUTSIDE AUDIT WORK HOME", got)
	}
	if sb.audit != sb.home+"/audit.jsonl" {
		t.Errorf("AUDIT = %s", sb.audit)
	}
}

func TestParseTranscript(t *testing.T) {
	steps, err := parseTranscript([]byte("// comment\n\n{\"send\": 1}\r\n  // indented comment\n{\"sleep\": 0}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 2 || steps[0].line != 3 || steps[1].line != 5 {
		t.Fatalf("steps %+v, want lines 3 and 5", steps)
	}
	if _, err := parseTranscript([]byte("{\"send\": 1}\n{bad\n")); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("bad line: err %v, want one naming line 2", err)
	}
}

func TestProtocolMessage(t *testing.T) {
	for line, ok := range map[string]bool{
		`{"jsonrpc": "2.0", "id": 1, "result": null}`: true,
		`{"jsonrpc":"2.0","method":"decision"}`:       true,
		` {"jsonrpc": "2.0", "id": 1} `:               true,
		``:                                            false,
		` `:                                           false,
		`hello`:                                       false,
		`{"id": 1, "result": null}`:                   false,
		`{"jsonrpc": "1.0", "id": 1}`:                 false,
		`{"jsonrpc": 2.0, "id": 1}`:                   false,
		`[{"jsonrpc": "2.0", "id": 1}]`:               false,
		`"jsonrpc"`:                                   false,
		`{"jsonrpc": "2.0"} {"jsonrpc": "2.0"}`:       false,
		`Content-Length: 42`:                          false,
	} {
		if _, err := protocolMessage(line); (err == nil) != ok {
			t.Errorf("protocolMessage(%q): err %v, want ok=%v", line, err, ok)
		}
	}
}

func TestParseSkips(t *testing.T) {
	skips, err := parseSkips("SKIP", []byte("# comment\n\nconformance/07-check-dry-run.jsonl: contradicts the design: a: b\n"))
	if err != nil {
		t.Fatal(err)
	}
	e, ok := skips["conformance/07-check-dry-run.jsonl"]
	if len(skips) != 1 || !ok || e.reason != "contradicts the design: a: b" || e.line != 3 {
		t.Errorf("skips %+v", skips)
	}
	for _, bad := range []string{"conformance/07.jsonl\n", "conformance/07.jsonl:\n", "no path here\n", "a.jsonl: x\na.jsonl: y\n"} {
		if _, err := parseSkips("SKIP", []byte(bad)); err == nil {
			t.Errorf("parseSkips(%q): no error", bad)
		}
	}
	// The checked-in file must parse.
	if _, err := readSkipFile(skipFile); err != nil {
		t.Error(err)
	}
}

func TestPySplitLines(t *testing.T) {
	got := pySplitLines("a\nb\r\nc\rd\u2028e\n\nf")
	want := []string{"a", "b", "c", "d", "e", "", "f"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("pySplitLines = %q, want %q", got, want)
	}
	if got := pySplitLines("x\n"); len(got) != 1 {
		t.Errorf("trailing newline: %q", got)
	}
}

func TestSeconds(t *testing.T) {
	d, err := seconds(mustDecode(t, `0.5`))
	if err != nil || d != 500*time.Millisecond {
		t.Errorf("seconds(0.5) = %v, %v", d, err)
	}
	for _, bad := range []string{`"5"`, `-1`, `true`} {
		if _, err := seconds(mustDecode(t, bad)); err == nil {
			t.Errorf("seconds(%s): no error", bad)
		}
	}
}
