package sandbox

import (
	"fmt"
	"path/filepath"
	"strings"
)

// maxHints bounds the paths Hints names.
const maxHints = 8

// Hints words what may have stopped a confined command that failed: the
// read-only and hidden paths of p that its words or working directory
// touch: a word that names one, lies in one or holds one ($HOME and ~
// expanded), the working directory inside one, git (which writes its own
// folder whatever its words say) for those in a .git folder, and an
// archive or patch tool for those in the working directory. An
// unprivileged process cannot read the kernel's own record of a denial, so
// this is what the profile says, not what the kernel saw; it is advice,
// never a decision.
func Hints(p *Profile, argv []string, home string) []string {
	fields := hintFields(argv, home)
	type hit struct {
		e    Entry
		what string
	}
	git, extracts := false, false
	for _, f := range fields {
		switch filepath.Base(f) {
		case "git":
			git = true
		case "tar", "unzip", "cpio", "patch", "bsdtar", "7z", "ar":
			extracts = true
		}
	}
	var hits []hit
	for _, l := range []struct {
		es   []Entry
		what string
	}{{p.ReadOnly, "being read-only"}, {p.Hidden, "being hidden"}, {p.Sockets, "being hidden"}} {
		for _, e := range l.es {
			ro := l.what == "being read-only"
			if touches(p.Cwd, home, fields, e.Path) ||
				ro && git && strings.Contains(e.Path+"/", "/.git/") ||
				ro && extracts && within(e.Path, p.Cwd) {
				hits = append(hits, hit{e, l.what})
			}
		}
	}
	var out []string
	for i, h := range hits {
		if i == maxHints {
			out = append(out, fmt.Sprintf("… and %d more protected or hidden paths", len(hits)-maxHints))
			break
		}
		out = append(out, fmt.Sprintf("may have been stopped by %s %s (%s)", h.e.Path, h.what, h.e.Why))
	}
	if len(p.Write) > 0 {
		roots := make([]string, len(p.Write))
		for i, w := range p.Write {
			roots[i] = w.Path
		}
		out = append(out, "writes outside "+strings.Join(roots, ", ")+" are refused by the kernel")
	}
	return out
}

// hintFields splits the command's words, shell text included, at blanks,
// quotes and operators, and expands $HOME and a leading ~.
func hintFields(argv []string, home string) []string {
	var out []string
	for _, w := range argv {
		for _, f := range strings.FieldsFunc(w, func(r rune) bool { return strings.ContainsRune(" \t\n;|&<>()'\"`=,", r) }) {
			if home != "" {
				f = strings.NewReplacer("${HOME}", home, "$HOME", home).Replace(f)
				if f == "~" || strings.HasPrefix(f, "~/") {
					f = home + f[1:]
				}
			}
			out = append(out, f)
		}
	}
	return out
}

func touches(cwd, home string, fields []string, path string) bool {
	if within(cwd, path) {
		return true
	}
	// Code that builds the path from $HOME names the part below it.
	inHome := ""
	if home != "" && home != "/" && strings.HasPrefix(path, home+"/") {
		inHome = path[len(home):]
	}
	for _, f := range fields {
		if strings.Contains(f, path) || inHome != "" && strings.Contains(f, inHome) {
			return true
		}
		abs := f
		if !filepath.IsAbs(f) {
			abs = filepath.Join(cwd, f)
		}
		abs = filepath.Clean(abs)
		if abs != cwd && (within(abs, path) || within(path, abs)) {
			return true
		}
	}
	return false
}

// within reports whether p is dir or lies inside it.
func within(p, dir string) bool {
	return p == dir || dir == "/" || strings.HasPrefix(p, dir+"/")
}
