package gates

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// MCPTargets derives the ordered candidate names of an mcp call
// exactly one branch applies (tool, connect, describe, search,
// server, nothing), candidates are de-duplicated, and "mcp" comes last.
func MCPTargets(input map[string]any, servers []string) []string {
	field := func(k string) string { return mcpField(input, k) }
	tool, server, connect, describe, search := field("tool"), field("server"), field("connect"), field("describe"), field("search")
	var out []string
	switch {
	case tool != "":
		out = append(expandToolRef(tool, server, servers), "mcp_call")
	case connect != "":
		out = []string{"mcp_connect_" + connect, connect, "mcp_connect"}
	case describe != "":
		out = append(expandToolRef(describe, server, servers), "mcp_describe")
	case search != "":
		if server != "" {
			out = []string{"mcp_server_" + server, server}
		}
		out = append(out, search, "mcp_search")
	case server != "":
		out = []string{"mcp_server_" + server, server, "mcp_list"}
	default:
		out = []string{"mcp_status"}
	}
	return dedupe(append(out, "mcp"))
}

func expandToolRef(ref, hint string, servers []string) []string {
	server, tool := hint, ref
	if i := strings.Index(ref, ":"); i > 0 && i < len(ref)-1 {
		qs, qt := strings.TrimSpace(ref[:i]), strings.TrimSpace(ref[i+1:])
		if qs != "" && qt != "" {
			tool = qt
			if server == "" {
				server = qs
			}
		}
	}
	var out []string
	if server != "" {
		out = append(out, server+"_"+tool, server+":"+tool, server)
	} else {
		sorted := append([]string(nil), servers...)
		sort.Slice(sorted, func(i, j int) bool {
			if len(sorted[i]) != len(sorted[j]) {
				return len(sorted[i]) > len(sorted[j])
			}
			return sorted[i] < sorted[j]
		})
		for _, n := range sorted {
			if n != "" && strings.HasSuffix(tool, "_"+n) && !strings.HasPrefix(tool, n+"_") {
				out = append(out, n+"_"+tool, n+":"+tool, n)
			}
		}
	}
	return append(out, tool, ref)
}

func dedupe(in []string) []string {
	seen := make(map[string]bool, len(in))
	out := in[:0]
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// maxArgString is the longest string value of a tool's input shown whole
// in a prompt; a longer one is elided in the middle with a visible marker.
const maxArgString = 1024

// inputLines shows a tool's input to the person, every member in the order
// the host sent it, nested values included, escaped; only long strings are
// elided (with a marker). For mcp the target fields are named by the
// message already, so the lines show input.arguments, member by member.
func inputLines(c *Call) string {
	raw := c.RawInput
	if len(raw) == 0 {
		b, err := json.Marshal(c.Input)
		if err != nil {
			return "\nThe input cannot be shown."
		}
		raw = b
	}
	members, ok := orderedMembers(raw)
	if !ok {
		return "\nThe input cannot be shown."
	}
	title := "Input"
	if c.ToolName == "mcp" {
		title = "Arguments"
		var args json.RawMessage
		for _, m := range members {
			if m.key == "arguments" {
				args = m.value
			}
		}
		if len(args) == 0 || string(args) == "null" {
			return "\nArguments: none"
		}
		if members, ok = orderedMembers(args); !ok {
			return "\nArguments: " + Visible(renderJSON(args))
		}
	}
	if len(members) == 0 {
		return "\n" + title + ": none"
	}
	var b strings.Builder
	b.WriteString("\n" + title + ":")
	for _, m := range members {
		fmt.Fprintf(&b, "\n  %s: %s", Visible(renderString(m.key)), Visible(renderJSON(m.value)))
	}
	return b.String()
}

type member struct {
	key   string
	value json.RawMessage
}

// orderedMembers reads a JSON object's members in the order written.
func orderedMembers(raw []byte) ([]member, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	var out []member
	for dec.More() {
		t, err := dec.Token()
		k, isKey := t.(string)
		if err != nil || !isKey {
			return nil, false
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		out = append(out, member{k, v})
	}
	return out, true
}

// renderJSON writes a JSON value compactly in its own order, long strings
// elided; a value it cannot read is shown as written.
func renderJSON(raw json.RawMessage) string {
	var b strings.Builder
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := renderValue(&b, dec); err != nil {
		return string(raw)
	}
	return b.String()
}

func renderValue(b *strings.Builder, dec *json.Decoder) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	switch v := t.(type) {
	case json.Delim:
		closing := json.Delim('}')
		if v == '[' {
			closing = ']'
		}
		b.WriteString(v.String())
		first := true
		for dec.More() {
			if !first {
				b.WriteString(", ")
			}
			first = false
			if v == '{' {
				k, err := dec.Token()
				if err != nil {
					return err
				}
				ks, _ := k.(string)
				b.WriteString(renderString(ks) + ": ")
			}
			if err := renderValue(b, dec); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil {
			return err
		}
		b.WriteString(closing.String())
	case string:
		if len(v) > maxArgString {
			v = elideArg(v)
		}
		b.WriteString(renderString(v))
	case json.Number:
		b.WriteString(v.String())
	case bool:
		fmt.Fprint(b, v)
	case nil:
		b.WriteString("null")
	}
	return nil
}

// renderString quotes s as JSON does, without HTML escaping.
func renderString(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(buf.String(), "\n")
}

// elideArg keeps the first and last part of a long string argument.
func elideArg(s string) string {
	head := maxArgString / 2
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	tail := len(s) - maxArgString/4
	for tail < len(s) && !utf8.RuneStart(s[tail]) {
		tail++
	}
	return fmt.Sprintf("%s… %d bytes …%s", s[:head], tail-head, s[tail:])
}

// mcpField is the mcp call's input field k as a trimmed string: "" when it
// is missing or not a string.
func mcpField(input map[string]any, k string) string {
	s, _ := input[k].(string)
	return strings.TrimSpace(s)
}

// mcpToolRef is the tool an mcp call names: its tool field, else the one
// it describes ("" for neither).
func mcpToolRef(input map[string]any) string {
	if ref := mcpField(input, "tool"); ref != "" {
		return ref
	}
	return mcpField(input, "describe")
}
