package gates

import (
	"path/filepath"

	"github.com/toolgate/toolgate/gates/paths"
	"github.com/toolgate/toolgate/policy"
)

// SentinelProtected is reported when a change to toolgate's own policy
// files or audit log was floored to ask.
const SentinelProtected = "<toolgate-own-files>"

// protectedPaths are the files an agent must not change silently: the
// policy that governs it (every scope, legacy files, agent files, MCP server
// names) and the audit log. A project file can loosen an ask, so an agent
// that could write it unasked could grant itself anything the global
// policy merely asks for.
func protectedPaths(c *Call) []string {
	out := append([]string(nil), c.Protected...)
	if c.AgentDir != "" {
		out = append(out,
			filepath.Join(c.AgentDir, "extensions", "pi-permission-system"),
			filepath.Join(c.AgentDir, "agents"),
			filepath.Join(c.AgentDir, "pi-permissions.jsonc"),
			filepath.Join(c.AgentDir, "mcp.json"))
	}
	if c.Cwd != "" {
		out = append(out,
			filepath.Join(c.Cwd, ".pi", "extensions", "pi-permission-system"),
			filepath.Join(c.Cwd, ".pi", "agents"),
			filepath.Join(c.Cwd, ".pi", "agent", "pi-permissions.jsonc"))
	}
	return out
}

// protected reports whether either identity of p is, or lies in, one of
// toolgate's own files.
func protected(c *Call, p paths.Path) bool {
	if h, ok := p.Host(); ok && protected(c, h) {
		return true
	}
	for _, dir := range protectedPaths(c) {
		if (p.Abs != "" && paths.Within(p.Abs, dir)) || (p.Real != "" && paths.Within(p.Real, dir)) {
			return true
		}
		if real, ok := c.fs.Canonical(dir); ok && real != dir && p.Real != "" && paths.Within(p.Real, real) {
			return true
		}
	}
	return false
}

// floorProtected turns an allow into an ask, with no session option: every
// change to toolgate's own files is asked, whatever the policy says.
func floorProtected(o *Outcome) {
	if o.D.State == policy.Allow {
		o.D.State, o.D.Rule, o.D.Session, o.D.Sentinel = policy.Ask, nil, false, SentinelProtected
	}
	o.D.SessionPatterns = nil
}
