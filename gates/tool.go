package gates

import (
	"fmt"
	"slices"
	"strings"

	"github.com/toolgate/toolgate/gates/paths"
	"github.com/toolgate/toolgate/gates/shell"
	"github.com/toolgate/toolgate/policy"
	"github.com/toolgate/toolgate/verdict"
)

// pathTools are the built-in tools whose input.path is their subject.
var pathTools = map[string]bool{"read": true, "write": true, "edit": true, "grep": true, "find": true, "ls": true}

// Tool is the last gate: the call's own rule.
func Tool(c *Call, r Resolver) Outcome {
	switch {
	case c.Shell != nil:
		return bashTool(c, r)
	case c.ToolName == "mcp":
		return mcpTool(c, r)
	case c.ToolName == "skill":
		return skillTool(c, r)
	}
	if pathTools[c.ToolName] {
		if _, ok := toolGlob(c); ok {
			return globTool(c, r)
		}
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
// input.arguments.path for mcp, worked out once per evaluation (its memo).
// Its plain twin is newToolPath; TestFastGuardIsPlain and
// TestFastEvaluationIsPlain keep them equal.
func toolPath(c *Call) (paths.Path, bool) {
	if m := c.memo; m != nil {
		if !m.toolPathDone {
			m.toolPath, m.toolPathOK = newToolPath(c)
			m.toolPathDone = true
		}
		return m.toolPath, m.toolPathOK
	}
	return newToolPath(c)
}

func newToolPath(c *Call) (paths.Path, bool) {
	raw := inputPath(c)
	if strings.TrimSpace(raw) == "" {
		return paths.Path{}, false
	}
	return c.fs.NewForHost(raw, "", c.Cwd, c.Home), true
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
		o := checked(verdict.GateTool, "bash", sc.Command, res)
		if res.Action != policy.Deny && !(res.Session && res.Rule.Exact) {
			o.D.State, o.D.Rule, o.D.Session, o.D.Sentinel = policy.Ask, nil, false, shell.SentinelUnparseable
		}
		o.D.Command = sc.Command
		o.D.SessionPatterns = []verdict.SessionPattern{{Surface: "bash", Pattern: sc.Command, Exact: true}}
		what := "bash command " + quote(sc.Command)
		if a.Error != "" {
			what += " (" + Visible(a.Error) + ")"
		}
		fillTexts(&o.D, c.AgentName, what, "", "Allow this command?")
		return o
	}
	if len(a.Units) == 0 {
		text := stripComments(sc.Command)
		res := r.Resolve(policy.Query{Surface: "bash", Values: []string{text}})
		o := checked(verdict.GateTool, "bash", text, res)
		o.D.Command = sc.Command
		o.D.SessionPatterns = []verdict.SessionPattern{{Surface: "bash", Pattern: text, Exact: true}}
		fillTexts(&o.D, c.AgentName, "bash command "+shownCommand(c.Memo, text, a), fullCommandLine(c.Memo, sc.Command, text, a), "Allow this command?")
		return o
	}
	outs := make([]Outcome, len(a.Units))
	best := 0
	for i, u := range a.Units {
		outs[i] = bashUnit(c.Memo, u, r)
		if moreRestrictive(outs[i].D.State, outs[best].D.State) {
			best = i
		}
	}
	o := outs[best]
	o.D.Command = sc.Command
	if o.D.State == policy.Allow {
		return o // only asks and denies are shown to anyone
	}
	code := runsCode(a) // once: it looks at every unit
	what := unitWhat(a.Units[best], a, code)
	if o.D.State != policy.Ask {
		fillTexts(&o.D, c.AgentName, what, fullCommandLine(c.Memo, sc.Command, a.Units[best].Text, a), "Allow this command?")
		return o
	}
	// One prompt names every unit that asks, and "allow for this session"
	// records a pattern for each of them: one answer covers exactly what
	// the person read.
	var lines distinct[string]
	var patterns distinct[verdict.SessionPattern]
	// A line is written once for each unit and rule that asks, as long as
	// they repeat: a long command mostly repeats a few. Where the first
	// askLinesTried are all different, the rest are written one by one
	// without looking them up (the lines are kept unique all the same).
	var written distinct[askLine]
	repeated := false
	noSession := false // a unit asked every time (arming, own files): no session option at all
	for i, u := range a.Units {
		d := &outs[i].D
		if d.State != policy.Ask {
			continue
		}
		noSession = noSession || len(d.SessionPatterns) == 0
		if !repeated && len(written.list) >= askLinesTried ||
			written.add(askLine{u.Text, u.Code, u.Lang, u.Context, d.Rule, d.Session, d.Sentinel, d.MatchedAs}) {
			lines.add(fmt.Sprintf("\n  - %s, asked by %s", unitWhat(u, a, code), ruleRef(d)))
		} else {
			repeated = true
		}
		for _, p := range outs[i].D.SessionPatterns {
			patterns.add(p)
		}
	}
	o.D.SessionPatterns = patterns.list
	if noSession {
		o.D.SessionPatterns = nil
	}
	detail := ""
	if len(lines.list) > 1 {
		detail = fmt.Sprintf("\nThe command has %d units that ask; this one answer covers all of them:%s", len(lines.list), strings.Join(lines.list, ""))
	}
	detail += fullCommandLine(c.Memo, sc.Command, a.Units[best].Text, a) + shellPathLines(c)
	fillTexts(&o.D, c.AgentName, what, detail, "Allow this command?")
	return o
}

// askLinesTried is how many different lines bashTool looks up before it
// stops looking for repeats.
const askLinesTried = 64

// askLine is what a line of a bash prompt is written from: the unit's
// text and where it stands (unitWhat), and the rule that asked (ruleRef).
type askLine struct {
	text, code, lang string
	ctx              shell.Context
	rule             *policy.Rule
	session          bool
	sentinel, as     string
}

// unitWhat names a unit in a message: its text, long data elided unless
// the command runs code (runsCode of its analysis), and where it stands.
func unitWhat(u shell.Unit, a *shell.Analysis, runsCode bool) string {
	text := u.Text
	if !runsCode {
		text = elideWords(u.Text, a.Paths)
	}
	what := "bash command " + quote(text)
	if u.Context != shell.CtxTop {
		what += fmt.Sprintf(" (inside %s)", u.Context)
	}
	if u.Code != "" { // foreign code the unit's words do not show (a heredoc)
		what += fmt.Sprintf(", running %s code %s", Visible(u.Lang), quote(u.Code))
	}
	return what
}

// elideWords elides each long word of a unit's text (its words are joined
// by single spaces) that is data, not a path; no word is dropped, and a
// path word is always shown whole.
func elideWords(text string, ps []shell.PathWord) string {
	if len(text) <= shell.ElideAbove {
		return text
	}
	words := strings.Split(text, " ")
	for i, w := range words {
		if len(w) > shell.ElideAbove && !slices.ContainsFunc(ps, func(p shell.PathWord) bool { return strings.Contains(p.Raw, w) || strings.Contains(w, p.Raw) }) {
			words[i] = shell.ElideMiddle(w)
		}
	}
	return strings.Join(words, " ")
}

// fullCommandLine shows the whole command when it is more than the unit
// named.
func fullCommandLine(m *Memo, cmd, unit string, a *shell.Analysis) string {
	if strings.TrimSpace(cmd) == unit {
		return ""
	}
	return "\nFull command: " + shownCommand(m, cmd, a)
}

// shellPathLines lists the command's paths that are not plainly inside
// the working directory: outside it, resolving elsewhere, or of unknown
// location.
func shellPathLines(c *Call) string {
	var shown distinct[string]
	for _, bp := range wordPaths(c) {
		if !bp.outside(c.Cwd) && bp.known && bp.path.Real == bp.path.Abs {
			continue
		}
		shown.add(bp.shown())
	}
	if len(shown.list) == 0 {
		return ""
	}
	return "\nPaths outside the working directory or resolving elsewhere: " + strings.Join(shown.list, ", ")
}

// commandRuler is a Resolver that knows which commands its bash rules
// name.
type commandRuler interface {
	HasCommandRule(args []string, above policy.Action) bool
}

// restrictsCommand reports whether a bash rule more restrictive than allow
// names the command of the unit's words (as written or by its base name);
// a resolver that cannot say is taken to have one (fail closed).
func restrictsCommand(r Resolver, args []string) bool {
	cr, ok := r.(commandRuler)
	return !ok || cr.HasCommandRule(args, policy.Allow)
}

// bashUnit decides one command unit: its text and every other spelling,
// the most restrictive wins; a floor turns an allow into an ask unless the
// person approved exactly this unit for the session.
func bashUnit(m *Memo, u shell.Unit, r Resolver) Outcome {
	res := r.Resolve(policy.Query{Surface: "bash", Values: []string{u.Text}, Args: u.Args})
	namesCode := u.Floor == shell.SentinelForeign && res.Action == policy.Allow && namesCodeOption(res, u.CodeRule)
	for _, alt := range u.Alts {
		ar := r.Resolve(policy.Query{Surface: "bash", Values: []string{alt}})
		if moreRestrictive(ar.Action, res.Action) {
			res = ar
		}
		// /usr/bin/python3 -c is named by "python3 -c *" through its base name.
		namesCode = namesCode || (u.Floor == shell.SentinelForeign && ar.Action == policy.Allow && namesCodeOption(ar, u.CodeRule))
	}
	o := checked(verdict.GateTool, "bash", u.Text, res)
	if res.Canonical {
		o.D.MatchedAs = res.Value
		o.Note = "matched as " + quote(res.Value) + " (the options' canonical spelling)"
	}
	if u.Floor == shell.SentinelArming || u.Floor == shell.SentinelSelf { // asked every time, like toolgate's own files
		if res.Action != policy.Deny {
			o.D.State, o.D.Rule, o.D.Session, o.D.Sentinel = policy.Ask, nil, false, u.Floor
		}
		return o
	}
	exactApproval := res.Session && res.Rule.Exact && res.Rule.Pattern == u.Text
	if u.Floor != "" && res.Action == policy.Allow && !exactApproval && !namesCode {
		o.D.State, o.D.Rule, o.D.Session, o.D.Sentinel = policy.Ask, nil, false, u.Floor
	}
	openFloor := false
	if u.OpenArgs && o.D.State == policy.Allow && !exactApproval && len(u.Args) > 0 && restrictsCommand(r, u.Args) {
		// Words only known at run time may be the options a deny or ask
		// rule for this command names (rm $o x with rm -rf * denied).
		o.D.State, o.D.Rule, o.D.Session, o.D.Sentinel = policy.Ask, nil, false, shell.SentinelDynamic
		openFloor = true
	}
	if o.D.State == policy.Allow {
		// "Allow for this session" is offered, and toolgate suggest learns,
		// only for what asks: an allowed unit needs no pattern.
		return o
	}
	pattern, exact := m.suggestPattern(u.Text)
	if exact || u.ExactSuggestion || u.Floor != "" || openFloor || strings.ContainsAny(u.Text, "*?[") {
		pattern, exact = u.Text, true
	}
	o.D.SessionPatterns = []verdict.SessionPattern{{Surface: "bash", Pattern: pattern, Exact: exact}}
	return o
}

// namesCodeOption reports whether the rule that decided is an explicit
// rule naming the program together with its code option (the design,
// foreign code): its pattern, canonicalized, starts with those words
// literally ("python3 -c *" for python3 -c CODE). A wildcard that merely
// covers the unit ("*", "python3 *", "python* -c *"), the fallback, a
// session approval and an allow made by yolo do not.
func namesCodeOption(res policy.Result, words []string) bool {
	r := res.Rule
	if len(words) == 0 || r == nil || res.Session || r.IsFallback() || r.Origin.Scope == policy.ScopeYolo {
		return false
	}
	got := strings.Fields(r.Pattern)
	if len(got) < len(words) {
		return false
	}
	for k, w := range words {
		g := got[k]
		if strings.ContainsAny(g, "*?") {
			return false
		}
		switch {
		case k == 0:
			g = g[strings.LastIndexByte(g, '/')+1:]
		case len(w) == 2 && w[0] == '-' && len(g) > 2 && g[0] == '-' && g[1] != '-' && g[len(g)-1] == w[1]:
			g = w // a short-option cluster ending in the code option (perl -ne)
		}
		if g != w {
			return false
		}
	}
	return true
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
	sv := mcpSessionValues(c.Input, c.MCPServers)
	res := r.Resolve(policy.Query{Surface: "mcp", Values: targets, FirstCandidate: true, SessionValues: sv})
	if more := mcpPrefixedForms(c.Input, c.MCPServers); len(more) > 0 {
		// A tool named with its server's prefix (github_delete_repo) is
		// also read as that server's tool (github:delete_repo); like the
		// canonical spelling of options, this only adds restriction.
		all := append(append([]string(nil), targets...), more...)
		if pr := r.Resolve(policy.Query{Surface: "mcp", Values: all, FirstCandidate: true, SessionValues: sv}); moreRestrictive(pr.Action, res.Action) {
			res = pr
		}
		targets = all
	}
	o := checked(verdict.GateTool, "mcp", res.Value, res)
	o.D.Forms = targets // the candidates are forms of one target
	// An allow offers no session option (a path rule that asks brings its own).
	if o.D.State != policy.Allow {
		o.D.SessionPatterns = mcpSessionPatterns(c.Input, c.MCPServers)
	}
	p, hasPath := toolPath(c)
	if hasPath {
		o = withPathRule(c, r, o, p)
	}
	if o.D.State == policy.Allow {
		return o // fillTexts writes nothing for an allow: its text is not built either
	}
	what := "MCP target " + quote(res.Value)
	if hasPath {
		what += " on path " + quote(p.Input) + resolvesTo(p)
	}
	fillTexts(&o.D, c.AgentName, what, inputDetail(c, o.D.State), "Allow this call?")
	return o
}

// withPathRule applies the path surface to a call's path: when an explicit
// path rule is more restrictive than the tool's own decision, it decides;
// a write to toolgate's own files is floored to ask.
func withPathRule(c *Call, r Resolver, o Outcome, p paths.Path) Outcome {
	if pr, ok := explicitPath(r, p); ok && moreRestrictive(pr.Action, o.D.State) {
		o = checked(verdict.GateTool, "path", p.Input, pr)
		o.D.SessionPatterns = pathSessionPatterns("path", p, c.Home)
	}
	if !readOnlyTools[c.ToolName] {
		if g := guard(c, p); g != "" {
			floorProtected(&o, g)
		}
	}
	o.D.Forms = allForms(p)
	return o
}

// mcpSessionPatterns is what "allow for this session" records for an mcp
// call: never more than the target the prompt names. A tool call
// on a known server records that server's own form "server:*" (which no
// other server's targets match: "github:*" does not cover
// "github_enterprise:x"); a tool call with no known server records the tool
// exactly; a connect records exactly that connect. Describing, searching,
// listing and status calls get no session option: every pattern that would
// cover them also covers calls the prompt did not name. A name holding a
// wildcard character is recorded exactly.
func mcpSessionPatterns(input map[string]any, servers []string) []verdict.SessionPattern {
	field := func(k string) string { return mcpField(input, k) }
	exact := func(p string) []verdict.SessionPattern {
		return []verdict.SessionPattern{{Surface: "mcp", Pattern: p, Exact: true}}
	}
	tool := field("tool")
	if tool == "" {
		if connect := field("connect"); connect != "" && field("describe") == "" {
			return exact("mcp_connect_" + connect)
		}
		return nil
	}
	server := mcpServerOf(tool, field("server"), servers)
	switch {
	case server == "":
		return exact(tool)
	case strings.ContainsAny(server, "*?[:"):
		if i := strings.Index(tool, ":"); i > 0 {
			tool = strings.TrimSpace(tool[i+1:])
		}
		return exact(server + ":" + tool)
	}
	return []verdict.SessionPattern{{Surface: "mcp", Pattern: server + ":*"}}
}

// mcpPrefixedForms are the forms of an mcp tool call whose tool name
// starts with a server's prefix ({tool: "github_delete_repo"} with server
// github given or configured): that server's tool without the prefix,
// github:delete_repo and github_delete_repo ... as adapters expose tools
// under prefixed names.
func mcpPrefixedForms(input map[string]any, servers []string) []string {
	field := func(k string) string { return mcpField(input, k) }
	ref := mcpToolRef(input)
	if ref == "" {
		return nil
	}
	tool := ref
	if i := strings.Index(ref, ":"); i > 0 && i < len(ref)-1 {
		if qs, qt := strings.TrimSpace(ref[:i]), strings.TrimSpace(ref[i+1:]); qs != "" && qt != "" {
			tool = qt
		}
	}
	names := servers
	if hint := field("server"); hint != "" {
		names = []string{hint}
	} else if s := mcpServerOf(ref, "", servers); s != "" {
		names = append([]string{s}, servers...)
	}
	var out []string
	for _, n := range names {
		if rest, ok := strings.CutPrefix(tool, n+"_"); ok && n != "" && rest != "" {
			out = append(out, n+"_"+rest, n+":"+rest, n)
		}
	}
	return out
}

// mcpSessionValues are the forms of an mcp tool call a session approval
// may match: the server's own target (server_tool, server:tool) when one
// server is named, so that approving github:* never allows
// {tool: "github:x", server: "gitlab"}, which runs gitlab's tool; nil (every
// form) otherwise.
func mcpSessionValues(input map[string]any, servers []string) []string {
	field := func(k string) string { return mcpField(input, k) }
	ref := mcpToolRef(input)
	if ref == "" {
		return nil
	}
	server := mcpServerOf(ref, field("server"), servers)
	if server == "" {
		return nil
	}
	tool := ref
	if i := strings.Index(ref, ":"); i > 0 && i < len(ref)-1 {
		if qs, qt := strings.TrimSpace(ref[:i]), strings.TrimSpace(ref[i+1:]); qs != "" && qt != "" {
			tool = qt
		}
	}
	return []string{server + "_" + tool, server + ":" + tool}
}

// mcpServerOf is the one server an mcp tool reference names: the server
// hint, the qualifier of "server:tool", or the single configured server
// the tool name ends with; "" when there is none or it is ambiguous.
func mcpServerOf(ref, hint string, servers []string) string {
	if hint != "" {
		return hint
	}
	if i := strings.Index(ref, ":"); i > 0 && i < len(ref)-1 {
		if qs, qt := strings.TrimSpace(ref[:i]), strings.TrimSpace(ref[i+1:]); qs != "" && qt != "" {
			return qs
		}
	}
	found := ""
	for _, n := range servers {
		if n != "" && strings.HasSuffix(ref, "_"+n) && !strings.HasPrefix(ref, n+"_") {
			if found != "" && found != n {
				return ""
			}
			found = n
		}
	}
	return found
}

func skillTool(c *Call, r Resolver) Outcome {
	name, _ := c.Input["name"].(string)
	if strings.TrimSpace(name) == "" {
		name = "*"
	}
	res := r.Resolve(policy.Query{Surface: "skill", Values: []string{name}})
	o := checked(verdict.GateTool, "skill", name, res)
	if p, ok := toolPath(c); ok {
		o = withPathRule(c, r, o, p)
		o.D.SessionPatterns = nil // skills get no session option
	}
	fillTexts(&o.D, c.AgentName, "skill "+quote(name), "", "Allow loading this skill?")
	return o
}

// pathTool decides a built-in file tool on its own surface with the path's
// forms and, when a path rule explicitly matches, on the path surface too;
// the more restrictive decides and is reported.
func pathTool(c *Call, r Resolver, p paths.Path) Outcome {
	res, _ := resolvePath(r, c.ToolName, p)
	o := checked(verdict.GateTool, c.ToolName, p.Input, res)
	if o.D.State != policy.Allow { // an allow offers no session option (a path rule that asks brings its own)
		o.D.SessionPatterns = pathSessionPatterns(c.ToolName, p, c.Home)
	}
	o = withPathRule(c, r, o, p)
	if o.D.State != policy.Allow { // fillTexts writes nothing for an allow: its text is not built either
		fillTexts(&o.D, c.AgentName, fmt.Sprintf("tool %s on path %s%s", quote(c.ToolName), quote(p.Input), resolvesTo(p)), "", "Allow this call?")
	}
	return o
}

// reservedSurfaces are names a tool may carry that would alias another
// surface in a session rule; such a tool gets no session option.
var reservedSurfaces = map[string]bool{
	"bash": true, "mcp": true, "skill": true, "path": true, "external_directory": true,
	"read": true, "write": true, "edit": true, "grep": true, "find": true, "ls": true, "*": true,
}

// extensionTool decides any other tool on its own surface with value "*"
// (or the value a host adapter gave it, e.g. WebFetch's URL); a path it
// carries is checked on the path surface as well. "Allow for this session"
// records the tool itself (or that value), exactly: it is never read as a
// wildcard, and a tool named like a gate surface gets no session option.
func extensionTool(c *Call, r Resolver, p *paths.Path) Outcome {
	value, shown := "*", c.ToolName
	if c.Value != "" {
		value, shown = c.Value, c.Value
	}
	res := r.Resolve(policy.Query{Surface: c.ToolName, Values: []string{value}})
	o := checked(verdict.GateTool, c.ToolName, shown, res)
	if !reservedSurfaces[c.ToolName] && strings.TrimSpace(c.ToolName) != "" {
		o.D.SessionPatterns = []verdict.SessionPattern{{Surface: c.ToolName, Pattern: value, Exact: true}}
	}
	if p != nil {
		o = withPathRule(c, r, o, *p)
	}
	if o.D.State == policy.Allow {
		return o // fillTexts writes nothing for an allow: its text is not built either
	}
	what := "tool " + quote(c.ToolName)
	if c.Value != "" {
		what = "tool " + quote(c.ToolName) + " on " + quote(c.Value)
	}
	if p != nil {
		what = fmt.Sprintf("tool %s on path %s%s", quote(c.ToolName), quote(p.Input), resolvesTo(*p))
	}
	fillTexts(&o.D, c.AgentName, what, inputDetail(c, o.D.State), "Allow this call?")
	return o
}

// inputDetail shows the input of a call that is asked or denied; an
// allowed call is shown to no one.
func inputDetail(c *Call, state policy.Action) string {
	if state == policy.Allow {
		return ""
	}
	return inputLines(c)
}

// hasDotDot reports whether a path spelling has a ".." component.
func hasDotDot(p string) bool {
	for part := range strings.SplitSeq(p, "/") {
		if part == ".." {
			return true
		}
	}
	return false
}

// resolvesTo discloses where a path really leads when that differs from
// how it was written.
func resolvesTo(p paths.Path) string {
	where := ""
	switch {
	case !p.RealKnown:
		where = " (its real location cannot be resolved)"
	case p.Real != "" && p.Real != p.Abs:
		where = " (resolves to " + quote(p.Real) + ")"
	case p.Abs != "" && p.Abs != p.Input && hasDotDot(p.Input):
		// src/../../x reads like a path in the project; say where it is.
		where = " (resolves to " + quote(p.Abs) + ")"
	}
	if h, ok := p.Host(); ok && h.Abs != "" && h.Abs != p.Abs {
		// The host opens the path in its own spelling.
		where += " (the host opens it as " + quote(h.Abs)
		if h.Real != "" && h.Real != h.Abs {
			where += ", which resolves to " + quote(h.Real)
		}
		where += ")"
	}
	return where
}
