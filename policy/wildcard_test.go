package policy

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// testHome is the home directory every test expands "~" and "$HOME" against.
const testHome = "/home/u"

type matchRow struct {
	name    string
	pattern string
	value   string
	path    bool // pathSurface
	want    bool
}

func runMatchRows(t *testing.T, home string, rows []matchRow) {
	t.Helper()
	for _, r := range rows {
		p := CompilePattern(r.pattern, home)
		if got := p.Match(r.value, r.path); got != r.want {
			t.Errorf("%s: CompilePattern(%q, %q).Match(%q, pathSurface=%t) = %t, want %t",
				r.name, r.pattern, home, r.value, r.path, got, r.want)
		}
	}
}

// TestMatchAnchorRows is every row of the original extension's behavior at the matcher level
// (rows 11 and 12 are about rule order: see TestAnchorWildcardPolicyRows).
// Rows 18 and 19 are win32-only in the anchor: the POSIX behavior is
// asserted.
func TestMatchAnchorRows(t *testing.T) {
	runMatchRows(t, testHome, []matchRow{
		{"row 1", "git *", "git", false, true},
		{"row 2", "git *", "git status --short", false, true},
		{"row 3", "git *", "npm install", false, false},
		{"row 4", "git status *", "git status", false, true},
		{"row 5a", "g*t", "g", false, false},
		{"row 5b", "g*t", "git", false, true},
		{"row 5c", "g*t", "t", false, false},
		{"row 6a", "git*", "git", false, true},
		{"row 6b", "git*", "gitfoo", false, true},
		{"row 7a", "git statu?", "git status", false, true},
		{"row 7b", "git statu?", "git statux", false, true},
		{"row 7c", "git statu?", "git statu", false, false},
		{"row 8", "git?*", "git", false, false},
		{"row 9a", "tool.name", "toolXname", false, false},
		{"row 9b", "tool.name", "tool.name", false, true},
		{"row 10a", "read", "read ", false, false},
		{"row 10b", "read", "readonly", false, false},
		{"row 13", "*", "node -e \"\nimport('x')\n\"", false, true},
		{"row 13 deny side", "rm -rf *", "rm -rf x\ny", false, true},
		{"row 14a", "a?b", "a/b", true, true},
		{"row 14b", "a?b", "a.b", true, true},
		{"row 14c", "a?b", "a\nb", true, true},
		{"row 15", "~/dev/*", "/home/u/dev/project/file.ts", true, true},
		{"row 16", "$HOME/dev/*", "/home/u/dev/project/file.ts", true, true},
		{"row 17", "~/dev/*", "/other/user/dev/file.ts", true, false},
		{"row 18 posix: no case folding", "C:/Users/Foo/AppData/Roaming/*", `c:\users\foo\appdata\roaming\npm\x.md`, true, false},
		{"row 18 posix: no separator folding", "C:/Users/Foo/AppData/Roaming/*", `C:\Users\Foo\AppData\Roaming\npm\x.md`, true, false},
		{"row 18 posix: exact spelling matches", "C:/Users/Foo/AppData/Roaming/*", `C:/Users/Foo/AppData/Roaming/npm/x.md`, true, true},
		{"row 19", "git *", "GIT push", false, false},
	})
}

func TestMatchStarAndQuestion(t *testing.T) {
	runMatchRows(t, testHome, []matchRow{
		{"star empty", "*", "", false, true},
		{"star slash", "*", "a/b/c", false, true},
		{"star newline", "*", "line1\nline2\r\n", false, true},
		{"inner star crosses slash", "a*b", "a/x/y/b", false, true},
		{"inner star crosses newline", "a*b", "a\n\nb", false, true},
		{"inner star empty", "a*b", "ab", false, true},
		{"double star is star", "**", "", false, true},
		{"double star inner", "a**b", "ab", false, true},
		{"double star no globstar", "src/**/x", "src/x", false, false},
		{"src/* deep", "src/*", "src/a/b/c.ts", true, true},
		{"*.env abs", "*.env", "/abs/any/.env", true, true},
		{"*.env foo", "*.env", "foo.env", true, true},
		{"*.env bare", "*.env", ".env", true, true},
		{"*.env not .env.local", "*.env", ".env.local", true, false},
		{"*.env.* local", "*.env.*", ".env.local", true, true},
		{"*.env.* deep", "*.env.*", "x.env.y/z", true, true},
		{"bare dir not contents", "~/.cargo/registry", "/home/u/.cargo/registry/x", true, false},
		{"bare dir itself", "~/.cargo/registry", "/home/u/.cargo/registry", true, true},
		{"? one ascii", "?", "a", false, true},
		{"? two-byte rune", "?", "é", false, true},
		{"? three-byte rune", "?", "日", false, true},
		{"? four-byte rune", "?", "😀", false, true},
		{"? slash", "?", "/", false, true},
		{"? newline", "?", "\n", false, true},
		{"? not empty", "?", "", false, false},
		{"? not two", "?", "ab", false, false},
		{"?? not one rune", "??", "é", false, false},
		{"?? two runes", "??", "é日", false, true},
		{"? inside multibyte", "a?c", "aéc", false, true},
		{"? inside 4-byte", "x?y", "x😀y", false, true},
		{"star then multibyte literal", "*é", "日日é", false, true},
		{"multibyte literal mismatch", "*é", "日日e", false, false},
		{"star ? at least one", "*?", "", false, false},
		{"star ? one", "*?", "x", false, true},
		{"? star", "?*", "日", false, true},
		{"literal ? matched by ?", "a?", "a?", false, true},
		{"no escaping: backslash star", `\*`, `\anything`, false, true},
		{"no escaping: backslash star literal", `\*`, `\*`, false, true},
		{"no escaping: star alone not matched", `\*`, `*`, false, false},
		{"no escaping: backslash ?", `a\?b`, `a\xb`, false, true},
		{"no escaping: backslash ? needs backslash", `a\?b`, `a?b`, false, false},
	})
}

func TestMatchLiteralMetacharacters(t *testing.T) {
	runMatchRows(t, testHome, []matchRow{
		{"dot literal", "a.c", "abc", false, false},
		{"dot literal self", "a.c", "a.c", false, true},
		{"dot star", ".*", "abc", false, false},
		{"dot star literal dot", ".*", ".abc", false, true},
		{"plus", "a+", "aa", false, false},
		{"plus self", "a+", "a+", false, true},
		{"parens", "(a)", "a", false, false},
		{"parens self", "(a)", "(a)", false, true},
		{"brackets", "[ab]", "a", false, false},
		{"brackets self", "[ab]", "[ab]", false, true},
		{"pipe", "a|b", "a", false, false},
		{"pipe self", "a|b", "a|b", false, true},
		{"caret dollar", "^a$", "a", false, false},
		{"caret dollar self", "^a$", "^a$", false, true},
		{"braces", "a{2}", "aa", false, false},
		{"braces self", "a{2}", "a{2}", false, true},
		{"backslash d", `\d`, "1", false, false},
		{"backslash d self", `\d`, `\d`, false, true},
		{"windows path", `C:\dir\*`, `C:\dir\x`, false, true},
		{"dollar brace not home", "${HOME}", testHome, false, false},
		{"dollar brace literal", "${HOME}", "${HOME}", false, true},
		{"all metas with star", `.+()[]|^${}\*`, `.+()[]|^${}\tail`, false, true},
		{"all metas mismatch", `.+()[]|^${}\*`, `x+()[]|^${}\tail`, false, false},
	})
}

func TestMatchAnchoring(t *testing.T) {
	runMatchRows(t, testHome, []matchRow{
		{"prefix only", "git", "git status", false, false},
		{"suffix only", "status", "git status", false, false},
		{"leading text", "git", "a git", false, false},
		{"star prefix", "*status", "git status", false, true},
		{"star prefix mismatch tail", "*status", "git status x", false, false},
		{"trailing star no leading", "git*", "a git", false, false},
		{"empty pattern empty value", "", "", false, true},
		{"empty pattern value", "", "x", false, false},
		{"case sensitive", "Git *", "git x", false, false},
		{"whitespace literal double space", "rm -rf *", "rm  -rf x", false, false},
		{"whitespace literal tab", "rm -rf *", "rm\t-rf x", false, false},
	})
}

func TestMatchTrailingSpaceStar(t *testing.T) {
	runMatchRows(t, testHome, []matchRow{
		{"bare prefix", "rm *", "rm", false, true},
		{"prefix space", "git *", "git ", false, true},
		{"prefix two spaces", "git *", "git  x", false, true},
		{"no space no match", "git *", "gitx", false, false},
		{"prefix of prefix", "git status *", "git", false, false},
		{"only trailing: inner space star", "git * status", "git status", false, false},
		{"inner space star needs text", "git * status", "git x status", false, true},
		{"lone space star matches empty", " *", "", false, true},
		{"lone space star", " *", " x", false, true},
		{"lone space star needs space", " *", "x", false, false},
		{"tab star is not optional", "git\t*", "git", false, false},
		{"star no space not optional", "git*", "gi", false, false},
		{"double space star", "git  *", "git ", false, true},
		{"double space star needs a space", "git  *", "git", false, false},
		// The bare prefix is itself a wildcard pattern (the original extension's behavior step 4:
		// the regex tail " .*" becomes "( .*)?").
		{"wildcard prefix: star", "* *", "x", false, true},
		{"wildcard prefix: ?", "a? *", "ab", false, true},
		{"wildcard prefix: ? needs one", "a? *", "a", false, false},
		{"wildcard prefix: inner star", "git -C * status *", "git -C /x status", false, true},
		{"wildcard prefix: inner star with args", "git -C * status *", "git -C /x status -s", false, true},
		{"wildcard prefix: inner star mismatch", "git -C * status *", "git -C /x log", false, false},
	})
}

func TestMatchDirectoryItself(t *testing.T) {
	runMatchRows(t, testHome, []matchRow{
		{"ssh dir on path surface", "~/.ssh/*", "/home/u/.ssh", true, true},
		{"ssh dir off path surface", "~/.ssh/*", "/home/u/.ssh", false, false},
		{"ssh_old is not ssh", "~/.ssh/*", "/home/u/.ssh_old", true, false},
		{"ssh_old off path", "~/.ssh/*", "/home/u/.ssh_old", false, false},
		{"ssh with slash", "~/.ssh/*", "/home/u/.ssh/", true, true},
		{"ssh contents", "~/.ssh/*", "/home/u/.ssh/id_rsa", true, true},
		{"ssh contents off path", "~/.ssh/*", "/home/u/.ssh/id_rsa", false, true},
		{"relative dir", "src/*", "src", true, true},
		{"relative dir off path", "src/*", "src", false, false},
		{"relative dir prefix", "src/*", "sr", true, false},
		{"root", "/*", "/", true, true},
		{"root off path", "/*", "/", false, true},
		{"root empty", "/*", "", true, false},
		{"wildcard dir", "*/.ssh/*", "/home/x/.ssh", true, true},
		{"wildcard dir off path", "*/.ssh/*", "/home/x/.ssh", false, false},
		{"wildcard dir mismatch", "*/.ssh/*", "/home/x/.sshx", true, false},
		{"? dir", "/tm?/*", "/tmp", true, true},
		{"not slash star", "src*", "src", true, true},
	})
}

func TestMatchHomeExpansion(t *testing.T) {
	runMatchRows(t, testHome, []matchRow{
		{"tilde", "~", "/home/u", true, true},
		{"tilde not literal", "~", "~", true, false},
		{"$HOME", "$HOME", "/home/u", true, true},
		{"$HOME not literal", "$HOME", "$HOME", true, false},
		{"tilde slash", "~/x", "/home/u/x", true, true},
		{"$HOME slash", "$HOME/x", "/home/u/x", true, true},
		{"tilde cleans dotdot", "~/a/../b", "/home/u/b", true, true},
		{"tilde cleans double slash", "~//x", "/home/u/x", true, true},
		{"${HOME} untouched", "${HOME}/x", "/home/u/x", true, false},
		{"${HOME} literal", "${HOME}/x", "${HOME}/x", true, true},
		{"~user untouched", "~user/x", "/home/user/x", true, false},
		{"~user literal", "~user/x", "~user/x", true, true},
		{"$HOMEX untouched", "$HOMEX", "/home/uX", true, false},
		{"$HOMEX literal", "$HOMEX", "$HOMEX", true, true},
		{"$HOME in the middle", "a/$HOME/x", "a//home/u/x", true, false},
		{"$HOME in the middle literal", "a/$HOME/x", "a/$HOME/x", true, true},
		{"bash surface expands too", "cat ~/x", "cat ~/x", false, true},
		{"bash pattern starting with tilde", "~/bin/tool *", "/home/u/bin/tool", false, true},
	})
	// With no home, nothing is expanded.
	runMatchRows(t, "", []matchRow{
		{"no home tilde", "~/x", "~/x", true, true},
		{"no home tilde abs", "~/x", "/home/u/x", true, false},
		{"no home $HOME", "$HOME", "$HOME", true, true},
	})
}

func TestExpandHome(t *testing.T) {
	for _, r := range []struct{ in, home, want string }{
		{"~", testHome, testHome},
		{"$HOME", testHome, testHome},
		{"~/x", testHome, "/home/u/x"},
		{"$HOME/x", testHome, "/home/u/x"},
		{"~/", testHome, "/home/u"},
		{"~/x/", testHome, "/home/u/x/"},
		{"~/.ssh/*", testHome, "/home/u/.ssh/*"},
		{"~/a/../b", testHome, "/home/u/b"},
		{"$HOME//x", testHome, "/home/u/x"},
		{"${HOME}", testHome, "${HOME}"},
		{"${HOME}/x", testHome, "${HOME}/x"},
		{"~user", testHome, "~user"},
		{"~user/x", testHome, "~user/x"},
		{"$HOMEX", testHome, "$HOMEX"},
		{"$HOMEX/y", testHome, "$HOMEX/y"},
		{"~x", testHome, "~x"},
		{"x/~/y", testHome, "x/~/y"},
		{" ~/x", testHome, " ~/x"},
		{"~/x", "", "~/x"},
		{"~", "", "~"},
		{"$HOME", "", "$HOME"},
	} {
		if got := ExpandHome(r.in, r.home); got != r.want {
			t.Errorf("ExpandHome(%q, %q) = %q, want %q", r.in, r.home, got, r.want)
		}
	}
}

func TestPatternStringKeepsRaw(t *testing.T) {
	p := CompilePattern("~/dev/*", testHome)
	if p.String() != "~/dev/*" {
		t.Errorf("String() = %q, want the pattern as written", p.String())
	}
}

func TestCompileExact(t *testing.T) {
	p := CompileExact("git commit -m '*'")
	for v, want := range map[string]bool{
		"git commit -m '*'":   true,
		"git commit -m 'x'":   false,
		"git commit -m '*' x": false,
		"git commit -m":       false,
	} {
		if got := p.Match(v, false); got != want {
			t.Errorf("CompileExact(%q).Match(%q) = %t, want %t", p.String(), v, got, want)
		}
	}
	q := CompileExact("~/x")
	if q.Match("/home/u/x", true) || !q.Match("~/x", true) {
		t.Errorf("CompileExact must not expand home")
	}
}

// TestMatchPathological checks that the matcher does not backtrack
// exponentially: each row would take astronomically long with a naive
// recursive matcher. The deadline is generous (this is not a budget).
func TestMatchPathological(t *testing.T) {
	long := strings.Repeat("a", 100_000)
	rows := []matchRow{
		{"*a*a*a*a*b", "*a*a*a*a*b", long, false, false},
		{"*a*a*a*a*a", "*a*a*a*a*a", long, false, true},
		{"many stars then b", strings.Repeat("*a", 50) + "*b", long, false, false},
		{"? and stars", strings.Repeat("?*", 40) + "b", long, false, false},
		{"path surface", "*a*a*a*a*b/*", long, true, false},
		{"optional tail", "*a*a*a*a*b *", long, false, false},
		{"long pattern long value", strings.Repeat("a*", 2000) + "b", long, false, false},
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		runMatchRows(t, "", rows)
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("pathological patterns did not finish within 20s: the matcher backtracks exponentially")
	}
}

// ---- reference implementation -------------------------------------------

// refToken is a rune of valid UTF-8, or -(b+1) for a byte b that does not
// start a valid encoding.
func refTokens(s string) []int {
	var out []int
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			out = append(out, -int(s[i])-1)
		} else {
			out = append(out, int(r))
		}
		i += n
	}
	return out
}

// refGlob is the wildcard language written as its definition: '*' is any
// run of characters, '?' exactly one, everything else literal, the whole
// value must match. Characters are runes (an invalid byte is one
// character of its own).
func refGlob(pattern, value string) bool {
	p, v := refTokens(pattern), refTokens(value)
	memo := make(map[[2]int]bool)
	var m func(i, j int) bool
	m = func(i, j int) bool {
		k := [2]int{i, j}
		if r, ok := memo[k]; ok {
			return r
		}
		var r bool
		switch {
		case i == len(p):
			r = j == len(v)
		case p[i] == '*':
			r = m(i+1, j) || (j < len(v) && m(i, j+1))
		case p[i] == '?':
			r = j < len(v) && m(i+1, j+1)
		default:
			r = j < len(v) && p[i] == v[j] && m(i+1, j+1)
		}
		memo[k] = r
		return r
	}
	return m(0, 0)
}

// refMatch adds the two extensions: a trailing " *" also matches the bare
// prefix, and on path surfaces a trailing "/*" also matches the directory.
func refMatch(pattern, value string, pathSurface bool) bool {
	if refGlob(pattern, value) {
		return true
	}
	if bare, ok := strings.CutSuffix(pattern, " *"); ok && refGlob(bare, value) {
		return true
	}
	if dir, ok := strings.CutSuffix(pattern, "/*"); ok && pathSurface {
		if dir == "" {
			dir = "/"
		}
		return refGlob(dir, value)
	}
	return false
}

// anchorRegexp builds the anchor's regular expression for a
// valid UTF-8 pattern: a second, independent oracle.
func anchorRegexp(pattern string) *regexp.Regexp {
	pieces := strings.Split(pattern, "*")
	for i, s := range pieces {
		pieces[i] = strings.ReplaceAll(regexp.QuoteMeta(s), `\?`, `.`)
	}
	expr := strings.Join(pieces, ".*")
	if strings.HasSuffix(expr, " .*") {
		expr = strings.TrimSuffix(expr, " .*") + "( .*)?"
	}
	return regexp.MustCompile(`(?s)^(?:` + expr + `)$`)
}

// checkAgainstReference compares Pattern.Match with the references. It
// returns an error message, or "" when they agree.
func checkAgainstReference(pattern, value string, pathSurface bool, re *regexp.Regexp) string {
	p := CompilePattern(pattern, "")
	got := p.Match(value, pathSurface)
	// Patterns reach the matcher from JSON, so they are valid UTF-8; on an
	// invalid pattern only the absence of a panic is checked.
	if !utf8.ValidString(pattern) {
		return ""
	}
	if want := refMatch(pattern, value, pathSurface); got != want {
		return fmt.Sprintf("Match(%q, %q, path=%t) = %t, reference says %t", pattern, value, pathSurface, got, want)
	}
	if utf8.ValidString(value) && !pathSurface {
		if re == nil {
			re = anchorRegexp(pattern)
		}
		if want := re.MatchString(value); got != want {
			return fmt.Sprintf("Match(%q, %q) = %t, anchor regexp says %t", pattern, value, got, want)
		}
	}
	// Home expansion is a rewrite of the pattern before compilation.
	h := CompilePattern(pattern, testHome)
	e := CompilePattern(ExpandHome(pattern, testHome), "")
	if h.Match(value, pathSurface) != e.Match(value, pathSurface) {
		return fmt.Sprintf("home expansion of %q is not a plain rewrite for value %q", pattern, value)
	}
	return ""
}

// TestMatchExhaustiveSmall compares the matcher with the reference on every
// pattern of up to 4 characters over a small alphabet against every value
// of up to 4 characters.
func TestMatchExhaustiveSmall(t *testing.T) {
	all := func(alphabet []string, max int) []string {
		out := []string{""}
		level := []string{""}
		for n := 1; n <= max; n++ {
			var next []string
			for _, s := range level {
				for _, a := range alphabet {
					next = append(next, s+a)
				}
			}
			out = append(out, next...)
			level = next
		}
		return out
	}
	patterns := all([]string{"a", "é", "*", "?", " ", "/"}, 4)
	values := all([]string{"a", "é", " ", "/"}, 4)
	failures := 0
	for _, p := range patterns {
		re := anchorRegexp(p)
		for _, v := range values {
			for _, ps := range []bool{false, true} {
				if msg := checkAgainstReference(p, v, ps, re); msg != "" {
					failures++
					if failures <= 20 {
						t.Error(msg)
					}
				}
			}
		}
	}
	if failures > 20 {
		t.Errorf("... and %d more disagreements", failures-20)
	}
	if len(patterns) != 1555 || len(values) != 341 {
		t.Fatalf("enumeration is wrong: %d patterns, %d values", len(patterns), len(values))
	}
}

func FuzzMatch(f *testing.F) {
	for _, s := range []struct {
		p, v string
		ps   bool
	}{
		{"git *", "git", false},
		{"* *", "x", false},
		{"a? *", "ab", false},
		{"~/.ssh/*", "/home/u/.ssh", true},
		{"*/.ssh/*", "/h/.ssh", true},
		{"*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false},
		{"?", "é", false},
		{"a?c", "a\xffc", false},
		{`.+()[]|^${}\*`, `.+()[]|^${}\x`, false},
		{"/*", "/", true},
	} {
		f.Add(s.p, s.v, s.ps)
	}
	f.Fuzz(func(t *testing.T, pattern, value string, pathSurface bool) {
		if len(pattern) > 512 || len(value) > 2048 {
			// The reference is quadratic in memory; the matcher itself is
			// exercised on long inputs by TestMatchPathological.
			p := CompilePattern(pattern, testHome)
			p.Match(value, pathSurface)
			return
		}
		if msg := checkAgainstReference(pattern, value, pathSurface, nil); msg != "" {
			t.Error(msg)
		}
	})
}
