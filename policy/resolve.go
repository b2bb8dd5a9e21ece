package policy

import (
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Query asks for the decision on one surface.
type Query struct {
	Surface string
	// Values are the forms of the value: the last rule matching any of
	// them wins (path aliases; MCP targets, whose candidates are forms of
	// one target, the design; a single value is the common case).
	Values []string
	// FirstCandidate marks the values as MCP candidates. They are forms
	// like any others (the anchor let the first candidate decide, which
	// made every rule after an mcp "*" dead); the flag is kept for callers.
	FirstCandidate bool
	// Args, on the bash surface, are the words of the unit whose text is
	// Values[0] (after quote removal, env prefixes dropped): the unit is
	// also matched in its canonical option spelling.
	Args []string
	// Session are the session approvals to consult (nil for none).
	Session []*Rule
	// SessionValues, when not nil, are the only forms a session approval
	// may match: the ones naming the target the person approved (an MCP
	// call's server and tool, not a raw reference naming another server).
	SessionValues []string
}

// Result is the decision for a query.
type Result struct {
	Action Action
	// Rule is the deciding rule; never nil.
	Rule *Rule
	// Value is the value (alias or candidate) the deciding rule matched.
	Value string
	// Session is true when a session approval decided.
	Session bool
	// Floored is true when the trust floor decided: an untrusted scope's
	// rule would have loosened a trusted deny.
	Floored bool
	// Canonical is true when the unit's canonical option spelling (then
	// Value) decided.
	Canonical bool
}

// Resolve decides a query. It is pure: the policy is immutable and session
// rules are passed in.
func (p *Policy) Resolve(q Query) Result {
	values, sessionValues := q.valueSets()
	return p.resolveSet(q.Surface, values, q.Args, q.Session, sessionValues)
}

// valueSets is the values q is decided on ("*" when it has none) and the
// values a session approval may match (SessionValues when set, else the
// same).
func (q *Query) valueSets() (values, sessionValues []string) {
	values = q.Values
	if len(values) == 0 {
		values = []string{"*"}
	}
	sessionValues = values
	if q.SessionValues != nil {
		sessionValues = q.SessionValues
	}
	return values, sessionValues
}

// ResolveSides is Resolve on both sides of a policy with untrusted
// project files: the more restrictive answer of the policy with them and
// without them (on a tie, with them). The gates do this per gate (a gate's
// whole state on each side); this is the same for one query, for the
// tools that ask one.
func (p *Policy) ResolveSides(q Query) Result {
	res := p.Resolve(q)
	if p.without != nil {
		if w := p.without.Resolve(q); w.Action > res.Action {
			return w
		}
	}
	return res
}

func (p *Policy) resolveSet(surface string, values, args []string, session []*Rule, sessionValues []string) Result {
	if p.managedBroken != nil {
		return Result{Action: Deny, Rule: p.managedBroken, Value: values[0]}
	}
	res := p.resolveOwn(surface, values, args, session, sessionValues)
	if p.mcpClamp && res.Action == Allow && surface == "mcp" {
		c := *res.Rule
		c.Action, c.Origin.Scope = Ask, ScopeFailClosed
		res = Result{Action: Ask, Rule: &c, Value: res.Value}
	}
	// The managed file, evaluated on its own, holds its deny and ask over
	// every other answer, session approvals included; its allow loosens
	// nothing.
	if m := p.managed; m != nil && res.Action != Deny {
		if mr := m.resolveOwn(surface, values, args, nil, nil); mr.Action > res.Action && mr.Rule.Layer != LayerFallback {
			res = mr
		}
	}
	return res
}

// resolveOwn is resolveSet on p's own files and the session approvals.
func (p *Policy) resolveOwn(surface string, values, args []string, session []*Rule, sessionValues []string) Result {
	set := p.surfaceSet(surface)
	res := p.resolveFiles(set, surface, values, args)
	// A session approval never overrides a deny from a policy file.
	if res.Action != Deny && len(session) > 0 {
		if s, sv := Evaluate(surface, sessionValues, session); s != nil {
			res = Result{Action: Allow, Rule: s, Value: sv, Session: true}
		}
	}
	return res
}

// resolveFiles decides values (and the unit's words args) on the policy
// files' rules of one surface: the last matching rule, the trust floor,
// the canonical option spelling. It is a function of the policy, the
// surface, values and args alone. It is asked afresh every time: the
// surface's index makes it cheap, and remembering its answers (until
// 2026-12-04) cost a call never seen before more than it saved. The trust
// floor is looked up in the trusted rules' index; its plain twin is a
// scan of every trusted rule, and TestFloorIndexedDecidesAsScan keeps them
// equal.
func (p *Policy) resolveFiles(set *surfaceRules, surface string, values, args []string) Result {
	var r *Rule
	var v string
	at := -1
	if ix := set.ruleIndex(surface); ix != nil {
		at, v = ix.evaluateAt(surface, values, set.rules)
	} else {
		at, v = evaluateOnAt(surface, values, set.rules)
	}
	if at >= 0 {
		r = set.rules[at]
	}
	if r == nil {
		// Unreachable while the fallback exists; fail closed all the same.
		fb := NewRule("*", "*", Ask, LayerFallback, Origin{Scope: ScopeBuiltin}, "")
		r, v = &fb, values[0]
	}
	res := Result{Action: r.Action, Rule: r, Value: v}
	if p.floor && res.Action != Deny {
		// The trusted rules of this surface, indexed once like its own
		// (canonOf): a 10,000-rule policy is not scanned on every call
		// while an untrusted project file is present.
		tr := p.canonOf(surface, set).trusted
		tat, tv := -1, ""
		if tr.plain != nil {
			tat, tv = tr.plain.evaluateAt(surface, values, tr.rules)
		} else {
			tat, tv = evaluateOnAt(surface, values, tr.rules)
		}
		if tat >= 0 && tr.rules[tat].Action == Deny {
			res = Result{Action: Deny, Rule: tr.rules[tat], Value: tv, Floored: true}
		}
	}
	// The canonical spelling can only add restriction.
	if len(args) > 0 && res.Action != Deny {
		if c, ok := p.resolveCanonical(surface, set, values, args, res.Action, at); ok {
			res = c
		}
	}
	return res
}

// commandCache remembers HasCommandRule's answers for the bash surface of
// one policy (a policy is immutable; an edited file is a new policy, with
// new caches): each is a scan of every bash rule. Bounded: past
// maxCachedResults it starts over.
type commandCache struct {
	mu       sync.Mutex
	kept     bool // the surface's rules are kept in the policy (else the cache would be thrown away)
	commands map[string]bool
}

// Bounds of what a policy remembers: its answers, and the length of one
// remembered question (a longer one is answered afresh every time).
const (
	maxCachedResults = 2048
	maxResultKey     = 512
)

// appendResultKey spells values and args unambiguously (each
// length-prefixed) after b.
func appendResultKey(b []byte, values, args []string) []byte {
	for _, v := range values {
		b = strconv.AppendInt(b, int64(len(v)), 10)
		b = append(append(b, ':'), v...)
	}
	b = append(b, '|')
	for _, a := range args {
		b = strconv.AppendInt(b, int64(len(a)), 10)
		b = append(append(b, ':'), a...)
	}
	return b
}

func resultKey(values, args []string) string { return string(appendResultKey(nil, values, args)) }

// HasExplicitPathRule reports whether the path surface has a config rule
// with action a (used to decide whether an unknown path word must ask).
func (p *Policy) HasExplicitPathRule(a Action) bool { return p.explicitPath[a] }

// IsManaged reports whether r is a rule of the managed file: its asks
// offer no session option (a session approval cannot outvote it).
func IsManaged(r *Rule) bool { return r != nil && r.Origin.Scope == ScopeManaged }

// HasNarrowRule reports whether surface has a config rule with action a
// whose pattern is not "*": a rule that may hold for some values and not
// others (used to decide a value that is only known when the tool runs).
func (p *Policy) HasNarrowRule(surface string, a Action) bool {
	if p.managed != nil && p.managed.HasNarrowRule(surface, a) {
		return true
	}
	for _, r := range p.forSurface(surface) {
		if r.Action == a && !r.IsFallback() && r.Pattern != "*" {
			return true
		}
	}
	return false
}

// HasCommandRule reports whether a bash rule of the files (not the
// fallback) with an action more restrictive than above names the command
// whose words are args (args[0] the name): its first word is the name or
// its base name, or a wildcard matching either, and where both read as a
// command with a subcommand (git push), the same one, or the unit's is only
// known at run time. Used when some of the unit's words are only known at
// run time: such a rule could hold for them. Its answers are remembered per
// policy; its plain twin is hasCommandRule, the scan of the bash rules,
// and TestCommandRuleCacheIsPlain keeps them equal.
func (p *Policy) HasCommandRule(args []string, above Action) bool {
	if len(args) == 0 {
		return false
	}
	if p.managed != nil && p.managed.HasCommandRule(args, above) {
		return true
	}
	set := p.surfaceSet("bash")
	if !set.results.kept {
		return p.hasCommandRule(set, args, above)
	}
	// Remembered per policy like resolveFiles's answers: a function of
	// the policy, the words and above alone.
	var buf [256]byte
	key := appendResultKey(append(buf[:0], byte(above)), args, nil)
	if len(key) > maxResultKey {
		return p.hasCommandRule(set, args, above)
	}
	set.results.mu.Lock()
	has, ok := set.results.commands[string(key)]
	set.results.mu.Unlock()
	if ok {
		return has
	}
	has = p.hasCommandRule(set, args, above)
	set.results.mu.Lock()
	defer set.results.mu.Unlock()
	if set.results.commands == nil || len(set.results.commands) >= maxCachedResults {
		set.results.commands = make(map[string]bool)
	}
	set.results.commands[string(key)] = has
	return has
}

func (p *Policy) hasCommandRule(set *surfaceRules, args []string, above Action) bool {
	name := args[0]
	base := path.Base(name)
	unit, unitOK := canonicalize(args, false)
	if unitOK && !openUnit(&unit) {
		return false // every run-time word is the value of an option (docker run -v "$PWD:/app")
	}
	for _, r := range set.rules {
		if r.Action <= above || r.IsFallback() {
			continue
		}
		pat := strings.TrimSpace(r.pattern.expanded)
		if pat == "*" {
			continue // names no command, and matched the unit's text already
		}
		first, _, _ := strings.Cut(pat, " ")
		if first != name && first != base && !(strings.ContainsAny(first, "*?") && (globMatch(first, name) || globMatch(first, base))) {
			continue
		}
		if c := canonRuleOf(r); c != nil && c.sub != "" && unitOK && unit.sub != "" &&
			unit.sub != c.sub && !strings.ContainsAny(unit.sub, "$`") {
			continue // git commit -m "$msg" is no git push
		}
		return true
	}
	return false
}

// openUnit reports whether a word of u only known at run time ($ or `
// at its start, or a glob) stands where an option could: as an operand,
// or in an option's name. The value of an option (-v=$PWD:/app) is no
// option.
func openUnit(u *canonUnit) bool {
	dynamic := func(w string) bool { return strings.HasPrefix(w, "$") || strings.HasPrefix(w, "`") }
	if dynamic(u.sub) {
		return true
	}
	for _, w := range u.operands {
		if dynamic(w) || strings.ContainsAny(w, "*?[") { // a glob may match a name starting with "-"
			return true
		}
	}
	for _, o := range u.opts {
		name, _, _ := strings.Cut(o, "=")
		if strings.ContainsAny(name, "$`") {
			return true
		}
	}
	return false
}

const maxCachedSurfaces = 1024

// surfaceRules are the rules that apply to one surface, in order, with an
// index when they are many.
type surfaceRules struct {
	rules []*Rule
	// indexed is set for a kept list of indexMinRules or more: its index
	// is built at its indexAfterUses-th evaluation (ruleIndex), so that a
	// process that decides once (a hook host's event) scans the list
	// instead of building an index it would use once.
	indexed bool
	uses    atomic.Int32
	build   sync.Once
	index   atomic.Pointer[ruleIndex]
	surfaceCanon
	results commandCache
}

// indexAfterUses is the evaluation of a surface's list that builds its
// index; the ones before it scan the list (which decides the same:
// TestIndexMatchesScan, FuzzIndex, TestLazyIndexDecidesAsScan).
const indexAfterUses = 2

// ruleIndex returns the list's index, building it when it is due; nil
// while the list is scanned.
func (s *surfaceRules) ruleIndex(surface string) *ruleIndex {
	if ix := s.index.Load(); ix != nil || !s.indexed {
		return ix
	}
	if s.uses.Add(1) < indexAfterUses {
		return nil
	}
	return s.ruleIndexNow(surface)
}

// ruleIndexNow returns the list's index, building it now if it is not
// built yet; nil for a list too short for one.
func (s *surfaceRules) ruleIndexNow(surface string) *ruleIndex {
	if !s.indexed {
		return nil
	}
	s.build.Do(func() { s.index.Store(newRuleIndex(s.rules, IsPathSurface(surface))) })
	return s.index.Load()
}

// forSurface returns the rules that apply to surface, in order, cached.
func (p *Policy) forSurface(surface string) []*Rule { return p.surfaceSet(surface).rules }

// SurfaceRules are the policy files' rules of surface in evaluation order
// (the fallback first): what `toolgate explain` lists.
func (p *Policy) SurfaceRules(surface string) []*Rule { return p.forSurface(surface) }

func (p *Policy) surfaceSet(surface string) *surfaceRules {
	common := commonSurface(surface)
	if common >= 0 {
		if set := p.common[common].Load(); set != nil {
			return set
		}
	}
	if v, ok := p.cache.Load(surface); ok {
		set := v.(*surfaceRules)
		if common >= 0 {
			p.common[common].Store(set)
		}
		return set
	}
	set := &surfaceRules{}
	for _, r := range p.head {
		if r.MatchesSurface(surface) {
			set.rules = append(set.rules, r)
		}
	}
	// A group's rules share its surface pattern: the group matches the
	// surface or none of its rules does, and only a group that matches
	// has its rules made.
	n := len(set.rules)
	for i := range p.groups {
		if g := &p.groups[i]; g.surface.Match(surface, false) {
			n += g.m.ruleCount()
		}
	}
	set.rules = slices.Grow(set.rules, n-len(set.rules))
	for i := range p.groups {
		if g := &p.groups[i]; g.surface.Match(surface, false) {
			set.rules = append(set.rules, p.groupRules(g)...)
		}
	}
	if p.cacheSize.Load() < maxCachedSurfaces {
		// Only a list that is kept is worth an index.
		set.indexed = len(set.rules) >= indexMinRules
		set.results.kept = true
		if v, loaded := p.cache.LoadOrStore(surface, set); !loaded {
			p.cacheSize.Add(1)
		} else {
			set = v.(*surfaceRules)
		}
		if common >= 0 {
			p.common[common].Store(set) // the one cache holds
		}
	}
	return set
}

// commonSurfaces are the surfaces nearly every call asks: the tools',
// and the path and directory surfaces of their paths.
var commonSurfaces = [...]string{"bash", "read", "write", "edit", "grep", "find", "ls", "mcp", "path", "external_directory"}

// commonSurface is surface's place in commonSurfaces, -1 for another.
func commonSurface(surface string) int {
	switch surface {
	case "bash":
		return 0
	case "read":
		return 1
	case "write":
		return 2
	case "edit":
		return 3
	case "grep":
		return 4
	case "find":
		return 5
	case "ls":
		return 6
	case "mcp":
		return 7
	case "path":
		return 8
	case "external_directory":
		return 9
	}
	return -1
}

// Matching returns every rule that applies to surface and matches any of
// values, in evaluation order (the last one wins): what `toolgate explain`
// shows.
func (p *Policy) Matching(surface string, values []string) []*Rule {
	ps := IsPathSurface(surface)
	var out []*Rule
	rules := p.forSurface(surface)
	if p.managed != nil {
		// The managed rules are evaluated on their own, after the others.
		rules = append(slices.Clip(rules), p.managed.forSurface(surface)[1:]...)
	}
	for _, r := range rules {
		for _, v := range values {
			if r.MatchesValue(v, ps) {
				out = append(out, r)
				break
			}
		}
	}
	return out
}
