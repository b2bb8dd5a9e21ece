package policy

import (
	"path"
	"strings"
	"sync"
	"sync/atomic"
)

// The canonical pass of a bash unit (option identity): besides its
// text, a unit is matched in its canonical option spelling. A rule matches
// it there when the rule, read as a command the same way, names the same
// command words, has no option the unit lacks (extra options do not escape
// a rule) and its operand pattern matches the unit's operands; a rule
// whose structure cannot be read (a wildcard in its command or option
// words) is only matched plainly, on the unit's text. The last rule that
// matches either way is the canonical result, and the caller keeps it
// only when it is more restrictive than the plain one: it can only add
// restriction.

// ruleOpt is one option of a rule's canonical form.
type ruleOpt struct {
	name, val string
	hasVal    bool
	wild      bool // val holds a wildcard
}

// canonRule is a rule pattern read as a command.
type canonRule struct {
	name, sub string
	opts      []ruleOpt
	operands  Pattern
}

type cmdKey struct{ name, sub string }

// canonIndex holds the canonical forms of one list of rules (one surface).
// With a plain index the forms are read per command name on first use,
// from the rules that index files under that first word (no other rule
// can be read as that command): a call pays only for the commands it
// names, not for every rule of a 10,000-rule policy.
//
// A list whose plain index is not built yet (surfaceRules.ruleIndex: a
// one-shot process may never build it) reads the same rules for a name
// from the list itself (filedUnderWord) until the index exists (lazy).
// Its plain twin is every form read at once (all, as without a plain
// index); TestCanonGroupsAreAllForms keeps them equal.
// TestLazyIndexDecidesAsScan keeps that lazy route equal to the index
// built first, and TestFiledUnderWordMatchesIndex keeps filedUnderWord
// equal to what the index files.
type canonIndex struct {
	rules       []*Rule
	plain       *ruleIndex
	lazy        *atomic.Pointer[ruleIndex]
	pathSurface bool
	all         *canonGroup // every form, when there is no plain index
	groups      sync.Map    // command name → *canonGroup
}

// canonGroup is the forms of some rules, by command words, in rule order.
type canonGroup struct {
	byCmd map[cmdKey][]canonEntry
}

type canonEntry struct {
	pos  int32
	form *canonRule
}

func newCanonGroup(rules []*Rule, positions []int32, name string) *canonGroup {
	g := &canonGroup{byCmd: map[cmdKey][]canonEntry{}}
	add := func(i int32) {
		if c := canonRuleOf(rules[i]); c != nil && (name == "" || c.name == name) {
			k := cmdKey{c.name, c.sub}
			g.byCmd[k] = append(g.byCmd[k], canonEntry{i, c})
		}
	}
	if positions == nil {
		for i := range rules {
			add(int32(i))
		}
	}
	for _, i := range positions {
		add(i)
	}
	return g
}

func newCanonIndex(rules []*Rule, plain *ruleIndex) *canonIndex {
	ix := &canonIndex{rules: rules, plain: plain}
	if plain == nil {
		ix.all = newCanonGroup(rules, nil, "")
	}
	return ix
}

// group returns the forms of the rules for command name (nil for none).
func (ix *canonIndex) group(name string) *canonGroup {
	if ix.all != nil {
		return ix.all
	}
	if g, ok := ix.groups.Load(name); ok {
		return g.(*canonGroup)
	}
	plain := ix.plain
	if plain == nil && ix.lazy != nil {
		plain = ix.lazy.Load()
	}
	var positions []int32
	if plain != nil {
		positions = plain.word(name)
	} else {
		positions = filedUnderWord(ix.rules, name, ix.pathSurface)
	}
	if len(positions) == 0 {
		return nil // names the policy does not file are not kept
	}
	g, _ := ix.groups.LoadOrStore(name, newCanonGroup(ix.rules, positions, name))
	return g.(*canonGroup)
}

// canonRuleOf reads a rule pattern as a command; nil when it cannot be.
func canonRuleOf(r *Rule) *canonRule {
	if r.Exact || r.Layer == LayerFallback {
		return nil
	}
	// Words split on single spaces, as the plain index splits the first
	// word, and as a unit's text is joined.
	words := strings.FieldsFunc(r.pattern.expanded, func(c rune) bool { return c == ' ' })
	if n := len(words); n > 1 {
		// A last word "-rf*" or "--force*" is those options and then
		// anything (the plain reading: "rm -r*" is meant for rm -rf x), so
		// rm -fr x and rm -R x are held by it too.
		if opt, ok := strings.CutSuffix(words[n-1], "*"); ok && len(opt) > 1 && opt[0] == '-' && !hasWild(opt) && isOptWord(opt) {
			words = append(words[:n-1:n-1], opt, "*")
		}
	}
	p, ok := parseWords(words, true)
	if !ok {
		return nil
	}
	u := p.u
	if words[len(words)-1] == "*" && (len(u.operands) == 0 || u.operands[len(u.operands)-1] != "*") {
		// A trailing "*" taken as an option's value ("curl -o *") or left
		// out of a find expression is also the rest, as in the plain
		// reading.
		u.operands = append(u.operands, "*")
	}
	c := &canonRule{name: u.name, sub: u.sub, operands: CompilePattern(strings.Join(u.operands, " "), "")}
	for _, o := range u.opts {
		name, val, hasVal := strings.Cut(o, "=")
		c.opts = append(c.opts, ruleOpt{name: name, val: val, hasVal: hasVal, wild: hasWild(val)})
	}
	return c
}

// isOptWord reports whether w is "-letters" or "--name": an option
// spelling with nothing glued that could be a value.
func isOptWord(w string) bool {
	name := strings.TrimPrefix(strings.TrimPrefix(w, "-"), "-")
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '-' && i > 0 && w[1] == '-') {
			return false
		}
	}
	return true
}

// matches reports whether c matches the unit u (whose operands, joined,
// are operands).
func (c *canonRule) matches(u *canonUnit, operands string) bool {
	for _, ro := range c.opts {
		if !u.hasOpt(ro) {
			return false
		}
	}
	return c.operands.Match(operands, false)
}

// hasOpt reports whether u has the option ro: the same name, and the same
// value when ro has one (a wildcard value matches as a pattern).
func (u *canonUnit) hasOpt(ro ruleOpt) bool {
	for _, o := range u.opts {
		if !strings.HasPrefix(o, ro.name) {
			continue
		}
		rest := o[len(ro.name):]
		switch {
		case rest == "":
			if !ro.hasVal {
				return true
			}
		case rest[0] == '=':
			if !ro.hasVal || (ro.wild && globMatch(ro.val, rest[1:])) || rest[1:] == ro.val {
				return true
			}
		}
	}
	return false
}

// last returns the position of the last rule of ix that matches u by its
// form, or -1.
func (ix *canonIndex) last(u *canonUnit, operands string) int32 {
	best := int32(-1)
	for k, name := range [2]string{u.name, u.base} {
		if k == 1 && name == "" {
			break
		}
		g := ix.group(name)
		if g == nil {
			continue
		}
		list := g.byCmd[cmdKey{name, u.sub}]
		for i := len(list) - 1; i >= 0 && list[i].pos > best; i-- {
			if list[i].form.matches(u, operands) {
				best = list[i].pos
				break
			}
		}
	}
	return best
}

// winner is the canonical result over ix's rules: the later of the last
// rule matching the unit by its form and the last rule matching its text
// plainly (at, -1 for none; a rule that cannot be read is only matched
// plainly).
func winner(ix *canonIndex, at int, u *canonUnit, operands string) *Rule {
	best := max(ix.last(u, operands), int32(at))
	if best < 0 {
		return nil
	}
	return ix.rules[best]
}

// canonOf builds the canonical pass's data for set once.
func (p *Policy) canonOf(surface string, set *surfaceRules) *canonSet {
	set.canonOnce.Do(func() {
		var files *canonIndex
		if plain := set.index.Load(); plain == nil && set.indexed {
			files = &canonIndex{rules: set.rules, lazy: &set.index, pathSurface: IsPathSurface(surface)}
		} else {
			files = newCanonIndex(set.rules, plain)
		}
		cs := &canonSet{files: files}
		if p.floor {
			var rules []*Rule
			for _, r := range p.trustedRules() {
				if r.MatchesSurface(surface) {
					rules = append(rules, r)
				}
			}
			var ix *ruleIndex
			if len(rules) >= indexMinRules {
				ix = newRuleIndex(rules, IsPathSurface(surface))
			}
			cs.trusted = newCanonIndex(rules, ix)
		}
		set.canon = cs
	})
	return set.canon
}

// resolveCanonical is the canonical result for the unit with words args
// and text values, the trust floor applied, when it is more restrictive
// than than (the plain result); at is the position of the last rule
// matching the text plainly.
func (p *Policy) resolveCanonical(surface string, set *surfaceRules, values, args []string, than Action, at int) (Result, bool) {
	cs := p.canonOf(surface, set)
	if !cs.files.names(args[0]) && (cs.trusted == nil || !cs.trusted.names(args[0])) {
		return Result{}, false // no rule can be read as this command
	}
	u, ok := canonicalize(args, false)
	if !ok {
		return Result{}, false
	}
	operands := strings.Join(u.operands, " ")
	r := winner(cs.files, at, &u, operands)
	if r == nil {
		return Result{}, false
	}
	res := Result{Action: r.Action, Rule: r, Canonical: true}
	if p.floor && res.Action != Deny {
		tr := cs.trusted
		tat := -1
		if tr.plain != nil {
			tat, _ = tr.plain.evaluateAt(surface, values, tr.rules)
		} else {
			tat, _ = evaluateOnAt(surface, values, tr.rules)
		}
		if t := winner(tr, tat, &u, operands); t != nil && t.Action == Deny {
			res = Result{Action: Deny, Rule: t, Floored: true, Canonical: true}
		}
	}
	if res.Action <= than {
		return Result{}, false
	}
	res.Value = u.text()
	return res, true
}

// surfaceCanon is embedded in surfaceRules: the canonical forms, built on
// first use.
type surfaceCanon struct {
	canonOnce sync.Once
	canon     *canonSet
}

// canonSet is what the canonical pass needs for one surface: the forms of
// its rules and, when the trust floor applies, of the trusted rules.
type canonSet struct {
	files   *canonIndex
	trusted *canonIndex
}

// names reports whether some rule of ix may be read as the command name
// (as written or by its base name).
func (ix *canonIndex) names(name string) bool {
	if ix.all != nil {
		return len(ix.all.byCmd) > 0
	}
	if ix.group(name) != nil {
		return true
	}
	if strings.Contains(name, "/") {
		return ix.group(path.Base(name)) != nil
	}
	return false
}
