package policy

import "fmt"

// Sandbox modes, in the order a project file may raise them.
const (
	SandboxOff      = "off"
	SandboxOn       = "on"
	SandboxRequired = "required"
)

// sandboxRank orders the modes: a project file may only raise one.
var sandboxRank = map[string]int{SandboxOff: 0, SandboxOn: 1, SandboxRequired: 2}

// SandboxKnobs are the confinement settings of one file; nil or unset
// means "not set".
type SandboxKnobs struct {
	Mode       *string
	Write      []string
	WriteSet   bool
	Network    *string
	Sockets    []string
	SocketsSet bool
	AutoAllow  *bool
}

// Sandbox is the composed confinement settings.
type Sandbox struct {
	// Mode is "off", "on" or "required".
	Mode string
	// ModeFrom is the file that set Mode ("" for the default).
	ModeFrom string
	// Write are extra write roots (sandboxWrite), as written (~ kept).
	Write []string
	// NetworkOff is sandboxNetwork "off".
	NetworkOff bool
	// Sockets are the socket paths left reachable (sandboxSockets).
	Sockets []string
	// AutoAllow is sandboxAutoAllow.
	AutoAllow bool
	// final are the knobs a scope whose word is final has set.
	final map[string]bool
	// set is the mode the global or a final scope set; raised the highest
	// a project file raised it to.
	set, setFrom, raised, raisedFrom string
}

// sandboxKeys are the top-level keys of SandboxKnobs.
var sandboxKeys = map[string]bool{"sandbox": true, "sandboxWrite": true, "sandboxNetwork": true,
	"sandboxSockets": true, "sandboxAutoAllow": true}

// sandboxKnob parses one sandbox key of a policy file.
func (p *parser) sandboxKnob(key string, v *jval) {
	k := &p.file.Knobs.Sandbox
	switch key {
	case "sandbox":
		if s := p.str(v, key); s != nil {
			if _, ok := sandboxRank[*s]; !ok {
				p.errorf(v.StartOffset(), "sandbox must be \"off\", \"on\" or \"required\", not %q", *s)
				return
			}
			k.Mode = s
		}
	case "sandboxNetwork":
		if s := p.str(v, key); s != nil {
			if *s != "on" && *s != "off" {
				p.errorf(v.StartOffset(), "sandboxNetwork must be \"on\" or \"off\", not %q", *s)
				return
			}
			k.Network = s
		}
	case "sandboxWrite":
		k.Write, k.WriteSet = p.strings(v, key), true
	case "sandboxSockets":
		k.Sockets, k.SocketsSet = p.strings(v, key), true
	case "sandboxAutoAllow":
		k.AutoAllow = p.boolean(v, key)
	}
}

// finalScope reports whether the knobs a scope sets are final: no other
// file may change them.
func finalScope(scope string) bool { return scope == "managed" }

// applySandbox takes a file's sandbox knobs: the global scope and --config
// files (trusted) set each; a final scope's word stands; any other file
// may only raise sandbox, and its other sandbox knobs are ignored with a
// warning (ignore).
func (p *Policy) applySandbox(sf ScopeFile, trusted bool, ignore func(key string)) {
	k := sf.File.Knobs.Sandbox
	s := &p.Sandbox
	final := finalScope(sf.Scope)
	set := func(key string) bool {
		switch {
		case s.final[key] && !final:
			line, col, _ := sf.File.KeyPosition(key)
			p.Warnings = append(p.Warnings, Warning{Path: sf.Path, Line: line, Column: col,
				Message: fmt.Sprintf("'%s' is ignored: the managed configuration sets it", key)})
			return false
		case final:
			if s.final == nil {
				s.final = map[string]bool{}
			}
			s.final[key] = true
			return true
		case trusted:
			return true
		}
		ignore(key)
		return false
	}
	if k.Mode != nil {
		switch {
		case s.final["sandbox"] && !final:
			set("sandbox") // warns
		case final || trusted:
			set("sandbox")
			s.set, s.setFrom = *k.Mode, sf.Path
		case sandboxRank[*k.Mode] > sandboxRank[s.raised]:
			s.raised, s.raisedFrom = *k.Mode, sf.Path
		case sandboxRank[*k.Mode] < sandboxRank[s.Mode]:
			line, col, _ := sf.File.KeyPosition("sandbox")
			p.Warnings = append(p.Warnings, Warning{Path: sf.Path, Line: line, Column: col,
				Message: fmt.Sprintf("'sandbox': %q in a %s file is ignored: it may raise sandbox, never lower it", *k.Mode, sf.Scope)})
		}
		// A raise holds whatever a later global file says; a final
		// scope's word stands over it.
		s.Mode, s.ModeFrom = s.set, s.setFrom
		if !s.final["sandbox"] && sandboxRank[s.raised] > sandboxRank[s.Mode] {
			s.Mode, s.ModeFrom = s.raised, s.raisedFrom
		}
	}
	if k.WriteSet && set("sandboxWrite") {
		s.Write = k.Write
	}
	if k.Network != nil && set("sandboxNetwork") {
		s.NetworkOff = *k.Network == "off"
	}
	if k.SocketsSet && set("sandboxSockets") {
		s.Sockets = k.Sockets
	}
	if k.AutoAllow != nil && set("sandboxAutoAllow") {
		s.AutoAllow = *k.AutoAllow
	}
}
