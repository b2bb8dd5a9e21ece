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
	// File is its last good version from this process (SPEC §1.3): the
	// errors are reported, the last good rules still apply.
	Stale []Warning
}

// Source reports one file toolgate looked for.
type Source struct {
	Scope  string
	Path   string
	Exists bool
	Loaded bool
}

// Policy is a composed, immutable policy: the ordered rules and the knobs.
type Policy struct {
	rules   []*Rule
	trusted []*Rule
	// floor is set when an untrusted scope contributed rules, so trusted
	// denies must be checked separately.
	floor bool

	Yolo           bool
	Clamped        bool
	PromptTimeout  time.Duration
	AuditLog       string
	InfraReadPaths []string
	ShellTools     map[string]ShellTool
	Sources        []Source
	Warnings       []Warning
	// MCPServers are the server names mcp.json declares.
	MCPServers []string

	brokenNote string

	home         string
	explicitPath map[Action]bool
	cache        sync.Map // surface → *surfaceRules
	cacheSize    atomic.Int32
	// results counts the remembered decisions of every surface
	// (resultCache), which together stay under maxPolicyResults.
	results atomic.Int64
}

// BrokenNote is what every prompt and block reason appends while a file
// is broken (SPEC §1.3: a broken file could have decided it): which file,
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
func (p *Policy) Rules() []*Rule { return p.rules }

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
	// materialize makes the copy when a later entry merges into it.
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
		if m.surface == "*" && m.shorthand != nil {
			r := NewRule("*", "*", m.shorthand.Action, LayerFallback, m.origin, home)
			r.Reason = m.shorthand.Reason
			fallback = &r
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
		Trusted: trusted, surface: sp, pattern: CompilePattern(pattern, home)}
}

// mcpBaselineTargets are allowed when any mcp rule allows (anchor §2.5).
var mcpBaselineTargets = []string{"mcp_status", "mcp_list", "mcp_search", "mcp_describe", "mcp_connect"}

// Compose builds the policy from the files in precedence order (global,
// project, --config files, agent, project-agent). home expands "~" and
// "$HOME" in patterns.
func Compose(files []ScopeFile, home string) *Policy {
	p := &Policy{home: home, PromptTimeout: DefaultPromptTimeout, ShellTools: map[string]ShellTool{}}
	broken := false
	untrustedRules := false
	var trustedFiles []ScopeFile
	var notes []string
	for _, sf := range files {
		if sf.Scope != scopeMCPFile {
			p.Sources = append(p.Sources, Source{Scope: sf.Scope, Path: sf.Path, Exists: sf.Exists,
				Loaded: sf.File != nil && len(sf.File.Errors) == 0 && len(sf.Stale) == 0})
		}
		if sf.Skipped && sf.SkipReason != "" {
			p.Warnings = append(p.Warnings, Warning{Path: sf.Path, Message: sf.SkipReason})
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
			broken = true
			p.Warnings = append(p.Warnings, sf.File.Errors...)
			if sf.Scope == scopeMCPFile {
				p.Warnings = append(p.Warnings, Warning{Path: sf.Path, Message: "mcp.json gives no MCP server names until it is fixed; every allow of the policy asks instead (fail-closed)"})
				notes = append(notes, brokenNote(sf.Scope, sf.Path, sf.File.Errors[0], "its MCP server names are not used, so every allow asks"))
			} else {
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
	rules, fallback := configRules(merged, home, false)
	if fallback == nil {
		r := NewRule("*", "*", Ask, LayerFallback, Origin{Scope: ScopeBuiltin}, home)
		fallback = &r
	}
	p.rules = append(p.rules, fallback)
	for _, r := range rules {
		if r.Surface == "mcp" && r.Action == Allow {
			for _, t := range mcpBaselineTargets {
				b := NewRule("mcp", t, Allow, LayerBaseline, Origin{Scope: ScopeBaseline}, home)
				p.rules = append(p.rules, &b)
			}
			break
		}
	}
	p.rules = append(p.rules, rules...)
	// Mark which rules come from trusted scopes (for reporting). Rules of
	// one file stand together: its answer is looked up once per run.
	var lastScope, lastPath string
	lastTrusted, looked := false, false
	for _, r := range p.rules {
		if r.Layer != LayerConfig {
			r.Trusted = false
			continue
		}
		if !looked || r.Origin.Scope != lastScope || r.Origin.Path != lastPath {
			lastScope, lastPath, lastTrusted, looked = r.Origin.Scope, r.Origin.Path, isTrustedOrigin(files, r.Origin), true
		}
		r.Trusted = lastTrusted
	}

	if untrustedRules {
		p.floor = true
		p.trusted, _ = configRules(merge(trustedFiles), home, true)
	}

	if p.Yolo {
		for _, r := range p.rules {
			if r.Action == Ask {
				r.Action = Allow
				r.Origin.Scope = ScopeYolo
			}
		}
	}
	// The clamp comes after yolo so that a broken file can never end up
	// loosening anything: fail closed wins over yolo.
	if broken {
		p.Clamped = true
		for _, r := range p.rules {
			if r.Action == Allow && r.Layer != LayerBaseline {
				r.Action = Ask
				r.Origin.Scope = ScopeFailClosed
			}
		}
		for _, r := range p.rules {
			if r.Layer == LayerBaseline {
				r.Action = Ask
				r.Origin.Scope = ScopeFailClosed
			}
		}
	}
	p.explicitPath = map[Action]bool{}
	for _, r := range p.rules {
		if r.Layer == LayerConfig && r.MatchesSurface("path") {
			p.explicitPath[r.Action] = true
		}
	}
	p.Warnings = append(p.Warnings, advice(merged)...)
	return p
}

func isTrustedOrigin(files []ScopeFile, o Origin) bool {
	for _, sf := range files {
		if sf.Path == o.Path && sf.Scope == o.Scope {
			return sf.Trusted
		}
	}
	return false
}

// applyKnobs takes a file's settings, honoring which scopes may set the
// knobs that loosen or blind the gates (SPEC §1.1).
func (p *Policy) applyKnobs(sf ScopeFile) {
	k := sf.File.Knobs
	// Only the global scope and --config files (scope global) may set the
	// knobs that loosen or blind the gates (SPEC §1.1); agent scopes are
	// trusted for the floor but carry no knobs.
	trusted := sf.Trusted && sf.Scope == ScopeGlobal
	ignore := func(key string) {
		line, col, _ := sf.File.KeyPosition(key)
		p.Warnings = append(p.Warnings, Warning{Path: sf.Path, Line: line, Column: col,
			Message: fmt.Sprintf("'%s' in a %s file is ignored: only the global configuration may set it", key, sf.Scope)})
	}
	if k.Yolo != nil {
		if trusted {
			p.Yolo = *k.Yolo
		} else {
			ignore("yoloMode")
		}
	}
	if k.AuditLog != nil {
		if trusted {
			p.AuditLog = *k.AuditLog
		} else {
			ignore("auditLog")
		}
	}
	if k.InfraReadPathsSet {
		if trusted {
			p.InfraReadPaths = k.InfraReadPaths
		} else {
			ignore("piInfrastructureReadPaths")
		}
	}
	if k.PermissionReviewLog != nil && !trusted {
		ignore("permissionReviewLog")
	}
	if k.PromptTimeoutMs != nil {
		p.PromptTimeout = time.Duration(*k.PromptTimeoutMs) * time.Millisecond
	}
	// A shellTools entry re-routes a tool from its own rules to the bash
	// rules, so an untrusted file could loosen a deny of that tool with
	// one: only the global configuration may declare them.
	if len(k.ShellTools) > 0 && !trusted {
		ignore("shellTools")
	} else {
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
