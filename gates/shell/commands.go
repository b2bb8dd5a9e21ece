package shell

import (
	"path"
	"path/filepath"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// cmd is one simple command to analyze, after expansion.
type cmd struct {
	fields []field
	env    []string         // variables set in its environment (FOO=1 cmd, env FOO=1 cmd)
	ctx    Context          // where it stands
	stdin  *syntax.Redirect // the statement's stdin redirect, for shells reading it
	depth  int              // wrappers around it
	piped  bool             // its standard input is a pipe (a later stage of a pipeline)
	// written is the text of its words as written in the script, which
	// is its unit's text when nothing in them expands (see joinFieldsIn).
	written string
}

func (c cmd) args() []field { return c.fields[1:] }

// with returns the command that c runs: fields, in context ctx.
func (c cmd) with(fields []field, ctx Context) cmd {
	return cmd{fields: fields, env: c.env, ctx: ctx, stdin: c.stdin, piped: c.piped, depth: c.depth + 1}
}

func (a *analyzer) call(c *syntax.CallExpr, ctx Context, sc *scope, stdin *syntax.Redirect) branch {
	if len(c.Args) == 0 {
		a.assignment(c, sc)
		return same(sc)
	}
	var env []string
	for _, as := range c.Assigns {
		f := sc.word(as.Value, valueMode)
		if as.Name != nil && injectsValue(as.Name.Value, f.value, f.known && !as.Append) {
			env = append(env, as.Name.Value)
		}
		a.dataSubsts(f.value, sc)
	}
	// The fields live on a stack shared by all commands: they are done with
	// once the command is analyzed, and commands nest.
	start := len(a.fieldStack)
	for _, w := range c.Args {
		a.fieldStack = a.appendFields(a.fieldStack, w, sc)
	}
	fields := a.fieldStack[start:len(a.fieldStack):len(a.fieldStack)]
	defer func() { a.fieldStack = a.fieldStack[:start] }()
	br := same(sc)
	if len(fields) == 0 { // every word expanded to nothing
		a.addUnit(Unit{Text: sc.slice(c), Context: ctx})
	} else {
		written := sc.span(c.Args[0], c.Args[len(c.Args)-1])
		br = a.run(cmd{fields: fields, env: env, ctx: ctx, stdin: stdin, piped: a.piped && stdin == nil, written: written}, sc)
		a.nameArgs(fields, sc)
	}
	for _, as := range c.Assigns {
		a.substs(as, "", sc)
	}
	for _, w := range c.Args {
		a.substs(w, "", sc)
	}
	return br
}

// run analyzes one simple command: its unit, its path words, and the
// commands it runs in turn (wrapped commands and inline scripts).
func (a *analyzer) run(c cmd, sc *scope) branch {
	u := a.newUnit(c.fields, c.ctx, c.written)
	if !u.OpenArgs && a.dashMatch(c.fields, sc) {
		u.OpenArgs = true
	}
	i := a.addUnit(u)
	saved := a.readOnly
	a.readOnly = false // until the command is known to only read
	defer func() { a.readOnly = saved }()
	if len(c.env) > 0 { // only the variables that inject are kept (see call)
		a.setFloor(i, SentinelIndirection)
	}
	name := c.fields[0]
	if !name.known || name.glob {
		a.argPaths(c.args(), sc)
		return same(sc)
	}
	if c.depth > maxWrapDepth {
		a.setFloor(i, SentinelIndirection)
		return same(sc)
	}
	if chdir, ok := a.funcs[name.value]; ok {
		return a.funcCall(chdir, c, sc)
	}
	base := path.Base(name.value)
	if name.value == "" {
		base = ""
	}
	// A versioned name ("python3.12", "gawk5") is read as its family
	// (familyProgram), by its program and its kind and by every handler
	// that reads the name.
	base, p := familyProgram(base)
	k := p.kind
	a.readOnly = readOnlyWith(base, k.readOnlyWrites, k.readOnly, c.args())
	a.writeThenRun(i, base, p, c, sc)
	defer a.noteWrites(base, c, sc)
	if p.floor != "" {
		a.setFloor(i, p.floor)
	}
	if base == "toolgate" || isSelf(name.value, sc) {
		a.setFloor(i, SentinelSelf)
	}
	if p.writer != nil {
		p.writer(a, c, sc)
	}
	if w, w0 := a.subWrapper(p.subs, c); w != nil {
		return a.wrapper(i, w, c.with(c.fields[w0:], c.ctx), sc)
	}
	switch {
	case k.chdir:
		return a.cd(base, c, sc)
	case k.sourced:
		return a.sourced(i, base, c, sc)
	case k.shell:
		a.shell(i, c, sc)
	case k.wrap != nil:
		return a.wrapper(i, k.wrap, c, sc)
	case k.special != nil:
		k.special(a, i, base, c, sc)
	case k.pattern != nil:
		a.patternFirst(i, *k.pattern, c.args(), sc)
	default:
		a.argPaths(c.args(), sc)
	}
	return same(sc)
}

// commandKind says how run treats a command name; the zero value is a
// command whose arguments are only classified as path words.
type commandKind struct {
	chdir, sourced, shell bool
	wrap                  *wrapSpec
	special               specialFunc
	pattern               *patternSpec
	// readOnly is set for a command of readOnlyCommands, with its row.
	readOnly       bool
	readOnlyWrites []string
}

type specialFunc func(a *analyzer, i int, base string, c cmd, sc *scope)

// commandKinds gathers the tables of commands into one look-up per command;
// where a name is in several, cd and eval come first, then shells,
// wrappers, specials and pattern-first commands. It is built on the first
// analysis, not when the program starts (a process that never analyses a
// command, toolgate sandbox, does not pay for it). TestCommandKindsReadOnly
// keeps its read-only rows equal to readOnlyCommands, which run used to
// look up on its own. Its plain twin is each table looked up in turn
// (kindByTables in the test); TestCommandKindsIsEachTable keeps them equal.
var commandKinds func() map[string]commandKind

// The handlers it holds analyse commands in turn: a cycle that only an
// init function may close.
func init() {
	commandKinds = sync.OnceValue(buildCommandKinds)
	programs = sync.OnceValue(buildPrograms)
}

// program is what the tables say of one command name, gathered so that
// run looks a command up once, not in each table in turn (a 64 KiB command
// has thousands). The tables stay what the catalog is written in; this is
// made from them.
type program struct {
	kind        commandKind
	configFiles []string // configFiles
	shortConfig []string // shortConfigOptions
	// runner: a script runner, a foreign program or a program with
	// wrapping subcommands (a written file given to it runs)
	runner bool
	floor  string                              // alwaysFloored
	writer func(a *analyzer, c cmd, sc *scope) // unnamedWriters
	subs   map[string]*wrapSpec                // subWrappers
}

// programs is the program of each name that one of the tables names.
var programs func() map[string]*program

func buildPrograms() map[string]*program {
	out := map[string]*program{}
	get := func(name string) *program {
		if out[name] == nil {
			k, ok := commandKinds()[name]
			if !ok {
				k = commandKinds()[versionless(name)]
			}
			out[name] = &program{kind: k}
		}
		return out[name]
	}
	for name := range commandKinds() {
		get(name)
	}
	for name, files := range configFiles {
		get(name).configFiles = files
	}
	for name, opts := range shortConfigOptions {
		get(name).shortConfig = opts
	}
	for name, ok := range scriptRunners {
		get(name).runner = get(name).runner || ok
	}
	for name, spec := range foreignPrograms {
		get(name).runner = get(name).runner || spec != nil
	}
	for name, subs := range subWrappers {
		p := get(name)
		p.subs = subs
		p.runner = p.runner || subs != nil
	}
	for name, f := range alwaysFloored {
		get(name).floor = f
	}
	for name, w := range unnamedWriters {
		get(name).writer = w
	}
	return out
}

// programOf is the program of base: one no table names is a plain
// command, or the program of its name without a version (python3.12,
// perl5.36, php8.2) as far as its kind goes. Its plain twin is each table
// looked up in turn; TestProgramOfIsTheTables keeps them equal.
func programOf(base string) *program {
	_, p := familyProgram(base)
	return p
}

// familyProgram is the name a command is read as and its program: base
// itself when toolgate knows it (programs holds every kind and table),
// else its name without a version ("python3.12" python, "gawk5" gawk)
// when toolgate knows that, else base with plainProgram. A versioned name
// is read as its family, never as less; one look up for a name toolgate
// knows.
func familyProgram(base string) (string, *program) {
	if p := programs()[base]; p != nil {
		return base, p
	}
	if f := versionless(base); f != "" {
		if p := programs()[f]; p != nil {
			return f, p
		}
	}
	return base, &plainProgram
}

var plainProgram program

func buildCommandKinds() map[string]commandKind {
	// specials are the commands that need more than a table row (the
	// handlers call run in turn, hence built here, not as a literal).
	specials := map[string]specialFunc{
		"su":            (*analyzer).su,
		"runuser":       (*analyzer).su,
		"sg":            (*analyzer).su,
		"nix-shell":     (*analyzer).su,
		"script":        func(a *analyzer, i int, _ string, c cmd, sc *scope) { a.script(i, c, sc) },
		"trap":          func(a *analyzer, i int, _ string, c cmd, sc *scope) { a.trap(i, c, sc) },
		"alias":         func(a *analyzer, i int, _ string, c cmd, sc *scope) { a.alias(i, c, sc) },
		"find":          func(a *analyzer, i int, _ string, c cmd, sc *scope) { a.find(i, c, sc) },
		"fd":            func(a *analyzer, i int, _ string, c cmd, sc *scope) { a.fd(i, c, sc) },
		"fdfind":        func(a *analyzer, i int, _ string, c cmd, sc *scope) { a.fd(i, c, sc) },
		"git":           func(a *analyzer, i int, _ string, c cmd, sc *scope) { a.git(i, c, sc) },
		"parallel":      (*analyzer).parallel,
		"rust-parallel": (*analyzer).parallel,
		"rush":          (*analyzer).parallel,
		"cp":            (*analyzer).cp,
		"sed":           (*analyzer).sed,
		"awk":           (*analyzer).awk,
		"gawk":          (*analyzer).awk,
		"mawk":          (*analyzer).awk,
		"nawk":          (*analyzer).awk,
		"hash":          (*analyzer).loader,
		"enable":        (*analyzer).loader,
	}
	for n := range callbacks {
		specials[n] = (*analyzer).callback
	}
	for n := range programSpecs {
		specials[n] = (*analyzer).programOptions
	}
	for n := range vimFamily {
		specials[n] = (*analyzer).vim
	}
	for n, f := range foreignPrograms {
		if f != nil {
			specials[n] = (*analyzer).foreign
		}
	}
	for n, f := range catalogSpecials {
		specials[n] = f
	}
	kinds := map[string]commandKind{}
	set := func(name string, f func(*commandKind)) {
		k := kinds[name]
		f(&k)
		kinds[name] = k
	}
	for _, n := range []string{"cd", "pushd", "popd"} {
		set(n, func(k *commandKind) { k.chdir = true })
	}
	for _, n := range []string{"eval", "source", "."} {
		set(n, func(k *commandKind) { k.sourced = true })
	}
	for n := range shells {
		set(n, func(k *commandKind) { k.shell = true })
	}
	for n, w := range wrappers {
		set(n, func(k *commandKind) { k.wrap = w })
	}
	for n, f := range specials {
		set(n, func(k *commandKind) { k.special = f })
	}
	for n := range patternFirstSpecs {
		spec := patternFirstSpecs[n]
		set(n, func(k *commandKind) { k.pattern = &spec })
	}
	for n, writes := range readOnlyCommands {
		set(n, func(k *commandKind) { k.readOnly, k.readOnlyWrites = true, writes })
	}
	return kinds
}

func (a *analyzer) loader(i int, base string, c cmd, sc *scope) {
	l, ok := loaders[base] // base is the family's name (familyProgram)
	if !ok || l.opt == "" {
		a.setFloor(i, SentinelOpaque) // not a loader toolgate knows: fail closed
		a.argPaths(c.args(), sc)
		return
	}
	list, k := parseOpts(opts{arg: l.opt[1:]}, c.args())
	for _, o := range list {
		if o.name == l.opt {
			a.setFloor(i, l.floor)
			a.pathWord(o.value, sc, isFile)
		}
	}
	a.argPaths(c.args()[k:], sc)
}

// dashMatch reports whether an unquoted glob among the words after the
// command name (before "--") matches a name starting with "-" (or cannot
// be expanded): bash passes it as an option (rm * with a file named -rf
// is rm -rf …).
func (a *analyzer) dashMatch(fields []field, sc *scope) bool {
	for _, f := range fields[1:] {
		if f.known && f.value == "--" {
			return false
		}
		if !f.glob || !f.known {
			continue
		}
		for _, d := range sc.dirs {
			matches, ok := a.glob(f.pat, d, sc.facts.dotglob)
			if !ok {
				return true
			}
			for _, m := range matches {
				if strings.HasPrefix(m, "-") {
					return true
				}
			}
		}
	}
	return false
}

// newUnit builds the unit of a command: its words joined by single spaces,
// the command name expanded; a name written with a path is also matched by
// its base name; a name only known at run time floors the unit.
func (a *analyzer) newUnit(fields []field, ctx Context, written string) Unit {
	name := fields[0]
	u := Unit{Context: ctx}
	first := name.value
	if !name.known || name.glob {
		first = name.text
		u.Floor = SentinelDynamic
	}
	u.Text = joinFieldsIn(first, fields[1:], written)
	u.Args = a.argSlice(len(fields))
	u.Args[0] = first
	ended := false
	for i, f := range fields[1:] {
		u.Args[i+1] = f.text
		switch {
		case f.known && f.value == "--":
			ended = true
		case !ended && !f.known && (f.raw == "" || strings.IndexByte("$`-", f.raw[0]) >= 0):
			u.OpenArgs = true
		}
	}
	if u.Floor != "" {
		return u
	}
	if strings.Contains(name.value, "/") {
		if base := path.Base(name.value); base != "/" && base != "." {
			u.Alts = []string{joinFields(base, fields[1:])}
		}
	}
	return u
}

// argSlice returns a slice of n strings for a unit's Args, cut from a
// buffer shared by the units of one analysis: one allocation serves many
// units. The chunks grow with the analysis, so a short command keeps a
// small one.
func (a *analyzer) argSlice(n int) []string {
	if cap(a.argBuf)-len(a.argBuf) < n {
		a.argChunk = min(max(2*a.argChunk, 8), 1024)
		a.argBuf = make([]string, 0, max(n, a.argChunk))
	}
	k := len(a.argBuf)
	a.argBuf = a.argBuf[:k+n]
	return a.argBuf[k : k+n : k+n]
}

// joinFields joins first and the text of rest with single spaces.
func joinFields(first string, rest []field) string { return joinFieldsIn(first, rest, "") }

// joinFieldsIn is joinFields, returning written itself when it is the
// joined text (a command written plainly), so that no string is built.
// Its plain twin is the join itself; TestJoinFieldsIn keeps them equal.
func joinFieldsIn(first string, rest []field, written string) string {
	if len(rest) == 0 {
		return first
	}
	n := len(first) + len(rest)
	for _, f := range rest {
		n += len(f.text)
	}
	if len(written) == n && joins(written, first, rest) {
		return written
	}
	var sb strings.Builder
	sb.Grow(n)
	sb.WriteString(first)
	for _, f := range rest {
		sb.WriteByte(' ')
		sb.WriteString(f.text)
	}
	return sb.String()
}

// joins reports whether s, as long as the joined text, is first and the
// text of rest joined with single spaces.
func joins(s, first string, rest []field) bool {
	if s[:len(first)] != first {
		return false
	}
	i := len(first)
	for _, f := range rest {
		if s[i] != ' ' || s[i+1:i+1+len(f.text)] != f.text {
			return false
		}
		i += 1 + len(f.text)
	}
	return true
}

// funcCall is a call of a function defined earlier in the script: its body
// was walked where it was defined; the call may change the directory and,
// when the script evaluates code, any variable.
func (a *analyzer) funcCall(chdir bool, c cmd, sc *scope) branch {
	a.argPaths(c.args(), sc)
	if sc.facts.clobber {
		sc.vars.clear()
	}
	if chdir {
		sc.dirs = union(sc.dirs, unknownDir)
	}
	return same(sc)
}

// cd folds a directory change: an absolute literal gives a
// known directory, a relative one is joined onto each known directory, and
// anything else (cd -, cd "$DIR", popd) leaves it unknown. The target is a
// path word too. A failed cd leaves the shell where it was.
func (a *analyzer) cd(base string, c cmd, sc *scope) branch {
	args := c.args()
	for len(args) > 0 && isCdOption(args[0]) {
		args = args[1:]
	}
	if len(args) > 0 && args[0].known && args[0].value == "--" {
		args = args[1:]
	}
	before := sc.dirs
	var to []string
	switch {
	case base == "popd" || (base == "pushd" && len(args) == 0):
		to = unknownDir
	case len(args) == 0:
		a.readPath(sc.expandTilde(literalField("~")), sc, isFile)
		to = sc.homeDir()
	default:
		if v := args[0].value; !args[0].known || (v != "-" && !strings.HasPrefix(v, "+")) {
			a.readPath(args[0], sc, isFile)
		}
		to = sc.chdir(args[0])
	}
	if len(args) > 0 && base == "cd" && !sc.facts.cdpath && a.enterable(before, args[0]) {
		before = to // cd into an existing directory does not fail
	}
	return branch{ok: to, fail: before}
}

func isCdOption(f field) bool {
	v := f.value
	return f.known && len(v) > 1 && v[0] == '-' && v != "--" && strings.Trim(v[1:], "LPe@n") == ""
}

func (sc *scope) homeDir() []string {
	if home, ok := sc.vars.get("HOME"); ok {
		return []string{home}
	}
	return unknownDir
}

// chdir returns the directories the shell is in after changing to target.
func (sc *scope) chdir(target field) []string {
	v := target.value
	switch {
	case !target.known || target.glob || v == "-" || v == "" || strings.HasPrefix(v, "+"):
		return unknownDir
	case filepath.IsAbs(v) && len(v) <= maxDirLen:
		return []string{filepath.Clean(v)}
	case filepath.IsAbs(v):
		return unknownDir
	case sc.facts.cdpath && !dotRelative(v):
		return unknownDir
	}
	out := make([]string, 0, len(sc.dirs))
	for _, d := range sc.dirs {
		if d != "" {
			d = filepath.Join(d, v)
		}
		if len(d) > maxDirLen {
			d = ""
		}
		out = union(out, []string{d})
	}
	return out
}

// dotRelative reports whether cd ignores CDPATH for v.
func dotRelative(v string) bool {
	return v == "." || v == ".." || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../")
}

// sourced handles eval, source and ".": code run in the current shell, so
// afterwards nothing is known of its variables and directory.
func (a *analyzer) sourced(i int, base string, c cmd, sc *scope) branch {
	a.setFloor(i, SentinelOpaque)
	args := c.args()
	if len(args) > 0 && args[0].known && args[0].value == "--" {
		args = args[1:]
	}
	if base == "eval" {
		a.payload(joinText(args), sc, true)
	} else if len(args) > 0 {
		a.pathWord(args[0], sc, isFile)
		if readsStdin(args[0]) {
			a.stdinPayload(c.stdin, sc, true)
		}
		a.argPaths(args[1:], sc)
	}
	sc.vars.clear()
	sc.dirs = union(sc.dirs, unknownDir)
	return same(sc)
}

// joinText joins fields into the text an inline script is parsed from:
// known variables substituted, everything else as written.
func joinText(fields []field) string {
	words := make([]string, len(fields))
	for i, f := range fields {
		words[i] = f.text
	}
	return strings.Join(words, " ")
}
