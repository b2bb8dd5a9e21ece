package shell

import (
	"path"
	"path/filepath"
	"strings"
)

// Directory copies and moves (cp -r, mv, rsync): see unnamed.go.

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
