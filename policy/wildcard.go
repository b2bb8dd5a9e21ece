package policy

import (
	"path"
	"strings"
	"unicode/utf8"
)

// Pattern is a compiled wildcard (SPEC §2, anchor §3): '*' is any run of
// characters including '/' and newlines, '?' exactly one character,
// everything else literal; the whole value must match; a trailing " *" also
// matches the bare prefix; "~" and "$HOME" at the start are expanded. There
// is no escaping and no regular expression: matching is a small
// backtracking scan compiled once per policy load.
type Pattern struct {
	raw      string // as written
	expanded string // after home expansion
	prefix   string // literal text before the first wildcard
	any      bool   // the pattern is "*": matches everything
	literal  bool   // no wildcard at all
	// optional is the bare prefix a trailing " *" also matches ("" if none).
	optional string
	hasOpt   bool
	// dir is the directory a trailing "/*" also matches on path surfaces.
	dir    string
	hasDir bool
	// optTail and dirTail are the literal ends of optional and dir (after
	// their last wildcard): a value that does not end so cannot match.
	optTail, dirTail string
}

// CompilePattern compiles raw, expanding a leading "~" or "$HOME" against
// home (when home is not empty).
func CompilePattern(raw, home string) Pattern {
	exp := ExpandHome(raw, home)
	p := Pattern{raw: raw, expanded: exp}
	i := strings.IndexAny(exp, "*?")
	if i < 0 {
		p.literal = true
		p.prefix = exp
	} else {
		p.prefix = exp[:i]
	}
	p.any = exp == "*"
	if strings.HasSuffix(exp, " *") {
		p.optional, p.hasOpt = exp[:len(exp)-2], true
		p.optTail = literalTail(p.optional)
	}
	if strings.HasSuffix(exp, "/*") {
		p.dir, p.hasDir = exp[:len(exp)-2], true
		if p.dir == "" {
			p.dir = "/"
		}
		p.dirTail = literalTail(p.dir)
	}
	return p
}

func literalTail(s string) string { return s[strings.LastIndexAny(s, "*?")+1:] }

// CompileExact compiles a pattern that matches only the literal text raw
// (session approvals of units that contain '*' or '?').
func CompileExact(raw string) Pattern {
	return Pattern{raw: raw, expanded: raw, prefix: raw, literal: true}
}

// String returns the pattern as written.
func (p Pattern) String() string { return p.raw }

// Match reports whether value matches the whole pattern. pathSurface turns
// on the rule that a pattern ending in "/*" also matches the directory
// itself.
func (p *Pattern) Match(value string, pathSurface bool) bool {
	if p.any {
		return true
	}
	if p.literal {
		return value == p.expanded
	}
	// The bare prefix and the directory are wildcard patterns themselves
	// ("a? *" matches "ab", "*/.ssh/*" matches "/home/x/.ssh").
	if p.hasOpt && strings.HasSuffix(value, p.optTail) && globMatch(p.optional, value) {
		return true
	}
	if pathSurface && p.hasDir && strings.HasSuffix(value, p.dirTail) && globMatch(p.dir, value) {
		return true
	}
	if !strings.HasPrefix(value, p.prefix) {
		return false
	}
	return globMatch(p.expanded[len(p.prefix):], value[len(p.prefix):])
}

// globMatch matches value against a pattern of literals, '*' and '?'. It
// backtracks only to the most recent '*', so it runs in O(len(pat)·len(val)).
func globMatch(pat, val string) bool {
	px, vx := 0, 0
	starP, starV := -1, 0
	for vx < len(val) {
		if px < len(pat) {
			switch c := pat[px]; c {
			case '*':
				starP, starV = px, vx
				px++
				continue
			case '?':
				_, n := utf8.DecodeRuneInString(val[vx:])
				px++
				vx += n
				continue
			default:
				if c == val[vx] {
					px++
					vx++
					continue
				}
			}
		}
		if starP < 0 {
			return false
		}
		// Let the last '*' swallow one more character and retry.
		_, n := utf8.DecodeRuneInString(val[starV:])
		starV += n
		px, vx = starP+1, starV
	}
	for px < len(pat) && pat[px] == '*' {
		px++
	}
	return px == len(pat)
}

// ExpandHome expands a pattern or value that is exactly "~" or "$HOME", or
// starts with "~/" or "$HOME/", against home (anchor §3.4). Other forms are
// returned unchanged.
func ExpandHome(s, home string) string {
	if home == "" {
		return s
	}
	switch {
	case s == "~" || s == "$HOME":
		return home
	case strings.HasPrefix(s, "~/"):
		return joinHome(home, s[2:])
	case strings.HasPrefix(s, "$HOME/"):
		return joinHome(home, s[6:])
	}
	return s
}

func joinHome(home, rest string) string {
	// Keep a trailing "/*" or "/" visible after cleaning: path.Join would
	// drop a trailing slash.
	j := path.Join(home, rest)
	if strings.HasSuffix(rest, "/") && !strings.HasSuffix(j, "/") {
		j += "/"
	}
	return j
}
