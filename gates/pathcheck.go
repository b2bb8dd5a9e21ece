package gates

import (
	"slices"
	"strings"

	"github.com/toolgate/toolgate/gates/paths"
	"github.com/toolgate/toolgate/policy"
	"github.com/toolgate/toolgate/verdict"
)

// resolvePath decides a path on surface: the spelled identity
// and the real identity are each matched last-rule-wins, and the more
// restrictive of the two decides, so a symlink or a ".." can only make a
// path more restricted. A path whose real form is unknown (a loop, a
// permission error) never gets a plain allow: it asks.
func resolvePath(r Resolver, surface string, p paths.Path) (policy.Result, bool) {
	res, known := resolveIdentities(r, surface, p)
	if h, ok := p.Host(); ok {
		// The path as the host opens it is checked too.
		hres, hknown := resolveIdentities(r, surface, h)
		if moreRestrictive(hres.Action, res.Action) {
			res = hres
		}
		known = known && hknown
	}
	return res, known
}

// resolveIdentities is resolvePath of p alone, without its host's path.
// When p's real forms are its spelled ones (no link, no ".." on the way:
// the common case), the second question would be the first again, and
// is not asked (Resolve is a function of the query).
func resolveIdentities(r Resolver, surface string, p paths.Path) (policy.Result, bool) {
	spelled := p.Spelled()
	res := r.Resolve(policy.Query{Surface: surface, Values: spelled})
	if forms := p.RealForms(); forms != nil {
		if slices.Equal(forms, spelled) {
			return res, true
		}
		if real := r.Resolve(policy.Query{Surface: surface, Values: forms}); moreRestrictive(real.Action, res.Action) {
			res = real
		}
		return res, true
	}
	if !p.RealKnown && res.Action == policy.Allow && !res.Session {
		res.Action = policy.Ask
		return res, false
	}
	return res, p.RealKnown
}

// explicitPath decides a path on the path surface, where only an explicit
// rule counts (the fallback does not apply to the path surface).
func explicitPath(r Resolver, p paths.Path) (policy.Result, bool) {
	var best policy.Result
	found := false
	consider := func(res policy.Result) {
		if res.Rule == nil || res.Rule.IsFallback() {
			return
		}
		if !found || moreRestrictive(res.Action, best.Action) {
			best, found = res, true
		}
	}
	for _, q := range withHost(p) {
		spelled := q.Spelled()
		consider(r.Resolve(policy.Query{Surface: "path", Values: spelled}))
		// Real forms that are the spelled ones again would be the same
		// question (see resolveIdentities).
		if forms := q.RealForms(); forms != nil && !slices.Equal(forms, spelled) {
			consider(r.Resolve(policy.Query{Surface: "path", Values: forms}))
		}
	}
	return best, found
}

// withHost is p and, when the host spells it otherwise, the host's path.
func withHost(p paths.Path) []paths.Path {
	if h, ok := p.Host(); ok {
		return []paths.Path{p, h}
	}
	return []paths.Path{p}
}

// allForms lists every form of p, for the trace.
func allForms(p paths.Path) []string {
	var out []string
	for _, q := range withHost(p) {
		out = append(out, q.Spelled()...)
		out = append(out, q.RealForms()...)
	}
	return dedupe(out)
}

// pathSessionPatterns is what "allow for this session" records for a path
// on surface: its parent directory "DIR/*", unless that would be
// broader than the path the prompt names allows: a path (or parent) that
// holds a wildcard character, or a parent directory that covers "/" or the
// parent of home, is recorded as an exact rule for the path itself. A path
// of unknown place records nothing.
func pathSessionPatterns(surface string, p paths.Path, home string) []verdict.SessionPattern {
	if p.Abs == "" {
		return nil
	}
	pat := paths.ParentPattern(p.Abs)
	dir := strings.TrimSuffix(pat, "/*")
	switch {
	case pat == "":
		return nil
	case strings.ContainsAny(p.Abs, "*?["),
		dir == "" || dir == "/",
		home != "" && paths.Within(paths.Dir(paths.Clean(home)), dir):
		return []verdict.SessionPattern{{Surface: surface, Pattern: p.Abs, Exact: true}}
	}
	return []verdict.SessionPattern{{Surface: surface, Pattern: pat}}
}
