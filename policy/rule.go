package policy

// Scopes a rule can come from (docs/protocol.md origin.scope).
const (
	ScopeBuiltin      = "builtin"
	ScopeGlobal       = "global"
	ScopeProject      = "project"
	ScopeAgent        = "agent"
	ScopeProjectAgent = "project-agent"
	ScopeSession      = "session"
	ScopeBaseline     = "baseline"
	ScopeYolo         = "yolo"
	ScopeFailClosed   = "fail-closed"
	// ScopeManaged is an organization's file (/etc/toolgate/managed.json):
	// evaluated on its own, its deny and ask hold over every other scope.
	ScopeManaged = "managed"
	// scopeNote is a ScopeFile that is no file, only a warning to report.
	scopeNote = "note"
)

// Layer says what kind of rule it is; the fallback and baseline layers are
// synthesized, config rules come from files, session rules from answers.
type Layer int

const (
	LayerFallback Layer = iota + 1
	LayerBaseline
	LayerConfig
	LayerSession
)

// Origin records who set a rule: scope, file and line.
type Origin struct {
	Scope string
	Path  string
	Line  int
}

// Rule is one policy rule. Surface and Pattern are wildcards.
type Rule struct {
	Surface string
	Pattern string
	Action  Action
	Reason  string
	Layer   Layer
	Origin  Origin
	// Trusted is true for rules from the global, --config and agent scopes:
	// their denies form the trust floor.
	Trusted bool
	// Exact rules match their pattern and surface literally (no wildcards):
	// a session approval of a tool named "a*" covers that tool only.
	Exact bool

	surface *Pattern // configRules shares one among the rules of a surface
	pattern matcher  // of Pattern
}

// NewRule compiles a rule. home expands "~" and "$HOME" in its patterns.
func NewRule(surface, pattern string, action Action, layer Layer, origin Origin, home string) Rule {
	r := Rule{Surface: surface, Pattern: pattern, Action: action, Layer: layer, Origin: origin}
	r.compile(home)
	return r
}

func (r *Rule) compile(home string) {
	sp := CompilePattern(r.Surface, home)
	if r.Exact {
		sp = CompileExact(r.Surface)
	}
	r.surface = &sp
	if r.Exact {
		r.pattern = CompileExact(r.Pattern).matcher
	} else {
		r.pattern = CompilePattern(r.Pattern, home).matcher
	}
}

// IsFallback reports whether r is the synthesized top-level "*" rule.
func (r *Rule) IsFallback() bool { return r.Layer == LayerFallback }

// MatchesSurface reports whether the rule applies to surface.
func (r *Rule) MatchesSurface(surface string) bool {
	return r.surface != nil && r.surface.Match(surface, false)
}

// MatchesValue reports whether the rule's pattern matches value.
func (r *Rule) MatchesValue(value string, pathSurface bool) bool {
	return r.pattern.Match(value, pathSurface)
}

// PathSurfaces are the surfaces whose values are paths: on them a pattern
// ending in "/*" also matches the directory itself.
var pathSurfaces = map[string]bool{
	"path": true, "external_directory": true, "read": true, "write": true,
	"edit": true, "grep": true, "find": true, "ls": true,
}

// IsPathSurface reports whether surface carries path values.
func IsPathSurface(surface string) bool { return pathSurfaces[surface] }

// Evaluate returns the last rule of rules whose surface matches surface and
// whose pattern matches any of values, and the value it matched; nil when
// none does. It is pure: last match wins.
func Evaluate(surface string, values []string, rules []*Rule) (*Rule, string) {
	ps := IsPathSurface(surface)
	for i := len(rules) - 1; i >= 0; i-- {
		r := rules[i]
		if !r.MatchesSurface(surface) {
			continue
		}
		for _, v := range values {
			if r.MatchesValue(v, ps) {
				return r, v
			}
		}
	}
	return nil, ""
}

// evaluateOn is Evaluate for rules already known to match surface (the
// lists forSurface keeps), without matching the surface again.
func evaluateOn(surface string, values []string, rules []*Rule) (*Rule, string) {
	i, v := evaluateOnAt(surface, values, rules)
	if i < 0 {
		return nil, ""
	}
	return rules[i], v
}

// evaluateOnAt is evaluateOn returning the rule's position, -1 for none.
func evaluateOnAt(surface string, values []string, rules []*Rule) (int, string) {
	ps := IsPathSurface(surface)
	for i := len(rules) - 1; i >= 0; i-- {
		for _, v := range values {
			if rules[i].MatchesValue(v, ps) {
				return i, v
			}
		}
	}
	return -1, ""
}

// NewRuleFrom compiles a copy of r (its Exact flag honored).
func NewRuleFrom(r Rule, home string) Rule {
	r.compile(home)
	return r
}
