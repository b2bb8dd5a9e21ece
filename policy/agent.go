package policy

import (
	"bytes"
	"fmt"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// ValidAgentName reports whether name can name an agent file: it becomes a
// file name, so it may not walk out of the agents directory.
func ValidAgentName(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.ContainsAny(name, "/\\\x00")
}

// ParseAgentFile reads the `permission` map of an agent file's YAML front
// matter (between a first line "---" and the next "---" line). It is parsed
// as real YAML, so quoted keys may contain ':'; key order is kept. A file
// without front matter or without a permission key contributes nothing.
// Unlike the anchor, a malformed permission map is an error (the file then
// contributes nothing and the policy fails closed), never silently trimmed.
func ParseAgentFile(path string, data []byte) *File {
	f := &File{Path: path, keyLines: map[string][2]int{}}
	data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	if !bytes.HasPrefix(data, []byte("---\n")) {
		return f
	}
	body := data[4:]
	end := bytes.Index(body, []byte("\n---"))
	if end < 0 {
		f.Errors = append(f.Errors, Warning{Path: path, Line: 1, Column: 1, Message: "the front matter opened by '---' is never closed"})
		return f
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(body[:end+1], &doc); err != nil {
		f.Errors = append(f.Errors, Warning{Path: path, Line: 1, Column: 1, Message: "cannot parse the front matter: " + err.Error()})
		return f
	}
	if len(doc.Content) == 0 {
		return f
	}
	p := &yamlParser{file: f, lineOffset: 1}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		p.errorf(root, "the front matter must be a mapping")
		return f
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "permission" {
			p.permission(root.Content[i+1])
		}
	}
	return f
}

type yamlParser struct {
	file       *File
	lineOffset int
}

func (p *yamlParser) errorf(n *yaml.Node, format string, args ...any) {
	p.file.Errors = append(p.file.Errors, Warning{Path: p.file.Path, Line: n.Line + p.lineOffset, Column: n.Column,
		Message: fmt.Sprintf(format, args...)})
}

func (p *yamlParser) mapping(n *yaml.Node, where string) bool {
	if n.Kind != yaml.MappingNode {
		p.errorf(n, "%s must be a mapping", where)
		return false
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if k.Kind != yaml.ScalarNode || k.Value == "" {
			p.errorf(k, "%s has an empty or non-text key", where)
			return false
		}
		if seen[k.Value] {
			p.errorf(k, "key %q appears twice in %s", k.Value, where)
			return false
		}
		seen[k.Value] = true
	}
	return true
}

func (p *yamlParser) permission(n *yaml.Node) {
	if !p.mapping(n, "permission") {
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		entry := SurfaceEntry{Surface: k.Value, Line: k.Line + p.lineOffset}
		if v.Kind == yaml.ScalarNode {
			st, ok := p.state(v, fmt.Sprintf("surface %q", k.Value), false)
			if !ok {
				continue
			}
			entry.Shorthand = &st
		} else {
			if !p.mapping(v, "permission."+k.Value) {
				continue
			}
			for j := 0; j+1 < len(v.Content); j += 2 {
				pk, pv := v.Content[j], v.Content[j+1]
				st, ok := p.state(pv, fmt.Sprintf("%s pattern %q", k.Value, pk.Value), true)
				if !ok {
					continue
				}
				entry.Patterns = append(entry.Patterns, PatternEntry{Pattern: pk.Value, State: st, Line: pk.Line + p.lineOffset})
			}
		}
		p.file.Permission = append(p.file.Permission, entry)
	}
}

func (p *yamlParser) state(n *yaml.Node, what string, objectOK bool) (State, bool) {
	if n.Kind == yaml.ScalarNode {
		a, err := ParseAction(n.Value)
		if err != nil {
			p.errorf(n, "invalid state %q for %s (want allow, ask or deny)", n.Value, what)
			return State{}, false
		}
		return State{Action: a}, true
	}
	if !objectOK || !p.mapping(n, what) {
		if !objectOK {
			p.errorf(n, "invalid state for %s (want allow, ask or deny)", what)
		}
		return State{}, false
	}
	st := State{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch k.Value {
		case "action":
			if v.Kind != yaml.ScalarNode || v.Value != "deny" {
				p.errorf(v, "the action of %s must be \"deny\"", what)
				return State{}, false
			}
			st.Action = Deny
		case "reason":
			if v.Kind != yaml.ScalarNode {
				p.errorf(v, "the reason of %s must be text", what)
				return State{}, false
			}
			st.Reason = v.Value
		default:
			p.errorf(k, "unknown key '%s' in the state of %s (want action, reason)", k.Value, what)
			return State{}, false
		}
	}
	if st.Action != Deny {
		p.errorf(n, "the state of %s has no action: deny", what)
		return State{}, false
	}
	return st, true
}
