package policy

import (
	"fmt"
	"path/filepath"
	"slices"
)

// ProjectFile is one existing project-scope policy file of a project, as
// `toolgate trust` shows it before the person trusts it.
type ProjectFile struct {
	Path string
	// Root, Rel and Real are what the trust store records of it; OK is
	// false when it can never be trusted (a symbolic link, or outside the
	// project), Why then says so.
	Root, Rel, Real string
	OK              bool
	Why             string
	// SHA256 is of the bytes that were parsed (and listed).
	SHA256 string
	// Trusted is set when the store trusts it as it is.
	Trusted bool
	// Broken is the file's first error, when it cannot be used as it is.
	Broken string
	// Loosens are its entries that loosen the policy.
	Loosens []Loosening
}

// Loosening is one entry of a project file whose answer is less
// restrictive than the policy's without the project's files.
type Loosening struct {
	Line    int
	Surface string
	Pattern string
	Action  Action
	// Without is the answer without the project's files, and Rule the
	// rule that gives it.
	Without Action
	Rule    *Rule
}

// String says l in words.
func (l Loosening) String() string {
	who := "the built-in fallback"
	if r := l.Rule; r != nil && r.Origin.Scope != ScopeBuiltin {
		where := r.Origin.Scope
		if r.Origin.Path != "" {
			where = fmt.Sprintf("%s file %s:%d", r.Origin.Scope, r.Origin.Path, r.Origin.Line)
		}
		if r.IsFallback() {
			who = fmt.Sprintf("the fallback \"*\" (%s)", where)
		} else {
			who = fmt.Sprintf("rule %q on %s (%s)", r.Pattern, r.Surface, where)
		}
	}
	return fmt.Sprintf("%s %q: %s, where the policy without the project's files would %s (%s)",
		l.Surface, l.Pattern, l.Action, l.Without, who)
}

// ProjectFiles reads the project files of loc (every one that exists)
// and says of each what it would loosen: each entry (a surface's pattern,
// or a surface opened whole) whose action is less restrictive than what
// the policy without any project file answers for the pattern's own text.
func (l *Loader) ProjectFiles(loc Locations) []ProjectFile {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seen = l.seen[:0]
	l.compose(loc)
	scopes := l.lastScopes
	var out []ProjectFile
	var without []ScopeFile
	for _, sf := range scopes {
		if !sf.Project {
			without = append(without, sf)
		}
	}
	base := Compose(without, loc.Home)
	// Every agent file of the project with a permission key, whichever
	// agent a session selects.
	agents, _ := filepath.Glob(filepath.Join(loc.Cwd, ".pi", "agents", "*.md"))
	for _, path := range agents {
		if slices.ContainsFunc(scopes, func(sf ScopeFile) bool { return sf.Path == path }) {
			continue
		}
		sf := l.read(ScopeProjectAgent, path, false, false, ParseAgentFile)
		if sf.File == nil || len(sf.File.Errors) == 0 && len(sf.File.Permission) == 0 {
			continue
		}
		sf.Project, sf.Untrusted = true, true
		scopes = append(scopes, sf)
	}
	for _, sf := range scopes {
		if !sf.Project || !sf.Exists {
			continue
		}
		pf := ProjectFile{Path: sf.Path, Trusted: !sf.Untrusted, SHA256: l.files[sf.Path].sum}
		pf.Root, pf.Rel, pf.Real, pf.OK = ProjectFileIdentity(loc.Cwd, sf.Path)
		if !pf.OK {
			pf.Why = "it is a symbolic link or lies outside the project, so it can never be trusted (it still tightens)"
		}
		f := sf.File
		if c := l.files[sf.Path].file; c != nil && len(c.Errors) > 0 {
			pf.Broken = c.Errors[0].String()
			f = nil
		}
		if f != nil {
			pf.Loosens = loosenings(f, base)
		}
		out = append(out, pf)
	}
	return out
}

// loosenings are f's entries that answer less restrictively than base.
func loosenings(f *File, base *Policy) []Loosening { return looseningsUpTo(f, base, -1) }

// looseningsUpTo is loosenings, stopping after max of them (max < 0: all).
func looseningsUpTo(f *File, base *Policy, max int) []Loosening {
	var out []Loosening
	check := func(line int, surface, pattern string, st State) {
		if max >= 0 && len(out) >= max {
			return
		}
		q := Query{Surface: surface, Values: []string{pattern}}
		res := base.Resolve(q)
		if st.Action < res.Action {
			out = append(out, Loosening{Line: line, Surface: surface, Pattern: pattern, Action: st.Action, Without: res.Action, Rule: res.Rule})
		}
	}
	for _, e := range f.Permission {
		if e.Shorthand != nil {
			check(e.Line, e.Surface, "*", *e.Shorthand)
			continue
		}
		for _, pe := range e.Patterns {
			check(pe.Line, e.Surface, pe.Pattern, pe.State)
		}
	}
	slices.SortStableFunc(out, func(a, b Loosening) int { return a.Line - b.Line })
	return out
}
