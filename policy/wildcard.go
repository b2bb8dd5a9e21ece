package policy

import (
	"path"
	"strings"
	"unicode/utf8"
)

// Pattern is a compiled wildcard: '*' is any run of
// characters including '/' and newlines, '?' exactly one character,
// everything else literal; the whole value must match; a trailing " *" also
// matches the bare prefix; "~" and "$HOME" at the start are expanded. There
// is no escaping and no regular expression: matching is a small
// backtracking scan compiled once per policy load.
type Pattern struct {
	raw string // as written
	matcher
}

// matcher is what matching a pattern reads: a Rule keeps only this (the
// rule's Pattern is the text as written), so that a large policy's rules
// are smaller.
type matcher struct {
	expanded string // after home expansion
	// The parts below are prefixes and suffixes of expanded, kept as
	// offsets: a policy holds thousands of patterns, and the collector
	// scans every string a pattern keeps.
	prefixEnd    int32 // literal text before the first wildcard: expanded[:prefixEnd]
	optTailStart int32 // the literal end of the bare prefix a trailing " *" also matches (optional): expanded[optTailStart:len-2]
	dirTailStart int32 // the literal end of the directory a trailing "/*" also matches on path surfaces (dir)
	tailStart    int32 // the literal end of the whole pattern, after its last wildcard: expanded[tailStart:]
	any          bool  // the pattern is "*": matches everything
	literal      bool  // no wildcard at all
	hasOpt       bool
	hasDir       bool
}

func (p *matcher) prefix() string { return p.expanded[:p.prefixEnd] }

// optional is the bare prefix a trailing " *" also matches.
func (p *matcher) optional() string { return p.expanded[:len(p.expanded)-2] }
func (p *matcher) optTail() string  { return p.expanded[p.optTailStart : len(p.expanded)-2] }

// dir is the directory a trailing "/*" also matches on path surfaces ("/"
// for "/*").
func (p *matcher) dir() string     { return p.expanded[:p.dirEnd()] }
func (p *matcher) dirTail() string { return p.expanded[p.dirTailStart:p.dirEnd()] }
func (p *matcher) dirEnd() int     { return max(len(p.expanded)-2, 1) }

// CompilePattern compiles raw, expanding a leading "~" or "$HOME" against
// home (when home is not empty).
func CompilePattern(raw, home string) Pattern {
	exp := ExpandHome(raw, home)
	p := Pattern{raw: raw, matcher: matcher{expanded: exp}}
	i := indexWild(exp)
	if i < 0 {
		p.literal = true
		p.prefixEnd = int32(len(exp))
	} else {
		p.prefixEnd = int32(i)
		p.tailStart = tailStart(exp)
	}
	p.any = exp == "*"
	if strings.HasSuffix(exp, " *") {
		p.hasOpt = true
		p.optTailStart = tailStart(p.optional())
	}
	if strings.HasSuffix(exp, "/*") {
		p.hasDir = true // "/*": the directory is "/"
		p.dirTailStart = tailStart(p.dir())
	}
	return p
}

// tailStart is where the literal end of s begins, after its last wildcard.
func tailStart(s string) int32 {
	return int32(max(strings.LastIndexByte(s, '*'), strings.LastIndexByte(s, '?')) + 1)
}

// indexWild is strings.IndexAny(s, "*?"), without building a set per call.
// That is its plain twin; TestIndexWildIsIndexAny keeps them equal.
func indexWild(s string) int {
	i, j := strings.IndexByte(s, '*'), strings.IndexByte(s, '?')
	switch {
	case i < 0:
		return j
	case j < 0 || i < j:
		return i
	}
	return j
}

// CompileExact compiles a pattern that matches only the literal text raw
// (session approvals of units that contain '*' or '?').
func CompileExact(raw string) Pattern {
	return Pattern{raw: raw, matcher: matcher{expanded: raw, prefixEnd: int32(len(raw)), literal: true}}
}

// String returns the pattern as written.
func (p Pattern) String() string { return p.raw }

// Match reports whether value matches the whole pattern. pathSurface turns
// on the rule that a pattern ending in "/*" also matches the directory
// itself. It answers "*", a literal and a value without the pattern's
// prefix or tail at once; its plain twin is the reference matcher and the
// anchor regexp of the test, and TestMatchExhaustiveSmall and FuzzMatch
// keep them equal.
func (p *matcher) Match(value string, pathSurface bool) bool {
	if p.any {
		return true
	}
	if p.literal {
		return value == p.expanded
	}
	// The bare prefix and the directory are wildcard patterns themselves
	// ("a? *" matches "ab", "*/.ssh/*" matches "/home/x/.ssh").
	if p.hasOpt && strings.HasSuffix(value, p.optTail()) && globMatch(p.optional(), value) {
		return true
	}
	if pathSurface && p.hasDir && strings.HasSuffix(value, p.dirTail()) && globMatch(p.dir(), value) {
		return true
	}
	// A value that does not end with the pattern's literal end cannot
	// match ("*.env" and a path of another name): no glob walk of it.
	prefix := p.prefix()
	if !strings.HasPrefix(value, prefix) || !strings.HasSuffix(value, p.expanded[p.tailStart:]) {
		return false
	}
	return globMatch(p.expanded[len(prefix):], value[len(prefix):])
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
// starts with "~/" or "$HOME/", against home. Other forms are
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
