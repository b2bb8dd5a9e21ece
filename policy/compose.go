package policy

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// DefaultPromptTimeout is how long a prompt waits when no file sets
// promptTimeoutMs.
const DefaultPromptTimeout = 600000 * time.Millisecond

// ScopeFile is one policy file in precedence order, as the loader found it.
type ScopeFile struct {
	Scope string
	Path  string
	// Trusted scopes (global, --config, agent) form the trust floor; of
	// them, only the global scope (and --config files) may set the knobs
	// that loosen or blind the gates.
	Trusted bool
	Exists  bool
	// Skipped is true when the file was not read on purpose (an untrusted
	// project); SkipReason says why.
	Skipped    bool
	SkipReason string
	File       *File // nil when missing or skipped
	// Stale is set when the file as it is now has file-level errors and
	// File is its last good version from this process: the
	// errors are reported, the last good rules still apply.
	Stale []Warning
	// Project is set for a file of the project's scopes (project,
	// project-agent, or a file read as one): its trust is by content.
	Project bool
	// Untrusted is set for an existing project file whose content the
	// person has not trusted: it may tighten, never loosen.
	// UntrustedWhy says why; Root is the project it belongs to.
	Untrusted    bool
	UntrustedWhy string
	Root         string
	// Note is a warning about this location to report.
	Note string
	// named: a --config file a policy author's tool was asked about.
	named bool
}

// Source reports one file toolgate looked for.
type Source struct {
	Scope  string
	Path   string
	Exists bool
	Loaded bool
	// Project is set for project-scope files, and Trusted then says
	// whether the person trusted the file's exact content.
	Project bool
	Trusted bool
}

// Policy is a composed, immutable policy: the ordered rules and the knobs.
type Policy struct {
	// The rules in evaluation order are head (the fallback, the MCP
	// baseline) and then each group's, made when first asked for
	// (ruleGroup); rules is all of them, made by Rules.
	head     []*Rule
	groups   []ruleGroup
	allRules sync.Once
	rules    []*Rule
	// trusted are the rules of the trusted scopes alone, made of
	// trustedMerged by trustedRules.
	trustedOnce   sync.Once
	trusted       []*Rule
	trustedMerged []*mergedSurface
	// What every rule of the files gets once it is made (settle): the
	// trust of its file, yolo's and the clamp's changes of its action.
	origins     []originTrust
	yolo, clamp bool
	// floor is set when an untrusted scope contributed rules, so trusted
	// denies must be checked separately.
	floor bool

	Yolo          bool
	Clamped       bool
	PromptTimeout time.Duration
	AuditLog      string
	// Export is where audit records are also sent (nil: nowhere).
	Export         *Export
	InfraReadPaths []string
	ShellTools     map[string]ShellTool
	Sandbox        Sandbox
	Sources        []Source
	Warnings       []Warning
	// Untrusted are the warnings naming the untrusted project files.
	Untrusted []Warning
	// MCPServers are the server names mcp.json declares.
	MCPServers []string

	brokenNote string

	// managed is the managed file's policy, evaluated on its own (its
	// fallback has no opinion); managedBroken, when set, denies every
	// call: the managed file has no good version.
	managed       *Policy
	managedBroken *Rule
	// final are the knobs the managed file set: no other file changes them.
	final map[string]string
	// DisableYolo is set by the managed file's disableYoloMode.
	DisableYolo bool
	// ManagedAuditLog is set when the managed file sets auditLog: a
	// --audit-log flag is then refused.
	ManagedAuditLog bool

	// mcpClamp is set while mcp.json is broken with no good version:
	// every allow on the mcp surface asks (origin fail-closed).
	mcpClamp bool

	// without is the policy composed without the untrusted project files
	// (nil when there are none): every gate's answer is the more
	// restrictive of the answer with them and without them.
	without *Policy
	// trustCommand is the command that trusts the untrusted files.
	trustCommand string

	home         string
	explicitPath map[Action]bool
	cache        sync.Map // surface → *surfaceRules
	cacheSize    atomic.Int32
	// common holds cache's entries of the surfaces nearly every call asks
	// (commonSurface): found without hashing into cache.
	common [len(commonSurfaces)]atomic.Pointer[surfaceRules]
}

// BrokenNote is what every prompt and block reason appends while a file
// is broken (a broken file could have decided it): which file,
// where, what is wrong, and what toolgate does instead. Empty when no file
// is broken.
func (p *Policy) BrokenNote() string { return p.brokenNote }

// brokenNote words one broken file for BrokenNote.
func brokenNote(scope, path string, w Warning, instead string) string {
	where := path
	if w.Path == path && w.Line > 0 {
		where = fmt.Sprintf("%s:%d", path, w.Line)
	}
	msg := w.Message
	if utf8.RuneCountInString(msg) > 200 {
		msg = string([]rune(msg)[:199]) + "…"
	}
	noun := "policy file"
	if scope == scopeMCPFile {
		noun = "MCP server file"
	}
	return fmt.Sprintf("%s %s is broken: %s; %s", noun, where, msg, instead)
}

// Rules returns the composed rules in evaluation order (read-only).
func (p *Policy) Rules() []*Rule {
	p.allRules.Do(func() {
		n := len(p.head)
		for i := range p.groups {
			n += p.groups[i].m.ruleCount()
		}
		rules := make([]*Rule, 0, n)
		rules = append(rules, p.head...)
		for i := range p.groups {
			rules = append(rules, p.groupRules(&p.groups[i])...)
		}
		p.rules = rules
	})
	return p.rules
}

// trustedRules are the rules of the trusted scopes alone, for the floor
// (nil without one).
func (p *Policy) trustedRules() []*Rule {
	p.trustedOnce.Do(func() {
		if p.floor {
			p.trusted, _ = configRules(p.trustedMerged, p.home, true)
		}
	})
	return p.trusted
}

// ruleGroup is the rules of one merged surface of the files: a run of the
// policy's rules, in order, made when a call first asks for the rules of a
// surface its surface pattern matches (or for all of them, Rules). A start
// answers initialize, and a hook host its one call, without making the
// rules of surfaces it never asks about (a 10,000-rule policy is mostly
// rules of one or two surfaces). Making them cannot fail: every problem of
// the files was found, with its file and position, when they were parsed.
// Its plain twin is every rule made at once when composing (eagerRules in
// the test); TestLazyRulesMatchEager keeps them equal.
type ruleGroup struct {
	m       *mergedSurface
	surface *Pattern // compiled once, shared by the group's rules
	once    sync.Once
	rules   []*Rule
}

// originTrust is one file's trust (ScopeFile.Trusted), for settle.
type originTrust struct {
	scope, path string
	trusted     bool
}

// groupRules returns g's rules, making them on the first call.
func (p *Policy) groupRules(g *ruleGroup) []*Rule {
	g.once.Do(func() {
		m := g.m
		// The rules live in one block: one object for the collector
		// instead of one per rule.
		block := make([]Rule, 0, m.ruleCount())
		if m.shorthand != nil {
			block = append(block, configRule(g.surface, m.surface, "*", m.shorthand.Action, m.shorthand.Reason, m.origin, p.home, false))
		} else {
			for i := range m.patternCount() {
				pat, st, origin := m.pattern(i)
				block = append(block, configRule(g.surface, m.surface, pat, st.Action, st.Reason, origin, p.home, false))
			}
		}
		rules := make([]*Rule, len(block))
		// Rules of one file stand together: its trust is looked up once
		// per run.
		var last *originTrust
		for i := range block {
			r := &block[i]
			if last == nil || last.scope != r.Origin.Scope || last.path != r.Origin.Path {
				last = p.originOf(r.Origin)
			}
			p.settle(r, last)
			rules[i] = r
		}
		g.rules = rules
	})
	return g.rules
}

// originOf is the file of o (nil for none).
func (p *Policy) originOf(o Origin) *originTrust {
	for i := range p.origins {
		if f := &p.origins[i]; f.path == o.Path && f.scope == o.Scope {
			return f
		}
	}
	return nil
}

// settle gives r, a rule of the policy (of the file f, nil for none), what
// composing decided for every rule: which rules come from trusted scopes
// (for reporting; config rules only), yolo (every ask allows), then the
// clamp of a broken file (every allow asks, the MCP baseline too), after
// yolo so that a broken file can never end up loosening anything: fail
// closed wins over yolo.
func (p *Policy) settle(r *Rule, f *originTrust) {
	r.Trusted = r.Layer == LayerConfig && f != nil && f.trusted
	if p.yolo && r.Action == Ask {
		r.Action = Allow
		r.Origin.Scope = ScopeYolo
	}
	if p.clamp && (r.Action == Allow || r.Layer == LayerBaseline) {
		r.Action = Ask
		r.Origin.Scope = ScopeFailClosed
	}
}

// settledAction is what settle makes of a config rule's action a.
func (p *Policy) settledAction(a Action) Action {
	if p.yolo && a == Ask {
		a = Allow
	}
	if p.clamp && a == Allow {
		a = Ask
	}
	return a
}

// MCPClamped reports whether a broken mcp.json makes every MCP allow ask.
func (p *Policy) MCPClamped() bool { return p.mcpClamp }

// Home is the home directory the patterns were expanded against.
func (p *Policy) Home() string { return p.home }

type mergedPattern struct {
	pattern string
	state   State
	origin  Origin
}

type mergedSurface struct {
	surface   string
	line      int
	origin    Origin
	shorthand *State
	patterns  []mergedPattern
	// src, when set, stands for patterns: a surface written by one entry
	// whose patterns are distinct (nearly always) keeps that entry's
	// patterns, of the file srcScope/srcPath, instead of a copy of each;
	// materialize makes the copy when a later entry merges into it. Its
	// plain twin is a copy of each pattern merged through at;
	// TestComposeDistinctSameAsIndexed keeps them equal.
	src      []PatternEntry
	srcScope string
	srcPath  string
	// at indexes patterns by pattern, so merging n patterns is O(n). It
	// is made when first needed: a surface written by one entry whose
	// patterns are distinct (nearly always) never needs it.
	at map[string]int
}

// merge folds files into one ordered permission map like the anchor (§1.5):
// both maps → shallow merge (a redefined key keeps its first position, new
// keys go last); otherwise the later value replaces the entry in place.
func merge(files []ScopeFile) []*mergedSurface {
	var out []*mergedSurface
	index := map[string]*mergedSurface{}
	for _, sf := range files {
		if sf.File == nil || len(sf.File.Errors) > 0 {
			continue
		}
		for _, e := range sf.File.Permission {
			origin := Origin{Scope: sf.Scope, Path: sf.Path, Line: e.Line}
			cur, ok := index[e.Surface]
			if !ok {
				cur = &mergedSurface{surface: e.Surface}
				index[e.Surface] = cur
				out = append(out, cur)
			}
			if e.Shorthand == nil && cur.shorthand == nil && ok {
				cur.materialize()
				cur.patterns = slices.Grow(cur.patterns, len(e.Patterns))
				for _, pe := range e.Patterns {
					mergePattern(cur, pe, Origin{Scope: sf.Scope, Path: sf.Path, Line: pe.Line})
				}
				continue
			}
			cur.line, cur.origin = e.Line, origin
			cur.shorthand, cur.patterns, cur.at, cur.src = nil, nil, nil, nil
			if e.Shorthand != nil {
				st := *e.Shorthand
				cur.shorthand = &st
				continue
			}
			if e.distinct {
				cur.src, cur.srcScope, cur.srcPath = e.Patterns, sf.Scope, sf.Path
				continue
			}
			cur.patterns = make([]mergedPattern, 0, len(e.Patterns))
			for _, pe := range e.Patterns {
				mergePattern(cur, pe, Origin{Scope: sf.Scope, Path: sf.Path, Line: pe.Line})
			}
		}
	}
	return out
}

// materialize turns src into patterns.
func (m *mergedSurface) materialize() {
	if m.src == nil {
		return
	}
	m.patterns = make([]mergedPattern, 0, len(m.src))
	for _, pe := range m.src {
		m.patterns = append(m.patterns, mergedPattern{pattern: pe.Pattern, state: pe.State,
			origin: Origin{Scope: m.srcScope, Path: m.srcPath, Line: pe.Line}})
	}
	m.src = nil
}

// ruleCount is how many rules m makes: its shorthand's one, or one per
// pattern.
func (m *mergedSurface) ruleCount() int {
	if m.shorthand != nil {
		return 1
	}
	return m.patternCount()
}

// anyAction reports whether a rule of m has action a as written.
func (m *mergedSurface) anyAction(a Action) bool {
	if m.shorthand != nil {
		return m.shorthand.Action == a
	}
	for i := range m.patternCount() {
		if _, st, _ := m.pattern(i); st.Action == a {
			return true
		}
	}
	return false
}

// patternCount is how many patterns m has.
func (m *mergedSurface) patternCount() int {
	if m.src != nil {
		return len(m.src)
	}
	return len(m.patterns)
}

// pattern is m's i-th pattern.
func (m *mergedSurface) pattern(i int) (pattern string, st State, origin Origin) {
	if m.src != nil {
		pe := &m.src[i]
		return pe.Pattern, pe.State, Origin{Scope: m.srcScope, Path: m.srcPath, Line: pe.Line}
	}
	mp := &m.patterns[i]
	return mp.pattern, mp.state, mp.origin
}

func mergePattern(cur *mergedSurface, pe PatternEntry, origin Origin) {
	if cur.at == nil {
		cur.at = make(map[string]int, len(cur.patterns)+1)
		for i, mp := range cur.patterns {
			cur.at[mp.pattern] = i
		}
	}
	if i, ok := cur.at[pe.Pattern]; ok {
		cur.patterns[i].state, cur.patterns[i].origin = pe.State, origin
		return
	}
	cur.at[pe.Pattern] = len(cur.patterns)
	cur.patterns = append(cur.patterns, mergedPattern{pattern: pe.Pattern, state: pe.State, origin: origin})
}

// fallbackRule is the rule of the top-level "*" shorthand, the fallback;
// nil for any other surface or shape.
func (m *mergedSurface) fallbackRule(home string) *Rule {
	if m.surface != "*" || m.shorthand == nil {
		return nil
	}
	r := NewRule("*", "*", m.shorthand.Action, LayerFallback, m.origin, home)
	r.Reason = m.shorthand.Reason
	return &r
}

// configRules expands merged surfaces into rules; the top-level "*"
// shorthand is returned separately as the fallback.
func configRules(merged []*mergedSurface, home string, trusted bool) (rules []*Rule, fallback *Rule) {
	// The rules live in one block: one object for the collector instead of
	// one per rule.
	n := 0
	for _, m := range merged {
		n += max(m.patternCount(), 1)
	}
	block := make([]Rule, 0, n)
	for _, m := range merged {
		if r := m.fallbackRule(home); r != nil {
			fallback = r
			continue
		}
		// The rules of one surface share its compiled surface pattern:
		// compiled once, and a third of a rule's size, for the collector
		// to scan, otherwise.
		sp := new(Pattern)
		*sp = CompilePattern(m.surface, home)
		if m.shorthand != nil {
			block = append(block, configRule(sp, m.surface, "*", m.shorthand.Action, m.shorthand.Reason, m.origin, home, trusted))
			continue
		}
		for i := range m.patternCount() {
			pat, st, origin := m.pattern(i)
			block = append(block, configRule(sp, m.surface, pat, st.Action, st.Reason, origin, home, trusted))
		}
	}
	rules = make([]*Rule, len(block))
	for i := range block {
		rules[i] = &block[i]
	}
	return rules, fallback
}

// configRule is NewRule for a config rule whose surface pattern is
// compiled already (sp, of surface).
func configRule(sp *Pattern, surface, pattern string, action Action, reason string, origin Origin, home string, trusted bool) Rule {
	return Rule{Surface: surface, Pattern: pattern, Action: action, Reason: reason, Layer: LayerConfig, Origin: origin,
		Trusted: trusted, surface: sp, pattern: CompilePattern(pattern, home).matcher}
}

// mcpBaselineTargets are allowed when any mcp rule allows.
var mcpBaselineTargets = []string{"mcp_status", "mcp_list", "mcp_search", "mcp_describe", "mcp_connect"}

// ComposeSides composes the policy from the files and, when some project
// file is untrusted, the policy without the untrusted ones beside it
// (Without): the gates take the more restrictive answer of the two.
func ComposeSides(files []ScopeFile, home string) *Policy {
	with := Compose(files, home)
	var without []ScopeFile
	root := ""
	for _, sf := range files {
		if sf.Untrusted && sf.File != nil {
			root = sf.Root
			continue
		}
		without = append(without, sf)
	}
	if len(without) < len(files) {
		with.without = Compose(without, home)
		with.trustCommand = "toolgate trust " + shellWord(root)
		// Which entries wait for trust, each with its line (the first
		// start of a user of the original extension's project files
		// shows exactly these).
		for _, sf := range files {
			if !sf.Untrusted || sf.File == nil || len(sf.File.Errors) > 0 {
				continue
			}
			// Bounded: a large file's start does not resolve every entry.
			ls := looseningsUpTo(sf.File, with.without, maxLooseningWarnings+1)
			for i, l := range ls {
				if i == maxLooseningWarnings {
					with.Warnings = append(with.Warnings, Warning{Path: sf.Path, Message: fmt.Sprintf(
						"and more entries of this untrusted file wait for `%s` (it lists them all)", with.trustCommand)})
					break
				}
				with.Warnings = append(with.Warnings, Warning{Path: sf.Path, Line: l.Line, Message: fmt.Sprintf(
					"waits for `%s` (untrusted, it loosens nothing): %s", with.trustCommand, l)})
			}
		}
	}
	return with
}

// maxLooseningWarnings bounds the entries listed per untrusted file.
const maxLooseningWarnings = 20

// Without is the policy composed without the untrusted project files, or
// nil when every project file is trusted (or there is none).
func (p *Policy) Without() *Policy { return p.without }

// Managed is the managed file's own policy, evaluated beside p's (nil
// without a managed file).
func (p *Policy) Managed() *Policy { return p.managed }

// TrustCommand is the command that trusts the untrusted project files as
// they are ("" when there are none).
func (p *Policy) TrustCommand() string { return p.trustCommand }

// shellWord quotes s for a shell when it needs it.
func shellWord(s string) string {
	if s == "" {
		return "."
	}
	if strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == '+' || r == ',' || r == ':' || r == '@' ||
			r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Compose builds the policy from the files in precedence order (managed,
// global, project, --config files, agent, project-agent). home expands "~"
// and "$HOME" in patterns. The managed file is evaluated on its own: its
// deny and ask hold over every other answer, its knobs are final.
func Compose(files []ScopeFile, home string) *Policy {
	var managed *ScopeFile
	rest := make([]ScopeFile, 0, len(files))
	for i := range files {
		if files[i].Scope == ScopeManaged {
			managed = &files[i]
			continue
		}
		rest = append(rest, files[i])
	}
	p := composeFiles(rest, home, managed)
	if managed != nil {
		p.addManaged(*managed)
	}
	return p
}

// addManaged composes the managed file's own policy beside p's.
func (p *Policy) addManaged(sf ScopeFile) {
	if sf.File == nil {
		return
	}
	if len(sf.File.Errors) > 0 && len(sf.Stale) == 0 {
		// No good version: every call blocks, saying so.
		w := sf.File.Errors[0]
		r := NewRule("*", "*", Deny, LayerConfig, Origin{Scope: ScopeManaged, Path: sf.Path, Line: w.Line}, p.home)
		r.Reason = brokenNote(ScopeManaged, sf.Path, w, "every call is blocked until it is fixed (fail-closed)")
		p.managedBroken = &r
		return
	}
	m := composeFiles([]ScopeFile{sf}, p.home, nil)
	// A managed top-level "*" only replaces the built-in fallback.
	if fb := m.head[0]; fb.Origin.Scope == ScopeManaged && p.head[0].Origin.Scope == ScopeBuiltin {
		r := NewRule("*", "*", fb.Action, LayerFallback, fb.Origin, p.home)
		r.Reason = fb.Reason
		if p.clamp && r.Action == Allow {
			r.Action, r.Origin.Scope = Ask, ScopeFailClosed
		}
		p.head[0] = &r
	}
	// Within the managed policy, no rule matching is no opinion.
	none := NewRule("*", "*", Allow, LayerFallback, Origin{Scope: ScopeManaged, Path: sf.Path}, p.home)
	m.head[0] = &none
	p.managed = m
	for a := range m.explicitPath {
		p.explicitPath[a] = true
	}
}

// noteManaged reports the managed file (first of the sources) and takes
// its knobs, which are final.
func (p *Policy) noteManaged(sf ScopeFile, notes []string) []string {
	p.Sources = append(p.Sources, Source{Scope: sf.Scope, Path: sf.Path, Exists: sf.Exists,
		Loaded: sf.File != nil && len(sf.File.Errors) == 0 && len(sf.Stale) == 0})
	if sf.Note != "" {
		p.Warnings = append(p.Warnings, Warning{Path: sf.Path, Message: sf.Note})
	}
	if sf.File == nil {
		return notes
	}
	if len(sf.File.Errors) > 0 && len(sf.Stale) == 0 {
		p.Warnings = append(p.Warnings, sf.File.Errors...)
		p.Warnings = append(p.Warnings, Warning{Path: sf.Path, Message: "the managed policy file is broken: every call is blocked until it is fixed (fail-closed)"})
		return append(notes, brokenNote(sf.Scope, sf.Path, sf.File.Errors[0], "every call is blocked"))
	}
	if len(sf.Stale) > 0 {
		p.Warnings = append(p.Warnings, sf.Stale...)
		p.Warnings = append(p.Warnings, Warning{Path: sf.Path, Message: "the managed policy file is broken: the last good version this process read of it is used until it is fixed"})
		notes = append(notes, brokenNote(sf.Scope, sf.Path, sf.Stale[0], "its last good version is used"))
	}
	p.Warnings = append(p.Warnings, sf.File.Problems...)
	p.applyKnobs(sf)
	return notes
}

func composeFiles(files []ScopeFile, home string, managed *ScopeFile) *Policy {
	p := &Policy{home: home, PromptTimeout: DefaultPromptTimeout, ShellTools: map[string]ShellTool{}}
	p.Sandbox.Mode, p.Sandbox.set = SandboxOff, SandboxOff
	broken := false
	untrustedRules := false
	var trustedFiles []ScopeFile
	var notes []string
	if managed != nil {
		notes = p.noteManaged(*managed, notes)
	}
	for _, sf := range files {
		if sf.Scope == scopeNote {
			p.Warnings = append(p.Warnings, Warning{Path: sf.Path, Message: sf.Note})
			continue
		}
		if sf.Scope != scopeMCPFile {
			src := Source{Scope: sf.Scope, Path: sf.Path, Exists: sf.Exists,
				Loaded: sf.File != nil && len(sf.File.Errors) == 0 && len(sf.Stale) == 0}
			if sf.Project {
				src.Project, src.Trusted = true, sf.Exists && !sf.Untrusted
			}
			p.Sources = append(p.Sources, src)
		}
		if sf.Note != "" {
			p.Warnings = append(p.Warnings, Warning{Path: sf.Path, Message: sf.Note})
		}
		if sf.Skipped && sf.SkipReason != "" {
			p.Warnings = append(p.Warnings, Warning{Path: sf.Path, Message: sf.SkipReason})
		}
		if sf.Untrusted && sf.File != nil {
			w := Warning{Path: sf.Path, Message: fmt.Sprintf(
				"this project file is not trusted (%s): it may tighten the policy but loosens nothing; run `toolgate trust %s` to see what it would loosen and trust it as it is",
				sf.UntrustedWhy, shellWord(sf.Root))}
			p.Warnings = append(p.Warnings, w)
			p.Untrusted = append(p.Untrusted, w)
		}
		if sf.File == nil {
			continue
		}
		what := fmt.Sprintf("this %s file", sf.Scope)
		if sf.Scope == scopeMCPFile {
			what = "mcp.json"
		}
		if len(sf.Stale) > 0 {
			p.Warnings = append(p.Warnings, sf.Stale...)
			p.Warnings = append(p.Warnings, Warning{Path: sf.Path, Message: what + " is broken: the last good version this process read of it is used until it is fixed"})
			notes = append(notes, brokenNote(sf.Scope, sf.Path, sf.Stale[0], "its last good version is used"))
		} else if len(sf.File.Errors) > 0 {
			p.Warnings = append(p.Warnings, sf.File.Errors...)
			if sf.Scope == scopeMCPFile {
				// It names MCP servers only, so it clamps only what MCP
				// targets decide: every MCP allow asks.
				p.mcpClamp = true
				p.Warnings = append(p.Warnings, Warning{Path: sf.Path, Message: "mcp.json gives no MCP server names until it is fixed; every allow of an MCP call asks instead (fail-closed)"})
				notes = append(notes, brokenNote(sf.Scope, sf.Path, sf.File.Errors[0], "its MCP server names are not used, so every MCP allow asks"))
			} else {
				broken = true
				p.Warnings = append(p.Warnings, Warning{Path: sf.Path, Message: fmt.Sprintf("this %s file contributes no rules until it is fixed; every allow of the policy asks instead (fail-closed)", sf.Scope)})
				notes = append(notes, brokenNote(sf.Scope, sf.Path, sf.File.Errors[0], "its rules are not applied, so every allow asks"))
			}
			continue
		}
		p.Warnings = append(p.Warnings, sf.File.Problems...)
		p.Warnings = append(p.Warnings, sf.File.Notes...)
		if sf.Scope == scopeMCPFile {
			p.MCPServers = sf.File.MCPServers
			continue
		}
		if sf.Trusted {
			trustedFiles = append(trustedFiles, sf)
		} else if len(sf.File.Permission) > 0 {
			untrustedRules = true
		}
		p.applyKnobs(sf)
	}
	if len(notes) > 0 {
		p.brokenNote = " (note: " + strings.Join(notes, "; ") + ")"
	}

	merged := merge(files)
	if p.DisableYolo {
		p.Yolo = false
	}
	p.yolo, p.clamp = p.Yolo, broken
	p.Clamped = broken
	for _, sf := range files {
		p.origins = append(p.origins, originTrust{scope: sf.Scope, path: sf.Path, trusted: sf.Trusted})
	}
	var fallback *Rule
	baseline := false
	for _, m := range merged {
		if r := m.fallbackRule(home); r != nil {
			fallback = r
			continue
		}
		if m.surface == "mcp" && !baseline {
			baseline = m.anyAction(Allow)
		}
		// The rules of one surface share its compiled surface pattern.
		sp := new(Pattern)
		*sp = CompilePattern(m.surface, home)
		p.groups = append(p.groups, ruleGroup{m: m, surface: sp})
	}
	if fallback == nil {
		r := NewRule("*", "*", Ask, LayerFallback, Origin{Scope: ScopeBuiltin}, home)
		fallback = &r
	}
	p.head = append(p.head, fallback)
	if baseline {
		for _, t := range mcpBaselineTargets {
			b := NewRule("mcp", t, Allow, LayerBaseline, Origin{Scope: ScopeBaseline}, home)
			p.head = append(p.head, &b)
		}
	}
	for _, r := range p.head {
		p.settle(r, nil)
	}

	if untrustedRules {
		p.floor = true
		// The trusted scopes' rules of the floor are made when a call
		// first consults the floor.
		p.trustedMerged = merge(trustedFiles)
	}

	// What the rules of the files allow, ask and deny on the path surface,
	// read from the merged surfaces: the rules themselves are made when a
	// call first needs them (ruleGroup).
	p.explicitPath = map[Action]bool{}
	for i := range p.groups {
		g := &p.groups[i]
		if !g.surface.Match("path", false) {
			continue
		}
		if sh := g.m.shorthand; sh != nil {
			p.explicitPath[p.settledAction(sh.Action)] = true
			continue
		}
		for j := range g.m.patternCount() {
			_, st, _ := g.m.pattern(j)
			p.explicitPath[p.settledAction(st.Action)] = true
		}
	}
	p.Warnings = append(p.Warnings, advice(merged)...)
	return p
}

// applyKnobs takes a file's settings, honoring which scopes may set the
// knobs that loosen or blind the gates: the global scope
// and --config files set every knob; the managed file's knobs are final
// (read first, nothing after it changes them); agent and project files
// carry none.
func (p *Policy) applyKnobs(sf ScopeFile) {
	k := sf.File.Knobs
	managed := sf.Scope == ScopeManaged
	trusted := sf.Trusted && (sf.Scope == ScopeGlobal || managed)
	// may reports whether sf may set key, warning when it may not.
	may := func(key string) bool {
		line, col, _ := sf.File.KeyPosition(key)
		switch {
		case !trusted:
			p.Warnings = append(p.Warnings, Warning{Path: sf.Path, Line: line, Column: col,
				Message: fmt.Sprintf("'%s' in a %s file is ignored: only the global configuration may set it", key, sf.Scope)})
			return false
		case !managed && p.final[key] != "":
			p.Warnings = append(p.Warnings, Warning{Path: sf.Path, Line: line, Column: col,
				Message: fmt.Sprintf("'%s' is ignored here: the managed policy %s sets it, and its settings are final", key, p.final[key])})
			return false
		}
		if managed {
			if p.final == nil {
				p.final = map[string]string{}
			}
			p.final[key] = sf.Path
		}
		return true
	}
	if k.Yolo != nil && may("yoloMode") {
		p.Yolo = *k.Yolo
	}
	if k.DisableYolo != nil {
		if managed {
			may("disableYoloMode")
			p.DisableYolo = *k.DisableYolo
		} else {
			line, col, _ := sf.File.KeyPosition("disableYoloMode")
			p.Warnings = append(p.Warnings, Warning{Path: sf.Path, Line: line, Column: col,
				Message: "'disableYoloMode' is ignored here: only the managed policy file may set it"})
		}
	}
	if k.AuditLog != nil && may("auditLog") {
		p.AuditLog = *k.AuditLog
		p.ManagedAuditLog = managed
	}
	if k.InfraReadPathsSet && may("piInfrastructureReadPaths") {
		p.InfraReadPaths = k.InfraReadPaths
	}
	if k.PermissionReviewLog != nil {
		may("permissionReviewLog")
	}
	p.applySandbox(sf, trusted, func(key string) {
		line, col, _ := sf.File.KeyPosition(key)
		p.Warnings = append(p.Warnings, Warning{Path: sf.Path, Line: line, Column: col,
			Message: fmt.Sprintf("'%s' in a %s file is ignored: only the global configuration may set it", key, sf.Scope)})
	})
	if k.Export != nil && may("export") {
		p.Export = k.Export
	}
	if k.PromptTimeoutMs != nil && may("promptTimeoutMs") {
		p.PromptTimeout = time.Duration(*k.PromptTimeoutMs) * time.Millisecond
	}
	// A shellTools entry re-routes a tool from its own rules to the bash
	// rules, so an untrusted file could loosen a deny of that tool with
	// one: only the global configuration may declare them.
	if len(k.ShellTools) > 0 && may("shellTools") {
		for _, st := range k.ShellTools {
			p.ShellTools[st.Tool] = st
		}
	}
}

// advice warns about policies that are legal but likely not meant.
func advice(merged []*mergedSurface) []Warning {
	var star *mergedSurface
	var bash *mergedSurface
	for _, m := range merged {
		switch m.surface {
		case "*":
			star = m
		case "bash":
			bash = m
		}
	}
	if star == nil || star.shorthand == nil || star.shorthand.Action != Allow {
		return nil
	}
	if bash != nil {
		if bash.shorthand != nil {
			return nil
		}
		for i := range bash.patternCount() {
			if pat, _, _ := bash.pattern(i); pat == "*" {
				return nil
			}
		}
	}
	return []Warning{{Path: star.origin.Path, Line: star.origin.Line,
		Message: "the top-level \"*\": \"allow\" has no \"bash\" catch-all: every bash command that no bash rule names is allowed; add \"bash\": {\"*\": \"ask\", …} to ask instead"}}
}
