package shell

import (
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// wordKind says how sure the analysis is that a word names a file.
type wordKind int

const (
	maybeFile    wordKind = iota // an argument: a path when it looks like one or exists
	maybeOperand                 // the same after "--", where "-x" is no option
	isFile                       // surely a file: a cd target, find's starting point, -f's value
	isRedirect                   // a redirect target
)

// argPaths classifies the arguments of a command that has no special
// reading of them. After "--" a word starting with "-" is an operand too.
func (a *analyzer) argPaths(args []field, sc *scope) {
	kind := maybeFile
	for _, f := range args {
		if kind == maybeFile && isDashDash(f) {
			kind = maybeOperand
			continue
		}
		a.pathWord(f, sc, kind)
	}
}

// pathWord records f as a path word when it names, or may name, a file
// (anchor §5.7 as SPEC §4 adapts it).
func (a *analyzer) pathWord(f field, sc *scope, kind wordKind) {
	if f.proc {
		return // <(…) is a pipe; its commands are units
	}
	if !f.known {
		if f.hasOperand && !f.noOperand && a.operandPath(f, sc, kind) {
			return
		}
		a.unknownPath(f, sc, kind)
		return
	}
	v := f.value
	if kind < isFile {
		switch {
		case isURL(v):
			if p, ok := fileURLPath(v); ok { // file:///etc/passwd is a local file
				a.addPaths(v, p, sc, false)
			}
			return
		case v == "" || (strings.HasPrefix(v, "@") && !strings.HasPrefix(v, "@/")):
			return
		case v[0] == '-' && kind == maybeFile:
			a.optionValue(f, sc)
			return
		}
		if name, _, ok := strings.Cut(v, "="); ok && !strings.Contains(name, "/") {
			a.pathWord(sc.expandTilde(f.cut(len(name)+1)), sc, maybeFile) // of=FILE
			return
		}
	}
	switch {
	case v == "":
	case f.glob:
		a.globPaths(f, sc, kind == isRedirect)
	case kind >= isFile || looksLikePath(f) || a.exists(v, sc):
		a.addPaths(f.raw, v, sc, kind == isRedirect)
	case slices.Contains(sc.dirs, ""):
		// Where the shell is cannot be known, so neither can whether a
		// bare word names a file there.
		a.addPath(PathWord{Raw: f.raw, Value: v, Known: true})
	}
}

func looksLikePath(f field) bool {
	return strings.Contains(f.value, "/") || strings.HasPrefix(f.raw, ".") ||
		strings.HasPrefix(f.raw, "~") || strings.HasPrefix(f.value, ".")
}

// optionValue classifies the value inside an option word: "--output=F",
// "-DF=/x", a value glued to -o or -f ("-ofile"), and a glued value that
// starts like a path ("-I/usr/include", "-Wl,-rpath,./lib").
func (a *analyzer) optionValue(f field, sc *scope) {
	v := f.value
	if name, _, ok := strings.Cut(v, "="); ok {
		a.pathWord(sc.expandTilde(f.cut(len(name)+1)), sc, maybeFile)
		return
	}
	if strings.HasPrefix(v, "--") || len(v) < 3 {
		return
	}
	if v[1] == 'o' || v[1] == 'f' {
		a.pathWord(sc.expandTilde(f.cut(2)), sc, maybeFile)
		return
	}
	for k := 2; k < len(v); k++ {
		if rest := v[k:]; rest[0] == '/' || strings.HasPrefix(rest, "./") ||
			strings.HasPrefix(rest, "../") || strings.HasPrefix(rest, "~/") {
			a.pathWord(sc.expandTilde(f.cut(k)), sc, maybeFile)
			return
		}
	}
}

// unknownPath records a word with an unresolved expansion: it counts as a
// path word when its literal parts contain "/" or it starts with ~ or .
// ("$DIR/x"); a bare "$F" does not, unless it surely names a file.
func (a *analyzer) unknownPath(f field, sc *scope, kind wordKind) {
	if kind < isFile && !f.overflow {
		if strings.HasPrefix(f.raw, "-") && kind == maybeFile {
			if name, _, ok := strings.Cut(f.lits, "="); ok && strings.HasPrefix(f.raw, name+"=") {
				a.pathWord(f.cut(len(name)+1), sc, maybeFile)
			}
			return
		}
		if !f.pathy && !strings.Contains(f.lits, "/") && !strings.HasPrefix(f.raw, "~") && !strings.HasPrefix(f.raw, ".") {
			return
		}
	}
	a.addPath(PathWord{Raw: f.raw, Dir: sc.dirs[0], Redirect: kind == isRedirect})
}

// operandPath records the word an unknown field is when the operands of
// its parameter expansions win ("${F:-~/.ssh/id_rsa}"), and then the field
// itself as a path word of unknown location: the variable could win. It
// reports false when the operand is no path word.
func (a *analyzer) operandPath(f field, sc *scope, kind wordKind) bool {
	if kind == maybeFile && strings.HasPrefix(f.raw, "-") {
		return false // an option: its value is cut out first
	}
	o := field{raw: f.raw, text: f.text, value: f.operand, pat: escapeGlob(f.operand), lits: f.lits, known: true}
	n := len(a.paths)
	a.pathWord(o, sc, kind)
	if len(a.paths) == n {
		return false
	}
	a.addPath(PathWord{Raw: f.raw, Dir: sc.dirs[0], Redirect: kind == isRedirect})
	return true
}

func isURL(v string) bool {
	scheme, _, ok := strings.Cut(v, "://")
	if !ok || scheme == "" {
		return false
	}
	for i := 0; i < len(scheme); i++ {
		c := scheme[i]
		alpha := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !alpha && (i == 0 || !(c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	return true
}

// fileURLPath returns the path of a file:// URL ("file://host/p" → "/p").
func fileURLPath(v string) (string, bool) {
	if len(v) < len("file://") || !strings.EqualFold(v[:len("file://")], "file://") {
		return "", false
	}
	rest := v[len("file://"):]
	i := strings.IndexByte(rest, '/')
	if i < 0 {
		return "", false
	}
	return rest[i:], true
}

// expandTilde expands a leading ~ of a word cut out of another ("--out=~/x"),
// which the shell itself may not have expanded.
func (sc *scope) expandTilde(f field) field {
	if !f.known || (f.value != "~" && !strings.HasPrefix(f.value, "~/")) {
		return f
	}
	home, ok := sc.vars.get("HOME")
	if !ok {
		return field{raw: f.raw, text: f.text, lits: f.lits}
	}
	f.value = home + f.value[1:]
	f.pat = escapeGlob(f.value)
	return f
}

// addPaths records a known path word, once per effective directory when it
// is relative.
func (a *analyzer) addPaths(raw, value string, sc *scope, redirect bool) {
	if filepath.IsAbs(value) {
		a.addPath(PathWord{Raw: raw, Value: value, Known: true, Dir: sc.dirs[0], Redirect: redirect})
		return
	}
	for _, d := range sc.dirs {
		a.addPath(PathWord{Raw: raw, Value: value, Known: true, Dir: d, Redirect: redirect})
	}
}

func (a *analyzer) addPath(p PathWord) {
	if !a.seen[p] {
		a.seen[p] = true
		a.paths = append(a.paths, p)
	}
}

// exists reports whether a bare word names an entry relative to an effective
// directory. Past the stat budget it answers yes: the word is then checked.
func (a *analyzer) exists(v string, sc *scope) bool {
	for _, d := range sc.dirs {
		if d == "" {
			continue
		}
		if found, ok := a.fs.exists(d, v); found || !ok {
			return true
		}
	}
	return false
}

// globPaths records an unquoted glob: the word itself and every match, like
// the shell expands it. A glob that cannot be expanded completely (unknown
// directory, budget) is recorded as unknown.
func (a *analyzer) globPaths(f field, sc *scope, redirect bool) {
	a.addPaths(f.raw, f.value, sc, redirect)
	dirs := sc.dirs
	if filepath.IsAbs(f.value) {
		dirs = dirs[:1]
	}
	for _, d := range dirs {
		matches, ok := a.glob(f.pat, d, sc.facts.dotglob)
		if !ok {
			a.addPath(PathWord{Raw: f.raw, Dir: d, Redirect: redirect})
			continue
		}
		for _, m := range matches {
			a.addPath(PathWord{Raw: m, Value: m, Known: true, Dir: d, Redirect: redirect})
		}
	}
}

// redirectPath records a redirect target; "2>&1" and here-documents have
// none.
func (a *analyzer) redirectPath(r *syntax.Redirect, sc *scope) {
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		return
	}
	if r.Word == nil {
		return
	}
	// bash brace-expands a redirect target (one word, or an ambiguous
	// redirect: every word is recorded) and globs it (pathWord).
	if !hasBraceLit(r.Word) {
		f := sc.word(r.Word, valueMode)
		if (r.Op == syntax.DplIn || r.Op == syntax.DplOut) && f.known && isFD(f.value) {
			return
		}
		a.pathWord(f, sc, isRedirect)
		return
	}
	words, ok := braceWords(r.Word, a.bracesLeft)
	if len(words) > 1 || !ok {
		a.bracesLeft -= len(words) + 1
	}
	if !ok {
		a.pathWord(sc.unknownWord(r.Word), sc, isRedirect)
		return
	}
	for _, w := range words {
		f := sc.word(w, valueMode)
		if (r.Op == syntax.DplIn || r.Op == syntax.DplOut) && f.known && isFD(f.value) {
			continue
		}
		a.pathWord(f, sc, isRedirect)
	}
}

func isFD(v string) bool {
	return v == "-" || strings.Trim(strings.TrimSuffix(v, "-"), "0123456789") == ""
}

// patternSpec describes a command whose first operands are scripts or
// patterns, not files (anchor §5.7).
type patternSpec struct {
	opts     opts
	files    []string // options whose value is a file
	scripts  []string // options that give the script, so no operand is one
	patterns int      // leading operands that are scripts or patterns
	execs    []string // options that run a command (rg --pre)
}

var patternFirstSpecs = map[string]patternSpec{
	// GNU sed -i takes an optional glued suffix, so "sed -i SCRIPT FILE".
	"sed": {opts: opts{arg: "efl", optional: "i", long: []string{"--expression", "--file", "--line-length"}},
		files: []string{"-f", "--file"}, scripts: []string{"-e", "--expression", "-f", "--file"}, patterns: 1},
	"awk":  awkSpec,
	"gawk": awkSpec,
	"nawk": awkSpec,
	"mawk": awkSpec,
	"grep": grepSpec, "egrep": grepSpec, "fgrep": grepSpec,
	"rg": {opts: opts{arg: "efABCmgtTjMrE", long: []string{"--regexp", "--file", "--after-context",
		"--before-context", "--context", "--max-count", "--glob", "--iglob", "--type", "--type-not",
		"--threads", "--max-columns", "--replace", "--encoding", "--pre", "--pre-glob", "--max-depth",
		"--max-filesize", "--type-add", "--sort", "--sortr", "--colors", "--ignore-file",
		"--context-separator", "--engine"}},
		files: []string{"-f", "--file", "--ignore-file"}, scripts: []string{"-e", "--regexp", "-f", "--file"},
		patterns: 1, execs: []string{"--pre"}},
	"sd": {opts: opts{arg: "nf", long: []string{"--max-replacements", "--flags"}}, patterns: 2},
	"fd": {opts: opts{arg: "etEdScjo", long: []string{"--extension", "--type", "--exclude", "--max-depth",
		"--min-depth", "--exact-depth", "--size", "--changed-within", "--changed-before", "--threads",
		"--color", "--owner", "--base-directory", "--search-path", "--ignore-file", "--max-results"}},
		files: []string{"--base-directory", "--search-path", "--ignore-file"}, patterns: 1},
}

var awkSpec = patternSpec{opts: opts{arg: "efFvilW", long: []string{"--file", "--field-separator",
	"--assign", "--source", "--include", "--load"}},
	files: []string{"-f", "--file"}, scripts: []string{"-e", "--source", "-f", "--file"}, patterns: 1}

var grepSpec = patternSpec{opts: opts{arg: "efABCmdD", long: []string{"--regexp", "--file",
	"--after-context", "--before-context", "--context", "--max-count", "--directories", "--devices",
	"--label", "--binary-files", "--exclude", "--include", "--exclude-dir", "--exclude-from"}},
	files: []string{"-f", "--file", "--exclude-from"}, scripts: []string{"-e", "--regexp", "-f", "--file"},
	patterns: 1}

// patternFirst classifies the operands of a pattern-first command: the
// leading scripts or patterns are not files, the rest are. i is the unit to
// floor when an option runs a command (-1 for none).
func (a *analyzer) patternFirst(i int, spec patternSpec, args []field, sc *scope) {
	list, operands := scanArgs(spec.opts, args)
	patterns := spec.patterns
	for _, o := range list {
		if slices.Contains(spec.scripts, o.name) {
			patterns = 0
		}
		if o.has && slices.Contains(spec.files, o.name) {
			a.pathWord(o.value, sc, isFile)
		}
		if i >= 0 && slices.Contains(spec.execs, o.name) {
			a.setFloor(i, SentinelIndirection)
		}
	}
	for j, f := range operands {
		if j >= patterns {
			a.pathWord(f, sc, maybeFile)
		}
	}
}
