package shell

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// How the walk uses the catalog's rows beyond the wrappers and program
// options (catalog.go): foreign code, the programs with their own readers
// (tmux, at, socat, m4, cpio), and write-then-run.

// catalogSpecials are the catalog's programs that need a reader of their
// own.
var catalogSpecials = map[string]specialFunc{
	"tmux":  (*analyzer).tmux,
	"tmate": (*analyzer).tmux,
	"at":    (*analyzer).atJob,
	"batch": (*analyzer).atJob,
	"socat": (*analyzer).socat,
	"m4":    (*analyzer).m4,
	"cpio":  (*analyzer).cpio,
	// fc re-runs commands from the history (fc -s, or after an editor):
	// code the command line does not hold. fc -l only lists them.
	"fc": func(a *analyzer, i int, _ string, c cmd, sc *scope) {
		list, _ := parseOpts(opts{arg: "e"}, c.args())
		if !hasOpt(list, "-l") {
			a.setFloor(i, SentinelOpaque)
		}
	},
	// history -s ARGS puts a command in the history, for fc to run: its
	// words are code, parsed so that a deny inside holds.
	"history": func(a *analyzer, i int, _ string, c cmd, sc *scope) {
		list, k := parseOpts(opts{arg: "d"}, c.args())
		if hasOpt(list, "-s") && k < len(c.args()) {
			a.payload(joinText(c.args()[k:]), sc, false)
			return
		}
		a.argPaths(c.args(), sc)
	},
	"crontab": func(a *analyzer, i int, _ string, c cmd, sc *scope) {
		// crontab FILE and crontab - install jobs: commands run later.
		_, ops := scanArgs(opts{arg: "uTc"}, c.args())
		if len(ops) > 0 {
			a.setFloor(i, SentinelOpaque)
		}
		a.argPaths(c.args(), sc)
	},
}

// versionless is a program name without the version it ends in
// ("python3.12" is python's row, "php8.2" php's), "" when it ends in none.
func versionless(name string) string {
	trimmed := strings.TrimRight(name, "0123456789.")
	if trimmed == name || trimmed == "" {
		return ""
	}
	return trimmed
}

// subWrapper returns the wrapper row of base's subcommand, if c runs one,
// and the index of the subcommand's word in c.fields.
func (a *analyzer) subWrapper(subs map[string]*wrapSpec, c cmd) (*wrapSpec, int) {
	if subs == nil {
		return nil, 0
	}
	args := c.fields[1:]
	for k := 0; k < len(args); k++ {
		f := args[k]
		if !f.known {
			return nil, 0
		}
		if w, ok := subs[f.value]; ok {
			return w, k + 1
		}
		switch {
		case f.value == "--" || !strings.HasPrefix(f.value, "-"):
			return nil, 0 // the first operand is the subcommand
		case slices.Contains(globalValueOptions, f.value):
			k++ // kubectl -n NS exec, npm --prefix DIR exec
		}
	}
	return nil, 0
}

// globalValueOptions are the options taking a value that programs with
// subcommands accept before the subcommand.
var globalValueOptions = []string{"-n", "--namespace", "--context", "--cluster", "--kubeconfig", "-H", "--host",
	"-c", "--config", "-l", "--log-level", "-C", "--cwd", "--prefix", "--dir", "-w", "--workspace", "-s", "--server"}

// foreign analyzes a program of foreignPrograms: code it is given in its
// own language floors the unit (foreign code); the escapes into the shell
// inside that code are bash, parsed as payloads.
func (a *analyzer) foreign(i int, base string, c cmd, sc *scope) {
	spec := foreignPrograms[base]
	if spec == nil {
		spec = foreignPrograms[versionless(base)]
	}
	args := c.args()
	if len(spec.sub) > 0 {
		if len(args) == 0 || !args[0].known || !slices.Contains(spec.sub, args[0].value) {
			a.argPaths(args, sc)
			return
		}
		args = args[1:]
	}
	// Options written with one dash and a long name (gdb -ex, sqlite3
	// -cmd, dvips -R0) are read first: the option reader takes them for
	// clusters.
	always := slices.ContainsFunc(args, func(f field) bool { return f.known && slices.Contains(spec.always, f.value) })
	var list []option
	for k := 0; k < len(args); k++ {
		if f := args[k]; f.known && len(f.value) > 2 && f.value[1] != '-' && slices.Contains(spec.opts.long, f.value) && k+1 < len(args) {
			list = append(list, option{name: f.value, value: args[k+1], has: true})
			args = append(slices.Clone(args[:k]), args[k+2:]...)
			k--
		}
	}
	var more []option
	var operands []field
	if spec.permute {
		more, operands = scanArgs(spec.opts, args)
	} else {
		var k int
		more, k = parseOpts(spec.opts, args)
		operands = args[k:]
	}
	list = append(list, more...)
	given := false
	for _, o := range list {
		switch {
		case slices.Contains(spec.code, o.name) && o.has:
			given = true
			a.foreignOption(i, base, spec, o.name, o.value, sc)
		case slices.Contains(spec.shellCode, o.name) && o.has:
			a.setFloor(i, SentinelIndirection)
			a.payload(o.value.text, sc, false)
		case slices.Contains(spec.libs, o.name) && o.has:
			a.setFloor(i, SentinelIndirection)
			a.pathWord(o.value, sc, isFile)
		case spec.lang == langMake && (o.name == "-f" || o.name == "--file" || o.name == "--makefile") && o.value.known &&
			(o.value.value == "-" || o.value.value == "/dev/stdin"):
			given = true // make -f -: the makefile is standard input
			a.foreignCode(i, "", spec.lang, a.stdinText(c, sc))
		case o.has:
			a.pathWord(o.value, sc, maybeFile)
		}
	}
	rest := operands
	if spec.operand != nil && !given {
		for j, f := range operands {
			if base == "sqlite3" || base == "sqlite" {
				if j == 0 {
					continue // the database
				}
			} else if !f.known || !spec.operand(f.value) {
				continue
			}
			given = true
			a.foreignOption(i, base, spec, "", f, sc)
			rest = slices.DeleteFunc(slices.Clone(rest), func(g field) bool { return g.raw == f.raw })
		}
	}
	script := len(rest) > 0 && !readsStdin(rest[0])
	if spec.stdinAlways || (spec.stdin && !given && !script) {
		if len(rest) > 0 && !script && !(rest[0].known && rest[0].value == "-") {
			a.foreignCode(i, "", spec.lang, "") // python3 /dev/stdin, python3 <(curl x), python3 $F
		}
		if c.stdin != nil || c.piped {
			text := a.stdinText(c, sc)
			if spec.escapes == nil || text == "" || hasEscape(text, spec.escapes) {
				a.foreignCode(i, "", spec.lang, text)
				a.shellEscapes(spec, text, sc)
			}
		}
	}
	if always {
		a.foreignCode(i, "", spec.lang, "")
	}
	a.argPaths(rest, sc)
}

// foreignOption handles code given to a foreign program by its option
// name (or as an operand when name is ""): it floors the unit unless the
// program's escapes say this code reaches nothing.
func (a *analyzer) foreignOption(i int, base string, spec *foreignSpec, name string, f field, sc *scope) {
	if f.known && spec.escapes != nil && !hasEscape(f.value, spec.escapes) {
		return
	}
	var rule []string
	if name != "" {
		rule = []string{base, name}
	}
	a.foreignCodeBy(i, rule, spec.lang, "")
	if f.known {
		a.shellEscapes(spec, f.value, sc)
	}
}

// foreignCode floors unit i as running code in lang that the analysis
// cannot check, from a place no rule can name (standard input, a file
// written first); code, when set, is shown in the prompt (it is not in
// the unit's text).
func (a *analyzer) foreignCode(i int, _ string, lang, code string) {
	a.foreignCodeBy(i, nil, lang, code)
}

// foreignCodeBy is foreignCode for code given by the option rule names
// ("python3", "-c"): a rule starting with those words decides the unit,
// unless the unit runs foreign code from anywhere else too.
func (a *analyzer) foreignCodeBy(i int, rule []string, lang, code string) {
	u := &a.units[i]
	first := u.Lang == ""
	a.setFloor(i, SentinelForeign)
	if first {
		u.Lang, u.CodeRule = lang, rule
	} else if !slices.Equal(u.CodeRule, rule) {
		u.CodeRule = nil
	}
	if code != "" {
		if u.Code != "" {
			u.Code += "\n"
		}
		u.Code += code
	}
}

// shellEscapes parses, as bash payloads, the commands of foreign code that
// start with one of the program's shell escapes ("!cmd" in ed or gdb).
func (a *analyzer) shellEscapes(spec *foreignSpec, code string, sc *scope) {
	if len(spec.shell) == 0 {
		return
	}
	for _, line := range strings.Split(code, "\n") {
		line = strings.TrimSpace(line)
		for _, esc := range spec.shell {
			if rest, ok := strings.CutPrefix(line, esc); ok {
				a.payload(strings.TrimSpace(rest), sc, false)
				break
			}
		}
	}
}

// hasEscape reports whether code holds a command starting with one of
// escapes, at the start of a line or after a ";".
func hasEscape(code string, escapes []string) bool {
	for _, line := range strings.FieldsFunc(code, func(r rune) bool { return r == '\n' || r == ';' }) {
		line = strings.ToLower(strings.TrimSpace(line))
		for _, e := range escapes {
			if strings.HasPrefix(line, strings.ToLower(e)) {
				return true
			}
		}
	}
	return false
}

// stdinText is the text a command reads on standard input when the
// command line holds it (a here-document, a here-string); "" when it
// comes from a pipe or a file and cannot be known.
func (a *analyzer) stdinText(c cmd, sc *scope) string {
	in := c.stdin
	if in == nil {
		return ""
	}
	switch in.Op {
	case syntax.Hdoc, syntax.DashHdoc:
		if in.Hdoc == nil {
			return ""
		}
		return sc.word(in.Hdoc, mode{doc: true, quotedDoc: quotedDelim(in.Word)}).text
	case syntax.WordHdoc:
		return sc.word(in.Word, valueMode).text
	}
	return ""
}

// tmux and tmate: -c CMD and the shell command of new-session,
// new-window, split-window, respawn-pane and run-shell are run by a
// shell; they are bash, parsed as payloads.
func (a *analyzer) tmux(i int, _ string, c cmd, sc *scope) {
	args := c.args()
	list, k := parseOpts(opts{arg: "cfLST"}, args)
	for _, o := range list {
		switch {
		case o.name == "-c" && o.has:
			a.setFloor(i, SentinelOpaque)
			a.payload(o.value.text, sc, false)
		case o.name == "-f" && o.has:
			a.pathWord(o.value, sc, isFile)
		case o.has:
			a.pathWord(o.value, sc, maybeFile)
		}
	}
	args = args[k:]
	if len(args) == 0 || !args[0].known {
		return
	}
	switch args[0].value {
	case "new", "new-session", "neww", "new-window", "splitw", "split-window", "respawnp", "respawn-pane",
		"respawnw", "respawn-window", "run", "run-shell", "display-popup", "popup", "pipe-pane", "pipep":
		sub, k := parseOpts(opts{arg: "cefFnstxylT"}, args[1:])
		for _, o := range sub {
			if o.name == "-c" && o.has {
				a.pathWord(o.value, sc, isFile)
			}
		}
		if run := args[1+k:]; len(run) > 0 {
			a.setFloor(i, SentinelIndirection)
			a.payload(joinText(run), sc, false)
		}
	case "send-keys", "send", "source-file", "source":
		a.setFloor(i, SentinelOpaque) // keys typed into a shell, a file of commands
		a.argPaths(args[1:], sc)
	}
}

// atJob: at and batch read the job, shell commands, from standard input
// (or -f FILE) and run it later.
func (a *analyzer) atJob(i int, _ string, c cmd, sc *scope) {
	a.setFloor(i, SentinelOpaque)
	list, _ := scanArgs(opts{arg: "qfMmtv"}, c.args())
	for _, o := range list {
		if o.name == "-f" && o.has {
			a.pathWord(o.value, sc, isFile)
		}
	}
	a.stdinPayload(c.stdin, sc, false)
}

// socat: an address exec:CMD or system:CMD runs a command; file:, open:,
// create:, gopen: and the like name a local file.
func (a *analyzer) socat(i int, _ string, c cmd, sc *scope) {
	_, operands := scanArgs(opts{arg: "dLW"}, c.args())
	for _, f := range operands {
		kind, rest, ok := strings.Cut(f.text, ":")
		if !ok {
			continue
		}
		target, _, _ := strings.Cut(rest, ",")
		switch strings.ToLower(kind) {
		case "exec", "system":
			a.setFloor(i, SentinelIndirection)
			a.payload(target, sc, false)
		case "file", "open", "create", "creat", "gopen", "pipe", "unix-connect", "unix-listen", "unix-sendto",
			"unix-client", "pty", "readline":
			if target != "" {
				a.pathWord(sc.expandTilde(literalField(target)), sc, isFile)
			}
		}
		if !f.known {
			a.setFloor(i, SentinelIndirection)
		}
	}
}

// m4: esyscmd(CMD) and syscmd(CMD) run a shell command. The input is read
// from the file operands (a program like a script file), -D values and
// standard input; what the command line holds is scanned, and input from
// a pipe or a redirect is not known, so it floors m4 as foreign code.
func (a *analyzer) m4(i int, _ string, c cmd, sc *scope) {
	list, operands := scanArgs(opts{arg: "DUIdloRFstG", long: []string{"--define", "--undefine",
		"--include", "--debug", "--debugfile", "--reload-state", "--freeze-state", "--synclines"}}, c.args())
	var texts []string
	for _, o := range list {
		switch {
		case (o.name == "-D" || o.name == "--define") && o.has:
			texts = append(texts, o.value.text)
		case o.has:
			a.pathWord(o.value, sc, maybeFile)
		}
	}
	readsStdin := len(operands) == 0 || slices.ContainsFunc(operands, func(f field) bool { return f.known && f.value == "-" })
	if readsStdin && (c.stdin != nil || c.piped) {
		text := a.stdinText(c, sc)
		if text == "" {
			a.foreignCode(i, "", "m4", "")
		}
		texts = append(texts, text)
	}
	for _, t := range texts {
		cmds, unknown := m4Syscmds(t)
		if len(cmds) > 0 || unknown {
			a.foreignCode(i, "", "m4", t)
		}
		for _, s := range cmds {
			a.payload(s, sc, false)
		}
	}
	a.argPaths(operands, sc)
}

// m4Syscmds lists the literal commands of the esyscmd and syscmd calls in
// an m4 text (one level of `quotes' removed); unknown is set for a call
// whose argument is built by another macro or is not closed.
func m4Syscmds(text string) (cmds []string, unknown bool) {
	for k := 0; k < len(text); {
		j := strings.Index(text[k:], "syscmd")
		if j < 0 {
			break
		}
		j += k
		k = j + len("syscmd")
		if k >= len(text) || text[k] != '(' {
			continue
		}
		if j > 0 && isIdentByte(text[j-1], false) && !(j >= 1 && text[j-1] == 'e' && (j == 1 || !isIdentByte(text[j-2], false))) {
			continue // another name ending in syscmd
		}
		arg, end, ok := m4Arg(text[k+1:])
		if !ok {
			return cmds, true
		}
		k += 1 + end
		if strings.Contains(arg, "(") || strings.Contains(arg, "$") {
			unknown = true
		}
		cmds = append(cmds, arg)
	}
	return cmds, unknown
}

// m4Arg reads a macro argument up to its closing parenthesis, with one
// level of `quotes' removed; end is the index after the parenthesis.
func m4Arg(s string) (arg string, end int, ok bool) {
	var sb strings.Builder
	depth, quote := 0, 0
	for k := 0; k < len(s); k++ {
		ch := s[k]
		switch {
		case ch == '`':
			if quote > 0 {
				sb.WriteByte(ch)
			}
			quote++
			continue
		case ch == '\'' && quote > 0:
			quote--
			if quote > 0 {
				sb.WriteByte(ch)
			}
			continue
		case quote > 0:
		case ch == '(':
			depth++
		case ch == ')' && depth == 0:
			return sb.String(), k + 1, true
		case ch == ')':
			depth--
		}
		sb.WriteByte(ch)
	}
	return "", 0, false
}

// cpio -o and -p read the names of the files to copy from standard
// input: the lines of a here-document or here-string are read paths.
func (a *analyzer) cpio(i int, _ string, c cmd, sc *scope) {
	a.argPaths(c.args(), sc)
	text := a.stdinText(c, sc)
	for _, line := range strings.Split(text, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			a.readPath(sc.expandTilde(literalField(line)), sc, isFile)
		}
	}
}

// Write then run: a command that writes a file and then runs
// it, passes it to a program that runs it as code or configuration, or
// makes a file executable and passes it to a program, is floored like
// foreign code. The writes are the redirects and the write table below;
// what build tools write is not followed.

// noteWrite records that the command writes f. Only the names are noted
// at once; where the file is (its absolute forms) is worked out when a
// later command names a file of that name (see resolveWrites).
func (a *analyzer) noteWrite(f field, sc *scope) {
	if !f.known || f.value == "" || isDevice(f.value) {
		return
	}
	if a.writtenNames == nil {
		a.written, a.writtenDirs, a.writtenNames = map[string]bool{}, map[string]bool{}, map[string]bool{}
	}
	v := sc.expandTilde(f).value
	for _, part := range strings.Split(v, "/") {
		if part != "" {
			a.writtenNames[part] = true // the file's name and its directories'
		}
	}
	a.pendingWrites = append(a.pendingWrites, pendingWrite{v, sc.dirs})
}

// pendingWrite is a write noted by name, not yet resolved.
type pendingWrite struct {
	value string
	dirs  []string
}

// resolveWrites works out where the pending writes are.
func (a *analyzer) resolveWrites() {
	for _, w := range a.pendingWrites {
		for _, p := range absForms(w.value, &scope{dirs: w.dirs}) {
			a.written[p] = true
			for d := filepath.Dir(p); d != "/" && d != "." && !a.writtenDirs[d]; d = filepath.Dir(d) {
				a.writtenDirs[d] = true
			}
		}
	}
	a.pendingWrites = a.pendingWrites[:0]
}

func isDevice(v string) bool {
	return v == "/dev/null" || v == "/dev/stdout" || v == "/dev/stderr" || v == "/dev/tty" || strings.HasPrefix(v, "/dev/fd/")
}

// absForms are the absolute, cleaned forms of v in each effective
// directory.
func absForms(v string, sc *scope) []string {
	if filepath.IsAbs(v) {
		return []string{filepath.Clean(v)}
	}
	var out []string
	for _, d := range sc.dirs {
		if d != "" {
			out = append(out, filepath.Join(d, v))
		}
	}
	return out
}

// noteWrites records what a command of the write table writes (tee, cp,
// mv, install, ln, sed -i, curl -o, wget -O, git checkout -- F, npm pkg
// set) and what chmod makes executable.
func (a *analyzer) noteWrites(base string, c cmd, sc *scope) {
	args := c.args()
	switch base {
	case "tee":
		_, ops := scanArgs(opts{}, args)
		for _, f := range ops {
			a.noteWrite(f, sc)
		}
	case "cp", "mv", "install", "ln", "rsync":
		list, ops := scanArgs(opts{arg: "tSmogT", long: []string{"--target-directory", "--suffix", "--mode", "--owner", "--group"}}, args)
		dest := field{}
		for _, o := range list {
			if (o.name == "-t" || o.name == "--target-directory") && o.has {
				dest = o.value
			}
		}
		srcs := ops
		if dest.value == "" && len(ops) > 1 {
			dest, srcs = ops[len(ops)-1], ops[:len(ops)-1]
		}
		if dest.value == "" {
			return
		}
		a.noteWrite(dest, sc)
		for _, s := range srcs {
			if s.known {
				a.noteWrite(literalField(path.Join(dest.value, path.Base(s.value))), sc)
			}
		}
		if base == "install" {
			a.noteExec(dest, sc)
		}
	case "sed":
		list, ops := scanArgs(patternFirstSpecs["sed"].opts, args)
		if hasOpt(list, "-i", "--in-place") && len(ops) > 1 {
			for _, f := range ops[1:] {
				a.noteWrite(f, sc)
			}
		}
	case "curl", "wget":
		list, _ := scanArgs(opts{arg: "oOPd", long: []string{"--output", "--output-document", "--directory-prefix"}}, args)
		for _, o := range list {
			if o.has && (o.name == "--output" || o.name == "--output-document" || (base == "curl" && o.name == "-o") || (base == "wget" && o.name == "-O")) {
				a.noteWrite(o.value, sc)
			}
		}
	case "git":
		for k, f := range args {
			if isDashDash(f) && slices.ContainsFunc(args[:k], func(g field) bool { return g.value == "checkout" || g.value == "restore" }) {
				for _, g := range args[k+1:] {
					a.noteWrite(g, sc)
				}
			}
		}
	case "npm", "pnpm", "yarn":
		if len(args) > 1 && args[0].value == "pkg" && args[1].value == "set" {
			a.noteWrite(literalField("package.json"), sc)
		}
	case "chmod":
		_, ops := scanArgs(opts{long: []string{"--reference"}}, args)
		if len(ops) > 1 && ops[0].known && makesExecutable(ops[0].value) {
			for _, f := range ops[1:] {
				a.noteExec(f, sc)
			}
		}
	}
}

func (a *analyzer) noteExec(f field, sc *scope) {
	if !f.known {
		return
	}
	if a.executable == nil {
		a.executable = map[string]bool{}
	}
	if a.writtenNames == nil {
		a.written, a.writtenDirs, a.writtenNames = map[string]bool{}, map[string]bool{}, map[string]bool{}
	}
	for _, p := range absForms(sc.expandTilde(f).value, sc) {
		a.executable[p] = true
		a.writtenNames[filepath.Base(p)] = true
	}
}

// makesExecutable reports whether a chmod mode may set an execute bit.
func makesExecutable(mode string) bool {
	if strings.Trim(mode, "01234567") == "" {
		return strings.ContainsAny(mode, "1357")
	}
	for _, clause := range strings.Split(mode, ",") {
		if op := strings.IndexAny(clause, "+="); op >= 0 && strings.ContainsAny(clause[op:], "xX") {
			return true
		}
	}
	return false
}

// writeThenRun floors unit i when it runs what the command wrote before:
// a written file as the command itself, a written file given to a
// program that runs scripts or reads configuration, a written file a
// program finds by name (Makefile for make), or a file made executable
// given to any program.
func (a *analyzer) writeThenRun(i int, base string, p *program, c cmd, sc *scope) {
	if len(a.writtenNames) == 0 {
		return
	}
	hit := func(f field) bool {
		if !f.known || f.value == "" || !a.writtenNames[path.Base(strings.TrimRight(f.value, "/"))] {
			return false // no file or directory of that name was written (the cheap test first)
		}
		a.resolveWrites()
		for _, p := range absForms(sc.expandTilde(f).value, sc) {
			// a directory holding a file it wrote counts (rustup toolchain link X DIR)
			if a.written[p] || a.executable[p] || a.writtenDirs[p] {
				return true
			}
		}
		return false
	}
	floor := func() { a.foreignCode(i, "", "a file this command wrote", "") }
	// A name runs a file only when written with a "/" (a bare name is
	// looked up on PATH).
	if name := c.fields[0]; strings.Contains(name.value, "/") && hit(name) {
		floor()
		return
	}
	for _, n := range p.configFiles {
		if a.writtenNames[n] {
			floor()
			return
		}
	}
	runner := p.kind.shell || p.kind.wrap != nil || p.runner
	everyArg := runner || len(a.executable) > 0
	short := p.shortConfig
	args := c.args()
	for j, f := range args {
		v := f.value
		opt := f.known && strings.HasPrefix(v, "-")
		name, _, eq := strings.Cut(v, "=")
		config := opt && (slices.Contains(configOptions, name) || slices.Contains(short, name))
		switch {
		case config && eq:
			if hit(f.cut(len(name) + 1)) {
				floor()
				return
			}
		case config:
			if j+1 < len(args) && hit(args[j+1]) {
				floor()
				return
			}
		case !everyArg:
		case opt && eq:
			if g := f.cut(len(name) + 1); g.known && a.executableHit(g, sc) {
				floor()
				return
			}
		case !opt && hit(f) && (runner || a.executableHit(f, sc)):
			floor()
			return
		}
	}
}

// executableHit reports whether f names a file the command made
// executable.
func (a *analyzer) executableHit(f field, sc *scope) bool {
	for _, p := range absForms(sc.expandTilde(f).value, sc) {
		if a.executable[p] {
			return true
		}
	}
	return false
}

// selfPath is the running binary's real path ("" when unknown): a unit
// naming it runs toolgate itself.
var selfPath = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		return real
	}
	return exe
})

// isSelf reports whether the command name written as name (with a
// slash) is the running toolgate binary.
func isSelf(name string, sc *scope) bool {
	if !strings.Contains(name, "/") || selfPath() == "" {
		return false
	}
	names := []string{name}
	if !filepath.IsAbs(name) {
		// Relative to every directory the command may be in ("" is
		// unknown: the base name alone cannot tell).
		names = names[:0]
		for _, d := range sc.dirs {
			if d != "" {
				names = append(names, filepath.Join(d, name))
			}
		}
	}
	for _, n := range names {
		if filepath.Clean(n) == selfPath() {
			return true
		}
		// One stat (links followed) rather than an lstat of every
		// component: the same file as the binary is toolgate, whether
		// reached through a link or another hard link of it.
		if info, err := os.Stat(n); err == nil {
			if self := selfInfo(); self != nil && os.SameFile(info, self) {
				return true
			}
		}
	}
	return false
}

// selfInfo is the running binary's file information (nil when unknown),
// to compare a command name with (isSelf).
var selfInfo = sync.OnceValue(func() os.FileInfo {
	if selfPath() == "" {
		return nil
	}
	info, err := os.Stat(selfPath())
	if err != nil {
		return nil
	}
	return info
})
