// Package gates decides tool calls. Each gate is a pure function from a call
// (and the policy lookups it needs, through a Resolver) to "does not apply",
// a bypass, or a descriptor; the runner (runner.go) is the one place that
// turns descriptors into allow or block with side effects: prompts, session
// approvals, decision notifications and the audit record.
package gates

import (
	"github.com/toolgate/toolgate/gates/paths"
	"github.com/toolgate/toolgate/gates/shell"
	"github.com/toolgate/toolgate/policy"
	"github.com/toolgate/toolgate/verdict"
)

// Resolver answers policy queries. Implementations apply the session
// approvals themselves, so gates never see session state.
type Resolver interface {
	Resolve(q policy.Query) policy.Result
	// HasExplicitPathRule reports whether the path surface has a config
	// rule with the given action.
	HasExplicitPathRule(a policy.Action) bool
	// HasNarrowRule reports whether surface has a config rule with the
	// given action whose pattern is not "*".
	HasNarrowRule(surface string, a policy.Action) bool
}

// Call is one tool call with everything the gates may read. It is built by
// the session and not changed by gates.
type Call struct {
	ToolCallID string
	ToolName   string
	Input      map[string]any
	// RawInput is the input as the host sent it (members in its order),
	// for showing it to a person; nil when not known.
	RawInput   []byte
	Cwd        string
	Home       string
	AgentDir   string
	AgentName  string
	Skills     []verdict.Skill
	MCPServers []string
	// InfraDirs are read-only directories exempt from the external
	// directory gate for read-only tools (host dirs and the global
	// piInfrastructureReadPaths).
	InfraDirs []string
	// Shell is set when the call carries a shell command (bash or a
	// configured shellTools alias).
	Shell *ShellCommand
	// Confined is set when the call runs confined (the policy's sandbox is
	// on): a file a command writes by design (PathWord.ByDesign) is then a
	// path word, asked about, so that an approved call may write it.
	Confined bool
	// Value is the subject of a tool with no pi counterpart, as the host's
	// adapter names it (Claude Code's WebFetch: its URL); empty: "*".
	Value string
	// Protected are further files no call may change unasked (--config
	// files, the audit log), besides the policy files' usual places.
	Protected []string

	// Dirs, when set, knows the real paths of directories that do not
	// change without the session noticing (toolgate's own and the host's
	// directories), across calls.
	Dirs DirCache
	// Memo, when set, keeps the session's pure work across calls
	// (compiled globs).
	Memo *Memo

	// protectedDirs are protectedPaths, built once per call, and
	// protectedClean the same cleaned (cleanOwnFiles).
	protectedDirs, protectedClean []string

	// fs answers the file system questions of one evaluation (each lstat
	// and readlink once); Evaluate starts it afresh, and nil asks the file
	// system every time.
	fs *paths.View
	// view and memoStore are fs's and memo's room, made anew (Reset) by
	// each evaluation: a call decoded into a reused Call (the fast path's)
	// allocates neither.
	view      paths.View
	memoStore evalMemo

	// memo holds what one evaluation works out once for every gate (the
	// tool's path, the shell's path words, the glob's selection, the
	// protected files' real paths); Evaluate starts it afresh, as the file
	// system may have changed since. nil: everything is worked out anew.
	memo *evalMemo

	// remembered is the evaluation Evals gave this call's outcomes from
	// (Request.Kept).
	remembered *evalEntry
}

// evalMemo is the work of one evaluation shared by its gates: each is a
// function of the call and of what the file system said in this
// evaluation (c.fs), so it is the same whichever gate asks first. Its
// plain twin is working each out anew (no memo: evaluatePlain in the test);
// TestFastEvaluationIsPlain and TestFastGuardIsPlain keep them equal.
type evalMemo struct {
	toolPath     paths.Path
	toolPathOK   bool
	toolPathDone bool

	words     []bashPath
	wordsDone bool

	glob     globSelection
	globOK   bool
	globDone bool

	guards *guardSet
}

// ShellCommand is the shell command of a call and its one analysis.
type ShellCommand struct {
	Command  string
	Workdir  string
	Analysis shell.Analysis
	// Stamp identifies Analysis (shell.Cache.AnalyzeStamped): the same
	// non-zero stamp is the same analysis of Command from Workdir. 0: not
	// known, and Evals does not remember the call.
	Stamp uint64
}

// DirCache remembers the real paths of directories across calls, for as
// long as nothing can have changed them.
type DirCache interface {
	// Canonical is paths.Canonical(dir) when known; hit is false when the
	// caller must resolve dir itself.
	Canonical(dir string) (real string, ok, hit bool)
}

// canonicalDir is the real path of a directory toolgate checks on every
// call (its own files, the host's directories): from Dirs when it knows,
// else resolved now.
func (c *Call) canonicalDir(dir string) (string, bool) {
	if c.fs != nil && c.fs.Dirs != nil {
		if real, ok, hit := c.fs.DirsCanonical(dir); hit { // recorded (Evals)
			return real, ok
		}
	} else if c.Dirs != nil {
		if real, ok, hit := c.Dirs.Canonical(dir); hit {
			return real, ok
		}
	}
	return c.fs.Canonical(dir)
}

// Kind is what a gate produced.
type Kind int

const (
	// NotApplied: the gate has nothing to say about this call.
	NotApplied Kind = iota
	// Bypass: a fixed allow that skips the policy (e.g. reading the host's
	// own files); it is reported but never prompts.
	Bypass
	// Checked: a descriptor with a policy state for the runner.
	Checked
)

// Outcome is one gate's result.
type Outcome struct {
	Gate string
	Kind Kind
	D    Descriptor
	// Note explains a NotApplied or Bypass outcome in the trace.
	Note string
}

// Descriptor is what a gate asks the runner to do.
type Descriptor struct {
	Surface string
	Value   string
	// State is the policy state after floors: allow, ask or deny.
	State policy.Action
	// Rule is the deciding rule; nil when a floor (Sentinel) decided or for
	// a bypass.
	Rule *policy.Rule
	// Session is true when a session approval decided.
	Session bool
	// Sentinel is the matchedPattern reported when a floor decided.
	Sentinel string
	// Resolution overrides the runner's derivation (bypasses).
	Resolution string
	// SessionPatterns are what "allow for this session" records; empty
	// means the prompt offers no session option.
	SessionPatterns []verdict.SessionPattern
	Prompt          PromptText
	Text            Texts
	// Unshowable is the block reason when the prompt would be too long to
	// show whole: such an ask is never put to a person.
	Unshowable string
	// Command is the full shell command, when there is one (trace, audit).
	Command string
	// Forms are the path forms that were matched (trace).
	Forms []string
	// MatchedAs is the canonical option spelling of a bash unit when that
	// spelling decided, for the reasons and the trace.
	MatchedAs string
}

// PromptText is what a person reads in the prompt.
type PromptText struct {
	Title   string
	Message string
}

// Texts are the block reasons for each way an ask or deny can end.
type Texts struct {
	Deny        string // policy deny (the rule's reason is appended)
	Unavailable string // an ask with no UI
	UserDenied  string // the person said no
}

// MatchedPattern is the pattern reported for a descriptor: the sentinel of
// a floor, the deciding rule's pattern, or nil for the fallback rule.
func (d *Descriptor) MatchedPattern() *string {
	if d.Sentinel != "" {
		s := d.Sentinel
		return &s
	}
	if d.Rule == nil || d.Rule.IsFallback() {
		return nil
	}
	s := d.Rule.Pattern
	return &s
}

// Origin is the origin reported for a descriptor.
func (d *Descriptor) Origin() *verdict.Origin {
	if d.Rule == nil {
		if d.Sentinel != "" {
			return &verdict.Origin{Scope: policy.ScopeBuiltin}
		}
		return nil
	}
	o := d.Rule.Origin
	return &verdict.Origin{Scope: o.Scope, Path: o.Path, Line: o.Line}
}

// Gate is one gate: a pure function of the call.
type Gate struct {
	ID    string
	Check func(c *Call, r Resolver) Outcome
}

// ToolGates are the gates of a tool_call, in order.
var ToolGates = []Gate{
	{verdict.GateSkillRead, SkillRead},
	{verdict.GateExternalDirectory, ExternalDirectory},
	{verdict.GateBashExternalDirectory, BashExternalDirectory},
	{verdict.GateBashPath, BashPath},
	{verdict.GateTool, Tool},
}

// checked builds a Checked outcome from a resolved result.
func checked(gate, surface, value string, res policy.Result) Outcome {
	return Outcome{Gate: gate, Kind: Checked, D: Descriptor{
		Surface: surface, Value: value, State: res.Action, Rule: res.Rule, Session: res.Session,
	}}
}

// moreRestrictive reports whether a should replace b as the deciding
// outcome: strictly more restrictive (first wins on ties).
func moreRestrictive(a, b policy.Action) bool { return a > b }
