package paths

import (
	"errors"
	"io/fs"
	"path"
	"slices"
	"strings"
	"syscall"
)

// maxLinks is the number of symlinks one lookup may follow before it is
// treated like the kernel's ELOOP (Linux MAXSYMLINKS).
const maxLinks = 40

// Canonical returns the canonical form of an absolute path: its components
// are resolved left to right as the kernel does, so a symlink (a dangling one
// too: its target) is followed before a ".." that comes after it. From the
// first component that does not exist (or lies below a non-directory) on, the
// rest is appended literally, a ".." there removing the missing component
// before it. The result is unknown (false) for a relative path, a path with
// a NUL byte, a symlink loop or more than 40 links, and any error other than
// "does not exist" / "not a directory" (EACCES, ENAMETOOLONG, …).
//
// filepath.EvalSymlinks is not used: it fails on a missing tail and on
// dangling links, both of which a write can create.
func Canonical(abs string) (string, bool) { return canonical(nil, abs) }

func canonical(v *View, abs string) (string, bool) {
	if !path.IsAbs(abs) || strings.IndexByte(abs, 0) >= 0 {
		return "", false
	}
	w := walker{dir: "/", fs: v, hint: abs}
	if !w.run(components(abs)) {
		return "", false
	}
	return w.result(), true
}

// walker is the state of a left-to-right resolution: the canonical existing
// prefix, the missing tail below it, and the links followed so far. Keeping
// it as a value lets New resume from the working directory's state instead
// of resolving the cwd again for every path below it.
type walker struct {
	dir  string   // canonical, existing, absolute
	tail []string // components below dir that do not exist
	hops int
	// seen are the links followed so far, each with what was left to walk
	// after it: reaching one again with the same rest is a cycle, which
	// would only repeat until maxLinks (the same answer, found at once).
	seen []string
	fs   *View // where lstat and readlink are asked (nil: the file system)
	// noProbe: the directory cache did not know the last component
	// walked, so it knows none below it either (see View.knownEntry).
	noProbe bool
	// hint is the path walked as it was written: where a path the walk
	// builds is spelled in it (no link, no ".." on the way so far), the
	// walk takes that part of it instead of a new string.
	hint string
}

// join is joinAbs(w.dir, c), taken from the hint where it spells it.
func (w *walker) join(c string) string {
	h, d := w.hint, w.dir
	if d == "/" {
		d = ""
	}
	n := len(d) + 1 + len(c)
	if len(h) >= n && h[len(d)] == '/' && h[len(d)+1:n] == c && h[:len(d)] == d {
		return h[:n]
	}
	return joinAbs(w.dir, c)
}

func (w walker) clone() walker {
	w.tail = append([]string(nil), w.tail...)
	w.seen = append([]string(nil), w.seen...)
	return w
}

func (w walker) result() string {
	if len(w.tail) == 0 {
		return w.dir
	}
	if s, ok := w.resultInHint(); ok {
		return s
	}
	return joinAbs(w.dir, strings.Join(w.tail, "/"))
}

// resultInHint is result taken from the hint, when the hint spells it.
func (w walker) resultInHint() (string, bool) {
	h, d := w.hint, w.dir
	if d == "/" {
		d = ""
	}
	if !strings.HasPrefix(h, d) {
		return "", false
	}
	i := len(d)
	for _, t := range w.tail {
		if i >= len(h) || h[i] != '/' || !strings.HasPrefix(h[i+1:], t) {
			return "", false
		}
		i += 1 + len(t)
	}
	return h[:i], true
}

// run resolves comps (which may contain "", "." and "..") on top of w and
// reports whether the result is known.
func (w *walker) run(comps []string) bool {
	rest := comps
	for len(rest) > 0 {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			if n := len(w.tail); n > 0 {
				w.tail = w.tail[:n-1]
			} else {
				w.dir = path.Dir(w.dir)
			}
			continue
		}
		if len(w.tail) > 0 {
			w.tail = append(w.tail, c)
			continue
		}
		if strings.IndexByte(c, 0) >= 0 {
			return false
		}
		p := w.join(c)
		if !w.noProbe {
			if exists, _, known := w.fs.knownEntry(p); known {
				// What an lstat would say, from the directory cache: p
				// is no link (its real path is itself), and it exists or
				// not.
				if exists {
					w.dir = p
				} else {
					w.tail = append(w.tail, c)
				}
				continue
			}
			w.noProbe = true // below a path the cache does not keep, it keeps none
		}
		fi, err := w.fs.lstat(p)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
				w.tail = append(w.tail, c)
				continue
			}
			return false
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			w.dir = p
			continue
		}
		w.hops++
		if w.hops > maxLinks {
			return false
		}
		key := p + "\x00" + strings.Join(rest, "/")
		if slices.Contains(w.seen, key) {
			return false
		}
		w.seen = append(w.seen, key)
		target, err := w.fs.readlink(p)
		if err != nil || target == "" {
			return false
		}
		if target[0] == '/' {
			w.dir = "/"
		}
		w.noProbe = false // elsewhere now
		// A relative target is resolved against the link's directory,
		// which is w.dir still.
		rest = append(components(target), rest...)
	}
	return true
}

// components splits a slash-separated path into its non-empty components
// other than ".".
func components(p string) []string {
	return appendComponents(make([]string, 0, strings.Count(p, "/")+1), p)
}

// appendComponents is components, appended to out.
func appendComponents(out []string, p string) []string {
	for p != "" {
		i := strings.IndexByte(p, '/')
		var c string
		if i < 0 {
			c, p = p, ""
		} else {
			c, p = p[:i], p[i+1:]
		}
		if c != "" && c != "." {
			out = append(out, c)
		}
	}
	return out
}

// joinAbs appends a relative remainder to an absolute directory without
// cleaning it.
func joinAbs(dir, rest string) string {
	if rest == "" {
		return dir
	}
	if strings.HasSuffix(dir, "/") {
		return dir + rest
	}
	return dir + "/" + rest
}
