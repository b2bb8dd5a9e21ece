package shell

import (
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Writes the command line does not name: extracting an
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
