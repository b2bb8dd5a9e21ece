package shell

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// fsView answers the analysis's read-only questions to the file system,
// within budgets, and remembers the answers.
type fsView struct {
	stats     map[entry]bool
	listings  map[string][]string
	statsLeft int
	readsLeft int
}

// entry is a name looked up in a directory.
type entry struct{ dir, name string }

func newFSView() fsView {
	return fsView{stats: map[entry]bool{}, listings: map[string][]string{}, statsLeft: maxStats, readsLeft: maxDirReads}
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
	_, err := os.Lstat(fsName(resolve(dir, name)))
	v.stats[e] = err == nil
	return err == nil, true
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
	defer func() {
		if ok {
			v.listings[dir] = names
		}
	}()
	// Stat first: opening a FIFO for reading would block.
	real := fsName(dir)
	if info, err := os.Stat(real); err != nil || !info.IsDir() {
		return nil, true
	}
	f, err := os.Open(real)
	if err != nil {
		return nil, true
	}
	defer f.Close()
	names, _ = f.Readdirnames(maxDirEntries + 1)
	if len(names) > maxDirEntries {
		return nil, false
	}
	for i, n := range names {
		names[i] = analysisName(n)
	}
	slices.Sort(names) // the shell sorts its matches
	return names, true
}

// glob expands a shell pattern relative to dir like the shell does (dot
// files only match a leading dot unless the script may set dotglob). ok is
// false when the expansion cannot be completed: unknown directory, a
// budget, or a pattern filepath.Match does not read like bash.
func (a *analyzer) glob(pattern, dir string, dotglob bool) (matches []string, ok bool) {
	abs := strings.HasPrefix(pattern, "/")
	if (!abs && dir == "") || strings.Contains(pattern, "[:") {
		return nil, false
	}
	cands := []string{""}
	if abs {
		cands = []string{"/"}
	}
	check := false // a literal component follows the last pattern
	for _, comp := range strings.Split(pattern, "/") {
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
	if !check {
		return cands, true
	}
	return a.existing(cands, dir)
}

// globComp matches one pattern component in each candidate directory.
func (a *analyzer) globComp(cands []string, comp, dir string, dotglob bool) ([]string, bool) {
	pat := bashToGoPattern(comp)
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
	return filepath.Join(dir, p)
}

// bashToGoPattern turns bash's [!…] into filepath.Match's [^…].
func bashToGoPattern(p string) string {
	var sb strings.Builder
	for i := 0; i < len(p); i++ {
		sb.WriteByte(p[i])
		switch {
		case p[i] == '\\' && i+1 < len(p):
			i++
			sb.WriteByte(p[i])
		case p[i] == '[' && i+1 < len(p) && p[i+1] == '!':
			sb.WriteByte('^')
			i++
		}
	}
	return sb.String()
}
