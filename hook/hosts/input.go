package hosts

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"strings"

	"github.com/toolgate/toolgate/internal/jsonobj"
)

// eventInput is the tool input of a hook event for tool name: an event
// without a tool name, or whose input cannot be read unambiguously, is an
// error (and blocks).
func eventInput(name string, raw json.RawMessage) (map[string]any, error) {
	if name == "" {
		return nil, fmt.Errorf("the hook event has no tool_name")
	}
	return ObjectInput(name, raw)
}

// ObjectInput decodes a hook event's tool_input: absent is {}, anything
// but an object is an error.
func ObjectInput(tool string, raw json.RawMessage) (map[string]any, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return map[string]any{}, nil
	}
	o, err := jsonobj.Decode(raw)
	if err != nil {
		return nil, fmt.Errorf("tool_input of %s: %w", tool, err)
	}
	return o, nil
}

// renameField moves in[from] to in[to]; both present is ambiguous.
func renameField(in map[string]any, tool, from, to string) error {
	v, ok := in[from]
	if !ok || from == to {
		return nil
	}
	if _, clash := in[to]; clash {
		return fmt.Errorf("tool_input of %s has both %s and %s", tool, from, to)
	}
	delete(in, from)
	in[to] = v
	return nil
}

// mcpToolCall is the engine call of an MCP tool a host names
// mcp__SERVER__TOOL (Claude Code's naming, which Codex, Qwen Code and
// Copilot's Claude-format hooks share): the target SERVER:TOOL.
func mcpToolCall(name string, input map[string]any) (Call, bool) {
	rest, ok := strings.CutPrefix(name, "mcp__")
	if !ok {
		return Call{}, false
	}
	server, tool, _ := strings.Cut(rest, "__")
	ref := server
	if tool != "" {
		ref = server + ":" + tool
	}
	return Call{Tool: "mcp", Input: map[string]any{"tool": ref, "arguments": input}}, true
}

// urlFormCalls are the engine calls of a fetch tool: its url as written
// and as a fetcher normalizes it (the most restrictive decides).
func urlFormCalls(tool string, input map[string]any, where string) ([]Call, error) {
	u, _, err := jsonobj.Object(input).Str("url", where)
	if err != nil {
		return nil, err
	}
	return urlForms(tool, input, u), nil
}

// urlForms are the engine calls of tool with input's url as each form of
// u (URLForms).
func urlForms(tool string, input map[string]any, u string) []Call {
	var calls []Call
	for _, form := range URLForms(strings.TrimSpace(u)) {
		in := maps.Clone(input)
		in["url"] = form
		calls = append(calls, Call{Tool: tool, Input: in})
	}
	return calls
}

// URLForms are a URL as written and, when it differs, as a fetcher
// normalizes it (scheme and host in lower case, an empty path as "/").
func URLForms(word string) []string {
	forms := []string{word}
	if u, err := url.Parse(word); err == nil && u.Host != "" {
		u.Host = strings.ToLower(u.Host)
		if u.Path == "" && u.Opaque == "" {
			u.Path = "/"
		}
		if n := u.String(); n != word {
			forms = append(forms, n)
		}
	}
	return forms
}

func strField(key string) func(map[string]any) string {
	return func(in map[string]any) string {
		s, _ := in[key].(string)
		return strings.TrimSpace(s)
	}
}

// WithCommand is a shell tool's input with its field (the command)
// replaced by cmd, the rest kept.
func WithCommand(in map[string]any, field, cmd string) map[string]any {
	out := maps.Clone(in)
	out[field] = cmd
	return out
}
