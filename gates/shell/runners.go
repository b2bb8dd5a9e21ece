package shell

import (
	"slices"
	"strings"
)

// find: starting points and the files some tests write or compare with are
// path words; -exec, -execdir, -ok and -okdir run a command per file, which
// floors find and is a unit of its own ({} kept as a word).
func (a *analyzer) find(i int, c cmd, sc *scope) {
	args := c.args()
	k := skipFindOptions(args)
	for ; k < len(args) && !findExpr(args[k]); k++ {
		a.pathWord(args[k], sc, isFile)
	}
	for k < len(args) {
		v := args[k].value
		switch {
		case findExec[v]:
			end := findExecEnd(args, k+1)
			a.setFloor(i, SentinelIndirection)
			a.findExec(v, args[k+1:end], c, sc)
			k = end + 1
		case findFileTests[v] && k+1 < len(args):
			a.pathWord(args[k+1], sc, isFile)
			k += 2
		case v == "-files0-from" && k+1 < len(args):
			// The starting points are read from a file: they are unknown.
			a.setFloor(i, SentinelIndirection)
			a.pathWord(args[k+1], sc, isFile)
			a.addPath(PathWord{Raw: "<files listed in " + args[k+1].raw + ">", Dir: sc.dirs[0]})
			k += 2
		case strings.HasPrefix(v, "-newer") && len(v) == len("-newerXY") && k+1 < len(args):
			a.pathWord(args[k+1], sc, maybeFile)
			k += 2
		default:
			k++
		}
	}
}

// skipFindOptions returns the index after find's leading options
// (-H -L -P -D debugopts -Olevel).
func skipFindOptions(args []field) int {
	k := 0
	for k < len(args) {
		switch v := args[k].value; {
		case v == "-H" || v == "-L" || v == "-P" || strings.HasPrefix(v, "-O"):
			k++
		case v == "-D":
			k += 2
		case v == "--":
			return k + 1
		default:
			return k
		}
	}
	return min(k, len(args))
}

var findExec = map[string]bool{"-exec": true, "-execdir": true, "-ok": true, "-okdir": true}

var findFileTests = map[string]bool{
	"-fprint": true, "-fprint0": true, "-fprintf": true, "-fls": true,
	"-newer": true, "-anewer": true, "-cnewer": true, "-samefile": true,
}

func findExpr(f field) bool {
	v := f.value
	return f.known && (len(v) > 1 && v[0] == '-' || v == "(" || v == ")" || v == "!" || v == ",")
}

// findExecEnd returns the index of the ";" or "{} +" that ends -exec.
func findExecEnd(args []field, k int) int {
	for ; k < len(args); k++ {
		v := args[k].value
		if v == ";" || (v == "+" && args[k-1].value == "{}") {
			return k
		}
	}
	return k
}

func (a *analyzer) findExec(op string, run []field, c cmd, sc *scope) {
	if len(run) == 0 {
		return
	}
	dirs := sc.dirs
	if strings.HasSuffix(op, "dir") { // runs in each file's directory
		dirs = unknownDir
	}
	sc.withDirs(dirs, func() { a.run(c.with(run, CtxWrapped).noStdin(), sc) })
}

func (c cmd) noStdin() cmd {
	c.stdin = nil
	return c
}

// fd: -x/--exec and -X/--exec-batch run a command per result.
func (a *analyzer) fd(i int, c cmd, sc *scope) {
	args := c.args()
	var rest []field
	for k := 0; k < len(args); k++ {
		v := args[k].value
		if v != "-x" && v != "--exec" && v != "-X" && v != "--exec-batch" {
			rest = append(rest, args[k])
			continue
		}
		end := k + 1
		for end < len(args) && args[end].value != ";" {
			end++
		}
		a.setFloor(i, SentinelIndirection)
		if end > k+1 {
			a.run(c.with(args[k+1:end], CtxWrapped).noStdin(), sc)
		}
		k = end
	}
	a.patternFirst(i, patternFirstSpecs["fd"], rest, sc)
}

// parallel, rust-parallel and rush run a command per input; the command is
// shell code (rust-parallel runs it directly), and without one every input
// is a command.
func (a *analyzer) parallel(i int, base string, c cmd, sc *scope) {
	a.setFloor(i, SentinelIndirection)
	a.units[i].ExactSuggestion = true
	args := c.args()
	list, k := parseOpts(parallelOpts, args)
	for _, o := range list {
		if o.has && slices.Contains(parallelFileOpts, o.name) {
			a.pathWord(o.value, sc, isFile)
		}
	}
	end := k
	for end < len(args) && !isInputSep(args[end]) {
		end++
	}
	run, inputs := args[k:end], args[end:]
	switch {
	case len(run) > 0 && base == "rust-parallel":
		a.run(c.with(run, CtxWrapped).noStdin(), sc)
	case len(run) > 0:
		a.payload(joinText(run), sc, false)
	default:
		for _, f := range inputs {
			if !isInputSep(f) {
				a.payload(f.text, sc, false)
			}
		}
	}
	a.parallelInputs(inputs, sc)
}

// parallelInputs: the arguments after ::: are substituted into the command,
// so they are checked like its arguments; those after :::: name files.
func (a *analyzer) parallelInputs(inputs []field, sc *scope) {
	files := false
	for _, f := range inputs {
		if isInputSep(f) {
			files = strings.HasPrefix(f.value, "::::")
			continue
		}
		if files {
			a.pathWord(f, sc, isFile)
		} else {
			a.pathWord(f, sc, maybeFile)
		}
	}
}

func isInputSep(f field) bool {
	return f.known && (f.value == ":::" || f.value == "::::" || f.value == ":::+" || f.value == "::::+")
}

var parallelOpts = opts{arg: "jPadEILnNsSCJ", long: []string{"--jobs", "--arg-file", "--delimiter",
	"--colsep", "--joblog", "--results", "--tmpdir", "--workdir", "--wd", "--timeout", "--retries",
	"--delay", "--halt", "--memfree", "--load", "--basefile", "--return", "--tagstring", "--sshlogin",
	"--sshloginfile", "--profile", "--env", "--max-args", "--max-replace-args", "--max-lines", "--block"}}

var parallelFileOpts = []string{"-a", "--arg-file", "--joblog", "--results", "--tmpdir", "--workdir", "--wd"}

// programSpec describes a command with options whose value is a program or
// shell code it runs (tar --to-command, rsync -e, ssh -o ProxyCommand=…):
// such an option floors the command like a wrapper, and a literal value is
// analyzed as code.
type programSpec struct {
	opts opts
	code []string // options whose value is code
	// prefixed are options whose value is code after a prefix
	// (tar --checkpoint-action=exec=CMD).
	prefixed map[string]string
	// sshOpts is set for -o KEY=VALUE options of the ssh family.
	sshOpts bool
	// remote: the operands after the host are a command run there (ssh
	// HOST CMD): a unit of its own, whose words name no local path.
	remote bool
	// subCode are subcommands whose next operand is shell code (csvtool
	// call CMD); operandCode: every operand is (xdg-user-dir).
	subCode     []string
	operandCode bool
	// codePrefixes are word prefixes after which the word is code
	// (latexmk -pdflatex=CMD); codeWords, words whose next word is
	// (gcc -wrapper CMD).
	codePrefixes, codeWords []string
	// libs are options whose value is a library the program loads.
	libs []string
	// hgConfig: --config alias.X=!CMD and hooks.X=CMD are code (hg).
	hgConfig bool
}

func (a *analyzer) programOptions(i int, base string, c cmd, sc *scope) {
	spec, ok := programSpecs[base]
	if !ok {
		spec = programSpecs[versionless(base)]
	}
	args := c.args()
	code := func(floor, text string) {
		a.setFloor(i, floor)
		a.payload(text, sc, false)
	}
	for k, f := range args {
		if !f.known {
			continue
		}
		if slices.Contains(spec.codeWords, f.value) && k+1 < len(args) {
			code(SentinelIndirection, args[k+1].text)
		}
		for _, p := range spec.codePrefixes {
			if rest, ok := strings.CutPrefix(f.text, p); ok && rest != "" {
				code(SentinelIndirection, rest)
			}
		}
	}
	if spec.remote {
		_, k := parseOpts(spec.opts, args)
		if k+1 < len(args) { // ssh HOST CMD: CMD runs there, a unit of its own
			a.remote++
			a.payload(joinText(args[k+1:]), sc, false)
			a.remote--
			args = args[:k+1]
		}
	}
	list, operands := scanArgs(spec.opts, args)
	for _, o := range list {
		if !o.has {
			continue
		}
		switch {
		case slices.Contains(spec.code, o.name):
			code(SentinelIndirection, o.value.text)
		case spec.prefixed[o.name] != "":
			if text, ok := strings.CutPrefix(o.value.text, spec.prefixed[o.name]); ok {
				code(SentinelIndirection, text)
			}
		case spec.sshOpts && o.name == "-o":
			key, value, found := strings.Cut(o.value.text, "=")
			if !found {
				key, value, _ = strings.Cut(o.value.text, " ")
			}
			if sshCommandOptions[strings.ToLower(strings.TrimSpace(key))] {
				code(SentinelIndirection, value)
			}
		case slices.Contains(spec.libs, o.name):
			a.setFloor(i, SentinelIndirection)
			a.pathWord(o.value, sc, isFile)
		case spec.hgConfig && o.name == "--config":
			key, value, _ := strings.Cut(o.value.text, "=")
			if strings.HasPrefix(key, "hooks.") {
				code(SentinelIndirection, value)
			} else if cmd, ok := strings.CutPrefix(value, "!"); ok && strings.HasPrefix(key, "alias.") {
				code(SentinelIndirection, cmd)
			}
		}
	}
	if len(operands) > 1 && operands[0].known && slices.Contains(spec.subCode, operands[0].value) {
		code(SentinelIndirection, operands[1].text)
	}
	if spec.operandCode {
		for _, f := range operands {
			code(SentinelOpaque, f.text)
		}
	}
	if base == "sftp" && (c.stdin != nil || c.piped) {
		a.foreignCode(i, "", "sftp commands", a.stdinText(c, sc)) // a batch on standard input
	}
	a.argPaths(args, sc)
}

// cp reads its sources and writes its destination (the last operand, or
// the -t directory): reading toolgate's own files or a start-up file this
// way is no change of it.
func (a *analyzer) cp(i int, _ string, c cmd, sc *scope) {
	list, operands := scanArgs(cpOpts, c.args())
	dest := len(operands) - 1
	for _, o := range list {
		switch {
		case o.name == "-t" || o.name == "--target-directory":
			dest = -1
			if o.has {
				a.pathWord(o.value, sc, isFile)
			}
		case o.has:
			a.pathWord(o.value, sc, maybeFile)
		}
	}
	if len(operands) < 2 {
		dest = -1 // "cp x" fails; nothing is written
	}
	for k, f := range operands {
		if k == dest {
			a.pathWord(f, sc, maybeOperand)
		} else {
			a.readPath(f, sc, maybeOperand)
		}
	}
}

var cpOpts = opts{arg: "St", long: []string{"--suffix", "--target-directory"}}

// vim and its kin (vimFamily, catalog.go): ex commands given with -c,
// --cmd, -S or +CMD; one starting with ! is shell code.
func (a *analyzer) vim(i int, _ string, c cmd, sc *scope) {
	args := c.args()
	for k := 0; k < len(args); k++ {
		f := args[k]
		var code field
		switch {
		case !f.known:
			continue
		case f.value == "--":
			k = len(args)
			continue
		case (f.value == "-c" || f.value == "--cmd" || f.value == "-S") && k+1 < len(args):
			code, k = args[k+1], k+1
		case strings.HasPrefix(f.value, "+") && len(f.value) > 1:
			code = f.cut(1)
		default:
			continue
		}
		if ex := strings.TrimLeft(code.value, ": "); code.known && (strings.Trim(ex, "0123456789") == "" ||
			strings.HasPrefix(ex, "/") || strings.HasPrefix(ex, "?")) {
			continue // a line number or a search
		}
		a.setFloor(i, SentinelIndirection)
		if ex, ok := strings.CutPrefix(strings.TrimLeft(code.text, ": "), "!"); ok {
			a.payload(ex, sc, false)
		}
	}
	a.argPaths(args, sc)
}

// sed: GNU sed's e command and the e flag of s run shell code; a script
// that uses either (or cannot be read) floors sed.
func (a *analyzer) sed(i int, _ string, c cmd, sc *scope) {
	spec := patternFirstSpecs["sed"]
	list, operands := scanArgs(spec.opts, c.args())
	var scripts []field
	given := false
	for _, o := range list {
		switch o.name {
		case "-e", "--expression":
			given = true
			if o.has {
				scripts = append(scripts, o.value)
			}
		case "-f", "--file":
			given = true
		case "--sandbox":
			scripts, given = nil, true // e, r and w are refused
			a.patternFirst(i, spec, c.args(), sc)
			return
		}
	}
	if !given && len(operands) > 0 {
		scripts = append(scripts, operands[0])
	}
	// Without -i and with no w command, sed only reads its files.
	reads := !hasOpt(list, "-i", "--in-place")
	for _, s := range scripts {
		runs, writes, files := sedScan(s.value)
		if !s.known || runs {
			a.foreignCode(i, "", "sed", "")
			for _, cmd := range sedCommands(s.value) {
				a.payload(cmd, sc, false)
			}
		}
		reads = reads && s.known && !writes
		for _, f := range files {
			if f.name == "/dev/stdout" || f.name == "/dev/stderr" {
				continue
			}
			if f.write {
				a.pathWord(literalField(f.name), sc, isFile)
			} else {
				a.readPath(literalField(f.name), sc, isFile)
			}
		}
	}
	a.readOnly = reads && !hasOpt(list, "-f", "--file")
	a.patternFirst(i, spec, c.args(), sc)
}

// sedRuns reports whether a sed script may run a command (see sedScan).
func sedRuns(script string) bool {
	runs, _, _ := sedScan(script)
	return runs
}

// sedCommands lists the commands of a sed script's "e COMMAND" lines,
// which sed runs with the shell.
func sedCommands(script string) []string {
	var cmds []string
	for _, line := range strings.Split(script, "\n") {
		for _, part := range strings.Split(line, ";") {
			part = strings.TrimLeft(part, " \t{}")
			rest, ok := sedAddress(part)
			if !ok {
				continue
			}
			rest = strings.TrimLeft(rest, " \t!")
			if cmd, ok := strings.CutPrefix(rest, "e"); ok && strings.HasPrefix(cmd, " ") {
				cmds = append(cmds, strings.TrimSpace(line[strings.Index(line, cmd):]))
				break
			}
		}
	}
	return cmds
}

// sedFile is a file a sed script reads (r, R) or writes (w, W, the w flag).
type sedFile struct {
	name  string
	write bool
}

// sedScan reports whether a sed script may run a command (an e command,
// or an s command with the e flag) and whether it may write a file, and
// lists the files it names. It reads addresses, blocks, labels and text
// arguments well enough to find the commands; what it cannot read counts
// as both running and writing.
func sedScan(script string) (runs, writes bool, files []sedFile) {
	s := script
	for len(s) > 0 {
		s = strings.TrimLeft(s, " \t\n;{}!")
		if s == "" {
			break
		}
		rest, ok := sedAddress(s)
		if !ok {
			return true, true, files
		}
		s = strings.TrimLeft(rest, " \t!")
		if s == "" {
			break
		}
		cmd := s[0]
		s = s[1:]
		switch cmd {
		case 'e':
			return true, true, files
		case '}', '=', 'd', 'D', 'g', 'G', 'h', 'H', 'l', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
		case 'q', 'Q', 'L':
			s = strings.TrimLeft(s, " \t0123456789")
		case ':', 'b', 't', 'T', 'v': // a label ends at ";" or a newline
			s = skipTo(s, ";\n")
		case 'r', 'R', 'w', 'W': // a file name to the end of the line
			line := s
			s = skipTo(s, "\n")
			write := cmd == 'w' || cmd == 'W'
			writes = writes || write
			files = append(files, sedFile{strings.TrimSpace(line[:len(line)-len(s)]), write})
		case 'a', 'i', 'c', '#': // text to the end of the line
			s = skipTo(s, "\n")
		case 's', 'y':
			var flags, file string
			s, flags, file, ok = sedSubst(s, cmd == 's')
			if !ok || strings.ContainsRune(flags, 'e') {
				return true, true, files
			}
			if file != "" {
				writes = true
				files = append(files, sedFile{file, true})
			}
		default:
			return true, true, files
		}
	}
	return runs, writes, files
}

// skipTo returns s from its first byte in stops on, "" if there is none.
func skipTo(s, stops string) string {
	if j := strings.IndexAny(s, stops); j >= 0 {
		return s[j:]
	}
	return ""
}

// sedAddress skips a sed address (a number, $, /re/, \cREc, first~step,
// and a second one after ",").
func sedAddress(s string) (string, bool) {
	for n := 0; n < 2; n++ {
		switch {
		case s == "":
			return s, true
		case s[0] >= '0' && s[0] <= '9' || s[0] == '$' || s[0] == '+' || s[0] == '~':
			s = strings.TrimLeft(s[1:], "0123456789~")
		case s[0] == '/' || s[0] == '\\':
			delim := byte('/')
			if s[0] == '\\' {
				if len(s) < 2 {
					return s, false
				}
				delim, s = s[1], s[1:]
			}
			end := sedDelimited(s[1:], delim)
			if end < 0 {
				return s, false
			}
			s = strings.TrimLeft(s[1+end+1:], "IM")
		default:
			return s, true
		}
		if n == 0 && strings.HasPrefix(s, ",") {
			s = s[1:]
			continue
		}
		return s, true
	}
	return s, true
}

// sedSubst skips the parts of an s or y command and returns its flags and
// the file of a w flag.
func sedSubst(s string, subst bool) (rest, flags, file string, ok bool) {
	if s == "" || s[0] == '\n' || s[0] == '\\' {
		return s, "", "", false
	}
	delim := s[0]
	s = s[1:]
	for part := 0; part < 2; part++ {
		end := sedDelimited(s, delim)
		if end < 0 {
			return s, "", "", false
		}
		s = s[end+1:]
	}
	if !subst {
		return s, "", "", true
	}
	j := 0
	for j < len(s) && s[j] != ';' && s[j] != '\n' && s[j] != '}' && s[j] != '#' {
		if s[j] == 'w' { // w FILE takes the rest of the line
			rest := skipTo(s[j+1:], "\n")
			return rest, s[:j] + "w", strings.TrimSpace(s[j+1 : len(s)-len(rest)]), true
		}
		j++
	}
	return s[j:], s[:j], "", true
}

// sedDelimited returns the index of the first unescaped delim in s, -1 if
// there is none.
func sedDelimited(s string, delim byte) int {
	for j := 0; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case delim:
			return j
		}
	}
	return -1
}
