package gates

import (
	"fmt"
	"strings"

	"github.com/toolgate/toolgate/gates/paths"
	"github.com/toolgate/toolgate/gates/shell"
	"github.com/toolgate/toolgate/policy"
	"github.com/toolgate/toolgate/protocol"
)

// pathTools are the built-in tools whose input.path is their subject.
var pathTools = map[string]bool{"read": true, "write": true, "edit": true, "grep": true, "find": true, "ls": true}

// Tool is the last gate: the call's own rule (SPEC §3 gate 5).
func Tool(c *Call, r Resolver) Outcome {
	switch {
	case c.Shell != nil:
		return bashTool(c, r)
	case c.ToolName == "mcp":
		return mcpTool(c, r)
	case c.ToolName == "skill":
		return skillTool(c, r)
	}
	if p, ok := toolPath(c); ok {
		if pathTools[c.ToolName] {
			return pathTool(c, r, p)
		}
		return extensionTool(c, r, &p)
	}
	return extensionTool(c, r, nil)
}

// toolPath is the path a non-bash call touches: input.path, or
// input.arguments.path for mcp.
func toolPath(c *Call) (paths.Path, bool) {
	raw := inputPath(c)
	if strings.TrimSpace(raw) == "" {
		return paths.Path{}, false
	}
	return paths.New(raw, "", c.Cwd, c.Home), true
}

func inputPath(c *Call) string {
	if c.Shell != nil {
		return ""
	}
	if c.ToolName == "mcp" {
		args, _ := c.Input["arguments"].(map[string]any)
		s, _ := args["path"].(string)
		return s
	}
	s, _ := c.Input["path"].(string)
	return s
}

func bashTool(c *Call, r Resolver) Outcome {
	sc := c.Shell
	a := &sc.Analysis
	if a.Unparseable {
		res := r.Resolve(policy.Query{Surface: "bash", Values: []string{sc.Command}})
		o := checked(protocol.GateTool, "bash", sc.Command, res)
		if res.Action != policy.Deny && !(res.Session && res.Rule.Exact) {
			o.D.State, o.D.Rule, o.D.Session, o.D.Sentinel = policy.Ask, nil, false, shell.SentinelUnparseable
		}
		o.D.Command = sc.Command
		o.D.SessionPatterns = []protocol.SessionPattern{{Surface: "bash", Pattern: sc.Command, Exact: true}}
		detail := ""
		if a.Error != "" {
			detail = " (" + a.Error + ")"
		}
		fillTexts(&o.D, c.AgentName, fmt.Sprintf("bash command '%s'", shorten(sc.Command)), detail, "Allow this command?")
		return o
	}
	if len(a.Units) == 0 {
		text := stripComments(sc.Command)
		res := r.Resolve(policy.Query{Surface: "bash", Values: []string{text}})
		o := checked(protocol.GateTool, "bash", text, res)
		o.D.Command = sc.Command
		o.D.SessionPatterns = []protocol.SessionPattern{{Surface: "bash", Pattern: text, Exact: true}}
		fillTexts(&o.D, c.AgentName, fmt.Sprintf("bash command '%s'", shorten(text)), "", "Allow this command?")
		return o
	}
	var best Outcome
	var bestUnit shell.Unit
	for i, u := range a.Units {
		o := bashUnit(u, r)
		// Among equal asks, one without a session option decides, so that
		// no answer records an approval for it.
		noSession := o.D.State == best.D.State && len(o.D.SessionPatterns) == 0 && len(best.D.SessionPatterns) > 0
		if i == 0 || moreRestrictive(o.D.State, best.D.State) || noSession {
			best, bestUnit = o, u
		}
	}
	best.D.Command = sc.Command
	what := fmt.Sprintf("bash command '%s'", shorten(bestUnit.Text))
	detail := ""
	if bestUnit.Context != shell.CtxTop {
		detail += fmt.Sprintf(" (inside %s)", bestUnit.Context)
	}
	if strings.TrimSpace(sc.Command) != bestUnit.Text {
		detail += fmt.Sprintf(" (full command: '%s')", shorten(sc.Command))
	}
	fillTexts(&best.D, c.AgentName, what, detail, "Allow this command?")
	if bestUnit.Context != shell.CtxTop {
		best.D.Text.Deny = strings.Replace(best.D.Text.Deny, what, what+" (inside "+string(bestUnit.Context)+")", 1)
	}
	return best
}

// bashUnit decides one command unit: its text and every other spelling,
// the most restrictive wins; a floor turns an allow into an ask unless the
// person approved exactly this unit for the session.
func bashUnit(u shell.Unit, r Resolver) Outcome {
	res := r.Resolve(policy.Query{Surface: "bash", Values: []string{u.Text}})
	for _, alt := range u.Alts {
		if ar := r.Resolve(policy.Query{Surface: "bash", Values: []string{alt}}); moreRestrictive(ar.Action, res.Action) {
			res = ar
		}
	}
	o := checked(protocol.GateTool, "bash", u.Text, res)
	if u.Floor == shell.SentinelArming { // asked every time, like toolgate's own files
		if res.Action != policy.Deny {
			o.D.State, o.D.Rule, o.D.Session, o.D.Sentinel = policy.Ask, nil, false, u.Floor
		}
		return o
	}
	exactApproval := res.Session && res.Rule.Exact && res.Rule.Pattern == u.Text
	if u.Floor != "" && res.Action == policy.Allow && !exactApproval {
		o.D.State, o.D.Rule, o.D.Session, o.D.Sentinel = policy.Ask, nil, false, u.Floor
	}
	pattern, exact := shell.SuggestPattern(u.Text), false
	if u.ExactSuggestion || u.Floor != "" || strings.ContainsAny(u.Text, "*?") {
		pattern, exact = u.Text, true
	}
	o.D.SessionPatterns = []protocol.SessionPattern{{Surface: "bash", Pattern: pattern, Exact: exact}}
	return o
}

// stripComments drops full-line comments, as the anchor does for a command
// with no units.
func stripComments(cmd string) string {
	var keep []string
	for _, line := range strings.Split(cmd, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "#") {
			keep = append(keep, line)
		}
	}
	return strings.TrimSpace(strings.Join(keep, "\n"))
}

func mcpTool(c *Call, r Resolver) Outcome {
	targets := MCPTargets(c.Input, c.MCPServers)
	res := r.Resolve(policy.Query{Surface: "mcp", Values: targets, FirstCandidate: true})
	o := checked(protocol.GateTool, "mcp", res.Value, res)
	o.D.SessionPatterns = []protocol.SessionPattern{{Surface: "mcp", Pattern: mcpSessionPattern(res.Value)}}
	what := fmt.Sprintf("MCP target '%s'", res.Value)
	if p, ok := toolPath(c); ok {
		o = withPathRule(c, r, o, p)
		what += fmt.Sprintf(" on path '%s'%s", shorten(p.Input), resolvesTo(p))
	}
	fillTexts(&o.D, c.AgentName, what, "", "Allow this call?")
	return o
}

// withPathRule applies the path surface to a call's path: when an explicit
// path rule is more restrictive than the tool's own decision, it decides;
// a write to toolgate's own files is floored to ask.
func withPathRule(c *Call, r Resolver, o Outcome, p paths.Path) Outcome {
	if pr, ok := explicitPath(r, p); ok && moreRestrictive(pr.Action, o.D.State) {
		o = checked(protocol.GateTool, "path", p.Input, pr)
		o.D.SessionPatterns = []protocol.SessionPattern{{Surface: "path", Pattern: paths.ParentPattern(p.Abs)}}
	}
	if g := guard(c, p); g != "" && !readOnlyTools[c.ToolName] {
		floorProtected(&o, g)
	}
	o.D.Forms = allForms(p)
	return o
}

// mcpSessionPattern is server:* or server_* for a qualified target, * else.
func mcpSessionPattern(target string) string {
	if i := strings.Index(target, ":"); i > 0 {
		return target[:i] + ":*"
	}
	if i := strings.Index(target, "_"); i > 0 {
		return target[:i] + "_*"
	}
	return "*"
}

func skillTool(c *Call, r Resolver) Outcome {
	name, _ := c.Input["name"].(string)
	if strings.TrimSpace(name) == "" {
		name = "*"
	}
	res := r.Resolve(policy.Query{Surface: "skill", Values: []string{name}})
	o := checked(protocol.GateTool, "skill", name, res)
	if p, ok := toolPath(c); ok {
		o = withPathRule(c, r, o, p)
		o.D.SessionPatterns = nil // skills get no session option
	}
	fillTexts(&o.D, c.AgentName, fmt.Sprintf("skill '%s'", name), "", "Allow loading this skill?")
	return o
}

// pathTool decides a built-in file tool on its own surface with the path's
// forms and, when a path rule explicitly matches, on the path surface too;
// the more restrictive decides and is reported.
func pathTool(c *Call, r Resolver, p paths.Path) Outcome {
	res, _ := resolvePath(r, c.ToolName, p)
	o := checked(protocol.GateTool, c.ToolName, p.Input, res)
	o.D.SessionPatterns = []protocol.SessionPattern{{Surface: c.ToolName, Pattern: paths.ParentPattern(p.Abs)}}
	o = withPathRule(c, r, o, p)
	fillTexts(&o.D, c.AgentName, fmt.Sprintf("tool '%s' on path '%s'%s", c.ToolName, shorten(p.Input), resolvesTo(p)), "", "Allow this call?")
	return o
}

// extensionTool decides any other tool on its own surface with value "*";
// a path it carries is checked on the path surface as well.
func extensionTool(c *Call, r Resolver, p *paths.Path) Outcome {
	res := r.Resolve(policy.Query{Surface: c.ToolName, Values: []string{"*"}})
	o := checked(protocol.GateTool, c.ToolName, c.ToolName, res)
	o.D.SessionPatterns = []protocol.SessionPattern{{Surface: c.ToolName, Pattern: "*"}}
	what := fmt.Sprintf("tool '%s'", c.ToolName)
	if p != nil {
		o = withPathRule(c, r, o, *p)
		what = fmt.Sprintf("tool '%s' on path '%s'%s", c.ToolName, shorten(p.Input), resolvesTo(*p))
	}
	fillTexts(&o.D, c.AgentName, what, inputPreview(c.Input), "Allow this call?")
	return o
}

// resolvesTo discloses where a path really leads when that differs from
// how it was written.
func resolvesTo(p paths.Path) string {
	switch {
	case !p.RealKnown:
		return " (its real location cannot be resolved)"
	case p.Real != "" && p.Real != p.Abs:
		return fmt.Sprintf(" (resolves to '%s')", p.Real)
	}
	return ""
}
