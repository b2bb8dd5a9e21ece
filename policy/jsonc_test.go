package policy

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// jsoncCases are files of every shape the one-pass parser must read as
// hujson does or hand to it: valid JWCC of every construct, and every kind
// of syntax error near each one.
var jsoncCases = []string{
	`{}`, `[]`, `""`, `0`, `-0`, `1.5e-3`, `true`, `false`, `null`, ` {} `, "\t{}\r\n",
	`{"permission": {"*": "allow", "bash": {"*": "ask", "rm -rf *": "deny"}}}`,
	`{"permission": {"bash": {"npm *": {"action": "deny", "reason": "Use pnpm"}}}, "yoloMode": true}`,
	"// c\n{\"permission\": {\"mcp\": {\"exa:*\": \"allow\",},}, /* x */}",
	"{/* a */\"a\"/* b */:/* c */1/* d */,/* e */}/* f */\n// g\n",
	`{"a": [1, 2, [3, {"b": []}],], "c": {"d": {"e": {}}}}`,
	`{"shellTools": {"t": {"commandArgument": "c"}}, "piInfrastructureReadPaths": ["~/x"], "auditLog": "/a"}`,
	`{"s": "esc \" \\ \/ \b \f \n \r \t \u00e9 \uD83D\uDE00"}`,
	"{\"s\": \"bad\xffutf8 and été\"}",
	`{"n": [0, -1, 12, 1.0, 1e5, 1E+5, 2e-7, -0.5]}`,
	`{"a": 1, "a": 2}`,
	// Outside the one-pass parser's subset, valid for hujson.
	"{} // no newline at the end",
	"{} // été\n",
	"{} /* été */",
	"{\"a\": 1} // \u2028 separator\n",
	// Errors.
	``, ` `, `{`, `}`, `[`, `]`, `{"a"}`, `{"a":}`, `{"a" 1}`, `{"a": 1 "b": 2}`, `{,}`, `[,]`, `{"a": 1,,}`,
	`[1,,2]`, `[1 2]`, `{1: 2}`, `{'a': 1}`, `{a: 1}`, `{"a": tru}`, `{"a": True}`, `{"a": nul}`, `{"a": 01}`,
	`{"a": 1.}`, `{"a": .5}`, `{"a": 1e}`, `{"a": +1}`, `{"a": -}`, `{"a": 0x10}`, `{"a": NaN}`, `{"a": Infinity}`,
	`{"a": "\x"}`, `{"a": "\u12"}`, `{"a": "\u12g4"}`, "{\"a\": \"tab\there\"}", "{\"a\": \"nl\nhere\"}",
	`{"a": "unterminated}`, `{"a": "x\`, `{} {}`, `{} x`, `{}}`, `/`, `{/}`, `{} /`, `{} /* open`, "/* a */",
	"{\"a\": 1 /* c */ /",
	"\ufeff{}", `{"a": [1, 2}`, `{"a": {"b": 1]}`, `{"a": 1}]`, `["a":1]`, `{"a"::1}`,
}

func sameJSONC(t *testing.T, name string, data []byte) {
	t.Helper()
	slow, slowErr := slowJSONC(data)
	fast, ok := fastJSONC(data)
	if ok {
		// What the one pass takes, hujson takes, and reads the same.
		if slowErr != nil {
			t.Fatalf("%s: the one-pass parser took %q, hujson refuses it: %v", name, data, slowErr)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%s: the one-pass parser reads %q differently:\n fast %+v\n slow %+v", name, data, fast, slow)
		}
	}
	// And the route ParseFile takes gives hujson's answer.
	got, err := parseJSONCValue(data)
	if (err == nil) != (slowErr == nil) || err != nil && err.Error() != slowErr.Error() {
		t.Fatalf("%s: %q: error %v, hujson %v", name, data, err, slowErr)
	}
	if err == nil && !reflect.DeepEqual(got, slow) {
		t.Fatalf("%s: %q read differently from hujson", name, data)
	}
}

func TestFastJSONCMatchesHujson(t *testing.T) {
	fastOK := 0
	for i, c := range jsoncCases {
		sameJSONC(t, fmt.Sprint("case ", i), []byte(c))
		if _, ok := fastJSONC([]byte(c)); ok {
			fastOK++
		}
	}
	if fastOK < 10 {
		t.Fatalf("the one-pass parser took only %d of the cases", fastOK)
	}
	// Large policies take the one pass.
	for _, text := range []string{benchPolicyText(2000), e2ePolicyText(2000)} {
		if _, ok := fastJSONC([]byte(text)); !ok {
			t.Fatal("a generated policy did not take the one pass")
		}
		sameJSONC(t, "generated", []byte(text))
	}
	// Every JSON and JSONC file of the repository, and each cut short.
	var files []string
	_ = filepath.WalkDir("..", func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git") {
			return filepath.SkipDir
		}
		if strings.HasSuffix(p, ".json") || strings.HasSuffix(p, ".jsonc") {
			files = append(files, p)
		}
		return nil
	})
	if len(files) == 0 {
		t.Fatal("no JSON files found in the repository")
	}
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil || len(data) > 1<<20 {
			continue
		}
		sameJSONC(t, p, data)
		for _, n := range []int{len(data) / 3, len(data) / 2, len(data) - 2} {
			if n > 0 && n < len(data) {
				sameJSONC(t, p+" (cut)", data[:n])
			}
		}
	}
}

// Whole files through ParseFile: the same File (rules, problems, errors
// with their positions, notes) from the one pass as from hujson's tree.
func TestParseFileOnePassSameFile(t *testing.T) {
	texts := append([]string{}, jsoncCases...)
	texts = append(texts,
		`{"permission": {"*": "alow", "bash": {"cat *": "dney", "x": {"action": "allow"}, "x": 1}, "read": null}}`,
		`{"permission": {"bahs": {"rm *": "deny", "ls": "allow"}, "Bash": "deny"}, "debugLo": true, "promptTimeoutMs": 1.5}`,
		`{"defaultPolicy": {"tools": "ask", "bash": "ask"}, "bash": {"git *": "allow"}, "special": {"external_directory": "deny"}}`,
		`{"permission": {"edit": {"src/*": {"action": "deny", "reason": 5}, "": "deny"}}, "shellTools": {"t": {"x": 1}}}`,
		benchPolicyText(300), e2ePolicyText(300))
	for _, text := range texts {
		data := []byte(text)
		fast := ParseFile("/p.json", data)
		slow := parseFileSlow("/p.json", data)
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%q:\n one pass %+v\n hujson   %+v", text, fast, slow)
		}
	}
}

// parseFileSlow is ParseFile over hujson's tree only.
func parseFileSlow(path string, data []byte) *File {
	f := &File{Path: path, keyLines: map[string][2]int{}}
	p := &parser{file: f, lines: lineStarts(data)}
	if off := tooDeep(data); off >= 0 {
		p.errorf(off, "objects and arrays nest deeper than %d levels", maxNesting)
		return f
	}
	v, err := slowJSONC(data)
	if err != nil {
		line, col, msg := hujsonErrorPosition(err)
		f.Errors = append(f.Errors, Warning{Path: path, Line: line, Column: col, Message: "cannot parse JSONC: " + msg})
		return f
	}
	p.top(v)
	return f
}

func FuzzFastJSONC(f *testing.F) {
	for _, c := range jsoncCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if tooDeep(data) >= 0 {
			return // refused before either parser runs
		}
		sameJSONC(t, "fuzz", data)
	})
}
