package policy

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

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
// Unlike the anchor, a malformed entry is never silently dropped: it
// becomes a deny at its position, with a warning.
func ParseAgentFile(path string, data []byte) *File {
	f := &File{Path: path, keyLines: map[string][2]int{}}
	data = bytes.ReplaceAll(bytes.TrimPrefix(data, byteOrderMark), []byte("\r\n"), []byte("\n"))
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
		switch k := root.Content[i]; {
		case k.Value == "permission":
			p.permission(root.Content[i+1])
		case nearPermission(k.Value):
			// Front matter has keys of its own (name, description, …),
			// but a misspelt permission must not silently do nothing.
			p.errorf(k, "front matter key '%s' looks like a misspelt 'permission'", k.Value)
		}
	}
	return f
}

// nearPermission reports whether key is "permission" misspelt: the same
// ignoring case, or at most two edits away.
func nearPermission(key string) bool {
	const want = "permission"
	k := strings.ToLower(key)
	if k == want {
		return true
	}
	if len(k) < len(want)-2 || len(k) > len(want)+2 {
		return false
	}
	// Levenshtein distance, one row at a time.
	prev := make([]int, len(want)+1)
	cur := make([]int, len(want)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(k); i++ {
		cur[0] = i
		for j := 1; j <= len(want); j++ {
			cost := 1
			if k[i-1] == want[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(want)] <= 2
}

type yamlParser struct {
	file       *File
	lineOffset int
}

func (p *yamlParser) errorf(n *yaml.Node, format string, args ...any) {
	p.file.Errors = append(p.file.Errors, Warning{Path: p.file.Path, Line: n.Line + p.lineOffset, Column: n.Column,
		Message: fmt.Sprintf(format, args...)})
}

func (p *yamlParser) problem(n *yaml.Node, format string, args ...any) State {
	return addProblem(p.file, Warning{Path: p.file.Path, Line: n.Line + p.lineOffset, Column: n.Column,
		Message: fmt.Sprintf(format, args...)})
}

// keyProblem says what is wrong with the key of a mapping entry (empty,
// not text, repeated), or "".
func keyProblem(k *yaml.Node, seen map[string]bool, where string) string {
	if k.Kind != yaml.ScalarNode || k.Value == "" {
		return fmt.Sprintf("%s has an empty or non-text key", where)
	}
	if seen[k.Value] {
		return fmt.Sprintf("key %q appears twice in %s", k.Value, where)
	}
	seen[k.Value] = true
	return ""
}

// permission reads the permission mapping like the JSON parser: a bad
// entry is a deny at its own position; only a permission that
// is not a mapping breaks the file.
func (p *yamlParser) permission(n *yaml.Node) {
	if n.Kind != yaml.MappingNode {
		p.errorf(n, "permission must be a mapping")
		return
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		entry := SurfaceEntry{Surface: k.Value, Line: k.Line + p.lineOffset}
		var st State
		switch msg := keyProblem(k, seen, "permission"); {
		case msg != "":
			st = p.problem(k, "%s", msg)
		case v.Kind == yaml.ScalarNode:
			st = p.state(v, fmt.Sprintf("surface %q", k.Value), false)
		case v.Kind == yaml.MappingNode && isYAMLObjectState(v):
			st = p.state(v, fmt.Sprintf("surface %q", k.Value), true)
		case v.Kind == yaml.MappingNode:
			entry.Patterns = p.patterns(k.Value, v)
			p.file.Permission = append(p.file.Permission, entry)
			continue
		default:
			st = p.problem(v, "permission.%s must be a state or a mapping of patterns", k.Value)
		}
		entry.Shorthand = &st
		p.file.Permission = append(p.file.Permission, entry)
	}
}

func (p *yamlParser) patterns(surface string, v *yaml.Node) []PatternEntry {
	seen := map[string]bool{}
	out := make([]PatternEntry, 0, len(v.Content)/2)
	for j := 0; j+1 < len(v.Content); j += 2 {
		pk, pv := v.Content[j], v.Content[j+1]
		var st State
		if msg := keyProblem(pk, seen, "permission."+surface); msg != "" {
			st = p.problem(pk, "%s", msg)
		} else {
			st = p.state(pv, fmt.Sprintf("%s pattern %q", surface, pk.Value), true)
		}
		out = append(out, PatternEntry{Pattern: pk.Value, State: st, Line: pk.Line + p.lineOffset})
	}
	return out
}

// isYAMLObjectState is isObjectState for a YAML mapping.
func isYAMLObjectState(n *yaml.Node) bool {
	var action, reason *yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		switch n.Content[i].Value {
		case "action":
			action = n.Content[i+1]
		case "reason":
			reason = n.Content[i+1]
		default:
			return false
		}
	}
	if action == nil {
		return false
	}
	if action.Kind == yaml.ScalarNode && action.Value == "deny" {
		return true
	}
	if reason == nil {
		return false
	}
	_, err := ParseAction(reason.Value)
	return reason.Kind != yaml.ScalarNode || err != nil
}

func (p *yamlParser) state(n *yaml.Node, what string, objectOK bool) State {
	if n.Kind == yaml.ScalarNode {
		a, err := ParseAction(n.Value)
		if err != nil {
			return p.problem(n, "invalid state %q for %s (want allow, ask or deny)", n.Value, what)
		}
		return State{Action: a}
	}
	if !objectOK || n.Kind != yaml.MappingNode {
		return p.problem(n, "invalid state for %s (want allow, ask, deny or {action: deny, reason: …})", what)
	}
	st := State{}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if msg := keyProblem(k, seen, "the state of "+what); msg != "" {
			return p.problem(k, "%s", msg)
		}
		switch k.Value {
		case "action":
			if v.Kind != yaml.ScalarNode || v.Value != "deny" {
				return p.problem(v, "the action of %s must be \"deny\"", what)
			}
			st.Action = Deny
		case "reason":
			if v.Kind != yaml.ScalarNode {
				return p.problem(v, "the reason of %s must be text", what)
			}
			st.Reason = v.Value
			if utf8.RuneCountInString(st.Reason) > MaxReasonLength {
				return p.problem(v, "the reason of %s is longer than %d characters", what, MaxReasonLength)
			}
		default:
			return p.problem(k, "unknown key '%s' in the state of %s (want action, reason)", k.Value, what)
		}
	}
	if st.Action != Deny {
		return p.problem(n, "the state of %s has no action: deny", what)
	}
	return st
}
