package gates

import (
	"encoding/json"
	"sort"
	"strings"
	"unicode/utf8"
)

// MCPTargets derives the ordered candidate names of an mcp call (anchor
// §4.4): exactly one branch applies (tool, connect, describe, search,
// server, nothing), candidates are de-duplicated, and "mcp" comes last.
func MCPTargets(input map[string]any, servers []string) []string {
	field := func(k string) string {
		s, _ := input[k].(string)
		return strings.TrimSpace(s)
	}
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

// maxPreview bounds the one-line input preview in prompts.
const maxPreview = 200

// inputPreview is a bounded one-line JSON preview of a tool's input.
func inputPreview(input map[string]any) string {
	if len(input) == 0 {
		return ""
	}
	b, err := json.Marshal(input)
	if err != nil {
		return ""
	}
	s := string(b)
	if len(s) > maxPreview {
		cut := maxPreview
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return " with input " + s
}
