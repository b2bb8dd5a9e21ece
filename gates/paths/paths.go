package paths

import (
	"path"
	"slices"
	"strings"
	"sync/atomic"
	"unicode"

	"github.com/toolgate/toolgate/internal/cleanpath"
)

// Path is one path value with every form rules are matched against.
//
// The spelled identity is Literal, Abs and Rel; the real identity is Real and
// RealRel. A symlink or a ".." can only move the real identity
// away from the spelled one, and Outside uses both.
type Path struct {
	Input     string // exactly as given
	Literal   string // quotes and '@' stripped, home expanded, path.Clean'ed; not made absolute
	Abs       string // lexical absolute: Literal resolved against base (or cwd), cleaned
	Rel       string // Abs relative to cwd when Abs is cwd or inside it ("" otherwise; "." for cwd itself)
	Real      string // canonical absolute path (see Canonical); "" when unknown; a safe device keeps Abs
	RealRel   string // Real relative to the canonical cwd when inside it ("" otherwise)
	RealKnown bool

	// The cwd New was given and its canonical form, so that Outside with the
	// same cwd does not resolve it again.
	cwd          string
	realCwd      string
	realCwdKnown bool

	// The verbatim reading: Input taken as the host might take it, without
	// stripping quotes or '@' and without expanding home, resolved against
	// the same base. It is only kept when Input differs from the stripped and
	// expanded literal, and only makes Outside stricter: a file really named
	// "'link'" or "$HOME" that points outside cannot hide behind the
	// normalised spelling.
	hasVerbatim   bool
	verbatimReal  string
	verbatimKnown bool

	// host is the path as the host opens it, when its spelling differs
	// (see NewForHost).
	host *Path

	// spelled and realForms are Spelled and RealForms, worked out once
	// when the path is made (formsSet); callers do not change them.
	spelled, realForms []string
	formsSet           bool
}

// withForms sets p's spelled and real forms once.
func (p Path) withForms() Path {
	// Both lists in one allocation, each capped: Spelled and RealForms
	// are shared, and an append to one makes a copy.
	forms := make([]string, 0, 5)
	if p.Literal == "*" {
		forms = append(forms, "*")
	} else {
		forms = appendDedup(forms, p.Abs, p.Rel, p.Literal)
	}
	n := len(forms)
	p.spelled, p.realForms, p.formsSet = forms[:n:n], nil, true
	if p.RealKnown && p.Real != "" {
		forms = appendDedup(forms[n:], p.Real, p.RealRel)
		p.realForms = forms[:len(forms):len(forms)]
	}
	return p
}

// HostSpelling returns input as a host that normalizes paths before opening
// them reads it (pi: every Unicode space becomes a plain space; the leading
// "@" and "~" it strips and expands are read that way by New already), and
// whether that differs from input.
func HostSpelling(input string) (string, bool) {
	if strings.IndexFunc(input, hostSpace) < 0 {
		return input, false
	}
	return strings.Map(func(r rune) rune {
		if hostSpace(r) {
			return ' '
		}
		return r
	}, input), true
}

// hostSpace reports the Unicode spaces a host turns into a plain space:
// pi's set (U+00A0, U+2000–U+200A, U+202F, U+205F, U+3000) and the other
// space separators, which only adds spellings to check.
func hostSpace(r rune) bool { return r != ' ' && r > 0x7f && unicode.Is(unicode.Zs, r) }

// NewForHost is New for a path a host opens itself (a tool's input.path):
// when the host would spell it otherwise (HostSpelling), that spelling is
// a further identity of the path, with its own real form; the gates match
// every identity and the most restrictive result decides, and
// the path is outside when any identity is.
func NewForHost(input, base, cwd, home string) Path {
	return (*View)(nil).NewForHost(input, base, cwd, home)
}

// NewForHost is NewForHost with the view's answers.
func (v *View) NewForHost(input, base, cwd, home string) Path {
	p := v.New(input, base, cwd, home)
	if h, ok := HostSpelling(input); ok {
		hp := v.New(h, base, cwd, home)
		p.host = &hp
	}
	return p
}

// Host returns the path as the host opens it, when that is spelled
// differently.
func (p Path) Host() (Path, bool) {
	if p.host == nil {
		return Path{}, false
	}
	return *p.host, true
}

// New computes the forms of input. base is the directory a relative literal
// is resolved against ("" = cwd; a relative base is taken below cwd); cwd is
// the absolute working directory as the host gave it (it may itself be
// reached through a symlink); home the home directory.
//
// A value that cannot be placed — empty after stripping, a relative literal
// without an absolute base or cwd, a home form with no absolute home — gets
// no Abs and therefore counts as outside.
func New(input, base, cwd, home string) Path { return newPath(nil, input, base, cwd, home) }

func newPath(v *View, input, base, cwd, home string) Path {
	return placePath(v, input, base, cwd, home).withForms()
}

func placePath(v *View, input, base, cwd, home string) Path {
	p := Path{Input: input, cwd: cwd}
	raw, placeable := literalRaw(input, home)
	if raw == "" {
		return p
	}
	p.Literal = Clean(raw)

	cwdOK := path.IsAbs(cwd)
	var st cwdState
	if cwdOK {
		st = v.cwdStateOf(cwd)
		p.realCwdKnown, p.realCwd = st.known, st.real
	}
	cwdClean, cwdComps, cw := st.clean, st.comps, st.cw
	res := resolver{cwdComps: cwdComps, cw: cw, cwKnown: p.realCwdKnown, fs: v}

	effBase := ""
	switch {
	case path.IsAbs(base):
		effBase = base
	case base != "" && cwdOK:
		effBase = joinAbs(cwd, base)
	case base == "" && cwdOK:
		effBase = cwd
	}

	if placeable {
		full := raw
		if !path.IsAbs(raw) {
			if effBase == "" {
				return p
			}
			full = joinAbs(effBase, raw)
		}
		p.Abs = Clean(full)
		if cwdOK && WithinClean(p.Abs, cwdClean) {
			p.Rel = relTo(p.Abs, cwdClean)
		}
		if IsSafeDevice(p.Abs) {
			// A device keeps itself as its real form: /dev/stdin resolves
			// through /proc/self, which names toolgate, not the tool.
			p.Real, p.RealKnown = p.Abs, true
			return p
		}
		p.Real, p.RealKnown = res.canonical(full)
		if p.RealKnown && p.realCwdKnown && WithinClean(p.Real, p.realCwd) {
			p.RealRel = relTo(p.Real, p.realCwd)
		}
	}

	if input != raw && input != "" {
		p.hasVerbatim = true
		full := input
		if !path.IsAbs(input) {
			full = ""
			if effBase != "" {
				full = joinAbs(effBase, input)
			}
		}
		if full != "" {
			p.verbatimReal, p.verbatimKnown = res.canonical(full)
		}
	}
	return p
}

// cwdState is what placing a path works out of an absolute working
// directory: its clean form, its components, the walk's state at it, and
// its real path (known, real).
type cwdState struct {
	clean string
	comps []string
	cw    walker
	known bool
	real  string
}

// cwdStateOf is the cwdState of an absolute cwd, worked out once per view
// (its answers do not change within it: every path of a call is placed
// from the same working directory state); the nil view works it out each
// time, its plain twin.
func (v *View) cwdStateOf(cwd string) cwdState {
	if v != nil && v.cwd != nil && v.cwd.in == cwd {
		return v.cwd.st
	}
	clean, comps := cwdLexical(cwd)
	st := cwdState{clean: clean, comps: comps}
	st.cw = walker{dir: "/", fs: v, hint: cwd}
	if v.knownDir(st.clean) {
		// An existing directory whose real path is itself.
		st.cw.dir, st.known = st.clean, true
	} else {
		st.known = strings.IndexByte(cwd, 0) < 0 && st.cw.run(st.comps)
	}
	if st.known {
		st.real = st.cw.result()
	}
	if v != nil {
		// Kept whole: resolver.canonical walks on from a clone of cw.
		v.cwdStore = keptCwd{in: cwd, st: st}
		v.cwd = &v.cwdStore
	}
	return st
}

// cwdLexical is cwd cleaned and its components: a function of the string
// alone, kept for the last working directory asked (every call of a
// session asks the same). The components are shared: read, never changed.
func cwdLexical(cwd string) (string, []string) {
	if k := lastCwdLexical.Load(); k != nil && k.in == cwd {
		return k.clean, k.comps
	}
	k := &cwdLex{in: cwd, clean: Clean(cwd), comps: slices.Clip(components(cwd))}
	lastCwdLexical.Store(k)
	return k.clean, k.comps
}

var lastCwdLexical atomic.Pointer[cwdLex]

type cwdLex struct {
	in, clean string
	comps     []string
}

// LiteralOnly is for a relative bash word after an unknown `cd`: only Input
// and Literal are set (no Abs, no real form), and it counts as outside.
func LiteralOnly(input, home string) Path {
	p := Path{Input: input}
	if raw, _ := literalRaw(input, home); raw != "" {
		p.Literal = path.Clean(raw)
	}
	return p.withForms()
}

// Spelled returns the de-duplicated spelled forms in order [Abs, Rel,
// Literal], empty ones skipped. A Literal of exactly "*" yields only ["*"].
// The slice is shared: callers must not change it.
func (p Path) Spelled() []string {
	if p.formsSet {
		return p.spelled
	}
	return p.spelledForms()
}

func (p Path) spelledForms() []string {
	if p.Literal == "*" {
		return []string{"*"}
	}
	return dedup(p.Abs, p.Rel, p.Literal)
}

// RealForms returns [Real, RealRel] de-duplicated, nil when the real form is
// unknown. The slice is shared: callers must not change it.
func (p Path) RealForms() []string {
	if p.formsSet {
		return p.realForms
	}
	return p.realFormsOf()
}

func (p Path) realFormsOf() []string {
	if !p.RealKnown || p.Real == "" {
		return nil
	}
	return dedup(p.Real, p.RealRel)
}

// Outside reports whether p lies outside cwd: spelled outside (Abs not equal
// to or below cwd, lexically), or real outside (Real not equal to or below
// the canonical cwd), or the real form unknown, or no Abs at all
// (literal-only), or the verbatim reading of Input really outside or
// unknown. Safe device paths are never outside. An empty or relative cwd
// puts everything outside.
func (p Path) Outside(cwd string) bool {
	if p.host != nil && p.host.Outside(cwd) {
		return true
	}
	if IsSafeDevice(p.Abs) || (p.Abs == "" && path.IsAbs(p.Literal) && IsSafeDevice(p.Literal)) {
		return false
	}
	if p.Abs == "" || !path.IsAbs(cwd) || !Within(p.Abs, cwd) {
		return true
	}
	if !p.RealKnown {
		return true
	}
	realCwd, ok := p.realCwd, p.realCwdKnown
	if cwd != p.cwd {
		realCwd, ok = Canonical(cwd)
	}
	if !ok {
		return true
	}
	if !WithinClean(p.Real, realCwd) && !IsSafeDevice(p.Real) {
		return true
	}
	if p.hasVerbatim && p.verbatimReal != p.Real {
		if !p.verbatimKnown || (!WithinClean(p.verbatimReal, realCwd) && !IsSafeDevice(p.verbatimReal)) {
			return true
		}
	}
	return false
}

// IsSafeDevice reports whether abs is, after cleaning, exactly /dev/null,
// /dev/stdin, /dev/stdout or /dev/stderr: the devices that are never outside
// the working directory.
func IsSafeDevice(abs string) bool {
	// Cleaning only drops text: a path that cleans to /dev/… holds the
	// component dev followed by another, "dev/", and most paths have none.
	if abs == "" || abs[0] != '/' || !strings.Contains(abs, "dev/") {
		return false
	}
	switch path.Clean(abs) {
	case "/dev/null", "/dev/stdin", "/dev/stdout", "/dev/stderr":
		return true
	}
	return false
}

// Within reports whether p equals dir or lies below it, lexically and
// component-wise (so /a/bc is not within /a/b). Both are cleaned first; an
// empty argument is within nothing.
func Within(p, dir string) bool {
	if p == "" || dir == "" {
		return false
	}
	p, dir = Clean(p), Clean(dir)
	return WithinClean(p, dir)
}

// WithinClean is Within for arguments already cleaned (path.Clean): no
// cleaning and no allocation.
func WithinClean(p, dir string) bool {
	if p == "" || dir == "" {
		return false
	}
	if p == dir {
		return true
	}
	switch dir {
	case "/":
		return p[0] == '/'
	case ".":
		return p[0] != '/' && p != ".." && !strings.HasPrefix(p, "../")
	}
	return len(p) > len(dir) && p[len(dir)] == '/' && p[:len(dir)] == dir
}

// Clean is path.Clean, returning p itself (with no work beyond one scan)
// when it is clean already (cleanpath.Clean).
func Clean(p string) string { return cleanpath.Clean(p) }

// Dir is path.Dir, taking a clean p's directory as the text before its
// last slash (cleanpath.Dir).
func Dir(p string) string { return cleanpath.Dir(p) }

// IsClean reports whether path.Clean(p) == p, without the cleaning
// (cleanpath.IsClean).
func IsClean(p string) bool { return cleanpath.IsClean(p) }

// ParentPattern is the "allow for this session" pattern for a path: the
// parent directory followed by "/*". A trailing slash
// names the directory itself, whose contents the pattern then covers. A
// relative path whose parent is "." has no safe pattern: "" is returned.
func ParentPattern(abs string) string {
	if abs == "" {
		return ""
	}
	dir := Clean(abs)
	if !strings.HasSuffix(abs, "/") {
		dir = Dir(dir)
	}
	switch dir {
	case "/":
		return "/*"
	case ".", "..":
		return ""
	}
	return dir + "/*"
}

// literalRaw strips one layer of surrounding quotes and a leading '@' from
// input and expands a leading home form, without cleaning the result (the
// real form needs its ".." components). placeable is false when a home form
// needed an absolute home that was not given; the unexpanded text is
// returned then.
func literalRaw(input, home string) (raw string, placeable bool) {
	s := input
	if n := len(s); n >= 2 && (s[0] == '"' || s[0] == '\'') && s[n-1] == s[0] {
		s = s[1 : n-1]
	}
	s = strings.TrimPrefix(s, "@")
	rest, ok := homeRest(s)
	if !ok {
		return s, true
	}
	if !path.IsAbs(home) {
		return s, false
	}
	return joinAbs(home, rest), true
}

// homeRest reports whether s starts with a home form ("~", "$HOME",
// "${HOME}", alone or followed by "/") and returns what follows the slash.
func homeRest(s string) (string, bool) {
	for _, h := range [...]string{"~", "$HOME", "${HOME}"} {
		if rest, ok := strings.CutPrefix(s, h); ok && (rest == "" || rest[0] == '/') {
			return strings.TrimPrefix(rest, "/"), true
		}
	}
	return "", false
}

// ExpandHome expands a leading "~", "~/", "$HOME", "$HOME/", "${HOME}" or
// "${HOME}/" against home; anything else ("~user/x", "$HOMEX/y", "x/~") is
// returned unchanged, as is everything when home is not absolute. The
// remainder is joined with path.Join semantics when it is a path (contains
// no whitespace): "~/dev/*" → "/home/u/dev/*", "~/a/../b" → "/home/u/b".
// A remainder with whitespace, such as a bash pattern "~/bin/x.sh ../y *",
// is appended verbatim so that its arguments are not rewritten.
func ExpandHome(s, home string) string {
	rest, ok := homeRest(s)
	if !ok || !path.IsAbs(home) {
		return s
	}
	home = path.Clean(home)
	if strings.IndexFunc(rest, isSpace) >= 0 {
		return joinAbs(home, rest)
	}
	return path.Join(home, rest)
}

func isSpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\v', '\f', '\r', 0x85, 0xA0:
		return true
	}
	return false
}

// relTo returns p relative to dir; p must be dir or below it, both clean.
func relTo(p, dir string) string {
	switch {
	case p == dir:
		return "."
	case dir == "/":
		return p[1:]
	}
	return p[len(dir)+1:]
}

func dedup(forms ...string) []string { return appendDedup(make([]string, 0, len(forms)), forms...) }

// appendDedup appends to out the forms dedup keeps; a form already in out
// is skipped too, so out starts empty (or holds forms of the same list).
func appendDedup(out []string, forms ...string) []string {
	for _, f := range forms {
		if f == "" {
			continue
		}
		dup := false
		for _, o := range out {
			if o == f {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, f)
		}
	}
	return out
}

// resolver resolves absolute paths, resuming from the working directory's
// state when the path starts with the cwd's components.
type resolver struct {
	cwdComps []string
	cw       walker
	cwKnown  bool
	fs       *View
}

// canonical is Canonical of the absolute path full, resumed from the
// working directory's walk when full starts with its components. Its
// plain twin is canonical, walked from "/"; TestResolverResumesAsWalkFromRoot
// keeps them equal.
func (r resolver) canonical(full string) (string, bool) {
	if strings.IndexByte(full, 0) >= 0 {
		return "", false
	}
	var buf [16]string // the walk keeps none of them: no allocation for most paths
	comps := appendComponents(buf[:0], full)
	if r.cwdComps != nil && hasPrefix(comps, r.cwdComps) {
		if !r.cwKnown {
			// The walk would fail in the same prefix.
			return "", false
		}
		w := r.cw.clone()
		w.hint = full
		// The links the working directory's walk followed were keyed by
		// the rest of the working directory, not of this path: the same
		// link reached again here is no cycle for that (cwd …/lnA, path
		// "../lnA"). A real cycle is still found (by this walk's own keys,
		// or at maxLinks, whose count goes on).
		w.seen = nil
		if !w.run(comps[len(r.cwdComps):]) {
			return "", false
		}
		return w.result(), true
	}
	return canonical(r.fs, full)
}

// hasPrefix reports whether comps starts with prefix, which must be free of
// ".." for the walk state after prefix to be reusable.
func hasPrefix(comps, prefix []string) bool {
	if len(prefix) > len(comps) {
		return false
	}
	for i, c := range prefix {
		if c == ".." || comps[i] != c {
			return false
		}
	}
	return true
}
