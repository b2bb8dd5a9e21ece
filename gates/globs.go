package gates

import (
	"fmt"
	"path"
	"regexp"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/pattern"

	"github.com/toolgate/toolgate/gates/paths"
	"github.com/toolgate/toolgate/gates/shell"
	"github.com/toolgate/toolgate/internal/cleanpath"
	"github.com/toolgate/toolgate/policy"
	"github.com/toolgate/toolgate/verdict"
)

// SentinelGlobIncomplete is reported when a path tool's glob selects more
// files than toolgate lists and a path rule could have decided one of them.
const SentinelGlobIncomplete = "<glob-selection-incomplete>"

// Budgets of one glob expansion: past them the selection is incomplete and
// the call is asked whenever a path rule could have mattered.
const (
	maxGlobEntries = 4096 // directory entries looked at
	maxGlobDepth   = 32   // directories below the walk's root
	maxGlobChecked = 256  // matches checked like input.path
)

// globSelection is what a path tool's file glob (grep's glob, find's
// pattern) selects: the paths it matches today, and whether that list is
// complete.
type globSelection struct {
	Glob string
	// Paths are the matches (and the walk's root when the glob leaves the
	// tool's own directory), each checked like input.path.
	Paths []paths.Path
	// Incomplete is true when a budget cut the walk or the glob could not
	// be read: a path it selects may be missing from Paths.
	Incomplete bool
}

// toolGlob is the glob a path tool picks its files with (issue 11 item 5):
// grep's "glob" and find's "pattern". Other tools have none.
func toolGlob(c *Call) (string, bool) {
	key := ""
	switch c.ToolName {
	case "grep":
		key = "glob"
	case "find":
		key = "pattern"
	default:
		return "", false
	}
	g, _ := c.Input[key].(string)
	if strings.TrimSpace(g) == "" {
		return "", false
	}
	return g, true
}

// selectGlob expands a path tool's glob against the file system below the
// tool's directory (input.path, else the working directory). A glob without
// "/" matches a name at any depth (as ripgrep's --glob and fd do); one with
// "/" is matched against the path below the root, and as a name too, so
// the selection is never smaller than the tool's. A leading literal part
// that leaves the directory (`../x/*`, `/etc/*`, `~/.ssh/*`) moves the root
// there, and the root itself is checked as a path.
func selectGlob(c *Call) (globSelection, bool) {
	if m := c.memo; m != nil {
		if !m.globDone {
			m.glob, m.globOK = newGlobSelection(c)
			m.globDone = true
		}
		return m.glob, m.globOK
	}
	return newGlobSelection(c)
}

func newGlobSelection(c *Call) (globSelection, bool) {
	g, ok := toolGlob(c)
	if !ok {
		return globSelection{}, false
	}
	sel := globSelection{Glob: g}
	negate := false
	if c.ToolName == "grep" && strings.HasPrefix(g, "!") {
		// ripgrep's !GLOB excludes what it matches and so selects every
		// other file below the directory.
		negate, g = true, g[1:]
	}
	bases := []string{c.Cwd}
	if p, ok := toolPath(c); ok && p.Abs != "" {
		bases[0] = p.Abs
		if h, ok := p.Host(); ok && h.Abs != "" && h.Abs != p.Abs {
			// The host opens the directory as it spells it (a no-break
			// space made plain): the glob selects there too.
			bases = append(bases, h.Abs)
		}
	}
	for _, base := range bases {
		selectBelow(c, &sel, g, base, negate)
	}
	return sel, true
}

// selectBelow adds to sel what glob g (negated: everything it does not
// match) selects below the directory base.
func selectBelow(c *Call, sel *globSelection, g, base string, negate bool) {
	root, rest := base, g // a negated glob moves no root: it only excludes
	if !negate {
		root, rest = globRoot(g, base, c.Home)
	}
	if root != base {
		sel.Paths = append(sel.Paths, c.fs.New(root, "", c.Cwd, c.Home))
	}
	if rest == "" {
		// No wildcard at all: the glob names one path.
		return
	}
	full, err1 := c.Memo.compileGlob(rest)
	var name *regexp.Regexp
	var err2 error
	if last := rest[strings.LastIndex(rest, "/")+1:]; last != "" && last != "**" {
		name, err2 = c.Memo.compileGlob(last)
	}
	if err1 != nil || err2 != nil {
		sel.Incomplete = true
		return
	}
	w := globWalk{sel: sel, full: full, name: name, negate: negate, cwd: c.Cwd, home: c.Home, fs: c.fs, left: maxGlobEntries,
		fullTail: globTail(rest), nameTail: globTail(rest[strings.LastIndex(rest, "/")+1:])}
	w.walk(root, "", 0)
}

// globTail is the literal end of glob g: what follows its last byte that
// can stand for something other than itself (a wildcard, a class, a
// brace, an escape) or for nothing at all (the slash of "**/", which
// also matches no folder). Whatever compileGlob(g) matches ends with it;
// TestGlobTailEndsEveryMatch keeps that so.
func globTail(g string) string { return g[strings.LastIndexAny(g, "*?[]{}\\/")+1:] }

// globRoot splits g into the directory its literal leading components name
// (resolved against base, home expanded) and the rest, which holds the
// first wildcard. A glob with no wildcard is all root.
func globRoot(g, base, home string) (root, rest string) {
	parts := strings.Split(g, "/")
	i := 0
	for ; i < len(parts); i++ {
		// A backslash escapes in a ripgrep or fd glob (.\env is .env): such
		// a part is matched, not taken literally.
		if pattern.HasMeta(parts[i], 0) || strings.ContainsAny(parts[i], "{}\\") {
			break
		}
	}
	if i == len(parts) {
		return joinRoot(g, base, home), ""
	}
	lead := strings.Join(parts[:i], "/")
	if i == 0 || lead == "" && !strings.HasPrefix(g, "/") {
		return base, g
	}
	if lead == "" { // "/…": the root directory
		lead = "/"
	}
	return joinRoot(lead, base, home), strings.Join(parts[i:], "/")
}

func joinRoot(p, base, home string) string {
	p = paths.ExpandHome(p, home)
	if !path.IsAbs(p) {
		p = path.Join(base, p)
	}
	return path.Clean(p)
}

// Memo keeps what a session works out for many calls that is a function
// of its arguments alone (no file system, no policy): the compiled
// matchers of path tools' globs. The zero Memo is ready and safe for
// concurrent use; a nil *Memo keeps nothing. It lives in a value the
// server owns (hook.Server), never in package state. Its plain twin is each
// function asked afresh (a nil *Memo); TestFastEvaluationIsPlain keeps them
// equal, its second round with the Memo warm.
type Memo struct {
	mu       sync.Mutex
	globs    map[string]compiledGlob
	suggests map[string]suggestion // shell.SuggestPattern's answers
	elided   map[string]string     // shell.ElideData's answers
}

type suggestion struct {
	pattern string
	exact   bool
}

// maxMemoTexts bounds the texts a Memo keeps per kind, and maxMemoText
// the length of one; past them it starts over, or does not keep it.
const (
	maxMemoTexts = 512
	maxMemoText  = 2048
)

// suggestPattern is shell.SuggestPattern(text), once per text.
func (m *Memo) suggestPattern(text string) (string, bool) {
	if m == nil || len(text) > maxMemoText {
		return shell.SuggestPattern(text)
	}
	m.mu.Lock()
	sg, ok := m.suggests[text]
	m.mu.Unlock()
	if ok {
		return sg.pattern, sg.exact
	}
	sg.pattern, sg.exact = shell.SuggestPattern(text)
	m.mu.Lock()
	if m.suggests == nil || len(m.suggests) >= maxMemoTexts {
		m.suggests = map[string]suggestion{}
	}
	m.suggests[text] = sg
	m.mu.Unlock()
	return sg.pattern, sg.exact
}

// elideData is the shown text of shell.ElideData(cmd), once per command.
func (m *Memo) elideData(cmd string) string {
	if m == nil || len(cmd) > maxMemoText {
		s, _ := shell.ElideData(cmd)
		return s
	}
	m.mu.Lock()
	s, ok := m.elided[cmd]
	m.mu.Unlock()
	if ok {
		return s
	}
	s, _ = shell.ElideData(cmd)
	m.mu.Lock()
	if m.elided == nil || len(m.elided) >= maxMemoTexts {
		m.elided = map[string]string{}
	}
	m.elided[cmd] = s
	m.mu.Unlock()
	return s
}

type compiledGlob struct {
	re  *regexp.Regexp // safe for concurrent use
	err error
}

// maxMemoGlobs bounds the globs a Memo keeps; past it, it starts over.
const maxMemoGlobs = 256

// compileGlob is compileGlob(g), once per glob.
func (m *Memo) compileGlob(g string) (*regexp.Regexp, error) {
	if m == nil || len(g) > 1024 {
		return compileGlob(g)
	}
	m.mu.Lock()
	cg, ok := m.globs[g]
	m.mu.Unlock()
	if ok {
		return cg.re, cg.err
	}
	re, err := compileGlob(g)
	m.mu.Lock()
	if m.globs == nil || len(m.globs) >= maxMemoGlobs {
		m.globs = map[string]compiledGlob{}
	}
	m.globs[g] = compiledGlob{re, err}
	m.mu.Unlock()
	return re, err
}

// compileGlob turns a file glob into a matcher of whole slash-separated
// paths ("*" and "?" stay within one name, leading dots included; "**"
// crosses directories);
// braces are expanded the way ripgrep's globs read them.
func compileGlob(g string) (*regexp.Regexp, error) {
	alts := expandBraces(g, 64)
	var sb strings.Builder
	sb.WriteString("^(?:")
	for i, a := range alts {
		// ripgrep's and fd's globs (globset) have no rule for a leading
		// dot: * matches .env as it matches env.
		expr, err := pattern.Regexp(a, pattern.EntireString|pattern.Filenames|pattern.GlobLeadingDot)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			sb.WriteByte('|')
		}
		sb.WriteString(strings.TrimSuffix(strings.TrimPrefix(expr, "^"), "$"))
	}
	sb.WriteString(")$")
	return regexp.Compile(sb.String())
}

// expandBraces expands {a,b} alternatives (not nested beyond the budget);
// past the budget the text is kept as written.
func expandBraces(g string, budget int) []string {
	open := strings.IndexByte(g, '{')
	if open < 0 {
		return []string{g}
	}
	depth, close := 0, -1
	var commas []int
	for i := open; i < len(g) && close < 0; i++ {
		switch g[i] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				close = i
			}
		case ',':
			if depth == 1 {
				commas = append(commas, i)
			}
		}
	}
	if close < 0 || len(commas) == 0 {
		return []string{g}
	}
	var out []string
	start := open + 1
	for _, cut := range append(commas, close) {
		alt := g[:open] + g[start:cut] + g[close+1:]
		for _, e := range expandBraces(alt, budget-len(out)) {
			if len(out) >= budget {
				return out
			}
			out = append(out, e)
		}
		start = cut + 1
	}
	return out
}

type globWalk struct {
	sel        *globSelection
	full, name *regexp.Regexp
	// fullTail and nameTail are the literal ends of full's and name's
	// globs (globTail): a path or name without it is no match, and is not
	// put to the expression.
	fullTail, nameTail string
	negate             bool // select what does not match (ripgrep's !GLOB)
	cwd, home          string
	fs                 *paths.View
	left               int
}

// walk visits dir (rel below the root) without following symlinked
// directories, as ripgrep and fd do by default; a symlink that matches is
// still checked, through its real form.
func (w *globWalk) walk(dir, rel string, depth int) {
	if depth > maxGlobDepth {
		w.sel.Incomplete = true
		return
	}
	if info, err := w.fs.Lstat(dir); err != nil || !info.IsDir() {
		return
	}
	ents, err := w.fs.ReadDir(dir, w.left+1) // through the view: recorded (Evals)
	if err != nil && len(ents) == 0 {
		return
	}
	for _, e := range ents {
		if w.left == 0 {
			w.sel.Incomplete = true
			return
		}
		w.left--
		r := e.Name()
		if rel != "" {
			r = rel + "/" + r
		}
		selected := (strings.HasSuffix(r, w.fullTail) && w.full.MatchString(r) ||
			w.name != nil && strings.HasSuffix(e.Name(), w.nameTail) && w.name.MatchString(e.Name())) != w.negate
		if !selected && !e.IsDir() {
			continue // neither checked nor walked: nothing asks of it
		}
		full := cleanpath.Join(dir, e.Name())
		w.fs.Seed(full, e.Type()) // the listing says what an lstat of it would
		if selected {
			if len(w.sel.Paths) >= maxGlobChecked {
				w.sel.Incomplete = true
				return
			}
			w.sel.Paths = append(w.sel.Paths, w.fs.New(full, "", w.cwd, w.home))
		}
		if e.IsDir() {
			w.walk(full, r, depth+1)
		}
	}
}

// withGlob lets the paths a tool's glob selects decide when one of them is
// more restrictive than what the gate decided for the tool's own path:
// each selected path goes through check, the gate's own test of a path.
// An incomplete selection asks whenever the path surface has an explicit
// deny or ask rule (a path it missed could be one of them), as an unknown
// bash path word does.
func withGlob(c *Call, r Resolver, o Outcome, gate string, check func(p paths.Path) (Outcome, bool)) Outcome {
	sel, ok := selectGlob(c)
	if !ok {
		return o
	}
	consider := func(g Outcome) {
		if o.Kind != Checked || moreRestrictive(g.D.State, o.D.State) {
			o = g
		}
	}
	for _, p := range sel.Paths {
		if g, ok := check(p); ok {
			consider(g)
		}
	}
	if sel.Incomplete && (r.HasExplicitPathRule(policy.Deny) || r.HasExplicitPathRule(policy.Ask)) {
		g := Outcome{Gate: gate, Kind: Checked, D: Descriptor{Surface: "path", Value: sel.Glob, State: policy.Ask, Sentinel: SentinelGlobIncomplete}}
		fillTexts(&g.D, c.AgentName, fmt.Sprintf("tool %s with glob %s (more files than toolgate lists, so a denied path could be among them)", quote(c.ToolName), quote(sel.Glob)), "", "Allow this call?")
		consider(g)
	}
	return o
}

// globWhat names a selected path in messages.
func globWhat(c *Call, glob string, p paths.Path) string {
	return fmt.Sprintf("tool %s with glob %s, which selects %s%s", quote(c.ToolName), quote(glob), quote(p.Input), resolvesTo(p))
}

// globTool is the tool gate of a path tool with a glob: its own path (the
// working directory when input.path is absent) and every path the glob
// selects are each decided like input.path; the most restrictive decides.
// Without input.path the tool itself is decided as before (value "*").
func globTool(c *Call, r Resolver) Outcome {
	var o Outcome
	if p, ok := toolPath(c); ok {
		o = pathTool(c, r, p)
	} else {
		o = extensionTool(c, r, nil)
	}
	glob, _ := toolGlob(c)
	return withGlob(c, r, o, verdict.GateTool, func(sp paths.Path) (Outcome, bool) {
		g := pathTool(c, r, sp)
		if g.D.State != policy.Allow {
			// Re-word: the person must read which glob selected the path.
			fillTexts(&g.D, c.AgentName, globWhat(c, glob, sp), "", "Allow this call?")
		}
		return g, true
	})
}
