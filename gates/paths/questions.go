package paths

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"syscall"
)

// Questions records every question one evaluation put to the file system
// (each lstat, stat, readlink and directory listing the view asked) and to
// the view's Dirs, with the answers, in order. An evaluation is a function
// of its call and of these answers: when every question, asked again, is
// answered the same, a fresh evaluation would ask the same questions in
// the same order and come out the same (gates.Evals). The zero value is
// ready; it is not safe for concurrent use while it records.
type Questions struct {
	// mu: StillAnswered marks the answers the watch vouches for kept
	// (one Questions may be checked by concurrent calls).
	mu    sync.Mutex
	list  []question
	ents  int  // directory entries kept, over all listings
	bytes int  // about what the answers take in memory
	over  bool // too many to keep: the evaluation is not remembered
}

// Bounds of what a Questions keeps; past them it is Over.
const (
	maxQuestions = 512
	maxEntries   = 4096
)

type qop uint8

const (
	qLstat qop = iota + 1
	qStat
	qReadlink
	qReadDir
	qDirsCanonical
	qDirsEntry
)

type question struct {
	op   qop
	path string
	n    int // qReadDir: the count asked for
	// kept: a Dirs answer the Dirs keep under their generation (KeptDirs),
	// or a file system answer asked again, the same, while the Dirs'
	// watch vouched for it (Watcher): while the generation is the one the
	// evaluation ran under, it is still the answer, and StillAnswered need
	// not ask it again.
	kept bool
	a    answer
}

// answer is everything of an answer an evaluation may read: an entry's
// mode (type and permissions) and identity, a link's target, the kind of
// error; a listing's names and types in order; the Dirs' answers.
type answer struct {
	mode     fs.FileMode
	dev, ino uint64
	err      string
	text     string // a link's target, a real path
	b        [3]bool
	ents     []dirEnt
}

type dirEnt struct {
	name string
	typ  fs.FileMode
}

func (a *answer) same(o *answer) bool {
	return a.mode == o.mode && a.dev == o.dev && a.ino == o.ino && a.err == o.err && a.text == o.text && a.b == o.b &&
		slices.Equal(a.ents, o.ents)
}

// Over reports whether more was asked than a Questions keeps.
func (q *Questions) Over() bool { return q.over }

// Len is the number of questions recorded.
func (q *Questions) Len() int { return len(q.list) }

func (q *Questions) add(op qop, p string, n int, a answer) { q.addKept(op, p, n, false, a) }

func (q *Questions) addKept(op qop, p string, n int, kept bool, a answer) {
	if q == nil || q.over {
		return
	}
	q.ents += len(a.ents)
	if len(q.list) >= maxQuestions || q.ents > maxEntries {
		q.over, q.list = true, nil
		return
	}
	q.list = append(q.list, question{op: op, path: p, n: n, kept: kept, a: a})
	q.bytes += 112 + len(p) + len(a.err) + len(a.text)
	for _, e := range a.ents {
		q.bytes += 32 + len(e.name)
	}
}

// Bytes is about what the recorded answers take in memory.
func (q *Questions) Bytes() int { return q.bytes }

// errKind is what an error says of the file system: its errno, or its
// text when it carries none.
func errKind(err error) string {
	if err == nil {
		return ""
	}
	var en syscall.Errno
	if errors.As(err, &en) {
		return "errno " + strconv.Itoa(int(en))
	}
	return "error " + err.Error()
}

func fileAnswer(info fs.FileInfo, err error) answer {
	if err != nil {
		return answer{err: errKind(err)}
	}
	a := answer{mode: info.Mode()}
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		a.dev, a.ino = uint64(st.Dev), uint64(st.Ino)
	}
	return a
}

func stateAnswer(st fileState, err error) answer {
	if err != nil {
		return answer{err: errKind(err)}
	}
	return answer{mode: st.mode, dev: st.dev, ino: st.ino}
}

func listAnswer(ents []fs.DirEntry, err error) answer {
	a := answer{err: errKind(err)}
	if len(ents) > 0 {
		a.ents = make([]dirEnt, len(ents))
		for i, e := range ents {
			a.ents[i] = dirEnt{e.Name(), e.Type()}
		}
	}
	return a
}

// readDir lists up to n entries of dir in directory order, as the glob
// walk reads them.
func readDir(dir string, n int) ([]fs.DirEntry, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	ents, err := f.ReadDir(n)
	f.Close()
	return ents, err
}

// StillAnswered asks every recorded question again, now (the Dirs ones
// of dirs, which answer from what they keep under the current watch
// generation, as the view does), and reports whether each answer is the
// same. It stops at the first that differs. sameGeneration is the
// caller's word that the Dirs' generation is still the one the questions
// were asked under (read once, before): the answers kept under it are
// then still the answers and are not asked again. Those are what the Dirs
// said they keep (KeptDirs) and, when dirs is a Watcher, the file system
// answers asked again (the same) after the watch vouched for them: a
// change to one is an event, the generation of a later call another.
func (q *Questions) StillAnswered(dirs interface {
	Canonical(dir string) (real string, ok, hit bool)
}, sameGeneration bool) bool {
	if q == nil || q.over {
		return false
	}
	var watch Watcher
	if sameGeneration {
		watch, _ = dirs.(Watcher)
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	for i := range q.list {
		r := &q.list[i]
		if r.kept && sameGeneration {
			continue
		}
		// Vouched for before it is asked: a change after the answer is an
		// event.
		var dev uint64
		vouched := false
		if watch != nil {
			dev, vouched = vouchFor(watch, r)
		}
		var now answer
		switch r.op {
		case qLstat:
			now = fileAnswer(os.Lstat(r.path))
		case qStat:
			now = fileAnswer(os.Stat(r.path))
		case qReadlink:
			t, err := os.Readlink(r.path)
			now = answer{text: t, err: errKind(err)}
		case qReadDir:
			now = listAnswer(readDir(r.path, r.n))
		case qDirsCanonical:
			if dirs == nil {
				return false
			}
			real, ok, hit := dirs.Canonical(r.path)
			now = answer{text: real, b: [3]bool{ok, hit}}
		case qDirsEntry:
			e, ok := dirs.(DirExistence)
			if !ok {
				return false
			}
			exists, isDir, known := e.Entry(r.path)
			now = answer{b: [3]bool{exists, isDir, known}}
		default:
			return false
		}
		if !now.same(&r.a) {
			return false
		}
		if vouched && r.watchedAnswer(dev) {
			r.kept = true
		}
	}
	return true
}

// Watcher is Dirs whose watch can vouch for a directory (the server's
// directory cache, under the policy files' watch; policy.Loader.Vouch):
// ok when from now on every change that could alter what an lstat or a
// readlink of an entry of dir answers (type, permissions, identity, link
// target), or what a listing of dir answers, is an event of the watch,
// so that the Dirs' generation read by a later call is another. dev is
// dir's device (0 when dir does not exist): an entry on another is a
// mount point, the root of a file system the watch does not see.
type Watcher interface {
	Vouch(dir string) (dev uint64, ok bool)
}

// vouchFor asks the watch to vouch for the directory r's answer depends
// on: the one listed, or the one whose entry r.path is.
func vouchFor(w Watcher, r *question) (uint64, bool) {
	switch r.op {
	case qReadDir:
		return w.Vouch(r.path)
	case qLstat, qStat, qReadlink:
		if !filepath.IsAbs(r.path) || !IsClean(r.path) || r.path == "/" {
			return 0, false
		}
		return w.Vouch(Dir(r.path))
	}
	return 0, false
}

// watchedAnswer reports whether r's answer, the same as asked again after
// the watch vouched for its directory (of device dev), stays the same
// until an event: it answers for an entry of that directory, not for
// what lies elsewhere. An lstat of a mount point answers for another file
// system's root; a stat of a link for its target, in any directory: asked
// on every call.
func (r *question) watchedAnswer(dev uint64) bool {
	switch r.op {
	case qReadDir, qReadlink:
		return true
	case qLstat:
		return r.a.err != "" || r.a.dev == dev
	case qStat:
		// As an lstat says now (after the vouching): no link, so the
		// stat's answer is the entry's own.
		now := fileAnswer(os.Lstat(r.path))
		return now.same(&r.a) && r.a.mode&fs.ModeSymlink == 0 && (r.a.err != "" || r.a.dev == dev)
	}
	return false
}

// Record makes the view record every question it asks from now on in q.
func (v *View) Record(q *Questions) { v.rec = q }

// Recording reports whether the view records the questions it asks.
func (v *View) Recording() bool { return v != nil && v.rec != nil }

// Stat is os.Stat with the view's answers.
func (v *View) Stat(p string) (fs.FileInfo, error) {
	if v == nil {
		return os.Stat(p)
	}
	if r, ok := v.stats[p]; ok {
		return r.info, r.err
	}
	info, err := os.Stat(p)
	if v.stats == nil {
		v.stats = make(map[string]lstatResult, 2)
	}
	v.stats[p] = lstatResult{info, err}
	v.rec.add(qStat, p, 0, fileAnswer(info, err))
	return info, err
}

// ReadDir lists up to n entries of directory dir (os.File.ReadDir), and
// records the listing.
func (v *View) ReadDir(dir string, n int) ([]fs.DirEntry, error) {
	ents, err := readDir(dir, n)
	if v != nil {
		v.rec.add(qReadDir, dir, n, listAnswer(ents, err))
	}
	return ents, err
}

// DirsCanonical is the view's Dirs.Canonical(dir), recorded; hit false
// without Dirs.
func (v *View) DirsCanonical(dir string) (real string, ok, hit bool) {
	if v == nil || v.Dirs == nil {
		return "", false, false
	}
	kept := false
	if k, isKept := v.Dirs.(KeptDirs); isKept && v.rec != nil {
		real, ok, hit, kept = k.CanonicalKept(dir)
	} else {
		real, ok, hit = v.Dirs.Canonical(dir)
	}
	v.rec.addKept(qDirsCanonical, dir, 0, kept, answer{text: real, b: [3]bool{ok, hit}})
	return real, ok, hit
}

// KeptDirs are Dirs that say which answers they keep under their
// generation: kept true when the answer is what they keep for the path
// under the generation they read before answering, so that while that
// generation lasts they give the same answer again (an answer they
// resolve but do not keep is not kept). Questions then need not ask it
// again within the generation (StillAnswered).
type KeptDirs interface {
	CanonicalKept(dir string) (real string, ok, hit, kept bool)
	EntryKept(p string) (exists, isDir, known, kept bool)
}

// dirsEntry is the view's Dirs' Entry(p), recorded; known false when the
// Dirs keep no entries.
func (v *View) dirsEntry(p string) (exists, isDir, known bool) {
	e, ok := v.Dirs.(DirExistence)
	if !ok {
		return false, false, false
	}
	kept := false
	if k, isKept := v.Dirs.(KeptDirs); isKept && v.rec != nil {
		exists, isDir, known, kept = k.EntryKept(p)
	} else {
		exists, isDir, known = e.Entry(p)
	}
	v.rec.addKept(qDirsEntry, p, 0, kept, answer{b: [3]bool{exists, isDir, known}})
	return exists, isDir, known
}
