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

// git: -c, --config-env and --exec-path let configuration run any program,
// which floors git; with global options the subcommand is also a unit of
// its own without them ("git -C . push" is matched as "git push"), run in
// the directory -C names.
func (a *analyzer) git(i int, c cmd, sc *scope) {
	args := c.args()
	dirs := sc.dirs
	k := 0
	for k < len(args) && args[k].known && strings.HasPrefix(args[k].value, "-") {
		n, floor := a.gitOption(args, k, &dirs, sc)
		if floor {
			a.setFloor(i, SentinelIndirection)
		}
		k += n
	}
	if k > 0 && k < len(args) {
		sub := append([]field{c.fields[0]}, args[k:]...)
		sc.withDirs(dirs, func() { a.run(c.with(sub, CtxWrapped), sc) })
		return
	}
	a.gitSubcommand(i, args[k:], c, sc)
}

// gitOption reads the global option at args[k] and returns the words it
// used and whether it floors git.
func (a *analyzer) gitOption(args []field, k int, dirs *[]string, sc *scope) (int, bool) {
	v := args[k].value
	name, _, hasValue := strings.Cut(v, "=")
	next := func() (field, int) {
		if hasValue {
			return args[k].cut(len(name) + 1), 1
		}
		if k+1 < len(args) {
			return args[k+1], 2
		}
		return field{}, 1
	}
	switch name {
	case "-C":
		f, n := next()
		if n == 2 {
			a.pathWord(f, sc, isFile)
			*dirs = sc.withDirsChdir(*dirs, f)
		}
		return n, false
	case "-c", "--config-env":
		_, n := next()
		return n, true
	case "--exec-path":
		return 1, hasValue
	case "--git-dir", "--work-tree":
		f, n := next()
		a.pathWord(f, sc, isFile)
		return n, false
	case "--namespace", "--super-prefix", "--list-cmds", "--attr-source":
		_, n := next()
		return n, false
	}
	return 1, false
}

// withDirsChdir is chdir from the directories dirs rather than the scope's.
func (sc *scope) withDirsChdir(dirs []string, target field) []string {
	var out []string
	sc.withDirs(dirs, func() { out = sc.chdir(target) })
	return out
}

// gitSubcommand handles the subcommands that run a command given to them.
func (a *analyzer) gitSubcommand(i int, args []field, c cmd, sc *scope) {
	if len(args) == 0 {
		return
	}
	rest := args[1:]
	switch args[0].value {
	case "rebase":
		list, _ := scanArgs(opts{arg: "xsSXo", long: []string{"--exec", "--strategy", "--onto",
			"--strategy-option", "--gpg-sign"}}, rest)
		for _, o := range list {
			if o.has && (o.name == "-x" || o.name == "--exec") {
				a.setFloor(i, SentinelIndirection)
				a.payload(o.value.text, sc, false)
			}
		}
	case "submodule":
		if j := slices.IndexFunc(rest, func(f field) bool { return f.value == "foreach" }); j >= 0 {
			a.setFloor(i, SentinelIndirection)
			run := rest[j+1:]
			for len(run) > 0 && strings.HasPrefix(run[0].value, "-") {
				run = run[1:]
			}
			a.payload(joinText(run), sc, false)
			return
		}
	case "bisect":
		if len(rest) > 1 && rest[0].value == "run" {
			a.setFloor(i, SentinelIndirection)
			a.run(c.with(rest[1:], CtxWrapped), sc)
			return
		}
	case "filter-branch":
		a.setFloor(i, SentinelIndirection)
	}
	a.argPaths(rest, sc)
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
