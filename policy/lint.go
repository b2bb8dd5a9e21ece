package policy

import (
	"fmt"
	"sort"
	"strings"
)

// Lint is advice about a policy that parses: legal, but probably not
// what its author meant.
type Lint struct {
	Path    string `json:"path,omitempty"`
	Line    int    `json:"line,omitempty"`
	Kind    string `json:"kind"` // shadowed, risky-allow, unknown-surface, shell-tool, permissive-fallback
	Message string `json:"message"`
}

// builtinSurfaces are the surfaces toolgate itself uses.
var builtinSurfaces = map[string]bool{
	"*": true, "read": true, "write": true, "edit": true, "grep": true, "find": true, "ls": true,
	"bash": true, "mcp": true, "skill": true, "path": true, "external_directory": true,
}

// hostSurfaces are the surfaces of hook hosts' tools that keep their own
// name: Claude Code's and Gemini CLI's.
var hostSurfaces = map[string]bool{
	"WebFetch": true, "WebSearch": true, "SlashCommand": true, "ListMcpResourcesTool": true, "ReadMcpResourceTool": true,
	"TodoWrite": true, "ExitPlanMode": true, "EnterPlanMode": true, "Task": true, "Agent": true, "BashOutput": true,
	"KillShell": true, "KillBash": true, "TaskOutput": true, "TaskStop": true, "TaskCreate": true, "TaskGet": true,
	"TaskUpdate": true, "TaskList": true, "AskUserQuestion": true, "ToolSearch": true, "Monitor": true,
	"EnterWorktree": true, "ExitWorktree": true, "CronCreate": true, "CronDelete": true, "CronList": true,
	"RemoteTrigger": true, "Workflow": true, "ReadMcpResourceDir": true, "RefreshMcpTools": true,
	"web_fetch": true, "google_web_search": true, "read_many_files": true, "save_memory": true, "write_todos": true,
	"update_topic": true, "enter_plan_mode": true, "exit_plan_mode": true, "ask_user": true, "complete_task": true,
	"invoke_agent": true, "get_internal_docs": true, "list_mcp_resources": true, "read_mcp_resource": true,
	"tracker_create_task": true, "tracker_update_task": true, "tracker_get_task": true, "tracker_list_tasks": true,
	"tracker_add_dependency": true, "tracker_visualize": true, "take_snapshot": true,
}

// hostMapped are host tool names that are decided on one of toolgate's
// own surfaces, so a rule on the host's name never applies.
var hostMapped = map[string]string{
	"Bash": "bash", "Read": "read", "NotebookRead": "read", "Write": "write", "Edit": "edit", "MultiEdit": "edit",
	"NotebookEdit": "edit", "Grep": "grep", "Glob": "find", "LS": "ls", "Skill": "skill",
	"run_shell_command": "bash", "read_file": "read", "write_file": "write", "replace": "edit", "glob": "find",
	"grep_search": "grep", "search_file_content": "grep", "list_directory": "ls", "activate_skill": "skill",
}

// runsAnything are commands whose allow lets any other command run. (The
// transparent wrappers — command, builtin, exec, nohup, time, nice,
// timeout, stdbuf — are not among them: the command they run is matched
// on its own, so an allow of one allows only itself.)
var runsAnything = map[string]string{
	"bash": "a shell", "sh": "a shell", "zsh": "a shell", "dash": "a shell", "ksh": "a shell", "fish": "a shell", "busybox": "a shell",
	"sudo": "a wrapper", "doas": "a wrapper", "env": "a wrapper", "xargs": "a wrapper", "eval": "a string evaluator",
	"source": "a script loader", ".": "a script loader", "su": "a wrapper", "runuser": "a wrapper", "watch": "a wrapper",
	"parallel": "a wrapper", "setsid": "a wrapper", "flock": "a wrapper", "script": "a wrapper",
	"python": "an interpreter", "python3": "an interpreter", "node": "an interpreter", "perl": "an interpreter",
	"ruby": "an interpreter", "php": "an interpreter", "deno": "an interpreter", "bun": "an interpreter",
	"lua": "an interpreter", "npx": "a package runner", "pnpx": "a package runner", "ssh": "a remote shell",
}

// LintPolicy returns advice about p's config rules, in rule order.
func LintPolicy(p *Policy) []Lint {
	var out []Lint
	rules := configOnly(p.Rules())
	shadows := shadowedBy(rules)
	for i, r := range rules {
		if j := shadows[i]; j >= 0 {
			later := rules[j]
			if subsumes(later.Pattern, r.Pattern) {
				out = append(out, Lint{Path: r.Origin.Path, Line: r.Origin.Line, Kind: "shadowed",
					Message: fmt.Sprintf("%s rule %q can never win: the later rule %q (%s) matches everything it matches", r.Surface, r.Pattern, later.Pattern, where(later.Origin))})
			} else if f, ok := shadowingForm(later.Pattern, r.Pattern); ok {
				out = append(out, Lint{Path: r.Origin.Path, Line: r.Origin.Line, Kind: "shadowed",
					Message: fmt.Sprintf("mcp rule %q can never win: every tool call it matches is also named %q, which the later rule %q (%s) matches (the last rule matching any form of a target wins)", r.Pattern, f, later.Pattern, where(later.Origin))})
			}
		}
		if r.Surface == "bash" && r.Action == Allow {
			out = append(out, riskyAllow(r)...)
		}
		if _, shell := p.ShellTools[r.Surface]; shell {
			// A declared shell tool is known, but its calls are decided
			// command by command on the bash surface.
			out = append(out, Lint{Path: r.Origin.Path, Line: r.Origin.Line, Kind: "shell-tool",
				Message: fmt.Sprintf("surface %q never applies: shellTools declares %s a shell tool, whose commands are decided on the \"bash\" surface like bash's (did you mean a \"bash\" rule?)", r.Surface, r.Surface)})
		} else if !builtinSurfaces[r.Surface] && !hostSurfaces[r.Surface] && !strings.ContainsAny(r.Surface, "*?") {
			out = append(out, unknownSurface(r)...)
		}
	}
	for _, w := range p.Warnings {
		if strings.Contains(w.Message, `"*": "allow"`) {
			out = append(out, Lint{Path: w.Path, Line: w.Line, Kind: "permissive-fallback", Message: w.Message})
		}
	}
	return dedupeLints(out)
}

// shadows reports whether rule a makes rule b, earlier on the same
// surface, never win: a subsumes b, or (mcp) a matches a form every call
// of b has.
func shadows(a, b *Rule) bool {
	if subsumes(a.Pattern, b.Pattern) {
		return true
	}
	_, ok := shadowingForm(a.Pattern, b.Pattern)
	return b.Surface == "mcp" && ok
}

// shadowedBy returns, for each rule, the index of the first later rule of
// the same surface that shadows it (-1 for none), without comparing every
// pair (a policy of 160,000 rules has 10^10): the later rules of a surface
// are indexed by what subsumes can hold for — a "prefix*" pattern by its
// prefix, a literal by itself, any other wildcard pattern in a list — so a
// rule looks up only its own prefixes (and its mcp forms) and that list,
// and each candidate found is confirmed by subsumes itself. Its plain twin
// is the scan of every pair; TestShadowedByIsThePairwiseScan keeps them
// equal.
func shadowedBy(rules []*Rule) []int {
	out := make([]int, len(rules))
	idx := map[string]*laterRules{}
	for i := len(rules) - 1; i >= 0; i-- {
		r := rules[i]
		x := idx[r.Surface]
		if x == nil {
			x = newLaterRules()
			idx[r.Surface] = x
		}
		out[i] = x.first(rules, r)
		x.add(r.Pattern, i)
	}
	return out
}

// laterRules indexes the rules of one surface after the one being linted:
// each map of an index holds the smallest index of its key (rules are
// added from the last one back), each list its indexes in decreasing
// order. A pattern with a wildcard elsewhere than at its end can match a
// literal only if the literal starts with the pattern's literal prefix
// (before its first wildcard), or else ends with its literal suffix (after
// its last one): such patterns are listed under that prefix or suffix, and
// only the rest (a wildcard at both ends) in one list every literal reads.
type laterRules struct {
	literal   map[string]int   // patterns without a wildcard
	prefix    map[string]int   // "prefix*" patterns whose prefix has no wildcard, by prefix
	otherPre  map[string][]int // other wildcard patterns, by their literal prefix
	otherSuf  map[string][]int // other wildcard patterns without one, by their literal suffix
	otherRest []int            // the others
}

func newLaterRules() *laterRules {
	return &laterRules{literal: map[string]int{}, prefix: map[string]int{}, otherPre: map[string][]int{}, otherSuf: map[string][]int{}}
}

func (x *laterRules) add(pattern string, i int) {
	first := strings.IndexAny(pattern, "*?")
	last := strings.LastIndexAny(pattern, "*?")
	switch prefix, ok := strings.CutSuffix(pattern, "*"); {
	case first < 0:
		x.literal[pattern] = i
	case ok && !strings.ContainsAny(prefix, "*?"):
		x.prefix[prefix] = i
	case first > 0:
		x.otherPre[pattern[:first]] = append(x.otherPre[pattern[:first]], i)
	case last < len(pattern)-1:
		x.otherSuf[pattern[last+1:]] = append(x.otherSuf[pattern[last+1:]], i)
	default:
		x.otherRest = append(x.otherRest, i)
	}
}

// first is the smallest index of an indexed rule that shadows r, -1 for
// none.
func (x *laterRules) first(rules []*Rule, r *Rule) int {
	best := -1
	try := func(j int, ok bool) {
		if ok && (best < 0 || j < best) && shadows(rules[j], r) {
			best = j
		}
	}
	tryList := func(list []int) {
		for k := len(list) - 1; k >= 0; k-- { // the smallest index first
			if best >= 0 && list[k] > best {
				return
			}
			try(list[k], true)
		}
	}
	values := []string{r.Pattern}
	if r.Surface == "mcp" {
		values = append(values, mcpForms(r.Pattern)...)
	}
	for _, v := range values {
		for k := 0; k <= len(v); k++ {
			j, ok := x.prefix[v[:k]]
			try(j, ok)
		}
		if !strings.ContainsAny(v, "*?") {
			j, ok := x.literal[v]
			try(j, ok)
			j, ok = x.prefix[v+" "] // "git *" matches the bare "git"
			try(j, ok)
			for k := 1; k <= len(v); k++ {
				tryList(x.otherPre[v[:k]])
				tryList(x.otherSuf[v[k-1:]])
			}
			tryList(x.otherRest)
		}
	}
	return best
}

func configOnly(rules []*Rule) []*Rule {
	var out []*Rule
	for _, r := range rules {
		if r.Layer == LayerConfig {
			out = append(out, r)
		}
	}
	return out
}

func where(o Origin) string {
	if o.Path == "" {
		return o.Scope
	}
	return fmt.Sprintf("%s:%d", o.Path, o.Line)
}

// subsumes reports, conservatively, whether pattern a matches every value
// pattern b matches: a is "*"; or b has no wildcard and a matches it; or a
// is a literal prefix followed by a single trailing "*" and b starts with
// that prefix.
func subsumes(a, b string) bool {
	if a == "*" {
		return true
	}
	if !strings.ContainsAny(b, "*?") {
		pa := CompilePattern(a, "")
		return pa.Match(b, false)
	}
	prefix, ok := strings.CutSuffix(a, "*")
	if !ok || strings.ContainsAny(prefix, "*?") {
		return false
	}
	if strings.HasSuffix(prefix, " ") {
		// "git *" also matches the bare "git": b must start with "git "
		// or be exactly "git" followed by its own optional tail.
		return strings.HasPrefix(b, prefix) || b == strings.TrimSuffix(prefix, " ")+" *"
	}
	return strings.HasPrefix(b, prefix)
}

// shadowingForm returns a form that every MCP call matching pattern b
// also has (a target's candidates are forms of it) and that
// pattern a matches: "mcp" is a form of every call, and a tool (or
// describe) call of "server:tool" is also named "server_tool", "server"
// and "tool" (a search or connect whose text is
// "server:tool" is not a call of that tool and is not considered).
func shadowingForm(a, b string) (string, bool) {
	for _, f := range mcpForms(b) {
		if subsumes(a, f) {
			return f, true
		}
	}
	return "", false
}

// mcpForms are the forms every MCP call matching pattern b also has (see
// shadowingForm).
func mcpForms(b string) []string {
	forms := []string{"mcp"}
	if s, rest, ok := strings.Cut(b, ":"); ok && s != "" && rest != "" && !strings.ContainsAny(s, "*?") {
		forms = append(forms, s+"_"+rest, s)
		if !strings.ContainsAny(rest, "*?") {
			forms = append(forms, rest)
		}
	}
	return forms
}

func riskyAllow(r *Rule) []Lint {
	pat := strings.TrimSpace(r.Pattern)
	if pat == "*" {
		return []Lint{{Path: r.Origin.Path, Line: r.Origin.Line, Kind: "risky-allow",
			Message: "bash \"*\": \"allow\" allows every command no later rule names; toolgate still asks for wrappers, inline scripts and unparseable commands"}}
	}
	first := strings.Fields(pat)[0]
	if kind, ok := runsAnything[first]; ok && strings.ContainsAny(pat, "*?") {
		return []Lint{{Path: r.Origin.Path, Line: r.Origin.Line, Kind: "risky-allow",
			Message: fmt.Sprintf("bash allow %q: %s is %s, so this allows any command it runs (toolgate floors wrappers and shells to ask, so this rule mostly has no effect)", r.Pattern, first, kind)}}
	}
	return nil
}

func unknownSurface(r *Rule) []Lint {
	if s, ok := hostMapped[r.Surface]; ok {
		return []Lint{{Path: r.Origin.Path, Line: r.Origin.Line, Kind: "unknown-surface",
			Message: fmt.Sprintf("surface %q never applies: toolgate decides the host tool %s on the %q surface (did you mean %q?)", r.Surface, r.Surface, s, s)}}
	}
	msg := fmt.Sprintf("surface %q is not one toolgate uses itself; it applies only if an extension tool has exactly this name", r.Surface)
	msg += DidYouMean(r.Surface, KnownSurfaces)
	return []Lint{{Path: r.Origin.Path, Line: r.Origin.Line, Kind: "unknown-surface", Message: msg}}
}

func dedupeLints(in []Lint) []Lint {
	seen := map[string]bool{}
	var out []Lint
	for _, l := range in {
		k := fmt.Sprintf("%s\x00%d\x00%s", l.Path, l.Line, l.Message)
		if !seen[k] {
			seen[k] = true
			out = append(out, l)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Line < out[j].Line
	})
	return out
}
