package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"syscall"

	json "github.com/goccy/go-json"

	"github.com/toolgate/toolgate/policy"
)

// A confined command's profile hides the files the policy denies reading
// and protects the repositories below the top of the project, both found
// by a walk of the project; on a large project that walk is most of what
// deriving a profile costs. Its answer is kept in toolgate's own folder
// and is the next walk's answer while the policy's read and path rules
// and every folder the walk listed are as they were: a folder's inode,
// change time and modification time (an entry added, removed or renamed
// in it changes both times; its change time no one can set back).

// walkVersion is the version of a kept walk.
const walkVersion = 1

// walkResult is what a walk found.
type walkResult struct {
	Version int                 `json:"version"`
	Key     string              `json:"key"`
	Dirs    map[string]dirStamp `json:"dirs"`
	Hidden  []Entry             `json:"hidden,omitempty"`
	Repos   []string            `json:"repos,omitempty"`
	Cut     []string            `json:"cut,omitempty"`
	// Links are the links the walk met and the real path each led to.
	Links map[string]string `json:"links,omitempty"`
	// Gitfiles are the .git files it read (which git folder each names),
	// stamped as folders are.
	Gitfiles map[string]dirStamp `json:"gitfiles,omitempty"`
	// Uncacheable: a folder could not be stamped, or the clock cut the
	// walk short; the walk is not kept.
	Uncacheable bool `json:"-"`
}

// dirStamp is what changes when a folder's entries do: its times, and,
// where they changed and its entries did not (a placeholder made and
// removed again while a command ran), the names and types of its entries.
type dirStamp struct {
	Ino   uint64 `json:"ino"`
	Dev   uint64 `json:"dev"`
	Ctime int64  `json:"ctime"`
	Mtime int64  `json:"mtime"`
	Names string `json:"names"`
}

// sameStamp reports whether a and b stamp the same folder at the same
// moment (their names aside).
func sameStamp(a, b dirStamp) bool {
	return a.Ino == b.Ino && a.Dev == b.Dev && a.Ctime == b.Ctime && a.Mtime == b.Mtime
}

// listings gathers the entries of each folder a walk lists.
type listings map[string]*nameHash

type nameHash struct {
	names []string
}

func (l listings) add(dir string, e fs.DirEntry) {
	h := l[dir]
	if h == nil {
		h = &nameHash{}
		l[dir] = h
	}
	h.names = append(h.names, entryName(dir, e))
}

// realOf is where a link leads now, in words for one that leads nowhere.
func realOf(path string) string {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "?" + err.Error()
	}
	return real
}

// entryName is an entry as a folder's digest counts it: its name, its
// type and, for a link, the real path it leads to now (a link led
// elsewhere, itself or by a link on its way, can make its name a denied
// file's).
func entryName(dir string, e fs.DirEntry) string {
	n := e.Name() + "\x00" + e.Type().String()
	if e.Type()&fs.ModeSymlink != 0 {
		n += "\x00" + realOf(filepath.Join(dir, e.Name()))
	}
	return n
}

// relist reads dir's entries whole (the walk stopped inside it).
func (l listings) relist(dir string) {
	if h, ok := namesOf(dir); ok {
		l[dir] = &nameHash{names: h}
	} else {
		delete(l, dir)
	}
}

// into gives each stamped folder of w its entries' digest; a folder that
// has none (it was not listed) is not stamped.
func (l listings) into(w *walkResult) {
	for dir, st := range w.Dirs {
		h := l[dir]
		if h == nil {
			h = &nameHash{} // an empty folder
		}
		st.Names = digest(h.names)
		w.Dirs[dir] = st
	}
}

func namesOf(dir string) ([]string, bool) {
	es, err := os.ReadDir(dir)
	if err != nil {
		return nil, false
	}
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = entryName(dir, e)
	}
	return out, true
}

func digest(names []string) string {
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		h.Write([]byte(n))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// walkKey names a walk: where it starts, its bound, and every read and
// path rule of the policy's sides (an allow can make a deny's file
// readable), with where each is written.
func (d *deriver) walkKey(starts []string, any bool) string {
	h := sha256.New()
	fmt.Fprintf(h, "v%d\x00%s\x00%s\x00%d\x00%v\x00%v\x00", walkVersion, d.project, d.in.Home, d.in.WalkEntries, d.in.WalkTime, any)
	for _, s := range starts {
		fmt.Fprintf(h, "start %s\x00", s)
	}
	pol := d.in.Policy
	for i, side := range []*policy.Policy{pol, pol.Without(), pol.Managed()} {
		if side == nil {
			continue
		}
		for _, r := range side.Rules() {
			if r.MatchesSurface("path") || r.MatchesSurface("read") {
				fmt.Fprintf(h, "%d %s %s %v %s\x00", i, r.Surface, r.Pattern, r.Action, ruleWhy(r))
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

func walkFile(dir, key string) string { return filepath.Join(dir, "walk-"+key[:32]+".json") }

// maxWalkFile bounds a kept walk's file.
const maxWalkFile = 32 << 20

// loadWalk is the kept walk of key when every folder it listed is as it
// was; anything else (none kept, not toolgate's file, changed) is no
// answer. Its plain twin is a fresh walk (deriver.walk);
// TestKeptWalkIsFreshWalk keeps the profiles they give equal.
func loadWalk(dir, key string) (*walkResult, bool) {
	if dir == "" {
		return nil, false
	}
	f, err := os.Open(walkFile(dir, key))
	if err != nil {
		return nil, false
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() || info.Size() > maxWalkFile || info.Mode().Perm()&0o077 != 0 {
		return nil, false
	}
	if st, ok := info.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != os.Geteuid() {
		return nil, false
	}
	var w walkResult
	if err := json.NewDecoder(f).Decode(&w); err != nil || w.Version != walkVersion || w.Key != key {
		return nil, false
	}
	for link, was := range w.Links {
		if realOf(link) != was {
			return nil, false
		}
	}
	for gitfile, was := range w.Gitfiles {
		if now, ok := stampKind(gitfile, syscall.S_IFREG); !ok || !sameStamp(now, was) {
			return nil, false
		}
	}
	for path, was := range w.Dirs {
		now, ok := stampOf(path)
		if !ok {
			return nil, false
		}
		if sameStamp(now, was) {
			continue
		}
		// Its times changed: its entries say. (The walk is not kept
		// again: the folder that changed so is mostly the project's top,
		// where each command's placeholders come and go, and one listing
		// costs less than writing the whole walk anew.)
		names, ok := namesOf(path)
		if !ok || now.Ino != was.Ino || now.Dev != was.Dev || digest(names) != was.Names {
			return nil, false
		}
	}
	return &w, true
}

// storeWalk keeps w for the next walk of its key (best effort: a walk not
// kept is walked again).
func storeWalk(dir string, w *walkResult) {
	if dir == "" || w.Uncacheable {
		return
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return
	}
	data, err := json.Marshal(w)
	if err != nil {
		return
	}
	tmp, err := os.CreateTemp(dir, ".walk-*")
	if err != nil {
		return
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil || tmp.Close() != nil {
		tmp.Close()
		return
	}
	os.Rename(tmp.Name(), walkFile(dir, w.Key))
}
