package shell

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/toolgate/toolgate/internal/cleanpath"
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
// (the original extension's behavior as the design adapts it).
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
		case schemePath(v) != "":
			// man:/x, help:/x: a scheme naming a local file
			a.addPaths(v, schemePath(v), sc, false)
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
	case kind >= isFile || looksLikePath(f) || a.exists(v, sc) || (!a.readOnly && a.specialDir(sc) && !strings.ContainsAny(v, " \t\n")):
		// A command that may write names a new file by a bare word too:
		// after a cd into a dot directory or out of the project (cd
		// .git/hooks; cp f pre-commit), where it lands matters.
		a.addPaths(f.raw, v, sc, kind == isRedirect)
	case slices.Contains(sc.dirs, ""):
		// Where the shell is cannot be known, so neither can whether a
		// bare word names a file there.
		a.addPath(PathWord{Raw: f.raw, Value: v, Known: true})
	}
}

// schemePath is the local path of a word written SCHEME:/PATH (letters
// only before the colon), "" for any other word.
func schemePath(v string) string {
	scheme, rest, ok := strings.Cut(v, ":")
	if !ok || scheme == "" || !strings.HasPrefix(rest, "/") || strings.HasPrefix(rest, "//") {
		return ""
	}
	for i := 0; i < len(scheme); i++ {
		if c := scheme[i]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return ""
		}
	}
	return filepath.Clean(rest)
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
		if k > 2 && !strings.ContainsRune(",=:", rune(v[k-1])) {
			continue // a path starts the value or follows a separator (-Wl,-rpath,/x)
		}
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

// addPath adds p to the command's paths unless it is there already: a
// scan of their keys while they are few, a map past seenScan. Its plain
// twin is a list without repeats; TestAddPathKeys keeps them equal, below
// and past seenScan.
func (a *analyzer) addPath(p PathWord) {
	if a.remote > 0 {
		return // a word of a command run elsewhere names no local file
	}
	p.Write = p.Write || !a.readOnly
	if a.seen == nil {
		// Few paths: a scan of them is cheaper than a map. Their keys are
		// scanned first: paths with different keys differ.
		key := pathKey(p)
		for i, k := range a.pathKeys {
			if k == key && a.paths[i] == p {
				return
			}
		}
		if a.paths == nil {
			a.paths = make([]PathWord, 0, 4)
		}
		a.paths = append(a.paths, p)
		a.pathKeys = append(a.pathKeys, key)
		if len(a.paths) > seenScan {
			a.seen = make(map[PathWord]bool, 2*len(a.paths))
			for _, q := range a.paths {
				a.seen[q] = true
			}
			a.pathKeys = nil
		}
		return
	}
	if !a.seen[p] {
		a.seen[p] = true
		a.paths = append(a.paths, p)
	}
}

// pathKey sums up p cheaply for addPath's scan: equal paths have equal
// keys.
func pathKey(p PathWord) uint64 {
	k := uint64(len(p.Raw))<<40 ^ uint64(len(p.Value))<<20 ^ uint64(len(p.Dir))
	if p.Value != "" {
		k ^= uint64(p.Value[len(p.Value)-1]) << 56
	}
	if p.Known {
		k ^= 1 << 61
	}
	if p.Redirect {
		k ^= 1 << 62
	}
	if p.Write {
		k ^= 1 << 63
	}
	return k
}

// seenScan is how many paths addPath scans before it keeps a map of them.
const seenScan = 32

// exists reports whether a bare word names an entry relative to an effective
// directory. Past the stat budget it answers yes: the word is then checked.
// specialDir reports whether a folded cd may have taken the shell out of
// the directory the command starts in, or into a directory of it with a
// dot in its path (.git/hooks, .husky, .config/git).
func (a *analyzer) specialDir(sc *scope) bool {
	for _, d := range sc.dirs {
		if d == "" || d == a.opt.Cwd {
			continue
		}
		rel, ok := cutDirPrefix(d, strings.TrimSuffix(a.opt.Cwd, "/"))
		if !ok || a.opt.Cwd == "" || strings.HasPrefix(rel, ".") || strings.Contains(rel, "/.") {
			return true
		}
	}
	return false
}

// cutDirPrefix is strings.CutPrefix(d, dir+"/") without building dir+"/".
// That is its plain twin; TestCutDirPrefixIsCutPrefix keeps them equal.
func cutDirPrefix(d, dir string) (string, bool) {
	if len(d) <= len(dir) || d[len(dir)] != '/' || d[:len(dir)] != dir {
		return d, false
	}
	return d[len(dir)+1:], true
}

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
	saved := a.readOnly
	a.readOnly = r.Op == syntax.RdrIn || r.Op == syntax.DplIn
	defer func() { a.readOnly = saved }()
	// bash brace-expands a redirect target (one word, or an ambiguous
	// redirect: every word is recorded) and globs it (pathWord).
	if !hasBraceLit(r.Word) {
		f := sc.word(r.Word, valueMode)
		if (r.Op == syntax.DplIn || r.Op == syntax.DplOut) && f.known && isFD(f.value) {
			return
		}
		a.pathWord(f, sc, isRedirect)
		if !a.readOnly {
			a.noteWrite(f, sc) // see writeThenRun
		}
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

// readOnlyCommands are the commands known to only read the files their
// words name, each with the options that would make it write one.
var readOnlyCommands = map[string][]string{
	"cat": nil, "head": nil, "tail": nil, "more": nil, "wc": nil, "grep": nil,
	"egrep": nil, "fgrep": nil, "rg": nil, "ag": nil, "ls": nil, "stat": nil,
	"less": {"-o", "-O", "--log-file", "--LOG-FILE"}, // copies its input to a log file
	"file": {"-C", "--compile"},                      // writes FILE.mgc
	"diff": nil, "cmp": nil, "jq": nil, "bat": nil, "batcat": nil, "nl": nil, "od": nil, "hexdump": nil,
	"strings": nil, "readlink": nil, "realpath": nil, "du": nil, "md5sum": nil, "sha1sum": nil,
	"sha256sum": nil, "sha512sum": nil, "cksum": nil, "b2sum": nil, "column": nil, "cut": nil,
	"tac": nil, "rev": nil, "basename": nil, "dirname": nil, "test": nil, "[": nil, "echo": nil,
	"sort": {"-o", "--output"},
}

// readOnlyGit are the git subcommands that only read the files they name.
var readOnlyGit = map[string]bool{
	"log": true, "show": true, "diff": true, "status": true, "blame": true, "grep": true,
	"ls-files": true, "ls-tree": true, "cat-file": true, "rev-parse": true, "shortlog": true,
	"describe": true, "whatchanged": true,
}

// readOnlyWith reports whether the command base with args only reads the
// files its words name; writes and ok are base's row of readOnlyCommands,
// as commandKinds holds it.
func readOnlyWith(base string, writes []string, ok bool, args []field) bool {
	switch base {
	case "git":
		if len(args) > 0 && args[0].known && gitIndexOnly(args[0].value, args[1:]) {
			return true
		}
		if len(args) == 0 || !args[0].known || !readOnlyGit[args[0].value] {
			return false
		}
		writes, ok, args = []string{"--output"}, true, args[1:]
	case "find":
		return findReadOnly(args)
	}
	if !ok {
		return false
	}
	for _, f := range args {
		if len(writes) > 0 && !f.known {
			return false // it could be a write option
		}
		for _, w := range writes {
			switch {
			case f.value == w || strings.HasPrefix(f.value, w+"="):
				return false
			case len(w) == 2 && len(f.value) > 1 && f.value[0] == '-' && f.value[1] != '-' &&
				strings.IndexByte(f.value[1:], w[1]) >= 0:
				return false // a cluster holding it: sort -uo FILE
			}
		}
	}
	return true
}

func isFD(v string) bool {
	return v == "-" || strings.Trim(strings.TrimSuffix(v, "-"), "0123456789") == ""
}

// patternSpec describes a command whose first operands are scripts or
// patterns, not files.
type patternSpec struct {
	opts     opts
	files    []string // options whose value is a file
	scripts  []string // options that give the script, so no operand is one
	patterns int      // leading operands that are scripts or patterns
	execs    []string // options that run a command (rg --pre)
	// deref are options that recurse following every link (grep -R): the
	// links below each operand are paths read too.
	deref []string
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
	patterns: 1, deref: []string{"-R", "--dereference-recursive"}}

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
	deref := false
	for _, o := range list {
		deref = deref || slices.Contains(spec.deref, o.name)
	}
	files := 0
	for j, f := range operands {
		if j >= patterns {
			a.pathWord(f, sc, maybeFile)
			files++
			if deref {
				a.linksBelow(f, sc)
			}
		}
	}
	if deref && files == 0 {
		a.linksBelow(literalField("."), sc) // grep -R with no file searches "."
	}
}

// linksBelow adds, as paths read, every symbolic link below the directory
// f names (grep -R follows them all, wherever they point), found by a
// walk within a budget; past it, or where f cannot be known, what lies
// below counts as an unknown path.
func (a *analyzer) linksBelow(f field, sc *scope) {
	if !f.known || f.glob {
		return // judged as an unknown word already
	}
	// What lies below, unknown: a path word of unknown location.
	unknown := PathWord{Raw: f.raw + "/…", Dir: sc.dirs[0]}
	p := f.value
	if !filepath.IsAbs(p) {
		if len(sc.dirs) != 1 || sc.dirs[0] == "" {
			a.addPath(unknown)
			return
		}
		p = cleanpath.Join(sc.dirs[0], p)
	}
	links, ok := a.fs.list(opLinks, fsName(p))
	if !ok {
		a.addPath(unknown)
		return
	}
	for _, l := range links {
		a.addPaths(l, l, sc, false)
	}
}

// physicalChdir returns the directories a program is in after chdir(2) to
// target from each of dirs (git -C, env -C): the kernel follows symlinks
// and then "..", so "link/.." is the parent of link's target, not dirs.
// A directory that cannot be resolved stays as spelled (the program fails
// there); past the stat budget it is unknown.
func (a *analyzer) physicalChdir(dirs []string, target field) []string {
	v := target.value
	if !target.known || target.glob || v == "" || len(v) > maxDirLen {
		return unknownDir
	}
	var out []string
	for _, d := range dirs {
		full := v
		if !filepath.IsAbs(v) {
			if d == "" {
				out = union(out, unknownDir)
				continue
			}
			full = d + "/" + v
		}
		out = union(out, []string{a.rebase(a.fs.realDir(full))})
	}
	return out
}

// rebase spells a resolved directory inside the working directory's real
// form from the working directory as given (which may be reached through a
// symlink), so that resolving does not make an inside directory look
// outside.
func (a *analyzer) rebase(real string) string {
	if real == "" || a.opt.Cwd == "" {
		return real
	}
	cwdReal := a.fs.realDir(a.opt.Cwd)
	if rel, err := filepath.Rel(cwdReal, real); err == nil && cwdReal != "" && rel != ".." && !strings.HasPrefix(rel, "../") {
		return cleanpath.Join(a.opt.Cwd, rel)
	}
	return real
}

// realDir resolves a directory physically, within the stat budget: "" past
// it, the cleaned spelling when it cannot be resolved.
func (v *fsView) realDir(p string) string {
	if v.statsLeft == 0 {
		return ""
	}
	v.statsLeft--
	real := fsRealDir(p)
	v.record(fsRead{op: opRealDir, path: p, real: real})
	return real
}

func fsRealDir(p string) string {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return filepath.Clean(p)
	}
	if info, err := os.Stat(real); err != nil || !info.IsDir() {
		return filepath.Clean(p)
	}
	return real
}

// enterable reports whether cd from each of the directories from to
// target surely succeeds: target is known and every directory on the way
// exists and can be entered by anyone (all execute bits set), within the
// stat budget. A cd that may fail leaves the shell where it was, so the
// caller then keeps both directories.
func (a *analyzer) enterable(from []string, target field) bool {
	v := target.value
	if !target.known || target.glob || v == "" || v == "-" || strings.HasPrefix(v, "+") {
		return false
	}
	for _, d := range from {
		base := d
		if filepath.IsAbs(v) {
			base = "/"
		}
		if base == "" {
			return false
		}
		for part := range strings.SplitSeq(v, "/") {
			if part == "" || part == "." {
				continue
			}
			base = cleanpath.Join(base, part)
			if enter, ok := a.fs.enterableDir(base); !ok || !enter {
				return false
			}
		}
	}
	return true
}

// readPath records a path word that the command only reads or enters (a
// cd target, git -C DIR): it is no write, whatever the command.
func (a *analyzer) readPath(f field, sc *scope, kind wordKind) {
	saved := a.readOnly
	a.readOnly = true
	a.pathWord(f, sc, kind)
	a.readOnly = saved
}
