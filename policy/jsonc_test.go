package policy

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
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
	fast, ok := fastJSONC(data, shapeKids(data))
	if ok {
		// What the one pass takes, hujson takes, and reads the same.
		if slowErr != nil {
			t.Fatalf("%s: the one-pass parser took %q, hujson refuses it: %v", name, data, slowErr)
		}
		if !sameJval(fast, slow) {
			t.Fatalf("%s: the one-pass parser reads %q differently:\n fast %+v\n slow %+v", name, data, fast, slow)
		}
		// A block sized short (grown on the way) reads the same.
		if short, ok := fastJSONC(data, 0); !ok || !sameJval(short, slow) {
			t.Fatalf("%s: with a short block the one-pass parser reads %q differently", name, data)
		}
	}
	// And the route ParseFile takes gives hujson's answer.
	got, err := parseJSONCValue(data, string(data), shapeKids(data))
	if (err == nil) != (slowErr == nil) || err != nil && err.Error() != slowErr.Error() {
		t.Fatalf("%s: %q: error %v, hujson %v", name, data, err, slowErr)
	}
	if err == nil && !sameJval(got, slow) {
		t.Fatalf("%s: %q read differently from hujson", name, data)
	}
}

// sameJval reports whether a and b are the same value: kind, offset,
// literal text and children (not where their bytes are kept).
func sameJval(a, b *jval) bool {
	if a.kind != b.kind || a.off != b.off || a.plain != b.plain || a.lit() != b.lit() || a.n != b.n {
		return false
	}
	ak, bk := a.children(), b.children()
	for i := range ak {
		if !sameJval(&ak[i], &bk[i]) {
			return false
		}
	}
	return true
}

func TestFastJSONCMatchesHujson(t *testing.T) {
	fastOK := 0
	for i, c := range jsoncCases {
		sameJSONC(t, fmt.Sprint("case ", i), []byte(c))
		if _, ok := fastJSONC([]byte(c), shapeKids([]byte(c))); ok {
			fastOK++
		}
	}
	if fastOK < 10 {
		t.Fatalf("the one-pass parser took only %d of the cases", fastOK)
	}
	// Large policies take the one pass.
	for _, text := range []string{benchPolicyText(2000), e2ePolicyText(2000)} {
		if _, ok := fastJSONC([]byte(text), shapeKids([]byte(text))); !ok {
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
		benchPolicyText(300), e2ePolicyText(300),
		// At the nesting bound and past it (an error, at the first
		// bracket too deep, before any syntax error after it).
		`{"authorizerChain": `+strings.Repeat("[", 999)+strings.Repeat("]", 999)+`}`,
		`{"authorizerChain": `+strings.Repeat("[", 1000)+strings.Repeat("]", 1000)+`}`,
		`{"authorizerChain": `+strings.Repeat("[", 1000)+strings.Repeat("]", 1000)+`, bad}`,
		`{"a": [{"b": [{"c": `+strings.Repeat("{\"d\": ", 997)+`1`+strings.Repeat("}", 997)+`}]}]}`)
	for _, text := range texts {
		data := []byte(text)
		fast := ParseFile("/p.json", data)
		slow := parseFileSlow("/p.json", data)
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%q:\n one pass %+v\n hujson   %+v", text, fast, slow)
		}
		if owned := parseFileOwned("/p.json", []byte(text)); !reflect.DeepEqual(owned, slow) {
			t.Fatalf("%q: the loader's parse differs:\n %+v\n %+v", text, owned, slow)
		}
	}
}

// parseFileSlow is ParseFile over hujson's tree only.
func parseFileSlow(path string, data []byte) *File {
	data = bytes.TrimPrefix(data, byteOrderMark) // ParseFile's first step, before either parser
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

func shapeKids(data []byte) int {
	_, kids := shape(data)
	return kids
}

// shape's count is never short for a file the one pass reads: its block
// is then never grown (it would only cost time, not change the result).
func TestShapeCountsValues(t *testing.T) {
	count := func(v *jval) int {
		var walk func(v *jval) int
		walk = func(v *jval) int {
			n := len(v.children())
			for i := range v.children() {
				n += walk(&v.children()[i])
			}
			return n
		}
		return walk(v)
	}
	for _, c := range append(jsoncCases, benchPolicyText(500), e2ePolicyText(500)) {
		data := []byte(c)
		v, ok := fastJSONC(data, shapeKids(data))
		if !ok {
			continue
		}
		if got, est := count(v), shapeKids(data); got > est {
			t.Errorf("%q: %d values, shape counted %d", c, got, est)
		}
	}
	if _, kids := shape([]byte(e2ePolicyText(10000))); kids > 2*10000+2*16 {
		t.Errorf("shape counts %d values in a 10,000-rule policy", kids)
	}
}

// Composing without the index of a surface's patterns (an entry whose
// patterns are distinct) gives the policy composing with it gives: the
// same rules in the same order, the same warnings, the same decisions.
func TestComposeDistinctSameAsIndexed(t *testing.T) {
	sets := [][]string{
		{`{"permission": {"bash": {"git *": "allow", "rm *": "deny", "ls": "ask"}, "read": "allow"}}`},
		{`{"permission": {"bash": {"git *": "allow", "rm *": "deny"}}}`, `{"permission": {"bash": {"rm *": "ask", "make *": "allow"}}}`},
		{`{"permission": {"bash": {"x": "allow", "x": "deny", "y": "ask"}}}`, `{"permission": {"bash": {"x": "ask"}}}`},
		{`{"permission": {"bash": "ask"}}`, `{"permission": {"bash": {"a *": "allow", "b": "deny"}}}`, `{"permission": {"bash": {"a *": "deny"}}}`},
		{`{"permission": {"bahs": {"rm *": "deny", "ls": "allow"}, "bash": {"rm *": "allow"}}}`},
		{e2ePolicyText(400), `{"permission": {"bash": {"tool40 sub40 *": "allow", "new *": "deny"}, "mcp": {"server43:*": "deny"}}}`},
	}
	undistinct := func(files []ScopeFile) []ScopeFile {
		out := make([]ScopeFile, len(files))
		for i, sf := range files {
			out[i] = sf
			if sf.File == nil {
				continue
			}
			f := *sf.File
			f.Permission = append([]SurfaceEntry(nil), f.Permission...)
			for j := range f.Permission {
				f.Permission[j].distinct = false
			}
			out[i].File = &f
		}
		return out
	}
	scopes := []string{ScopeGlobal, ScopeProject, ScopeAgent}
	distinctSeen := false
	for k, set := range sets {
		var files []ScopeFile
		for i, text := range set {
			files = append(files, scopeFile(t, scopes[i], text))
			for _, e := range files[i].File.Permission {
				distinctSeen = distinctSeen || e.distinct
			}
		}
		a, b := Compose(files, testHome), Compose(undistinct(files), testHome)
		if !reflect.DeepEqual(ruleRows(a), ruleRows(b)) || !reflect.DeepEqual(a.Warnings, b.Warnings) {
			t.Fatalf("set %d: composed differently:\n%v\n%v", k, ruleRows(a), ruleRows(b))
		}
		for _, v := range []string{"git status", "rm -rf /", "ls", "x", "a b", "b", "tool40 sub40 z", "new thing", "make all"} {
			q := Query{Surface: "bash", Values: []string{v}}
			if ra, rb := a.Resolve(q), b.Resolve(q); ra.Action != rb.Action || ruleRow(ra.Rule) != ruleRow(rb.Rule) {
				t.Fatalf("set %d: %q decided %v and %v", k, v, ra.Action, rb.Action)
			}
		}
	}
	if !distinctSeen {
		t.Fatal("no entry took the distinct route")
	}
}

func ruleRows(p *Policy) []string {
	var out []string
	for _, r := range p.Rules() {
		out = append(out, ruleRow(r))
	}
	return out
}

func ruleRow(r *Rule) string {
	if r == nil {
		return "none"
	}
	return fmt.Sprintf("%s|%s|%v|%s|%v|%+v|%v", r.Surface, r.Pattern, r.Action, r.Reason, r.Layer, r.Origin, r.Trusted)
}

// readAll reads what io.ReadAll reads, whatever size it was told.
func TestReadAllAnySize(t *testing.T) {
	for _, n := range []int{0, 1, 511, 512, 513, 4096, 100000} {
		data := []byte(strings.Repeat("x", n))
		for _, size := range []int64{-1, 0, int64(n) / 2, int64(n), int64(n) + 1, 10 * int64(n)} {
			got, err := readAll(iotest.OneByteReader(bytes.NewReader(data)), size)
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("%d bytes told %d: read %d, %v", n, size, len(got), err)
			}
			got, err = readAll(bytes.NewReader(data), size)
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("%d bytes told %d: read %d, %v", n, size, len(got), err)
			}
		}
	}
	if _, err := readAll(iotest.ErrReader(io.ErrUnexpectedEOF), 10); err != io.ErrUnexpectedEOF {
		t.Fatalf("a read error was %v", err)
	}
}

// duplicates marks as a map of seen names would, at every size, a name
// written with an escape the same as one without.
func TestDuplicatesMarksRepeats(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	p := &parser{} // one table for every object, as a file's objects share it
	for _, n := range []int{0, 1, 2, 15, 16, 17, 33, 100, 1000, 5000, 40, 3000} {
		for _, alphabet := range []int{2, 10, n + 1, 4 * n} {
			members := make([]jmember, n)
			for i := range members {
				name := fmt.Sprint("k", rng.IntN(max(alphabet, 1)))
				lit := fmt.Sprintf("%q", name)
				plain := true
				if rng.IntN(4) == 0 {
					lit, plain = `"\u006b`+lit[2:], false // \u006b is k
				}
				members[i].Name = jval{kind: '"', plain: plain}
				members[i].Name.setLit(lit)
			}
			dup := p.duplicates(members)
			seen := map[string]bool{}
			for i := range members {
				want := literalString(&members[i].Name)
				if !strings.HasPrefix(want, "k") {
					t.Fatalf("member %d reads %q", i, want)
				}
				if dup[i] != seen[want] {
					t.Fatalf("n=%d alphabet=%d: member %d (%q) dup %v, want %v", n, alphabet, i, want, dup[i], seen[want])
				}
				seen[want] = true
			}
		}
	}
}

// position answers as a search of every line does, whatever order it is
// asked in (it starts from its last answer).
func TestPositionMatchesSearch(t *testing.T) {
	data := []byte("{\n\n  \"a\": 1,\n  \"b\": [\n1,\n2]\n}\n\n\n\n\n\n\n\n\n\n\n\n\nx")
	p := &parser{lines: lineStarts(data)}
	want := func(off int) (int, int) {
		line, col := 1, 1
		for i := 0; i < off; i++ {
			if data[i] == '\n' {
				line, col = line+1, 1
			} else {
				col++
			}
		}
		return line, col
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for k := 0; k < 2000; k++ {
		off := rng.IntN(len(data) + 1)
		if k%3 == 0 {
			off = min(len(data), k%len(data)) // runs in order too
		}
		l, c := p.position(off)
		if wl, wc := want(off); l != wl || c != wc {
			t.Fatalf("offset %d: %d:%d, want %d:%d", off, l, c, wl, wc)
		}
	}
}
