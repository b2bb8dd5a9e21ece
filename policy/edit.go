package policy

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/tailscale/hujson"
)

// Addition is one rule to add to a policy file.
type Addition struct {
	Surface string
	Pattern string
	Action  Action
}

// AddRules returns the JSONC text data with each rule added at the end of
// its surface's map under "permission", in the order given; everything
// else — comments, order, layout — stays as written. A surface written as
// a state ("bash": "ask") becomes a map that keeps that state as its "*";
// a surface the file lacks is added after the others; a pattern the map
// has already gets the new state in place, unless it is a deny, which is
// never changed. Empty data is an empty policy.
func AddRules(data []byte, adds []Addition) ([]byte, error) {
	if rest, ok := bytes.CutPrefix(data, byteOrderMark); ok {
		// The mark stays where it was.
		out, err := AddRules(rest, adds)
		if err != nil {
			return nil, err
		}
		return append(append([]byte(nil), byteOrderMark...), out...), nil
	}
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{\n  \"permission\": {\n  }\n}\n")
	}
	v, err := hujson.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("cannot parse the file: %w", err)
	}
	top, ok := v.Value.(*hujson.Object)
	if !ok {
		return nil, fmt.Errorf("the file is not a JSON object")
	}
	perm := member(top, "permission")
	if perm == nil {
		appendMember(top, "", "permission", mustParse("{\n"+memberIndent(top, "")+"}"))
		perm = &top.Members[len(top.Members)-1]
	}
	permObj, ok := perm.Value.Value.(*hujson.Object)
	if !ok {
		return nil, fmt.Errorf("\"permission\" is not an object")
	}
	permIndent := memberIndent(top, "")
	for _, a := range adds {
		if err := addRule(permObj, permIndent, a); err != nil {
			return nil, err
		}
	}
	return v.Pack(), nil
}

func addRule(perm *hujson.Object, permIndent string, a Addition) error {
	state := a.Action.String()
	childIndent := memberIndent(perm, permIndent)
	m := member(perm, a.Surface)
	inline := isInline(perm)
	if m == nil {
		text := fmt.Sprintf("{\n%s%s: %s\n%s}", childIndent+indentUnit(childIndent, permIndent), jsonString(a.Pattern), jsonString(state), childIndent)
		if inline {
			text = fmt.Sprintf("{%s: %s}", jsonString(a.Pattern), jsonString(state))
		}
		appendMember(perm, permIndent, a.Surface, mustParse(text))
		return nil
	}
	switch val := m.Value.Value.(type) {
	case hujson.Literal:
		if val.Kind() != '"' {
			return fmt.Errorf("permission.%s is not a state or a map", a.Surface)
		}
		old := val.String()
		if a.Pattern == "*" {
			return setState(&m.Value, old, state, a)
		}
		inner := childIndent + indentUnit(childIndent, permIndent)
		text := fmt.Sprintf("{\n%s\"*\": %s,\n%s%s: %s\n%s}", inner, jsonString(old), inner, jsonString(a.Pattern), jsonString(state), childIndent)
		if inline {
			text = fmt.Sprintf("{\"*\": %s, %s: %s}", jsonString(old), jsonString(a.Pattern), jsonString(state))
		}
		obj := mustParse(text)
		m.Value.Value = obj.Value
		return nil
	case *hujson.Object:
		if p := member(val, a.Pattern); p != nil {
			lit, ok := p.Value.Value.(hujson.Literal)
			if !ok {
				return fmt.Errorf("permission.%s[%q] is a deny with a reason; toolgate never changes a deny", a.Surface, a.Pattern)
			}
			return setState(&p.Value, lit.String(), state, a)
		}
		appendMember(val, childIndent, a.Pattern, hujson.Value{Value: hujson.String(state)})
		return nil
	}
	return fmt.Errorf("permission.%s is not a state or a map", a.Surface)
}

func setState(v *hujson.Value, old, state string, a Addition) error {
	if old == "deny" && state != "deny" {
		return fmt.Errorf("permission.%s[%q] is a deny; toolgate never changes a deny", a.Surface, a.Pattern)
	}
	v.Value = hujson.String(state)
	return nil
}

// member finds the member named name (the last one, as JSON readers do).
func member(obj *hujson.Object, name string) *hujson.ObjectMember {
	for i := len(obj.Members) - 1; i >= 0; i-- {
		if lit, ok := obj.Members[i].Name.Value.(hujson.Literal); ok && lit.String() == name {
			return &obj.Members[i]
		}
	}
	return nil
}

// isInline reports whether obj's members share a line with its braces.
func isInline(obj *hujson.Object) bool {
	n := len(obj.Members)
	return n > 0 && !bytes.Contains(obj.Members[n-1].Name.BeforeExtra, []byte("\n"))
}

// memberIndent is the indentation of obj's members, or one unit more than
// the object's own indentation when it has none on lines of their own.
func memberIndent(obj *hujson.Object, own string) string {
	if n := len(obj.Members); n > 0 {
		before := obj.Members[n-1].Name.BeforeExtra
		if i := bytes.LastIndexByte(before, '\n'); i >= 0 {
			rest := before[i+1:]
			return string(rest[:len(rest)-len(bytes.TrimLeft(rest, " \t"))])
		}
	}
	return own + "  "
}

// indentUnit guesses one level of indentation from two nested ones.
func indentUnit(child, parent string) string {
	if u := strings.TrimPrefix(child, parent); u != "" && u != child {
		return u
	}
	return "  "
}

// appendMember adds name: value as obj's last member, on a line of its own
// when the members stand on lines of their own; a comment that ended the
// old last member's line stays with it.
func appendMember(obj *hujson.Object, own, name string, value hujson.Value) {
	n := len(obj.Members)
	inline := isInline(obj)
	trailingComma := n > 0 && obj.Members[n-1].Value.AfterExtra != nil
	value.BeforeExtra = []byte(" ")
	nm := hujson.ObjectMember{Name: hujson.Value{Value: hujson.String(name)}, Value: value}
	if trailingComma {
		nm.Value.AfterExtra = []byte{}
	}
	after := obj.AfterExtra
	switch {
	case inline:
		nm.Name.BeforeExtra = []byte(" ")
	case n == 0 && !bytes.Contains(after, []byte("\n")):
		// {} stays on its line: {"pattern": "allow"}
	case n == 0:
		nm.Name.BeforeExtra = []byte("\n" + own + "  ")
		obj.AfterExtra = []byte("\n" + own)
	default:
		indent := memberIndent(obj, own)
		head, rest := []byte(nil), after
		if i := bytes.IndexByte(after, '\n'); i >= 0 && len(bytes.TrimSpace(after[:i])) > 0 {
			head, rest = after[:i], after[i:]
		}
		nm.Name.BeforeExtra = append(append([]byte(nil), head...), "\n"+indent...)
		if !bytes.Contains(rest, []byte("\n")) {
			rest = append([]byte("\n"+own), bytes.TrimLeft(rest, " \t")...)
		}
		obj.AfterExtra = rest
	}
	obj.Members = append(obj.Members, nm)
}

func mustParse(s string) hujson.Value {
	v, err := hujson.Parse([]byte(s))
	if err != nil {
		panic("policy: bad built-in JSON: " + err.Error())
	}
	return v
}

func jsonString(s string) string { return string(hujson.String(s)) }
