package policy

import (
	"bytes"
	"sort"
)

// scopeMCPFile marks the ScopeFile of mcp.json: it names MCP servers and
// holds no rules, so it is not a policy source, but a broken one fails
// closed like a broken policy file (a missing server name can make an mcp
// call miss the rule written for its server).
const scopeMCPFile = "mcp.json"

// ParseMCPFile reads the server names of mcp.json: the keys of
// "mcpServers" (or "mcp-servers"), sorted. Other keys are the MCP
// adapter's and are not looked at. A file that cannot be parsed, or whose
// server map is not an object, has an Error with line and column.
func ParseMCPFile(path string, data []byte) *File {
	data = bytes.TrimPrefix(data, byteOrderMark)
	f, p, v := parseJSONC(path, data, "cannot parse mcp.json: ", false)
	if v == nil {
		return f
	}
	obj, ok := v.Object()
	if !ok {
		p.errorf(v.StartOffset(), "mcp.json must be an object, not %s", kindName(v))
		return f
	}
	seen := map[string]bool{}
	for i := range obj.Members() {
		m := &obj.Members()[i]
		key := literalString(&m.Name)
		if key != "mcpServers" && key != "mcp-servers" {
			continue
		}
		servers, ok := m.Value.Object()
		if !ok {
			p.errorf(m.Value.StartOffset(), "%s must be an object, not %s", key, kindName(&m.Value))
			continue
		}
		for j := range servers.Members() {
			if name := literalString(&servers.Members()[j].Name); name != "" && !seen[name] {
				seen[name] = true
				f.MCPServers = append(f.MCPServers, name)
			}
		}
	}
	sort.Strings(f.MCPServers)
	return f
}
