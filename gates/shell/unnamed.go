package shell

import (
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Writes the command line does not name (SPEC §4): extracting an
// archive, applying a patch, checking a tree out into a work tree, and
// copying or moving a directory write files whose names no word of the
// command says. Each such command records where they land: the names an
// archive or patch that exists lists, as path words the command writes;
// or, when they cannot be known before it runs, the destination with Into
// set (anything below it may be written), which the gates judge as a
// whole. Either way the words are written paths, so a protected path or
// an arming file among them is asked as a write to it would be.

// unnamedWriters are the commands that write files they do not name,
// looked up by run for every command (whatever else it is: git's special
// handling, a catalog entry) so that this table stays apart.
var unnamedWriters = map[string]func(a *analyzer, c cmd, sc *scope){
	"tar": tarWrites, "gtar": tarWrites, "bsdtar": tarWrites, "jar": tarWrites,
	"ar":    arWrites,
	"unzip": unzipWrites,
	"cpio":  cpioWrites,
	"7z":    sevenZipWrites, "7za": sevenZipWrites, "7zr": sevenZipWrites,
	"patch": patchWrites,
	"git":   gitTreeWrites,
	"cp":    copyWrites, "mv": copyWrites,
	"rsync": rsyncWrites,
}

const (
	maxLists      = 4    // archives and patches listed per analysis
	maxNamedPaths = 1024 // names of one listing recorded as path words; past it the destination is judged whole
)

// list answers op (opArchive, opPatch) for the file p, within the budget,
// and records the answer.
func (v *fsView) list(op fsOp, p string) ([]string, bool) {
	if v.listsLeft == 0 {
		return nil, false
	}
	v.listsLeft--
	r := fsRead{op: op, path: p}.ask()
	v.record(r)
	return r.names, r.found
}

// listNames lists the archive or patch f names, when it is a file known
// now (in a known directory).
func (a *analyzer) listNames(op fsOp, f field, sc *scope) ([]string, bool) {
	if !f.known || f.glob || f.value == "" || f.value == "-" {
		return nil, false
	}
	p := f.value
	if !filepath.IsAbs(p) {
		if len(sc.dirs) != 1 || sc.dirs[0] == "" {
			return nil, false
		}
		p = filepath.Join(sc.dirs[0], p)
	}
	return a.fs.list(op, fsName(p))
}

// stdinFile is the file a command reads as its stdin ("< x.tar"), when
// the statement redirects it from one.
func (a *analyzer) stdinFile(c cmd, sc *scope) (field, bool) {
	r := c.stdin
	if r == nil || r.Op != syntax.RdrIn || r.Word == nil {
		return field{}, false
	}
	return sc.word(r.Word, valueMode), true
}

// writesPath records value (relative to each effective directory, or
// absolute) as a path the command writes; into: anything below it.
func (a *analyzer) writesPath(raw, value string, into bool, sc *scope) {
	if filepath.IsAbs(value) {
		a.addPath(PathWord{Raw: raw, Value: filepath.Clean(value), Known: true, Dir: sc.dirs[0], Write: true, Into: into})
		return
	}
	for _, d := range sc.dirs {
		a.addPath(PathWord{Raw: raw, Value: value, Known: true, Dir: d, Write: true, Into: into})
	}
}

// dest is a destination directory: its spelling and value; known false
// when it is only known at run time.
type dest struct {
	raw, value string
	known      bool
}

var here = dest{raw: ".", value: ".", known: true}

func destOf(f field) dest {
	if !f.known || f.glob {
		return dest{raw: f.raw}
	}
	return dest{raw: f.raw, value: f.value, known: true}
}

// join is d/name, spelled and valued.
func (d dest) join(name string) dest {
	if !d.known {
		return dest{raw: d.raw + "/" + name}
	}
	return dest{raw: path.Join(d.raw, name), value: path.Join(d.value, name), known: true}
}

// writesInto records d as a directory below which the command writes.
func (a *analyzer) writesInto(d dest, sc *scope) {
	if !d.known {
		a.addPath(PathWord{Raw: d.raw, Dir: sc.dirs[0], Write: true, Into: true})
		return
	}
	a.writesPath(d.raw, d.value, true, sc)
}

// writesNames records the names a listing gave, below d; too many, or a
// destination only known at run time, and d is judged whole.
func (a *analyzer) writesNames(d dest, names []string, sc *scope) {
	if !d.known || len(names) > maxNamedPaths {
		a.writesInto(d, sc)
		return
	}
	for _, n := range names {
		w := d.join(n)
		a.writesPath(w.raw, w.value, false, sc)
	}
}

// stripNames drops the first n components of each name (tar
// --strip-components, patch -p); names with fewer components go.
func stripNames(names []string, n int) []string {
	if n <= 0 {
		return names
	}
	out := make([]string, 0, len(names))
	for _, name := range names {
		parts := strings.Split(strings.TrimLeft(name, "/"), "/")
		if len(parts) > n {
			out = append(out, strings.Join(parts[n:], "/"))
		}
	}
	return out
}

// openWord reports whether an unknown word could be an option no rule saw.
func openWord(f field) bool {
	return !f.known && (f.raw == "" || strings.IndexByte("$`-", f.raw[0]) >= 0)
}

// longName resolves a long option as getopt_long does: the name itself or
// a unique prefix of one of names; "" for none.
func longName(name string, names []string) string {
	if slices.Contains(names, name) {
		return name
	}
	match := ""
	for _, n := range names {
		if strings.HasPrefix(n, name) {
			if match != "" {
				return ""
			}
			match = n
		}
	}
	return match
}

// tarLong are the long options of GNU tar and bsdtar that matter here
// (and those that take a value, so that it is skipped).
var tarLong = []string{"extract", "get", "list", "create", "append", "update", "diff", "compare",
	"delete", "concatenate", "catenate", "test-label", "file", "directory", "strip-components",
	"transform", "xform", "absolute-names", "to-stdout", "to-command", "files-from", "exclude",
	"exclude-from", "use-compress-program", "owner", "group", "mode", "mtime", "newer", "after-date",
	"label", "tape-length", "blocking-factor", "checkpoint-action", "info-script", "new-volume-script",
	"starting-file", "format", "record-size", "listed-incremental", "index-file", "rmt-command",
	"rsh-command", "volno-file", "suffix", "backup", "newer-mtime", "occurrence", "hole-detection",
	"sparse-version", "checkpoint", "quoting-style", "strip", "options", "gid", "uid", "uname", "gname"}

var tarLongValued = []string{"file", "directory", "strip-components", "transform", "xform", "to-command",
	"files-from", "exclude", "exclude-from", "use-compress-program", "owner", "group", "mode", "mtime",
	"newer", "after-date", "label", "tape-length", "blocking-factor", "info-script", "new-volume-script",
	"starting-file", "format", "record-size", "listed-incremental", "index-file", "rmt-command",
	"rsh-command", "volno-file", "suffix", "newer-mtime", "hole-detection", "sparse-version",
	"quoting-style", "strip", "options", "gid", "uid", "uname", "gname"}

// tarWrites: tar -x (every spelling: x, -x, --extract, --get, old-style
// clusters) writes the archive's names below its -C directory.
func tarWrites(a *analyzer, c cmd, sc *scope) {
	args := c.args()
	valued := "fCTXbKNgLVIF"
	if path.Base(c.fields[0].value) == "bsdtar" {
		valued += "s" // bsdtar -s /old/new/ rewrites names
	}
	var (
		extract, other, stdout, unsure, renamed bool
		strip                                   int
		file                                    *field
		dirs                                    []field
	)
	short := func(letter byte, value field, has bool) {
		switch letter {
		case 'x':
			extract = true
		case 't', 'c', 'r', 'u', 'd', 'A':
			other = true
		case 'O':
			stdout = true
		case 'P':
			renamed = true // absolute names: not placed below the destination
		case 'f':
			if has {
				file = &value
			}
		case 'C':
			if has {
				dirs = append(dirs, value)
			}
		case 's':
			renamed = true
		}
	}
	k := 0
	if len(args) > 0 && args[0].known && isLetterWord(args[0].value) {
		// Old style: the letters are options; those that take a value
		// take the next words in order.
		next := 1
		for j := 0; j < len(args[0].value); j++ {
			l := args[0].value[j]
			if strings.IndexByte(valued, l) >= 0 {
				if next < len(args) {
					short(l, args[next], true)
				}
				next++
				continue
			}
			short(l, field{}, false)
		}
		k = next
	}
	for ; k < len(args); k++ {
		f := args[k]
		switch {
		case openWord(f):
			unsure = true
		case !f.known || len(f.value) < 2 || f.value[0] != '-':
		case f.value == "--":
			k = len(args)
		case strings.HasPrefix(f.value, "--"):
			name, _, hasValue := strings.Cut(f.value[2:], "=")
			full := longName(name, tarLong)
			var value field
			if hasValue {
				value = sc.expandTilde(f.cut(len(name) + 3))
			} else if slices.Contains(tarLongValued, full) && k+1 < len(args) {
				k++
				value, hasValue = args[k], true
			}
			switch full {
			case "extract", "get":
				extract = true
			case "list", "create", "append", "update", "diff", "compare", "delete", "concatenate", "catenate", "test-label":
				other = true
			case "to-stdout", "to-command":
				stdout = true
			case "absolute-names", "transform", "xform":
				renamed = true
			case "file":
				if hasValue {
					file = &value
				}
			case "directory":
				if hasValue {
					dirs = append(dirs, value)
				}
			case "strip-components", "strip":
				n, err := strconv.Atoi(value.value)
				if !value.known || err != nil || n < 0 {
					unsure = true
				}
				strip = n
			}
		default:
			v := f.value
			for j := 1; j < len(v); j++ {
				l := v[j]
				if strings.IndexByte(valued, l) >= 0 {
					if j+1 < len(v) {
						short(l, sc.expandTilde(f.cut(j+1)), true)
					} else if k+1 < len(args) {
						k++
						short(l, args[k], true)
					}
					break
				}
				short(l, field{}, false)
			}
		}
	}
	if !extract || other || stdout {
		return
	}
	// -C applies to what follows it, each relative to the one before.
	dests := []dest{here}
	if len(dirs) > 0 {
		dests = dests[:0]
		cur := dest{}
		for i, d := range dirs {
			next := destOf(d)
			switch {
			case i == 0 || (next.known && filepath.IsAbs(next.value)) || !next.known:
				cur = next
			case cur.known:
				cur = dest{raw: path.Join(cur.raw, next.raw), value: path.Join(cur.value, next.value), known: true}
			}
			dests = append(dests, next, cur)
		}
	}
	var names []string
	listed := false
	if !unsure && !renamed {
		switch {
		case file != nil && file.value != "-":
			names, listed = a.listNames(opArchive, *file, sc)
		case file == nil || file.value == "-":
			if in, ok := a.stdinFile(c, sc); ok {
				names, listed = a.listNames(opArchive, in, sc)
			}
		}
	}
	if listed {
		names = stripNames(names, strip)
	}
	for _, d := range dests {
		if listed {
			a.writesNames(d, names, sc)
		} else {
			a.writesInto(d, sc)
		}
	}
}

// ar x ARCHIVE [MEMBER…] writes the archive's members in the directory
// it runs in (its member names are not listed here).
func arWrites(a *analyzer, c cmd, sc *scope) {
	args := c.args()
	if len(args) < 2 || !args[0].known {
		return
	}
	ops := strings.TrimPrefix(args[0].value, "-")
	if !isLetterWord(ops) || !strings.Contains(ops, "x") || strings.Contains(ops, "p") {
		return
	}
	a.writesInto(here, sc)
}

func isLetterWord(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

// unzip ZIP [MEMBER…] [-x MEMBER…] [-d DIR]: the zip's names below DIR
// (or the directory it runs in). -l, -v, -t, -z, -Z, -p and -c write no
// file.
func unzipWrites(a *analyzer, c cmd, sc *scope) {
	args := c.args()
	var zipFile *field
	d := here
	junk, unsure := false, false
	for k := 0; k < len(args); k++ {
		f := args[k]
		switch {
		case openWord(f):
			unsure = true
		case f.known && len(f.value) > 1 && f.value[0] == '-':
			v := f.value
			for j := 1; j < len(v); j++ {
				switch v[j] {
				case 'l', 'v', 't', 'z', 'Z', 'p', 'c':
					return
				case 'j':
					junk = true
				case 'x':
					k = len(args) // excluded members follow
				case 'd', 'P', 'I', 'O':
					var value field
					if j+1 < len(v) {
						value = sc.expandTilde(f.cut(j + 1))
					} else if k+1 < len(args) {
						k++
						value = args[k]
					}
					if v[j] == 'd' {
						d = destOf(value)
					}
					j = len(v)
				}
			}
		case zipFile == nil:
			zipFile = &args[k]
		}
	}
	if zipFile == nil {
		return
	}
	var names []string
	listed := false
	if !unsure {
		names, listed = a.listNames(opArchive, *zipFile, sc)
		if !listed && zipFile.known && !strings.Contains(path.Base(zipFile.value), ".") {
			names, listed = a.listNames(opArchive, literalField(zipFile.value+".zip"), sc) // unzip tries NAME.zip
		}
	}
	switch {
	case !listed:
		a.writesInto(d, sc)
	case junk:
		a.writesNames(d, baseNames(names), sc)
	default:
		a.writesNames(d, names, sc)
	}
}

func baseNames(names []string) []string {
	out := make([]string, 0, len(names))
	for _, n := range names {
		out = append(out, path.Base(n))
	}
	return out
}

// cpio -i (--extract) writes what its stdin holds below -D DIR; cpio -p
// (--pass-through) copies the names on its stdin below its operand.
// Neither can be listed before it runs.
func cpioWrites(a *analyzer, c cmd, sc *scope) {
	args := c.args()
	mode := byte(0)
	d := here
	var operands []field
	for k := 0; k < len(args); k++ {
		f := args[k]
		v := f.value
		switch {
		case openWord(f):
			a.writesInto(dest{raw: f.raw}, sc)
			return
		case !f.known || len(v) < 2 || v[0] != '-':
			operands = append(operands, f)
		case v == "--extract":
			mode = 'i'
		case v == "--pass-through":
			mode = 'p'
		case v == "--create" || v == "--list":
			mode = 'o'
		case strings.HasPrefix(v, "--directory="):
			d = destOf(sc.expandTilde(f.cut(len("--directory="))))
		case v == "--directory" && k+1 < len(args):
			k++
			d = destOf(args[k])
		case strings.HasPrefix(v, "--"):
		default:
			for j := 1; j < len(v); j++ {
				switch l := v[j]; l {
				case 'i', 'p', 'o', 't':
					if mode == 0 || l == 't' {
						mode = l
					}
				case 'D', 'E', 'F', 'H', 'I', 'M', 'O', 'R', 'C':
					var value field
					if j+1 < len(v) {
						value = sc.expandTilde(f.cut(j + 1))
					} else if k+1 < len(args) {
						k++
						value = args[k]
					}
					if l == 'D' {
						d = destOf(value)
					}
					j = len(v)
				}
			}
		}
	}
	switch {
	case mode == 'i':
		a.writesInto(d, sc)
	case mode == 'p' && len(operands) > 0:
		a.writesInto(destOf(operands[len(operands)-1]), sc)
	}
}

// 7z x|e ARCHIVE [-oDIR]: the archive's names below DIR (e drops their
// directories); listed when the archive is a zip or a tar.
func sevenZipWrites(a *analyzer, c cmd, sc *scope) {
	args := c.args()
	var operands []field
	d := here
	for _, f := range args {
		switch {
		case openWord(f):
			a.writesInto(dest{raw: f.raw}, sc)
			return
		case f.known && strings.HasPrefix(f.value, "-o") && len(f.value) > 2:
			d = destOf(sc.expandTilde(f.cut(2)))
		case f.known && strings.HasPrefix(f.value, "-so"):
			return // to stdout
		case f.known && strings.HasPrefix(f.value, "-"):
		default:
			operands = append(operands, f)
		}
	}
	if len(operands) < 2 || !operands[0].known || (operands[0].value != "x" && operands[0].value != "e") {
		return
	}
	names, listed := a.listNames(opArchive, operands[1], sc)
	switch {
	case !listed:
		a.writesInto(d, sc)
	case operands[0].value == "e":
		a.writesNames(d, baseNames(names), sc)
	default:
		a.writesNames(d, names, sc)
	}
}

// patchCandidates are the places a patch's name may land when the strip
// count is not known: as written, without its first component (git's
// a/ and b/), and its base name (patch without -p).
func patchCandidates(names []string, strip int) []string {
	if strip >= 0 {
		return stripNames(names, strip)
	}
	out := make([]string, 0, 3*len(names))
	for _, n := range names {
		out = append(out, n)
		out = append(out, stripNames([]string{n}, 1)...)
		out = append(out, path.Base(n))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// patch [-pN] [-d DIR] [-i FILE] [< FILE]: the files the patch names,
// below DIR. With an original-file operand, or -o, only the named file is
// written; --dry-run writes none.
func patchWrites(a *analyzer, c cmd, sc *scope) {
	args := c.args()
	strip := -1
	d := here
	var input *field
	unsure := false
	for k := 0; k < len(args); k++ {
		f := args[k]
		v := f.value
		value := func(n int) (field, bool) { // the value glued after n bytes, or the next word
			if len(v) > n {
				return sc.expandTilde(f.cut(n)), true
			}
			if k+1 < len(args) {
				k++
				return args[k], true
			}
			return field{}, false
		}
		switch {
		case openWord(f):
			unsure = true
		case !f.known || len(v) < 2 || v[0] != '-':
			return // an original file: the patch goes to it alone
		case v == "--":
			if k+1 < len(args) {
				return
			}
		case v == "--dry-run" || v == "-o" || strings.HasPrefix(v, "--output") || strings.HasPrefix(v, "-o"):
			return
		case strings.HasPrefix(v, "--strip="):
			n, err := strconv.Atoi(v[len("--strip="):])
			if err != nil {
				unsure = true
			}
			strip = n
		case strings.HasPrefix(v, "-p"):
			if s, ok := value(2); ok {
				n, err := strconv.Atoi(s.value)
				if err != nil || !s.known {
					unsure = true
				}
				strip = n
			}
		case strings.HasPrefix(v, "--directory="):
			d = destOf(sc.expandTilde(f.cut(len("--directory="))))
		case strings.HasPrefix(v, "-d"):
			if s, ok := value(2); ok {
				d = destOf(s)
			}
		case strings.HasPrefix(v, "--input="):
			in := sc.expandTilde(f.cut(len("--input=")))
			input = &in
		case strings.HasPrefix(v, "-i"):
			if s, ok := value(2); ok {
				input = &s
			}
		case len(v) == 2 && strings.IndexByte("DBYzVrFgx", v[1]) >= 0:
			k++ // a short option whose value is the next word
		}
	}
	var names []string
	listed := false
	if !unsure {
		switch {
		case input != nil:
			names, listed = a.listNames(opPatch, *input, sc)
		default:
			if in, ok := a.stdinFile(c, sc); ok {
				names, listed = a.listNames(opPatch, in, sc)
			}
		}
	}
	if !listed {
		a.writesInto(d, sc)
		return
	}
	a.writesNames(d, patchCandidates(names, strip), sc)
}

// gitTreeSubs are the git subcommands that write the work tree.
var gitTreeSubs = map[string]bool{
	"checkout": true, "restore": true, "checkout-index": true, "reset": true, "stash": true,
	"switch": true, "merge": true, "pull": true, "read-tree": true, "cherry-pick": true,
	"revert": true, "rebase": true, "am": true, "apply": true,
}

// gitTreeWrites: with --work-tree, --git-dir, GIT_WORK_TREE or GIT_DIR, a
// subcommand that updates the work tree writes below a directory the
// repository does not pick (the work tree named, or the directory git runs
// in): anything below it. Without them git writes its own work tree, never
// its .git (SPEC §4), except what a patch names (git apply, git am) and
// checkout-index --prefix.
func gitTreeWrites(a *analyzer, c cmd, sc *scope) {
	args := c.args()
	var tree *dest
	gitDir := false
	dirs := sc.dirs
	k := 0
	for k < len(args) && args[k].known && strings.HasPrefix(args[k].value, "-") {
		v := args[k].value
		name, _, hasValue := strings.Cut(v, "=")
		val := func() (field, bool) {
			if hasValue {
				return sc.expandTilde(args[k].cut(len(name) + 1)), true
			}
			if k+1 < len(args) {
				k++
				return args[k], true
			}
			return field{}, false
		}
		switch name {
		case "-C":
			if f, ok := val(); ok {
				dirs = a.physicalChdir(dirs, f)
			}
		case "-c", "--config-env", "--namespace", "--super-prefix", "--attr-source":
			val()
		case "--work-tree":
			if f, ok := val(); ok {
				t := destOf(f)
				tree = &t
			}
		case "--git-dir":
			val()
			gitDir = true
		}
		k++
	}
	if k >= len(args) || !args[k].known {
		return
	}
	sub, rest := args[k].value, args[k+1:]
	global := k > 0
	for _, name := range [...]string{"GIT_DIR", "GIT_WORK_TREE"} {
		switch {
		case slices.Contains(c.env, name):
			t := dest{raw: "$" + name} // set for this command: its value is not followed
			tree = &t
		case tree == nil:
			// Set earlier in the script (exported or not: either way
			// only more is judged): GIT_DIR's work tree is where git
			// runs, GIT_WORK_TREE's is its value.
			v, ok := sc.vars.get(name)
			switch {
			case ok && name == "GIT_DIR":
				tree = &here
			case ok:
				tree = &dest{raw: "$" + name, value: v, known: v != ""}
			case sc.facts.noVars || sc.facts.assigns[name] > 0:
				tree = &dest{raw: "$" + name} // assigned in a way not followed (export X=…, read X)
			}
		}
	}
	sc.withDirs(dirs, func() {
		if (tree != nil || gitDir) && gitWritesTree(sub, rest) {
			if tree == nil {
				tree = &here // --git-dir alone: the work tree is where git runs
			}
			a.writesInto(*tree, sc)
		}
		if sub == "checkout-index" {
			a.checkoutIndexPrefix(rest, sc)
		}
		if (sub == "apply" || sub == "am") && !global {
			a.gitPatchWrites(sub, rest, c, sc)
		}
	})
}

// gitWritesTree reports whether a subcommand with these words updates the
// work tree.
func gitWritesTree(sub string, rest []field) bool {
	if !gitTreeSubs[sub] {
		return false
	}
	// may: a word only known at run time could be one of names; has: a
	// word known now is one.
	may := func(names ...string) bool {
		return slices.ContainsFunc(rest, func(f field) bool { return !f.known || slices.Contains(names, f.value) })
	}
	has := func(names ...string) bool {
		return slices.ContainsFunc(rest, func(f field) bool { return f.known && slices.Contains(names, f.value) })
	}
	switch sub {
	case "reset":
		return may("--hard", "--merge", "--keep")
	case "restore":
		return !has("--staged", "-S") || may("--worktree", "-W")
	case "stash":
		return !has("list", "show")
	case "read-tree":
		return may("-u", "--reset")
	case "apply":
		return !has("--cached", "--check", "--stat", "--numstat", "--summary") || may("--index", "--apply")
	}
	return true
}

// checkoutIndexPrefix: git checkout-index --prefix=P writes each file at
// P followed by its name: below P's directory.
func (a *analyzer) checkoutIndexPrefix(rest []field, sc *scope) {
	for _, f := range rest {
		if !f.known || !strings.HasPrefix(f.value, "--prefix=") {
			continue
		}
		p := sc.expandTilde(f.cut(len("--prefix=")))
		if !p.known {
			a.writesInto(dest{raw: p.raw}, sc)
			continue
		}
		dir := p.value[:strings.LastIndexByte(p.value, '/')+1]
		if dir == "" {
			dir = "."
		}
		a.writesInto(dest{raw: p.raw, value: dir, known: true}, sc)
	}
}

// gitPatchWrites: git apply PATCH… and git am MBOX… write the files their
// patches name (-p1 unless -pN, below --directory); a patch on stdin, or
// one that cannot be listed, writes anywhere in the work tree.
func (a *analyzer) gitPatchWrites(sub string, rest []field, c cmd, sc *scope) {
	if sub == "apply" && !gitWritesTree(sub, rest) {
		return
	}
	strip := 1
	d := here
	var files []field
	listed, unsure := true, false
	var names []string
	for k := 0; k < len(rest); k++ {
		f := rest[k]
		v := f.value
		switch {
		case openWord(f):
			unsure = true
		case !f.known || !strings.HasPrefix(v, "-") || v == "-":
			files = append(files, f)
		case strings.HasPrefix(v, "-p"):
			n, err := strconv.Atoi(v[2:])
			if err != nil {
				unsure = true
			}
			strip = n
		case strings.HasPrefix(v, "--directory="):
			d = destOf(sc.expandTilde(f.cut(len("--directory="))))
		case v == "--directory" && k+1 < len(rest):
			k++
			d = destOf(rest[k])
		}
	}
	if len(files) == 0 {
		in, ok := a.stdinFile(c, sc)
		if !ok {
			listed = false
		} else {
			files = append(files, in)
		}
	}
	for _, f := range files {
		if !listed || unsure {
			break
		}
		n, ok := a.listNames(opPatch, f, sc)
		listed = ok
		names = append(names, n...)
	}
	if !listed || unsure {
		a.writesInto(d, sc)
		return
	}
	a.writesNames(d, stripNames(names, strip), sc)
}

// cp -r|-a and mv put each source at DEST/its base name when DEST is a
// directory (SRC/. : its contents into DEST), or at DEST; a directory's
// contents land below that place. The place itself is a written path
// (cp stuff/.envrc . writes ./.envrc); below it, anything.
func copyWrites(a *analyzer, c cmd, sc *scope) {
	list, operands := scanArgs(cpOpts, c.args())
	recursive := c.fields[0].value == "mv" || path.Base(c.fields[0].value) == "mv"
	noTarget := false
	var target *field
	for _, o := range list {
		switch o.name {
		case "-r", "-R", "-a", "--recursive", "--archive":
			recursive = true
		case "-T", "--no-target-directory":
			noTarget = true
		case "-t", "--target-directory":
			if o.has {
				t := o.value
				target = &t
			}
		}
	}
	sources := operands
	isDir := target != nil // -t names a directory
	if target == nil {
		if len(operands) < 2 {
			return
		}
		sources, target = operands[:len(operands)-1], &operands[len(operands)-1]
	}
	a.placeSources(sources, destOf(*target), recursive, noTarget, isDir || len(sources) > 1, false, sc)
}

// placeSources records where each source lands below (or as) d; into is
// set when d is surely a directory; contents is rsync's reading of a
// trailing slash (the source's contents, not itself).
func (a *analyzer) placeSources(sources []field, d dest, recursive, noTarget, isDir, contents bool, sc *scope) {
	if !d.known {
		if recursive {
			a.writesInto(d, sc)
		}
		return
	}
	if !noTarget && !isDir {
		isDir = a.isDirAll(d.value, sc)
	}
	for _, s := range sources {
		if !s.known || s.glob {
			if matches, ok := a.globSources(s, sc); ok {
				a.placeSources(matches, d, recursive, noTarget, true, contents, sc)
				continue
			}
			if isDir || recursive {
				a.writesInto(d, sc)
			}
			continue
		}
		v := s.value
		var place dest
		switch {
		case noTarget || !isDir:
			place = d
		case contents && strings.HasSuffix(v, "/"), path.Base(v) == ".":
			place = d
		default:
			place = d.join(path.Base(strings.TrimRight(v, "/")))
		}
		// A directory lands as a directory: what is below it is judged,
		// not its name (cp -r templates/config . writes no file config).
		if place != d && !(recursive && a.surelyDir(v, sc)) {
			a.writesPath(place.raw, place.value, false, sc)
		}
		if recursive && a.mayBeDir(v, sc) {
			a.writesInto(place, sc)
		}
	}
}

// globSources expands an unquoted glob source as the shell would, when it
// can be expanded completely.
func (a *analyzer) globSources(s field, sc *scope) ([]field, bool) {
	if !s.known || !s.glob || len(sc.dirs) != 1 || sc.dirs[0] == "" {
		return nil, false
	}
	matches, ok := a.glob(s.pat, sc.dirs[0], sc.facts.dotglob)
	if !ok || len(matches) == 0 {
		return nil, false
	}
	out := make([]field, len(matches))
	for i, m := range matches {
		out[i] = literalField(m)
	}
	return out, true
}

// isDirAll reports whether v is a directory from every effective
// directory; past the budget, yes.
func (a *analyzer) isDirAll(v string, sc *scope) bool {
	for _, d := range sc.dirs {
		if d == "" && !filepath.IsAbs(v) {
			return true
		}
		if found, ok := a.fs.isDir(d, v); ok && !found {
			return false
		}
	}
	return true
}

// surelyDir reports whether v is a directory from every effective
// directory, each asked.
func (a *analyzer) surelyDir(v string, sc *scope) bool {
	for _, d := range sc.dirs {
		if d == "" && !filepath.IsAbs(v) {
			return false
		}
		if found, ok := a.fs.isDir(d, v); !ok || !found {
			return false
		}
	}
	return len(sc.dirs) > 0
}

// mayBeDir reports whether v may be a directory when the command copies
// it: anything but an entry that exists now and is no directory (one
// missing now may be made by an earlier part of the command; past the
// budget, yes).
func (a *analyzer) mayBeDir(v string, sc *scope) bool {
	for _, d := range sc.dirs {
		if d == "" && !filepath.IsAbs(v) {
			return true
		}
		if found, ok := a.fs.isDir(d, v); !ok || found {
			return true
		}
		if exists, ok := a.fs.exists(d, v); !ok || !exists {
			return true
		}
	}
	return false
}

var rsyncOpts = opts{arg: "eBfTM", long: []string{"--rsh", "--exclude", "--include", "--filter",
	"--exclude-from", "--include-from", "--files-from", "--rsync-path", "--log-file", "--partial-dir",
	"--temp-dir", "--backup-dir", "--suffix", "--chmod", "--chown", "--compare-dest", "--copy-dest",
	"--link-dest", "--out-format", "--password-file", "--port", "--timeout", "--max-size", "--min-size",
	"--bwlimit", "--info", "--debug", "--usermap", "--groupmap", "--skip-compress", "--max-delete",
	"--modify-window", "--log-file-format", "--sockopts", "--outbuf", "--iconv", "--checksum-choice",
	"--compress-choice", "--compress-level", "--block-size", "--contimeout", "--address", "--protocol",
	"--stop-after", "--stop-at", "--write-batch", "--read-batch", "--only-write-batch", "--early-input",
	"--remote-option"}}

// rsync -r|-a SRC… DEST: SRC/ puts SRC's contents in DEST, SRC puts
// DEST/SRC's base name; a remote DEST writes nothing here, a remote
// source or --files-from writes names only known when it runs.
func rsyncWrites(a *analyzer, c cmd, sc *scope) {
	list, operands := scanArgs(rsyncOpts, c.args())
	recursive, listedFrom := false, false
	for _, o := range list {
		switch o.name {
		case "-r", "-a", "--recursive", "--archive", "-d", "--dirs":
			recursive = true
		case "--files-from":
			listedFrom = true
		case "-n", "--dry-run", "--list-only":
			return
		}
	}
	if len(operands) < 2 {
		return
	}
	sources, target := operands[:len(operands)-1], operands[len(operands)-1]
	if remote(target) {
		return
	}
	d := destOf(target)
	var local []field
	for _, s := range sources {
		if remote(s) || listedFrom {
			if d.known || recursive {
				a.writesInto(d, sc)
			}
			continue
		}
		local = append(local, s)
	}
	if recursive || len(local) > 0 {
		a.placeSources(local, d, recursive, false, len(sources) > 1 || strings.HasSuffix(target.value, "/"), true, sc)
	}
}

// remote reports whether an rsync operand names another host
// (host:path, user@host:path, rsync://).
func remote(f field) bool {
	if !f.known {
		return false
	}
	v := f.value
	if strings.HasPrefix(v, "rsync://") {
		return true
	}
	i := strings.IndexByte(v, ':')
	return i > 0 && !strings.Contains(v[:i], "/")
}
