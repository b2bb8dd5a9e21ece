package policy

import "strings"

// mcpShadowForm returns a candidate form that every call matched by the
// mcp pattern earlier also has, and that later matches; "" if none. An MCP
// call is matched in several forms of its target (server_tool,
// server:tool, server, tool — anchor §4.4) and the last rule that matches
// any form wins (SPEC §2), so `"github:delete_repo": "deny"` followed by
// `"github_*": "allow"` can never decide.
func mcpShadowForm(later, earlier *Rule) string {
	server, tool, ok := strings.Cut(earlier.Pattern, ":")
	if !ok || server == "" || tool == "" || strings.ContainsAny(server, "*?") {
		return ""
	}
	forms := []string{server}
	if !strings.ContainsAny(tool, "*?") {
		forms = []string{server + "_" + tool, server, tool}
	} else if subsumes(later.Pattern, server+"_"+tool) {
		return server + "_" + tool
	}
	for _, f := range forms {
		if later.MatchesValue(f, false) {
			return f
		}
	}
	return ""
}
