package author

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/toolgate/toolgate/gates"
	"github.com/toolgate/toolgate/gates/shell"
	"github.com/toolgate/toolgate/hook"
	"github.com/toolgate/toolgate/policy"
	"github.com/toolgate/toolgate/protocol"
)

// Suggestion is an allow rule that would have spared repeated prompts.
type Suggestion struct {
	Surface string `json:"surface"`
	Pattern string `json:"pattern"`
	// Calls counts the approved calls it covers.
	Calls int `json:"calls"`
	// Examples are some of the approved values it covers.
	Examples []string `json:"examples"`
}

// NotSuggested is an approved value no rule is suggested for, and why.
type NotSuggested struct {
	Surface string `json:"surface"`
	Value   string `json:"value"`
	Why     string `json:"why"`
	Calls   int    `json:"calls"`
}

// SuggestReport is what toolgate suggest found in an audit log.
type SuggestReport struct {
	Suggestions  []Suggestion   `json:"suggestions"`
	NotSuggested []NotSuggested `json:"notSuggested"`
	// Approved counts the calls with a prompt answered "allow"; Spared
	// those of them the suggestions allow today (decided again with them).
	Approved int `json:"approved"`
	Spared   int `json:"spared"`
}

// candidate is one pattern an approval would suggest, with the literal
// value to fall back to when the pattern reaches further than is safe.
type candidate struct {
	surface, pattern string
	exact            string // "" when there is no literal fallback
	value            string // what the person saw approved
	whole            bool   // an extension tool approved as a whole: its pattern is what was approved
	pol              *policy.Policy
	cwd              string
}

// withinApproval reports whether c's pattern allows no more than what was
// approved: the value itself, or (a bash unit) the same words followed by
// more arguments — "git status *" for "git status", never "make *" for
// "make build", nor a folder for a file.
func (c candidate) withinApproval() bool {
	return c.whole || c.pattern == c.exact ||
		c.surface == "bash" && c.exact != "" && c.pattern == c.exact+" *"
}

func (c candidate) key() string { return c.surface + "\x00" + c.pattern }

type tally struct {
	Suggestion
	calls map[int]bool
}

// SuggestOptions are what Suggest is asked for.
type SuggestOptions struct {
	// Min is the number of approvals a rule needs.
	Min int
	// Project, when the suggestions are for a project's policy file, is
	// the project's root: paths are suggested relative to it (a project
	// file is shared, an absolute path is one machine's), and a path
	// outside it is not suggested.
	Project string
}

// Suggest learns allow rules from the prompts of recs that the person
// answered "allow" at least min times. Patterns are those "allow
// for this session" offers, never broader: a pattern that would
// also reach a deny or a narrower ask of today's policy, or a call the
// person refused, falls back to the exact value (or is dropped); floored
// units (wrappers, inline scripts, dynamic commands) and values with a
// literal * or ? are never suggested.
func Suggest(opts hook.Options, recs []Recorded, so SuggestOptions) (SuggestReport, error) {
	min := so.Min
	if min < 1 {
		min = 1
	}
	rep := SuggestReport{Suggestions: []Suggestion{}, NotSuggested: []NotSuggested{}}
	dr := hook.NewDryRun(opts)
	notes := map[string]*NotSuggested{}
	note := func(surface, value, why string) {
		k := surface + "\x00" + value + "\x00" + why
		if n, ok := notes[k]; ok {
			n.Calls++
			return
		}
		notes[k] = &NotSuggested{Surface: surface, Value: value, Why: why, Calls: 1}
	}
	var approvedCalls, refusedCalls []Recorded
	perCall := map[int][]candidate{}
	refusedKeys := map[string]bool{}
	var refusedValues []candidate // the literal values of refused asks
	for i, r := range recs {
		if !r.Decidable {
			continue
		}
		approved, refused := map[string]bool{}, map[string]bool{}
		for _, a := range r.Answers {
			if a.Approved() {
				approved[a.Gate] = true
			} else {
				refused[a.Gate] = true
			}
		}
		if len(approved) == 0 && len(refused) == 0 {
			continue
		}
		cands, skipped, err := candidates(dr, opts, r)
		if err != nil {
			continue // cannot be decided again: nothing to learn from it
		}
		if len(approved) > 0 {
			rep.Approved++
			approvedCalls = append(approvedCalls, r)
		}
		if len(refused) > 0 {
			refusedCalls = append(refusedCalls, r)
		}
		for gate := range mergeKeys(cands, skipped) {
			switch {
			case refused[gate]:
				for _, c := range cands[gate] {
					refusedKeys[c.key()] = true
					if c.exact != "" {
						refusedKeys[c.surface+"\x00"+c.exact] = true
						refusedValues = append(refusedValues, c)
					}
				}
			case approved[gate]:
				perCall[i] = append(perCall[i], cands[gate]...)
				for _, n := range skipped[gate] {
					note(n.Surface, n.Value, n.Why)
				}
			}
		}
	}
	tallies := map[string]*tally{}
	var order []string
	for i, r := range recs {
		for _, c := range perCall[i] {
			pattern := c.pattern
			if !c.withinApproval() {
				if c.exact == "" {
					note(c.surface, c.value, fmt.Sprintf("not suggested: %q, the pattern its prompt offers, allows more than was approved, and it has no literal form", c.pattern))
					continue
				}
				pattern = c.exact
			}
			why := conflict(c, pattern)
			if why == "" && (refusedKeys[c.surface+"\x00"+pattern] || matchesRefused(c, pattern, refusedValues)) {
				why = "the person refused a call it matches"
			}
			if why != "" {
				if c.exact == "" || c.exact == pattern {
					note(c.surface, c.value, "not suggested: "+why)
					continue
				}
				pattern = c.exact
				if w := conflict(c, pattern); w != "" || refusedKeys[c.surface+"\x00"+pattern] {
					if w == "" {
						w = "the person refused it"
					}
					note(c.surface, c.value, "not suggested: "+w)
					continue
				}
			}
			if so.Project != "" && policy.IsPathSurface(c.surface) {
				rel, ok := projectRelative(pattern, so.Project, opts.Home)
				if !ok {
					note(c.surface, c.value, fmt.Sprintf("not suggested: %q lies outside the project, and a project file holds no absolute path", pattern))
					continue
				}
				pattern = rel
			}
			k := c.surface + "\x00" + pattern
			t, ok := tallies[k]
			if !ok {
				t = &tally{Suggestion: Suggestion{Surface: c.surface, Pattern: pattern, Examples: []string{}}, calls: map[int]bool{}}
				tallies[k] = t
				order = append(order, k)
			}
			if !t.calls[r.Line] {
				t.calls[r.Line] = true
				if len(t.Examples) < 3 && !contains(t.Examples, c.value) {
					t.Examples = append(t.Examples, c.value)
				}
			}
		}
	}
	// A pattern that another suggested pattern covers adds its approvals to
	// that one ("git status*" for "git status" covers "git status *" for
	// "git status --short").
	merged := map[string]bool{}
	for _, kb := range order {
		b := tallies[kb]
		for _, ka := range order {
			a := tallies[ka]
			if ka == kb || merged[ka] || a.Surface != b.Surface || !policy.Covers(a.Pattern, b.Pattern) {
				continue
			}
			for line := range b.calls {
				a.calls[line] = true
			}
			for _, e := range b.Examples {
				if len(a.Examples) < 3 && !contains(a.Examples, e) {
					a.Examples = append(a.Examples, e)
				}
			}
			merged[kb] = true
			break
		}
	}
	for _, k := range order {
		t := tallies[k]
		if merged[k] {
			continue
		}
		t.Calls = len(t.calls)
		if t.Calls >= min {
			rep.Suggestions = append(rep.Suggestions, t.Suggestion)
		} else {
			for _, e := range t.Examples {
				note(t.Surface, e, fmt.Sprintf("approved %d time(s), fewer than %d", t.Calls, min))
			}
		}
	}
	for _, n := range notes {
		rep.NotSuggested = append(rep.NotSuggested, *n)
	}
	sort.Slice(rep.NotSuggested, func(i, j int) bool {
		a, b := rep.NotSuggested[i], rep.NotSuggested[j]
		if a.Surface != b.Surface {
			return a.Surface < b.Surface
		}
		return a.Value < b.Value
	})
	if len(rep.Suggestions) == 0 {
		return rep, nil
	}
	// Decide every call again with the suggestions added: how many prompts
	// they spare, and — the last guard — that no refused call would now run.
	spared, unrefused, err := simulate(opts, rep.Suggestions, approvedCalls, refusedCalls)
	if err != nil {
		return rep, err
	}
	if len(unrefused) > 0 {
		for _, r := range unrefused {
			note := NotSuggested{Surface: r.ToolName, Value: string(r.Input), Calls: 1,
				Why: fmt.Sprintf("every suggestion withheld: together they would allow this call, which the person refused (audit line %d)", r.Line)}
			rep.NotSuggested = append(rep.NotSuggested, note)
		}
		rep.Suggestions = []Suggestion{}
		return rep, nil
	}
	rep.Spared = spared
	return rep, nil
}

// matchesRefused reports whether pattern, as a rule on c's surface, would
// match the value of an ask the person refused.
func matchesRefused(c candidate, pattern string, refused []candidate) bool {
	p := policy.CompilePattern(pattern, c.pol.Home())
	for _, r := range refused {
		if r.surface == c.surface && p.Match(r.exact, policy.IsPathSurface(c.surface)) {
			return true
		}
	}
	return false
}

func mergeKeys(a map[string][]candidate, b map[string][]NotSuggested) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// candidates decides a recorded call again and returns, per gate that
// asks today, the patterns its approval suggests and the values that
// cannot become a rule.
func candidates(dr *hook.DryRun, opts hook.Options, r Recorded) (map[string][]candidate, map[string][]NotSuggested, error) {
	if r.Cwd == "" {
		r.Cwd = opts.Cwd
	}
	pc, err := dr.Read(r.ToolName, r.Input, r.Cwd, r.AgentName)
	if err != nil {
		return nil, nil, err
	}
	call, res := pc.Call, pc.Resolver
	outcomes, _, err := gates.Evaluate(gates.Request{Call: call, Gates: gates.ToolGates, Resolver: res})
	if err != nil {
		return nil, nil, err
	}
	cands := map[string][]candidate{}
	skipped := map[string][]NotSuggested{}
	add := func(gate string, c candidate) {
		c.pol, c.cwd = pc.Policy, r.Cwd
		if strings.ContainsAny(c.pattern, "*?") && c.pattern == c.exact {
			skipped[gate] = append(skipped[gate], NotSuggested{Surface: c.surface, Value: c.value,
				Why: "not suggested: it contains a literal * or ?, which a policy pattern would read as a wildcard"})
			return
		}
		if strings.ContainsAny(c.exact, "*?") {
			c.exact = ""
		}
		cands[gate] = append(cands[gate], c)
	}
	for _, o := range outcomes {
		if o.Kind != gates.Checked || o.D.State != policy.Ask {
			continue
		}
		if o.Gate == protocol.GateTool && call.Shell != nil && !call.Shell.Analysis.Unparseable && len(call.Shell.Analysis.Units) > 0 {
			units := gates.ShellUnits(call, res)
			floored := false
			for _, u := range units {
				floored = floored || u.Unit.Floor != ""
			}
			for _, u := range units {
				if u.State != policy.Ask {
					continue
				}
				if floored && (u.Unit.Context == shell.CtxWrapped || u.Unit.Context == shell.CtxPayload) {
					// It only ran under a wrapper or in an inline script
					// that is always asked: allowing it alone would allow
					// what the person never approved, and spare nothing.
					continue
				}
				if u.Unit.Floor != "" {
					skipped[o.Gate] = append(skipped[o.Gate], NotSuggested{Surface: "bash", Value: u.Unit.Text,
						Why: fmt.Sprintf("not suggested: toolgate always asks for it (%s); no policy rule can allow it", u.Unit.Floor)})
					continue
				}
				add(o.Gate, candidate{surface: "bash", pattern: u.Pattern.Pattern, exact: u.Unit.Text, value: u.Unit.Text})
			}
			continue
		}
		if o.D.Sentinel != "" {
			skipped[o.Gate] = append(skipped[o.Gate], NotSuggested{Surface: o.D.Surface, Value: o.D.Value,
				Why: fmt.Sprintf("not suggested: toolgate always asks for it (%s); no policy rule can allow it", o.D.Sentinel)})
			continue
		}
		if len(o.D.SessionPatterns) == 0 {
			skipped[o.Gate] = append(skipped[o.Gate], NotSuggested{Surface: o.D.Surface, Value: o.D.Value,
				Why: "not suggested: its prompt offers no session approval (skills)"})
			continue
		}
		for _, sp := range o.D.SessionPatterns {
			c := candidate{surface: sp.Surface, pattern: sp.Pattern, value: o.D.Value}
			switch {
			case sp.Exact && sp.Pattern == "*" && o.D.Value == sp.Surface:
				// An extension tool is approved as a whole: its value is
				// always "*", and so is its rule.
				c.whole = true
			case sp.Exact:
				c.exact = sp.Pattern
			case sp.Surface == "mcp":
				c.exact = o.D.Value
			case policy.IsPathSurface(sp.Surface) && len(o.D.SessionPatterns) == 1 && o.Gate != protocol.GateBashExternalDirectory:
				// The path as spelled, absolute: what the person saw.
				c.exact = spelledAbs(o.D.Value, r.Cwd, opts.Home)
			}
			add(o.Gate, c)
		}
	}
	return cands, skipped, nil
}

// conflict says why an allow of pattern at the end of c's surface would
// reach further than the approvals: it could also decide a value that a
// deny, or an ask narrower than the pattern, of today's policy decides.
// "" when it is safe.
func conflict(c candidate, pattern string) string {
	home := c.pol.Home()
	literal := !strings.ContainsAny(pattern, "*?")
	pathSurface := policy.IsPathSurface(c.surface)
	for _, r := range c.pol.Rules() {
		if r.Layer != policy.LayerConfig || r.Action == policy.Allow || !r.MatchesSurface(c.surface) {
			continue
		}
		if r.Action == policy.Ask && policy.Covers(r.Pattern, pattern) && (c.surface != "mcp" || r.Pattern == "*") {
			continue // the ask the approvals answered
		}
		var meets bool
		switch {
		case literal && pathSurface:
			meets = literalPathMeets(r, policy.ExpandHome(pattern, home))
		case literal && c.surface != "mcp":
			meets = r.MatchesValue(policy.ExpandHome(pattern, home), false)
		case literal:
			meets = r.MatchesValue(pattern, false)
		default:
			meets = mayMeet(c.surface, policy.ExpandHome(pattern, home), policy.ExpandHome(r.Pattern, home))
		}
		if meets {
			return fmt.Sprintf("it would also allow what the %s rule %q (%s:%d) decides", r.Action, r.Pattern, r.Origin.Path, r.Origin.Line)
		}
	}
	return ""
}

// literalPathMeets reports whether rule r could match a form of the
// absolute path p in some session: p itself, or a relative spelling of it —
// a tail of its components after some number of "../" (a relative form
// depends on the session's cwd and on how the path is typed).
func literalPathMeets(r *policy.Rule, p string) bool {
	if r.MatchesValue(p, true) {
		return true
	}
	parts := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i := range parts {
		tail := strings.Join(parts[i:], "/")
		for up := 0; up <= len(parts); up++ {
			if r.MatchesValue(strings.Repeat("../", up)+tail, true) {
				return true
			}
		}
	}
	return false
}

// projectRelative is an absolute path pattern (a literal path, or a folder
// and "/*") relative to the project root, and false when it is not inside
// it. A relative rule matches the path relative to a session's working
// directory, which for a project's file is the project's root.
func projectRelative(pattern, root, home string) (string, bool) {
	p := policy.ExpandHome(pattern, home)
	if !filepath.IsAbs(p) {
		return pattern, true
	}
	rel, err := filepath.Rel(root, strings.TrimSuffix(p, "/*"))
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", false
	}
	if strings.HasSuffix(p, "/*") {
		rel += "/*"
	}
	return rel, true
}

// spelledAbs is a path value as spelled, made absolute against cwd.
func spelledAbs(value, cwd, home string) string {
	v := policy.ExpandHome(value, home)
	if !filepath.IsAbs(v) {
		v = filepath.Join(cwd, v)
	}
	return filepath.Clean(v)
}

// mayMeet reports, conservatively, whether some value matches both the
// wildcard pattern p (a literal prefix and a trailing *) and rule pattern
// r on surface.
func mayMeet(surface, p, r string) bool {
	lp, rp := policy.LiteralPrefix(p), policy.LiteralPrefix(r)
	switch {
	case surface == "mcp" || surface != "bash" && !policy.IsPathSurface(surface):
		// Other surfaces match several forms of a value (MCP candidates)
		// or a bare "*": any rule that is not the one answered may meet.
		return true
	case surface == "bash":
		// Options match wherever they stand (option identity):
		// compare only the words before the first option.
		return policy.PrefixesMeet(beforeOptions(lp), beforeOptions(rp))
	}
	if policy.PrefixesMeet(lp, rp) {
		return true
	}
	// A relative rule matches the cwd-relative form of a path, and the
	// session's cwd may be any folder under the pattern's prefix: it may
	// meet whatever p matches.
	return !filepath.IsAbs(rp)
}

// beforeOptions cuts a command prefix at its first word that starts with
// "-".
func beforeOptions(prefix string) string {
	words := strings.Split(prefix, " ")
	for i, w := range words {
		if strings.HasPrefix(w, "-") {
			return strings.Join(words[:i], " ")
		}
	}
	return prefix
}

// simulate decides the calls again with the suggestions added as a last
// policy file and returns how many approved calls are allowed and which
// refused calls would be.
func simulate(opts hook.Options, sugs []Suggestion, approved, refused []Recorded) (int, []Recorded, error) {
	perm := map[string]map[string]string{}
	var surfaces []string
	for _, sg := range sugs {
		if perm[sg.Surface] == nil {
			perm[sg.Surface] = map[string]string{}
			surfaces = append(surfaces, sg.Surface)
		}
		perm[sg.Surface][sg.Pattern] = "allow"
	}
	// Key order is meaning, and Go maps have none: write the JSON by hand.
	var b strings.Builder
	b.WriteString(`{"permission": {`)
	for i, sf := range surfaces {
		if i > 0 {
			b.WriteString(",")
		}
		k, _ := json.Marshal(sf)
		b.Write(k)
		b.WriteString(": {")
		first := true
		for _, sg := range sugs {
			if sg.Surface != sf {
				continue
			}
			if !first {
				b.WriteString(",")
			}
			first = false
			p, _ := json.Marshal(sg.Pattern)
			b.Write(p)
			b.WriteString(`: "allow"`)
		}
		b.WriteString("}")
	}
	b.WriteString("}}\n")
	dir, err := os.MkdirTemp("", "toolgate-suggest-")
	if err != nil {
		return 0, nil, err
	}
	defer os.RemoveAll(dir)
	extra := filepath.Join(dir, "suggested.json")
	if err := os.WriteFile(extra, []byte(b.String()), 0o600); err != nil {
		return 0, nil, err
	}
	o := opts
	o.ConfigFiles = append(append([]string(nil), opts.ConfigFiles...), extra)
	cr := NewCaseRunner(o)
	spared := 0
	for _, r := range approved {
		if ex, err := cr.Decide(r.ToolName, r.Input, r.Cwd, r.AgentName); err == nil && ex.State == "allow" {
			spared++
		}
	}
	var unrefused []Recorded
	base := NewCaseRunner(opts)
	for _, r := range refused {
		if ex, err := base.Decide(r.ToolName, r.Input, r.Cwd, r.AgentName); err != nil || ex.State == "allow" {
			continue // allowed already without the suggestions
		}
		if ex, err := cr.Decide(r.ToolName, r.Input, r.Cwd, r.AgentName); err != nil || ex.State == "allow" {
			unrefused = append(unrefused, r)
		}
	}
	return spared, unrefused, nil
}
