package shell

import (
	"slices"
)

// wrapSpec describes a command that runs another command given as its
// operands (wrappers).
type wrapSpec struct {
	floor       string   // "" for the transparent wrappers, else SentinelIndirection
	opts        opts     // its options
	paths       []string // options whose value names a file or directory
	chdir       []string // options that set the directory the command runs in
	code        []string // options whose value is shell code
	codeOpaque  bool     // code options make the wrapper opaque (flock -c)
	noRun       []string // options with which nothing is run (command -v)
	operands    int      // operands before the command (timeout's DURATION)
	fileOperand bool     // those operands name files (flock's lock file)
	assigns     bool     // NAME=VALUE words may precede the command (env, sudo)
	viaShell    bool     // the command is a string run by sh -c (watch)
	direct      []string // options that make a viaShell wrapper run it directly
	fallback    string   // command run when none is given (xargs: echo)
	sameShell   bool     // runs the command in the current shell (command, builtin)
	shell       []string // options that start a shell when no command is given (sudo -s)
	runs        string   // the program the operands are given to (capsh -- ARGS runs bash ARGS)
	// remote: the command runs elsewhere (a container, a cluster); it is
	// a unit of its own, but its words name no local path.
	remote bool
	// afterDashDash: the command is what follows "--" (kubectl exec POD -- CMD).
	afterDashDash bool
}

// wrapper handles a command that runs another: the wrapper unit is floored
// (except for the transparent ones) and suggested exactly, its own file
// options are path words, and the command it runs is analyzed as a unit of
// its own. A wrapper that runs the command in the current shell (command,
// builtin) passes on its directory changes.
func (a *analyzer) wrapper(i int, w *wrapSpec, c cmd, sc *scope) branch {
	if w.floor != transparent && wrapsCommand(w, c.args()) {
		a.setFloor(i, w.floor)
	}
	a.units[i].ExactSuggestion = true
	args := c.args()
	list, k := parseOpts(w.opts, args)
	if w.runs != "" {
		list, k = nil, 0 // every word goes to the program it runs (capsh -- -c CMD)
	}
	for n := 0; n < w.operands && k < len(args); n, k = n+1, k+1 {
		if w.fileOperand {
			a.pathWord(args[k], sc, isFile)
		}
	}
	if w.operands > 0 { // flock FILE -c CMD
		more, m := parseOpts(w.opts, args[k:])
		list, k = append(list, more...), k+m
	}
	dirs := a.wrapperOptions(i, w, list, sc)
	if hasOpt(list, w.noRun...) {
		a.argPaths(args[k:], sc)
		return same(sc)
	}
	env := c.env
	for w.assigns && k < len(args) && isAssignWord(args[k]) {
		name := identPrefix(args[k].value)
		if injectsValue(name, args[k].value[len(name)+1:], args[k].known) {
			env = append(env, name)
		}
		k++
	}
	run := args[k:]
	if w.afterDashDash {
		run = nil
		for j, f := range args {
			if isDashDash(f) {
				run = args[j+1:]
				break
			}
		}
	}
	if w.runs != "" && len(run) > 0 {
		run = append([]field{literalField(w.runs)}, run...)
	}
	br := same(sc)
	if w.remote {
		a.remote++
		defer func() { a.remote-- }()
	}
	sc.withDirs(dirs, func() { br = a.wrapped(w, list, run, c.withEnv(env), sc) })
	if w.sameShell {
		return br
	}
	return same(sc)
}

// wrapsCommand reports whether a wrapper that may run nothing (ssh-agent
// alone prints its environment) is given a command or code to run: words
// beyond its options and leading operands, or any option value that is
// code. It fails closed on any word only known at run time.
func wrapsCommand(w *wrapSpec, args []field) bool {
	if w.fallback != "" || len(w.shell) > 0 || len(w.code) > 0 || w.operands > 0 {
		return true
	}
	_, k := parseOpts(w.opts, args)
	return k < len(args) || slices.ContainsFunc(args, func(f field) bool { return !f.known })
}

// wrapperOptions analyzes a wrapper's own options and returns the
// directories the wrapped command runs in.
func (a *analyzer) wrapperOptions(i int, w *wrapSpec, list []option, sc *scope) []string {
	dirs := sc.dirs
	for _, o := range list {
		switch {
		case slices.Contains(w.code, o.name):
			if w.codeOpaque {
				a.setFloor(i, SentinelOpaque)
			}
			a.payload(o.value.text, sc, false)
		case o.has && slices.Contains(w.chdir, o.name):
			a.pathWord(o.value, sc, isFile)
			dirs = sc.chdir(o.value)
		case o.has && slices.Contains(w.paths, o.name):
			a.pathWord(o.value, sc, isFile)
		}
	}
	return dirs
}

// wrapped analyzes the command a wrapper runs.
func (a *analyzer) wrapped(w *wrapSpec, list []option, run []field, c cmd, sc *scope) branch {
	switch {
	case len(run) == 0 && w.fallback != "":
		return a.run(c.with([]field{literalField(w.fallback)}, CtxWrapped), sc)
	case len(run) == 0 && hasOpt(list, w.shell...):
		return a.run(c.with([]field{literalField("sh")}, CtxWrapped), sc) // reads stdin
	case len(run) == 0:
		return same(sc)
	case w.viaShell && !hasOpt(list, w.direct...):
		a.payload(joinText(run), sc, false)
		return same(sc)
	}
	return a.run(c.with(run, CtxWrapped), sc)
}

func (c cmd) withEnv(env []string) cmd {
	c.env = env
	return c
}

// isAssignWord reports whether f is NAME=VALUE (env and sudo take those).
func isAssignWord(f field) bool {
	name := identPrefix(f.value)
	return f.known && name != "" && len(f.value) > len(name) && f.value[len(name)] == '='
}
