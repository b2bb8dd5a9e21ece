// Package cleanpath cleans, splits and joins slash-separated paths as
// package path does, with no work beyond a scan when the path is clean
// already (nearly every path a call names): the path of every word of a
// command goes through these several times a call.
package cleanpath

import (
	"path"
	"strings"
)

// Clean is path.Clean, returning p itself (with no work beyond one scan)
// when it is clean already. path.Clean is its plain twin;
// TestIsCleanIsPathClean (gates/paths) and TestJoinIsPathJoin keeps them equal.
func Clean(p string) string {
	if IsClean(p) {
		return p
	}
	return path.Clean(p)
}

// Dir is path.Dir, taking a clean p's directory as the text before its
// last slash (no cleaning pass). path.Dir is its plain twin;
// TestIsCleanIsPathClean (gates/paths) and TestJoinIsPathJoin keeps them equal.
func Dir(p string) string {
	if !IsClean(p) {
		return path.Dir(p)
	}
	switch i := strings.LastIndexByte(p, '/'); i {
	case -1:
		return "."
	case 0:
		return "/"
	default:
		return p[:i]
	}
}

// IsClean reports whether path.Clean(p) == p, without the cleaning:
// TestIsCleanIsPathClean (gates/paths) and TestJoinIsPathJoin keeps it equal to that comparison.
func IsClean(p string) bool {
	n := len(p)
	if n == 0 {
		return false
	}
	if n > 1 && p[n-1] == '/' {
		return false
	}
	// Every component must be non-empty and neither "." nor "..", but
	// for a lone "." and for leading ".." components of a relative path.
	rooted := p[0] == '/'
	if rooted && !strings.Contains(p, "//") && !strings.Contains(p, "/.") {
		return true // no empty component, none that starts with a dot
	}
	if rooted && n == 1 {
		return true
	}
	i := 0
	if rooted {
		i = 1
	}
	leading := !rooted // still in the leading ".." run of a relative path
	for {
		j := strings.IndexByte(p[i:], '/')
		c := p[i:]
		if j >= 0 {
			c = p[i : i+j]
		}
		switch c {
		case "":
			return false
		case ".":
			if n != 1 {
				return false
			}
		case "..":
			if !leading {
				return false
			}
		default:
			leading = false
		}
		if j < 0 {
			return true
		}
		i += j + 1
	}
}

// Join is path.Join(dir, elem) for one element: dir and elem joined by a
// slash when dir is clean and absolute and elem clean, relative and not
// leading out of dir (no ".." first), which is then clean already; else
// path.Join. TestJoinIsPathJoin keeps it equal to path.Join.
func Join(dir, elem string) string {
	if elem == "" {
		if dir == "" {
			return "" // path.Join of nothing
		}
		return Clean(dir) // path.Join of an empty element is dir, cleaned
	}
	if dir == "" || dir[0] != '/' || elem[0] == '/' || elem == "." || elem == ".." || strings.HasPrefix(elem, "../") || !IsClean(dir) || !IsClean(elem) {
		return path.Join(dir, elem)
	}
	if dir == "/" {
		return "/" + elem
	}
	return dir + "/" + elem
}
