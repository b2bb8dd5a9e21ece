package hook

// The MCP server names of AGENT_DIR/mcp.json are read by the policy
// loader (policy.ParseMCPFile): the file is checked and, when broken, fails
// closed like a policy file.

// mergeNames joins the host's names and the file's, without repeats.
func mergeNames(a, b []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, n := range append(append([]string(nil), a...), b...) {
		if n != "" && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}
