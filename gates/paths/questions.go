package paths

import (
	"errors"
	"io/fs"
	"os"
	"slices"
	"strconv"
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
	// kept: a Dirs answer the Dirs keep under their generation (KeptDirs):
	// while the generation is the one the evaluation ran under, it is
	// still their answer, and StillAnswered need not ask it again.
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
// were asked under (read once, before): the answers the Dirs said they
// keep under it (KeptDirs) are then still theirs and are not asked again.
func (q *Questions) StillAnswered(dirs interface {
	Canonical(dir string) (real string, ok, hit bool)
}, sameGeneration bool) bool {
	if q == nil || q.over {
		return false
	}
	for i := range q.list {
		r := &q.list[i]
		if r.kept && sameGeneration {
			continue
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
	}
	return true
}

// Record makes the view record every question it asks from now on in q.
func (v *View) Record(q *Questions) { v.rec = q }

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
