package paths

import (
	"io/fs"
	"os"
	"path"
	"time"
)

// View remembers what the file system said during one decision: each
// lstat and readlink is asked once, however many paths of the call share
// the directories (the working directory, toolgate's own files, the host's
// directories are resolved for nearly every path). A View belongs to one
// call and is not safe for concurrent use; the nil View asks every time.
// The nil View is its plain twin; TestViewMatchesFileSystem and
// TestViewWithKnownDirs keep them equal.
type View struct {
	lstats map[string]lstatResult
	stats  map[string]lstatResult
	links  map[string]linkResult
	// rec, when set, records every question asked (Record).
	rec *Questions
	// Dirs, when set, knows real paths of directories across calls.
	Dirs interface {
		Canonical(dir string) (real string, ok, hit bool)
	}
}

// knownDir reports whether dir is known to be an existing directory whose
// real path is itself.
func (v *View) knownDir(dir string) bool {
	if v == nil || v.Dirs == nil {
		return false
	}
	if _, ok := v.Dirs.(DirExistence); ok {
		if exists, isDir, known := v.dirsEntry(dir); known {
			return exists && isDir // as unchanging as the real path the cache keeps
		}
	}
	real, ok, hit := v.DirsCanonical(dir)
	if !hit || !ok || real != dir {
		return false
	}
	info, err := v.lstat(dir) // once per call: the cache also keeps missing directories
	return err == nil && info.IsDir()
}

// DirExistence is a Dirs that also knows, for a path it keeps as its own
// real path (no link on the way), whether it exists and is a directory (it
// keeps missing ones too), in one lookup; known is false when it does not
// keep p so.
type DirExistence interface {
	Entry(p string) (exists, isDir, known bool)
}

// knownEntry reports what the view's Dirs know of p without asking the
// file system: known is false when they do not know p, or know it is not
// its own real path; else exists and isDir are what an lstat would say.
func (v *View) knownEntry(p string) (exists, isDir, known bool) {
	if v == nil || v.Dirs == nil {
		return false, false, false
	}
	return v.dirsEntry(p)
}

// Seed records what a directory listing of this evaluation said of p
// (its type: a link, a directory, another file), so that the view answers
// an lstat of p from it: the walk needs nothing else of the answer. A nil
// view records nothing.
func (v *View) Seed(p string, typ fs.FileMode) {
	if v == nil {
		return
	}
	if _, ok := v.lstats[p]; ok {
		return
	}
	if v.lstats == nil {
		v.lstats = make(map[string]lstatResult, 4)
	}
	v.lstats[p] = lstatResult{info: typeInfo{name: path.Base(p), typ: typ.Type()}}
}

// typeInfo is the part of an lstat a directory entry gives: its type.
type typeInfo struct {
	name string
	typ  fs.FileMode
}

func (t typeInfo) Name() string       { return t.name }
func (t typeInfo) Size() int64        { return 0 }
func (t typeInfo) Mode() fs.FileMode  { return t.typ }
func (t typeInfo) ModTime() time.Time { return time.Time{} }
func (t typeInfo) IsDir() bool        { return t.typ.IsDir() }
func (t typeInfo) Sys() any           { return nil }

// Lstat is os.Lstat with the view's answers.
func (v *View) Lstat(p string) (fs.FileInfo, error) { return v.lstat(p) }

type lstatResult struct {
	info fs.FileInfo
	err  error
}

type linkResult struct {
	target string
	err    error
}

// NewView returns an empty view.
func NewView() *View { return &View{} }

func (v *View) lstat(p string) (fs.FileInfo, error) {
	if v == nil {
		return os.Lstat(p)
	}
	if r, ok := v.lstats[p]; ok {
		return r.info, r.err
	}
	info, err := os.Lstat(p)
	if v.lstats == nil {
		v.lstats = make(map[string]lstatResult, 4)
	}
	v.lstats[p] = lstatResult{info, err}
	v.rec.add(qLstat, p, 0, fileAnswer(info, err))
	return info, err
}

func (v *View) readlink(p string) (string, error) {
	if v == nil {
		return os.Readlink(p)
	}
	if r, ok := v.links[p]; ok {
		return r.target, r.err
	}
	t, err := os.Readlink(p)
	if v.links == nil {
		v.links = map[string]linkResult{}
	}
	v.links[p] = linkResult{t, err}
	v.rec.add(qReadlink, p, 0, answer{text: t, err: errKind(err)})
	return t, err
}

// New is New with the view's answers.
func (v *View) New(input, base, cwd, home string) Path { return newPath(v, input, base, cwd, home) }

// Canonical is Canonical with the view's answers.
func (v *View) Canonical(abs string) (string, bool) { return canonical(v, abs) }
