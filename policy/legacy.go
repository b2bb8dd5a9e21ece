package policy

import (
	"encoding/json"
	"fmt"
	"strings"
)

// legacyPolicy is the original extension's format (pi-permissions.jsonc):
// defaultPolicy, tools, bash, mcp, skills, special.
type legacyPolicy struct {
	line     int
	defaults map[string]*State // tools, bash, mcp, skills, special
	tools    []PatternEntry
	bash     []PatternEntry
	mcp      []PatternEntry
	skills   []PatternEntry
	external *PatternEntry
}

// legacyKey reads one legacy top-level key.
func (p *parser) legacyKey(key string, m *jmember) {
	if p.legacy == nil {
		line, _ := p.position(m.Name.StartOffset())
		p.legacy = &legacyPolicy{line: line, defaults: map[string]*State{}}
	}
	lp := p.legacy
	switch key {
	case "defaultPolicy":
		for _, e := range p.legacyMap(&m.Value, key) {
			switch e.Pattern {
			case "tools", "bash", "mcp", "skills", "special":
				st := e.State
				lp.defaults[e.Pattern] = &st
			default:
				p.errorf(m.Value.StartOffset(), "defaultPolicy has an unknown category '%s' (want tools, bash, mcp, skills, special)", e.Pattern)
			}
		}
	case "tools":
		lp.tools = p.legacyMap(&m.Value, key)
	case "bash":
		lp.bash = p.legacyMap(&m.Value, key)
	case "mcp":
		lp.mcp = p.legacyMap(&m.Value, key)
	case "skills":
		lp.skills = p.legacyMap(&m.Value, key)
	case "special":
		members, _ := p.members(&m.Value, key)
		for i := range members {
			sm := &members[i]
			name := literalString(&sm.Name)
			switch name {
			case "external_directory":
				st := p.state(&sm.Value, "special.external_directory", true)
				line, _ := p.position(sm.Name.StartOffset())
				lp.external = &PatternEntry{Pattern: "*", State: st, Line: line}
			case "doom_loop", "tool_call_limit":
				// Dropped by the documented migration: toolgate has no such checks.
			default:
				p.errorf(sm.Name.StartOffset(), "special has an unknown key '%s'", name)
			}
		}
	}
}

// legacyMap reads {pattern: state} in order.
func (p *parser) legacyMap(v *jval, where string) []PatternEntry {
	out, _ := p.patternMap(v, where, where+" has an empty key", func(pat string) string { return fmt.Sprintf("%s %q", where, pat) })
	return out
}

// finishLegacy translates a legacy policy to the flat format:
// defaultPolicy.tools → "*"; the other categories' defaults become their
// surface's "*"; tools.X → X (tools.bash and tools.mcp become the "*" of
// their maps, ahead of the category default); skills → skill;
// special.external_directory → external_directory. The translated entries
// come before the file's own "permission" entries, and a note shows them.
func (p *parser) finishLegacy() {
	lp := p.legacy
	if lp == nil {
		return
	}
	var out []SurfaceEntry
	if d := lp.defaults["tools"]; d != nil {
		out = append(out, SurfaceEntry{Surface: "*", Line: lp.line, Shorthand: d})
	}
	surfaceMap := func(surface, category string, coarse *PatternEntry, patterns []PatternEntry) {
		var entries []PatternEntry
		if coarse != nil {
			entries = append(entries, PatternEntry{Pattern: "*", State: coarse.State, Line: coarse.Line})
		} else if d := lp.defaults[category]; d != nil && (lp.defaults["tools"] == nil || *d != *lp.defaults["tools"]) {
			entries = append(entries, PatternEntry{Pattern: "*", State: *d, Line: lp.line})
		}
		entries = append(entries, patterns...)
		if len(entries) > 0 {
			out = append(out, SurfaceEntry{Surface: surface, Line: entries[0].Line, Patterns: entries})
		}
	}
	var coarseBash, coarseMCP *PatternEntry
	for i := range lp.tools {
		t := lp.tools[i]
		switch t.Pattern {
		case "bash":
			coarseBash = &t
		case "mcp":
			coarseMCP = &t
		default:
			st := t.State
			out = append(out, SurfaceEntry{Surface: t.Pattern, Line: t.Line, Shorthand: &st})
		}
	}
	surfaceMap("bash", "bash", coarseBash, lp.bash)
	surfaceMap("mcp", "mcp", coarseMCP, lp.mcp)
	surfaceMap("skill", "skills", nil, lp.skills)
	if lp.external != nil {
		out = append(out, SurfaceEntry{Surface: "external_directory", Line: lp.external.Line, Patterns: []PatternEntry{*lp.external}})
	} else if d := lp.defaults["special"]; d != nil {
		out = append(out, SurfaceEntry{Surface: "external_directory", Line: lp.line, Shorthand: d})
	}
	p.file.Permission = append(out, p.file.Permission...)
	p.file.Notes = append(p.file.Notes, Warning{Path: p.file.Path, Line: lp.line, Column: 1,
		Message: "this file uses the legacy pi-permissions format; toolgate reads it as this flat policy (write it so to silence this warning): " + flatJSON(out)})
}

// flatJSON renders entries as a "permission" object, in order.
func flatJSON(entries []SurfaceEntry) string {
	var b strings.Builder
	b.WriteString(`{"permission": {`)
	for i, e := range entries {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(quote(e.Surface) + ": ")
		if e.Shorthand != nil {
			b.WriteString(stateJSON(*e.Shorthand))
			continue
		}
		b.WriteString("{")
		for j, pe := range e.Patterns {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString(quote(pe.Pattern) + ": " + stateJSON(pe.State))
		}
		b.WriteString("}")
	}
	b.WriteString("}}")
	return b.String()
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func stateJSON(st State) string {
	if st.Reason != "" {
		return fmt.Sprintf(`{"action": "deny", "reason": %s}`, quote(st.Reason))
	}
	return quote(st.Action.String())
}
