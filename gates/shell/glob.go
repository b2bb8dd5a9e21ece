package shell

import (
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolgate/toolgate/internal/cleanpath"
)

// fsView answers the analysis's read-only questions to the file system,
// within budgets, and remembers the answers.
type fsView struct {
	stats     map[entry]bool
	enter     map[string]bool // enterableDir's answers
	listings  map[string][]string
	statsLeft int
	readsLeft int
	listsLeft int // archives and patches listed (listNames)
	// reads, when set, records every question put to the file system
	// with its answer, in order (see Cache).
	reads *[]fsRead
	// peek, when set, answers an lstat from what it holds (Cache.Peek).
	peek func(p string) (exists, isDir, known bool)
}

// fsRead is one question the analysis put to the file system and the
// answer it got. The analysis is a function of the command, its options
// and these answers: asked again with the same answers, it comes out the
// same.
type fsRead struct {
	op    fsOp
	path  string
	found bool
	names []string // names: the listing; ok is found
	real  string   // realDir
}

type fsOp uint8

const (
	opEnterable fsOp = iota
	opExists
	opIsDir
	opNames
	opRealDir
	opArchive // the names an archive file writes (listArchive)
	opPatch   // the names a patch file names (listPatch)
	opLinks   // the symbolic links below a directory (treeLinks)
)

// ask answers r's question from the file system now.
func (r fsRead) ask() fsRead {
	out := fsRead{op: r.op, path: r.path}
	switch r.op {
	case opEnterable:
		out.found = fsEnterable(r.path)
	case opExists:
		out.found = fsExists(r.path)
	case opIsDir:
		out.found = fsIsDir(r.path)
	case opNames:
		out.names, out.found = fsNames(r.path)
	case opRealDir:
		out.real = fsRealDir(r.path)
	case opArchive:
		out.names, out.found = listArchive(r.path)
	case opPatch:
		out.names, out.found = listPatch(r.path)
	case opLinks:
		out.names, out.found = treeLinks(r.path)
	}
	return out
}

// same reports whether two answers to one question are the same.
func (r fsRead) same(o fsRead) bool {
	return r.op == o.op && r.path == o.path && r.found == o.found && r.real == o.real && slices.Equal(r.names, o.names)
}

func (v *fsView) record(r fsRead) {
	if v.reads != nil {
		if *v.reads == nil {
			*v.reads = make([]fsRead, 0, 4)
		}
		*v.reads = append(*v.reads, r)
	}
}

// enterableDir reports whether path is a directory everyone may enter
// (following links); ok is false past the budget. Answers are remembered.
func (v *fsView) enterableDir(path string) (enter, ok bool) {
	if e, hit := v.enter[path]; hit {
		return e, true
	}
	if v.statsLeft == 0 {
		return false, false
	}
	v.statsLeft--
	e := fsEnterable(path)
	v.record(fsRead{op: opEnterable, path: path, found: e})
	if v.enter == nil {
		v.enter = map[string]bool{}
	}
	v.enter[path] = e
	return e, true
}

// entry is a name looked up in a directory.
type entry struct{ dir, name string }

func newFSView() fsView {
	return fsView{statsLeft: maxStats, readsLeft: maxDirReads, listsLeft: maxLists} // maps are made on first use
}

// exists reports whether name names an entry (a dangling symlink included)
// relative to dir; ok is false past the budget.
func (v *fsView) exists(dir, name string) (found, ok bool) {
	e := entry{dir, name}
	if found, hit := v.stats[e]; hit {
		return found, true
	}
	if v.statsLeft == 0 {
		return false, false
	}
	v.statsLeft--
	p := fsName(resolve(dir, name))
	if exists, _, known := v.peekAt(p); known {
		found = exists
	} else {
		found = fsExists(p)
	}
	v.record(fsRead{op: opExists, path: p, found: found})
	if v.stats == nil {
		v.stats = make(map[entry]bool, 4)
	}
	v.stats[e] = found
	return found, true
}

// peekAt is what peek holds for p.
func (v *fsView) peekAt(p string) (exists, isDir, known bool) {
	if v.peek == nil {
		return false, false, false
	}
	return v.peek(p)
}

// isDir reports whether name, relative to dir, is a directory or a symlink
// to one; ok is false past the budget.
func (v *fsView) isDir(dir, name string) (found, ok bool) {
	if v.statsLeft == 0 {
		return false, false
	}
	v.statsLeft--
	p := fsName(resolve(dir, name))
	if exists, isDir, known := v.peekAt(p); known {
		found = exists && isDir // no link on the way: stat answers as lstat
	} else {
		found = fsIsDir(p)
	}
	v.record(fsRead{op: opIsDir, path: p, found: found})
	return found, true
}

// names returns the names in directory dir; ok is false past a budget. A
// path that is not a readable directory has no names, as for the shell.
func (v *fsView) names(dir string) (names []string, ok bool) {
	if names, hit := v.listings[dir]; hit {
		return names, true
	}
	if v.readsLeft == 0 {
		return nil, false
	}
	v.readsLeft--
	real := fsName(dir)
	names, ok = fsNames(real)
	v.record(fsRead{op: opNames, path: real, names: names, found: ok})
	if ok {
		if v.listings == nil {
			v.listings = map[string][]string{}
		}
		v.listings[dir] = names
	}
	return names, ok
}

// sortedNames is a directory's listing as the analysis reads it: nil and
// not ok past maxDirEntries, else the names sorted (the shell sorts its
// matches); nil when there are none (os.File.Readdirnames answers an
// empty directory with nil or an empty slice).
func sortedNames(names []string) ([]string, bool) {
	if len(names) > maxDirEntries {
		return nil, false
	}
	if len(names) == 0 {
		return nil, true
	}
	for i, n := range names {
		names[i] = analysisName(n)
	}
	slices.Sort(names)
	return names, true
}

// glob expands a shell pattern relative to dir like the shell does (dot
// files only match a leading dot unless the script may set dotglob). ok is
// false when the expansion cannot be completed: unknown directory, a
// budget, or a pattern filepath.Match does not read like bash.
func (a *analyzer) glob(pattern, dir string, dotglob bool) (matches []string, ok bool) {
	abs := strings.HasPrefix(pattern, "/")
	if !abs && dir == "" {
		return nil, false
	}
	cands := []string{""}
	if abs {
		cands = []string{"/"}
	}
	check := false // a literal component follows the last pattern
	for comp := range strings.SplitSeq(pattern, "/") {
		switch {
		case comp == "":
			continue
		case !hasGlob(comp):
			lit, _ := unquoteLit(comp)
			for i := range cands {
				cands[i] = joinPath(cands[i], lit)
			}
			check = true
			continue
		}
		cands, ok = a.globComp(cands, comp, dir, dotglob)
		if !ok || len(cands) == 0 {
			return nil, ok
		}
		check = false
	}
	if strings.HasSuffix(pattern, "/") {
		return a.dirsOnly(cands, dir) // "*/" matches directories only
	}
	if !check {
		return cands, true
	}
	return a.existing(cands, dir)
}

// dirsOnly keeps the candidates that are directories (through symlinks, as
// the shell does), written with the trailing slash the shell keeps.
func (a *analyzer) dirsOnly(cands []string, dir string) ([]string, bool) {
	var out []string
	for _, c := range cands {
		isDir, ok := a.fs.isDir(dir, c)
		if !ok {
			return nil, false
		}
		if isDir {
			out = append(out, strings.TrimSuffix(c, "/")+"/")
		}
	}
	return out, true
}

// globComp matches one pattern component in each candidate directory.
func (a *analyzer) globComp(cands []string, comp, dir string, dotglob bool) ([]string, bool) {
	pat, ok := bashToGoPattern(comp)
	if !ok {
		return nil, false
	}
	var next []string
	for _, c := range cands {
		names, ok := a.fs.names(resolve(dir, c))
		if !ok {
			return nil, false
		}
		for _, n := range names {
			if strings.HasPrefix(n, ".") && !strings.HasPrefix(comp, ".") && !dotglob {
				continue
			}
			m, err := filepath.Match(pat, n)
			if err != nil || len(next) == maxGlobMatches {
				return nil, false
			}
			if m {
				next = append(next, joinPath(c, n))
			}
		}
	}
	return next, true
}

func (a *analyzer) existing(cands []string, dir string) ([]string, bool) {
	var out []string
	for _, c := range cands {
		found, ok := a.fs.exists(dir, c)
		if !ok {
			return nil, false
		}
		if found {
			out = append(out, c)
		}
	}
	return out, true
}

func joinPath(base, name string) string {
	switch base {
	case "":
		return name
	case "/":
		return "/" + name
	}
	return base + "/" + name
}

func resolve(dir, p string) string {
	switch {
	case filepath.IsAbs(p):
		return p
	case p == "":
		return dir
	}
	return cleanpath.Join(dir, p)
}

// bashToGoPattern turns a bash pattern into filepath.Match's: [!…] into
// [^…], and the POSIX classes ([[:lower:]]) into ranges. ok is false for
// what it cannot translate (an unknown class, [=a=], [.a.]).
func bashToGoPattern(p string) (string, bool) {
	var sb strings.Builder
	inClass, negated := false, false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			sb.WriteByte(c)
			i++
			sb.WriteByte(p[i])
			continue
		case !inClass && c == '[':
			inClass, negated = true, false
			sb.WriteByte(c)
			if i+1 < len(p) && (p[i+1] == '!' || p[i+1] == '^') {
				sb.WriteByte('^')
				negated = true
				i++
			}
			continue
		case inClass && c == ']':
			inClass = false
		case inClass && c == '[' && i+1 < len(p) && strings.IndexByte(":=.", p[i+1]) >= 0:
			if p[i+1] != ':' {
				return "", false
			}
			end := strings.Index(p[i+2:], ":]")
			if end < 0 {
				return "", false
			}
			ranges, ok := posixClasses[p[i+2:i+2+end]]
			if !ok {
				return "", false
			}
			sb.WriteString(ranges)
			if !negated && posixNonASCII[p[i+2:i+2+end]] {
				// Other locales put letters past ASCII in these classes:
				// matching more keeps the answer on the safe side.
				sb.WriteString("\u0080-\U0010FFFF")
			}
			i += 2 + end + 1
			continue
		}
		sb.WriteByte(c)
	}
	return sb.String(), true
}

// posixClasses are the bracket classes of the C locale as ranges.
var posixClasses = map[string]string{
	"lower": "a-z", "upper": "A-Z", "alpha": "a-zA-Z", "digit": "0-9", "alnum": "a-zA-Z0-9",
	"xdigit": "0-9a-fA-F", "space": " \t\n\v\f\r", "blank": " \t", "word": "a-zA-Z0-9_",
	"punct": "!-/:-@\\[-`{-~", "graph": "!-~", "print": " -~", "cntrl": "\x00-\x1f\x7f",
}

// posixNonASCII are the classes that hold letters beyond ASCII in other
// locales.
var posixNonASCII = map[string]bool{
	"lower": true, "upper": true, "alpha": true, "alnum": true, "word": true,
	"punct": true, "graph": true, "print": true,
}

// maxTreeEntries bounds treeLinks's walk.
const maxTreeEntries = 4096

// treeLinks lists the symbolic links below dir, sorted, walking without
// following them; found is false past maxTreeEntries entries. A dir that
// is no directory has none.
func treeLinks(dir string) (links []string, found bool) {
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable: grep cannot read it either
		}
		if n++; n > maxTreeEntries {
			return errTreeBudget
		}
		if d.Type()&fs.ModeSymlink != 0 && p != dir {
			links = append(links, p)
		}
		return nil
	})
	if err != nil {
		return nil, false
	}
	slices.Sort(links)
	return links, true
}

var errTreeBudget = errors.New("past the walk's budget")
