package paths

import (
	"io/fs"
	"os"
	"path"
	"syscall"
	"time"

	"github.com/toolgate/toolgate/internal/sysstat"
)

// View remembers what the file system said during one decision: each
// lstat and readlink is asked once, however many paths of the call share
// the directories (the working directory, toolgate's own files, the host's
// directories are resolved for nearly every path). A View belongs to one
// call and is not safe for concurrent use; the nil View asks every time.
// The nil View is its plain twin; TestViewMatchesFileSystem and
// TestViewWithKnownDirs keep them equal.
type View struct {
	lstats lstatSet
	stats  map[string]lstatResult
	links  map[string]linkResult
	// rec, when set, records every question asked (Record).
	rec *Questions
	// cwd is the working directory's state, the last one placed from
	// (in cwdStore, the view's own).
	cwd      *keptCwd
	cwdStore keptCwd
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
	if _, ok := v.lstats.get(p); ok {
		return
	}
	v.lstats.put(p, lstatEntry{mode: typ.Type()}) // the part of an lstat an entry gives
}

// fileState is what the view keeps of an lstat: the name, the mode as
// os.Lstat reports it, and the device and inode (for Questions). As an
// fs.FileInfo (the view's Lstat) its Size and ModTime are zero: no gate
// asks an lstat for them.
type fileState struct {
	name     string
	mode     fs.FileMode
	dev, ino uint64
}

func (f fileState) Name() string       { return f.name }
func (f fileState) Size() int64        { return 0 }
func (f fileState) Mode() fs.FileMode  { return f.mode }
func (f fileState) ModTime() time.Time { return time.Time{} }
func (f fileState) IsDir() bool        { return f.mode.IsDir() }
func (f fileState) Sys() any           { return nil }

// Lstat is os.Lstat with the view's answers: their name, mode and error
// (a syscall.Errno, where os.Lstat wraps it in an *fs.PathError); Size
// and ModTime are zero.
func (v *View) Lstat(p string) (fs.FileInfo, error) {
	st, err := v.lstat(p)
	if err != nil {
		return nil, err
	}
	return st, nil
}

// keptCwd is the view's working directory (in, as given) and its state.
type keptCwd struct {
	in string
	st cwdState
}

// lstatEntry is a kept lstat answer, small (a call keeps a few of them):
// the fileState but for its name (the path's base), and the error as its
// errno (sysLstat's errors are all syscall.Errno).
type lstatEntry struct {
	mode     fs.FileMode
	errno    syscall.Errno
	dev, ino uint64
}

func keepLstat(st fileState, err error) lstatEntry {
	if err != nil {
		en, ok := err.(syscall.Errno)
		if !ok || en == 0 {
			en = syscall.EIO // none is made so; still an error, never a file
		}
		return lstatEntry{errno: en}
	}
	return lstatEntry{mode: st.mode, dev: st.dev, ino: st.ino}
}

func (e lstatEntry) answer(p string) (fileState, error) {
	if e.errno != 0 {
		return fileState{}, e.errno
	}
	return fileState{name: path.Base(p), mode: e.mode, dev: e.dev, ino: e.ino}, nil
}

// lstatSet is the view's lstats: a call asks a handful, found by a look
// along a short list (no hashing, one small allocation), and a map once
// there are more than lstatList.
type lstatSet struct {
	list []keyedLstat
	m    map[string]lstatEntry
}

type keyedLstat struct {
	p string
	e lstatEntry
}

const lstatList = 16

func (s *lstatSet) get(p string) (lstatEntry, bool) {
	if s.m != nil {
		e, ok := s.m[p]
		return e, ok
	}
	for i := range s.list {
		if s.list[i].p == p {
			return s.list[i].e, true
		}
	}
	return lstatEntry{}, false
}

// put records p's answer; p is not in s yet.
func (s *lstatSet) put(p string, e lstatEntry) {
	if s.m == nil && len(s.list) < lstatList {
		if s.list == nil {
			s.list = make([]keyedLstat, 0, 4)
		}
		s.list = append(s.list, keyedLstat{p, e})
		return
	}
	if s.m == nil {
		s.m = make(map[string]lstatEntry, 2*lstatList)
		for _, k := range s.list {
			s.m[k.p] = k.e
		}
		s.list = nil
	}
	s.m[p] = e
}

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

// Reset makes v a new view (NewView's, with Dirs and recording unset) in
// place, so that a view kept in its call (gates.Call) is not allocated
// for each evaluation; the room its answers took is kept for the next
// ones. Nothing v answered before is kept.
func (v *View) Reset() {
	*v = View{lstats: lstatSet{list: v.lstats.list[:0], m: keptRoom(v.lstats.m)},
		stats: keptRoom(v.stats), links: keptRoom(v.links)}
}

// keptRoom is m emptied for the next view, or nil when it grew past what
// a call needs (a glob's thousands of names are not held on to).
func keptRoom[V any](m map[string]V) map[string]V {
	if len(m) > 4*lstatList {
		return nil
	}
	clear(m)
	return m
}

func (v *View) lstat(p string) (fileState, error) {
	if v == nil {
		return osLstat(p)
	}
	if r, ok := v.lstats.get(p); ok {
		return r.answer(p)
	}
	st, err := sysLstat(p)
	v.lstats.put(p, keepLstat(st, err))
	v.rec.add(qLstat, p, 0, stateAnswer(st, err))
	return st, err
}

// osLstat is os.Lstat's answer as a fileState: the nil view's, and
// sysLstat's plain twin (TestViewMatchesFileSystem keeps them equal).
func osLstat(p string) (fileState, error) {
	info, err := os.Lstat(p)
	if err != nil {
		return fileState{}, err
	}
	f := fileState{name: info.Name(), mode: info.Mode()}
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		f.dev, f.ino = uint64(st.Dev), uint64(st.Ino)
	}
	return f, nil
}

// sysLstat is osLstat without what os.Lstat allocates (its FileInfo, its
// error): the system call into a Stat_t on the stack, and the mode as
// os makes it of the Stat_t's. Its error is a syscall.Errno.
func sysLstat(p string) (fileState, error) {
	var st syscall.Stat_t
	for {
		err := sysstat.Lstat(p, &st)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return fileState{}, err
		}
		return fileState{name: path.Base(p), mode: osMode(uint32(st.Mode)), dev: uint64(st.Dev), ino: uint64(st.Ino)}, nil
	}
}

// osMode is the fs.FileMode os.Lstat reports for a Stat_t's mode.
func osMode(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	switch m & syscall.S_IFMT {
	case syscall.S_IFBLK:
		mode |= fs.ModeDevice
	case syscall.S_IFCHR:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	case syscall.S_IFDIR:
		mode |= fs.ModeDir
	case syscall.S_IFIFO:
		mode |= fs.ModeNamedPipe
	case syscall.S_IFLNK:
		mode |= fs.ModeSymlink
	case syscall.S_IFSOCK:
		mode |= fs.ModeSocket
	}
	if m&syscall.S_ISGID != 0 {
		mode |= fs.ModeSetgid
	}
	if m&syscall.S_ISUID != 0 {
		mode |= fs.ModeSetuid
	}
	if m&syscall.S_ISVTX != 0 {
		mode |= fs.ModeSticky
	}
	return mode
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
