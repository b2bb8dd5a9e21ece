package policy

import (
	"strings"
	"sync"
)

// The canonical pass of a bash unit (SPEC §4, option identity): besides its
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

// canonIndex holds the canonical forms of one list of rules (one surface),
// filed by command words.
type canonIndex struct {
	forms []*canonRule // by position; nil for a rule that cannot be read
	byCmd map[cmdKey][]int32
	pos   map[*Rule]int32
}

// canonSet is what the canonical pass needs for one surface: the forms of
// its rules and, when the trust floor applies, of the trusted rules.
type canonSet struct {
	files        *canonIndex
	trusted      *canonIndex
	trustedRules []*Rule
}

// canonRuleOf reads a rule pattern as a command; nil when it cannot be.
func canonRuleOf(r *Rule) *canonRule {
	if r.Exact || r.Layer == LayerFallback {
		return nil
	}
	words := strings.Fields(r.pattern.expanded)
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

func newCanonIndex(rules []*Rule) *canonIndex {
	ix := &canonIndex{forms: make([]*canonRule, len(rules)), byCmd: map[cmdKey][]int32{}, pos: make(map[*Rule]int32, len(rules))}
	for i, r := range rules {
		ix.pos[r] = int32(i)
		if c := canonRuleOf(r); c != nil {
			ix.forms[i] = c
			k := cmdKey{c.name, c.sub}
			ix.byCmd[k] = append(ix.byCmd[k], int32(i))
		}
	}
	return ix
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
		list := ix.byCmd[cmdKey{name, u.sub}]
		for i := len(list) - 1; i >= 0 && list[i] > best; i-- {
			if ix.forms[list[i]].matches(u, operands) {
				best = list[i]
				break
			}
		}
	}
	return best
}

// winner is the canonical result over rules: the later of the last rule
// matching the unit by its form and plain, the last rule matching its text
// (a rule that cannot be read is only matched plainly). plain may be nil.
func winner(ix *canonIndex, rules []*Rule, plain *Rule, u *canonUnit, operands string) *Rule {
	best := ix.last(u, operands)
	if plain != nil {
		if pos, ok := ix.pos[plain]; ok && pos > best {
			return plain
		}
	}
	if best < 0 {
		return nil
	}
	return rules[best]
}

// canonOf builds the canonical pass's data for set once.
func (p *Policy) canonOf(surface string, set *surfaceRules) *canonSet {
	set.canonOnce.Do(func() {
		cs := &canonSet{files: newCanonIndex(set.rules)}
		if p.floor {
			for _, r := range p.trusted {
				if r.MatchesSurface(surface) {
					cs.trustedRules = append(cs.trustedRules, r)
				}
			}
			cs.trusted = newCanonIndex(cs.trustedRules)
		}
		set.canon = cs
	})
	return set.canon
}

// resolveCanonical is the canonical result for the unit with words args,
// the trust floor applied, when it is more restrictive than than (the
// plain result); plain and trustedPlain are the last rules of the files
// and of the trusted scopes matching the unit's text.
func (p *Policy) resolveCanonical(surface string, set *surfaceRules, args []string, than Action, plain, trustedPlain *Rule) (Result, bool) {
	cs := p.canonOf(surface, set)
	if len(cs.files.byCmd) == 0 && (cs.trusted == nil || len(cs.trusted.byCmd) == 0) {
		return Result{}, false // no rule can be read as a command
	}
	u, ok := canonicalize(args, false)
	if !ok {
		return Result{}, false
	}
	operands := strings.Join(u.operands, " ")
	r := winner(cs.files, set.rules, plain, &u, operands)
	if r == nil {
		return Result{}, false
	}
	res := Result{Action: r.Action, Rule: r, Canonical: true}
	if p.floor && res.Action != Deny {
		if t := winner(cs.trusted, cs.trustedRules, trustedPlain, &u, operands); t != nil && t.Action == Deny {
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
