// Package shell analyzes a bash command with mvdan.cc/sh/v3 (never with regular
// expressions) and returns everything the gates need from one parse: the
// command units to match on the bash surface, the path words to check on the
// external_directory and path surfaces, and the floors that keep wrappers,
// opaque code and dynamic commands from being allowed silently.
//
// The package is pure apart from read-only file system look-ups (glob
// expansion, "does this bare word name an existing entry").
package shell

// Sentinels reported as matchedPattern when a floor decided.
const (
	SentinelOpaque      = "<opaque-bash-wrapper>"
	SentinelIndirection = "<indirection-bash-wrapper>"
	SentinelDynamic     = "<dynamic-bash-command>"
	SentinelUnparseable = "<unparseable-bash-command>"
	// SentinelArming floors a command that makes later allowed commands run
	// code (git config core.pager …, git init --template): asked every time,
	// with no session option, like a change of toolgate's own files.
	SentinelArming = "<arming-write>"
	// SentinelForeign floors a unit that runs code in a language other
	// than bash (python3 -c, awk system(), sqlite3 .shell), or a file the
	// same command wrote: asked with the code shown, unless a rule names
	// the program with its code option (Unit.CodeRule).
	SentinelForeign = "<foreign-code>"
	// SentinelSelf floors a unit that runs toolgate itself (by base name,
	// or the running binary's real path): the agent cannot trust a
	// project, or change toolgate's state, for the person.
	// Asked every time, with no session option.
	SentinelSelf = "<toolgate-itself>"
)

// MaxCommandBytes is the longest command analyzed; a longer one is Unparseable.
const MaxCommandBytes = 64 * 1024

// Context says where a unit stands in the command. The empty context is a
// top-level simple command (lists and pipelines included).
type Context string

const (
	CtxTop         Context = ""
	CtxSubshell    Context = "subshell"
	CtxGroup       Context = "group"
	CtxIf          Context = "if"
	CtxLoop        Context = "loop"
	CtxCase        Context = "case"
	CtxFunction    Context = "function"
	CtxCmdSubst    Context = "command substitution"
	CtxProcSubst   Context = "process substitution"
	CtxAssignment  Context = "assignment"
	CtxDeclaration Context = "declaration"
	CtxTest        Context = "test"
	CtxArithmetic  Context = "arithmetic"
	CtxWrapped     Context = "wrapped command"
	CtxPayload     Context = "inline script"
	CtxHeredoc     Context = "heredoc"
)

// Unit is one simple command to be matched on the bash surface.
type Unit struct {
	// Text is the unit's words after quote removal, env prefixes dropped,
	// joined by single spaces ("rm -rf build").
	Text string
	// Alts are further spellings matched as well; the most restrictive result
	// of Text and Alts wins (e.g. the base-name form "rm -rf x" of
	// "/bin/rm -rf x").
	Alts []string
	// Args are the words of Text, one per word (a word may hold spaces):
	// what the option-identity pass of the bash surface reads.
	// Nil for a unit that is not one simple command's words.
	Args []string
	// Context is where the unit stands (innermost construct).
	Context Context
	// Floor is a sentinel (SentinelOpaque, SentinelIndirection,
	// SentinelDynamic, SentinelArming) when an allow for this unit must become ask; "" if none.
	// An inline script that could not be analyzed (a syntax error, nested
	// deeper than Options.MaxDepth, past the size budget) is a unit of its
	// own with Floor SentinelUnparseable and Context CtxPayload.
	Floor string
	// OpenArgs is true when a word after the command name (before a "--")
	// is only known at run time and could start with "-" ($o, "$@",
	// $(…), ${X}-rf): it may be options no rule saw (rm $o x is rm -rf x
	// when o is -rf), so a rule naming this command with options could
	// hold.
	OpenArgs bool
	// ExactSuggestion is true when "allow for this session" must record the
	// unit text as an exact-match rule rather than an arity-table wildcard
	// (wrappers, opaque code, dynamic commands, a literal * or ? in the text).
	ExactSuggestion bool
	// Code is the foreign code the unit runs, when its text does not show
	// it whole (a heredoc, standard input); Lang names its language.
	Code, Lang string
	// CodeRule are the literal words a rule's pattern must start with to
	// decide a foreign-code unit as written ("python3", "-c"); nil when no
	// rule can (code from standard input, a file written first).
	CodeRule []string
}

// PathWord is one word of the command that names (or may name) a file.
type PathWord struct {
	// Raw is the word as the person reads it (after quote removal, before
	// expansion), e.g. "~/.ssh/id_rsa" or "$DIR/x".
	Raw string
	// Value is the word with ~, $HOME and ${HOME} expanded (and literal
	// variables from earlier in the command substituted). Empty when Known is
	// false.
	Value string
	// Known is false when the word contains an expansion that cannot be
	// resolved statically. Such a word counts as outside the working
	// directory, and asks on the path surface whenever that surface has an
	// explicit deny or ask rule.
	Known bool
	// Dir is the effective directory a relative Value is resolved against
	// (cwd with `cd` folded). Empty when the directory is unknown (after a
	// `cd` whose target cannot be known): a relative word then counts as
	// outside.
	Dir string
	// Redirect is true for redirect targets.
	Redirect bool
	// Write is true when the command may create, change or remove the
	// file: an output redirect target, or any word of a command not known
	// to only read its arguments (cat, grep, git log … are; unknown
	// commands are not).
	Write bool
	// Into is set for a directory below which the command writes files
	// that its words do not name (an archive extracted there, a tree
	// copied, moved or checked out into it): any path below
	// Value may be written. Write is set too.
	Into bool
	// ByDesign is set for a file the command writes by design rather than
	// by a word naming it: the repository's configuration that git remote
	// add or git config user.email changes. The path gates see it only for
	// a call that runs confined (gates.Call.Confined), where the kernel
	// keeps the file read-only unless the person approves the write.
	ByDesign bool
}

// Options configure an analysis.
type Options struct {
	// Cwd is the absolute working directory the command starts in.
	Cwd string
	// Home is the home directory used for ~ and $HOME.
	Home string
	// MaxDepth bounds recursion into inline scripts (bash -c, eval, heredocs
	// fed to shells, trap/alias strings). 0 means the default (8).
	MaxDepth int
}

// Analysis is the result of one parse.
type Analysis struct {
	Units []Unit
	Paths []PathWord
	// Unparseable is set when the command could not be parsed or is longer
	// than MaxCommandBytes; the caller asks with SentinelUnparseable.
	Unparseable bool
	// Error describes why the command is unparseable (with position).
	Error string
}
