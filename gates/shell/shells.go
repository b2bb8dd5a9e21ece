package shell

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// shellArgs is how a shell invocation gets its script.
type shellArgs struct {
	cmode  bool    // -c: the first operand is code
	code   *field  // the -c string, if given
	script *field  // the script file
	stdin  bool    // reads its script from standard input
	files  []field // startup files (--rcfile)
	rest   []field // positional parameters
}

// parseShell reads a shell's options: any short-option cluster with c before
// the first operand means the first operand is code; s, or no operand at
// all, means the script comes from standard input.
func parseShell(args []field) shellArgs {
	var r shellArgs
	i := 0
	for ; i < len(args); i++ {
		f := args[i]
		v := f.value
		if !f.known || len(v) < 2 || (v[0] != '-' && v[0] != '+') {
			break
		}
		if v == "--" {
			i++
			break
		}
		if strings.HasPrefix(v, "--") {
			name, _, hasValue := strings.Cut(v, "=")
			switch {
			case name == "--command" && hasValue:
				r.cmode, r.code = true, ptr(f.cut(len(name)+1))
			case (v == "--command" || v == "--rcfile" || v == "--init-file") && i+1 < len(args):
				i++
				if v == "--command" {
					r.cmode, r.code = true, &args[i]
				} else {
					r.files = append(r.files, args[i])
				}
			}
			continue
		}
		flags := v[1:]
		r.cmode = r.cmode || (v[0] == '-' && strings.ContainsRune(flags, 'c'))
		r.stdin = r.stdin || (v[0] == '-' && strings.ContainsRune(flags, 's'))
		if strings.ContainsAny(flags, "oO") && i+1 < len(args) {
			i++ // -o pipefail, -O extglob
		}
	}
	ops := args[i:]
	switch {
	case r.code != nil:
		r.rest = ops
	case r.cmode:
		if len(ops) > 0 {
			r.code, ops = &ops[0], ops[1:]
		}
		r.rest = ops
	case r.stdin || len(ops) == 0:
		r.stdin, r.rest = true, ops
	default:
		r.script, r.rest = &ops[0], ops[1:]
	}
	return r
}

func ptr(f field) *field { return &f }

// shell floors a shell that runs code it is given rather than a file, and
// analyzes that code when it is literal.
func (a *analyzer) shell(i int, c cmd, sc *scope) {
	r := parseShell(c.args())
	for _, f := range r.files {
		a.pathWord(f, sc, isFile)
	}
	switch {
	case r.cmode:
		a.setFloor(i, SentinelOpaque)
		if r.code != nil {
			a.payload(r.code.text, sc, false)
		}
	case r.stdin:
		a.setFloor(i, SentinelOpaque)
		a.stdinPayload(c.stdin, sc, false)
	case readsStdin(*r.script):
		a.setFloor(i, SentinelOpaque)
		if r.script.value != "-" {
			a.pathWord(*r.script, sc, isFile)
		}
		a.stdinPayload(c.stdin, sc, false)
	default:
		a.pathWord(*r.script, sc, isFile)
	}
	a.argPaths(r.rest, sc)
}

// readsStdin reports whether a script operand is not a plain file: a process
// substitution, standard input, or a name only known at run time.
func readsStdin(f field) bool {
	if !f.known || f.proc || f.glob {
		return true
	}
	v := f.value
	return v == "-" || v == "/dev/stdin" || strings.HasPrefix(v, "/dev/fd/") ||
		strings.HasPrefix(v, "/proc/")
}

// stdinPayload analyzes the here-document or here-string a shell reads its
// script from.
func (a *analyzer) stdinPayload(in *syntax.Redirect, sc *scope, shared bool) {
	if in == nil {
		return
	}
	switch in.Op {
	case syntax.Hdoc, syntax.DashHdoc:
		m := mode{doc: true, quotedDoc: quotedDelim(in.Word)}
		a.payload(sc.word(in.Hdoc, m).text, sc, shared)
	case syntax.WordHdoc:
		a.payload(sc.word(in.Word, valueMode).text+"\n", sc, shared)
	}
}

// quotedDelim reports whether a here-document delimiter is quoted, which
// makes the body literal.
func quotedDelim(w *syntax.Word) bool {
	if w == nil {
		return false
	}
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if strings.ContainsRune(p.Value, '\\') {
				return true
			}
		default:
			return true
		}
	}
	return false
}

// codeOption finds the value of an option that carries shell code, wherever
// it stands (su and runuser accept options after the user name): -c CODE,
// -lc CODE, -cCODE, --command CODE, --command=CODE.
func codeOption(args []field, short byte, long ...string) (field, bool) {
	for i, f := range args {
		v := f.value
		switch {
		case !f.known:
			continue
		case v == "--":
			return field{}, false
		case strings.HasPrefix(v, "--"):
			name, _, hasValue := strings.Cut(v, "=")
			if slices.Contains(long, name) && hasValue {
				return f.cut(len(name) + 1), true
			}
			if slices.Contains(long, name) && i+1 < len(args) {
				return args[i+1], true
			}
		case len(v) > 1 && v[0] == '-':
			j := strings.IndexByte(v, short)
			if j > 0 && j+1 < len(v) {
				return f.cut(j + 1), true
			}
			if j > 0 && i+1 < len(args) {
				return args[i+1], true
			}
		}
	}
	return field{}, false
}

// su floors su and runuser (and sg, nix-shell): they start a shell, with
// -c code (nix-shell: --run/--command) or reading standard input, except
// "runuser -u USER CMD", which runs CMD directly.
func (a *analyzer) su(i int, base string, c cmd, sc *scope) {
	args := c.args()
	short, long := byte('c'), []string{"--command", "--session-command"}
	if base == "nix-shell" { // nix-shell --run/--command CODE; no -c
		short, long = 0, []string{"--command", "--run"}
	}
	if code, ok := codeOption(args, short, long...); ok {
		a.setFloor(i, SentinelOpaque)
		a.payload(code.text, sc, false)
		return
	}
	if base == "runuser" {
		opts, k := parseOpts(suOpts, args)
		if hasOpt(opts, "-u", "--user") && k < len(args) {
			a.setFloor(i, SentinelIndirection)
			a.units[i].ExactSuggestion = true
			a.run(c.with(args[k:], CtxWrapped), sc)
			return
		}
	}
	a.setFloor(i, SentinelOpaque)
}

var suOpts = opts{arg: "cgGsuw", long: []string{"--command", "--group", "--supp-group",
	"--shell", "--user", "--whitelist-environment", "--session-command"}}

// script starts a shell, running -c code or an interactive one.
func (a *analyzer) script(i int, c cmd, sc *scope) {
	a.setFloor(i, SentinelOpaque)
	o, k := parseOpts(scriptOpts, c.args())
	for _, opt := range o {
		switch {
		case opt.name == "-c" || opt.name == "--command":
			a.payload(opt.value.text, sc, false)
		case opt.has:
			a.pathWord(opt.value, sc, maybeFile)
		}
	}
	for _, f := range c.args()[k:] {
		a.pathWord(f, sc, isFile) // the typescript
	}
}

var scriptOpts = opts{arg: "cEIOBTm", optional: "t", long: []string{"--command", "--echo",
	"--log-in", "--log-out", "--log-io", "--log-timing", "--logging-format"}}

// trap floors a handler definition, whose string is code run later.
func (a *analyzer) trap(i int, c cmd, sc *scope) {
	args := c.args()
	for len(args) > 0 && args[0].known && strings.HasPrefix(args[0].value, "-") && args[0].value != "-" {
		done := args[0].value == "--"
		args = args[1:]
		if done {
			break
		}
	}
	if len(args) < 2 || (args[0].known && args[0].value == "-") {
		return
	}
	a.setFloor(i, SentinelOpaque)
	a.payload(args[0].text, sc, false)
	sc.dirs = union(sc.dirs, unknownDir)
}

// alias floors alias definitions: their values are code.
func (a *analyzer) alias(i int, c cmd, sc *scope) {
	for _, f := range c.args() {
		if _, code, ok := strings.Cut(f.text, "="); ok {
			a.setFloor(i, SentinelOpaque)
			a.payload(code, sc, false)
		} else if !f.known {
			a.setFloor(i, SentinelOpaque)
		}
	}
}

// callbackSpec describes a builtin whose option values are code bash runs:
// mapfile -C CALLBACK, compgen -C COMMAND / -F FUNCTION, and the words of
// compgen -W, which bash expands (command substitutions included).
type callbackSpec struct {
	opts  opts
	code  []string // options whose value is code run in the current shell
	words []string // options whose value bash expands
}

var callbacks = map[string]callbackSpec{
	"mapfile":   {opts: opts{arg: "dnOsuCc"}, code: []string{"-C"}},
	"readarray": {opts: opts{arg: "dnOsuCc"}, code: []string{"-C"}},
	"compgen":   {opts: opts{arg: "oAGWFCXPSV"}, code: []string{"-C", "-F"}, words: []string{"-W"}},
	"complete":  {opts: opts{arg: "oAGWFCXPS"}, code: []string{"-C", "-F"}, words: []string{"-W"}},
}

// callback floors a builtin given code to run later and analyzes the code
// when it is literal, like eval's (opaque code).
func (a *analyzer) callback(i int, base string, c cmd, sc *scope) {
	spec := callbacks[base] // base is the family's name (familyProgram)
	list, _ := scanArgs(spec.opts, c.args())
	for _, o := range list {
		switch {
		case !o.has:
		case slices.Contains(spec.code, o.name):
			a.setFloor(i, SentinelOpaque)
			a.payload(o.value.text, sc, true)
		case slices.Contains(spec.words, o.name):
			if !o.value.known || strings.ContainsAny(o.value.value, "$`") {
				a.setFloor(i, SentinelOpaque)
			}
			a.dataSubsts(o.value.value, sc)
		}
	}
}
