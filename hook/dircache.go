package hook

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/toolgate/toolgate/gates/paths"
	"github.com/toolgate/toolgate/internal/cleanpath"
	"github.com/toolgate/toolgate/policy"
)

// dirCache remembers the real paths of the directories every call checks
// (toolgate's own files, the host's directories, the working directory)
// while the policy files' watch says nothing can have changed them: a
// directory is kept only when its parent and every directory above are
// watched, and everything is forgotten when the watch sees any change (a
// new generation). Resolving them afresh was most of a call's system calls.
// The watch also vouches (Vouch) for the directories the remembered
// evaluations and shell analyses depend on, and watches them from then on:
// those count as watched here too. Its plain twin is paths.Canonical, a
// walk from /; TestDirCacheVouchedSeesChanges keeps them equal across
// changes, and TestDirCacheKept keeps what it keeps the same.
type dirCache struct {
	loader *policy.Loader
	mu     sync.Mutex
	gen    uint64
	known  map[string]dirReal
	// vouched are the directories Canonical asked the watch to vouch for
	// under gen (whatever it answered), so that it asks once a generation.
	vouched map[string]bool
	// onWay are the directories found on the way to a looked-up path below
	// the deepest watched one, across generations (bounded by maxDirs):
	// one found again is vouched for (lookup), once a generation:
	// wayVouched is what the watch answered for it under gen.
	onWay      map[string]bool
	wayVouched map[string]bool
	// lists are the names in watched directories, read under gen (nil
	// names: not listed), so that a name absent from its folder is known
	// absent without an lstat; listed counts the names they hold, bounded
	// by maxListed.
	lists  map[string]dirList
	listed int
}

// dirList is a watched directory's names under the generation; ok false
// when it is not listed (see listNames).
type dirList struct {
	names map[string]struct{}
	ok    bool
}

// listFolder is listNames (a test pretends no folder can be listed).
var listFolder = listNames

// Bounds of the listings: names in one folder, names in all of them.
const (
	maxListNames = 512
	maxListed    = 8192
)

type dirReal struct {
	real   string
	ok     bool
	exists bool // it exists (its real path is itself: no link)
	isDir  bool // as a directory
	// skip: dir is not kept (an entry on the way below the deepest
	// watched directory exists, and what lies below it is not watched);
	// the caller resolves it. As stable as a kept answer (that entry is in
	// a watched directory) until the watch vouches for that entry, way:
	// then dir is looked up again from it (lookAgain).
	skip bool
	// way is, for a skip, the folder on the way (an entry of the deepest
	// watched directory) that the watch could vouch for.
	way string
}

func newDirCache(l *policy.Loader) *dirCache {
	return &dirCache{loader: l, known: map[string]dirReal{}, vouched: map[string]bool{}, onWay: map[string]bool{}, wayVouched: map[string]bool{}, lists: map[string]dirList{}}
}

// maxDirs bounds the directories remembered; past it the cache starts over.
const maxDirs = 1024

// Canonical implements gates.DirCache. A directory is remembered when its
// real path is itself (no link on the way) and it cannot change unseen:
// it, or its parent, is watched with every directory above; or the
// deepest watched directory above it has no entry on the way to it, whose
// creation would be an event. Any other directory is the caller's to
// resolve (hit false), and that answer is remembered too.
func (d *dirCache) Canonical(dir string) (string, bool, bool) {
	r, _, answered, _ := d.lookup(dir, true)
	return r.real, r.ok, answered
}

// CanonicalKept implements paths.KeptDirs: Canonical, and whether the
// answer is kept under the generation (remembered, or not kept on purpose
// for an existing entry on the way: the same answer again until the
// generation changes).
func (d *dirCache) CanonicalKept(dir string) (string, bool, bool, bool) {
	r, _, answered, stable := d.lookup(dir, true)
	return r.real, r.ok, answered, stable
}

// EntryKept implements paths.KeptDirs: Entry, and whether the answer is
// kept under the generation.
func (d *dirCache) EntryKept(p string) (exists, isDir, known, kept bool) {
	r, isKept, _, stable := d.lookup(p, false)
	if !isKept || !r.ok || r.real != p {
		return false, false, false, stable
	}
	return r.exists, r.isDir, true, stable
}

// lookup is what the cache says of dir: answered false when the caller
// must resolve it; vouch: dir is one every call checks (Canonical's), and
// when nothing above it is watched the watch is asked, once a generation,
// to vouch for its parent (and so watch every directory above), so that
// it is kept from then on wherever it lies; kept when r is remembered under the generation (its
// exists and isDir too); stable when the answer is one the cache keeps in
// its map under the generation it read first (remembered, or skipped), so
// that it answers the same again while the generation lasts: a change the
// answer depends on is an event of the watch (see the kept cases below),
// and a lookup made again after the map was cleared within the
// generation finds the same.
func (d *dirCache) lookup(dir string, vouch bool) (r dirReal, kept, answered, stable bool) {
	gen := d.loader.Generation()
	d.mu.Lock()
	defer d.mu.Unlock()
	if gen != d.gen {
		clear(d.known)
		clear(d.vouched)
		clear(d.wayVouched)
		clear(d.lists)
		d.listed = 0
		d.gen = gen
	}
	if r, hit := d.known[dir]; hit {
		if !r.skip || r.way == "" || !d.lookAgain(r.way) {
			return r, !r.skip, !r.skip, true
		}
		// Skipped for a folder on the way that calls come through
		// again, or that the watch has vouched for since: looked up
		// afresh, from that folder.
		delete(d.known, dir)
	}
	clean := cleanpath.Clean(dir)
	wgen, x, watched := d.loader.WatchedAncestor(dir)
	if vouch && wgen == gen && filepath.IsAbs(dir) && (!watched || x != clean && x != cleanpath.Dir(clean)) {
		parent := cleanpath.Dir(clean)
		if !d.vouched[parent] && len(d.vouched) < maxDirs {
			d.vouched[parent] = true
			if _, ok := d.loader.Vouch(parent); ok {
				wgen, x, watched = d.loader.WatchedAncestor(dir)
			}
		}
	}
	if !watched || wgen != gen {
		return dirReal{}, false, false, false
	}
	if len(d.known) >= maxDirs {
		clear(d.known) // many working directories: keep it small
	}
	// x is watched with every directory above it, each of them looked at
	// when its watch was added and found a directory, no link: x's real
	// path is x (a link put in the place of any of them since would have
	// been an event). So is that of an entry of x that is no link, and of
	// a path below an entry of x that does not exist; they need no
	// resolution from the root.
	for x != clean && cleanpath.Dir(clean) != x {
		// The entry of x on the way to dir must not exist.
		next := clean
		for cleanpath.Dir(next) != x {
			next = cleanpath.Dir(next)
		}
		var info fs.FileInfo
		err := fs.ErrNotExist
		if !d.absent(x, next) {
			info, err = os.Lstat(next)
		}
		if errors.Is(err, fs.ErrNotExist) {
			r = dirReal{real: clean, ok: true}
			d.known[dir] = r
			return r, true, true, true
		}
		// A directory on the way that calls come through again (a
		// source folder the session works in) is vouched for by the
		// watch, once a generation, from its second sighting on: its
		// entries are then watched and dir is looked up from it (an
		// lstat of each entry once a generation instead of on every
		// call). One seen once is not: a session wandering through a
		// large tree would otherwise fill the watch with folders it
		// never comes back to, and start it over.
		if _, asked := d.wayVouched[next]; err == nil && info.IsDir() && !asked && d.onWayAgain(next) && len(d.wayVouched) < maxDirs {
			_, ok := d.loader.Vouch(next)
			d.wayVouched[next] = ok
			if ok {
				wgen2, x2, watched2 := d.loader.WatchedAncestor(dir)
				if watched2 && wgen2 == gen && len(x2) > len(x) {
					x = x2
					continue // its entries are watched from before the lookup below
				}
			}
		}
		// Looked up after the generation was read: its creation or
		// removal since is an event, and the next call forgets this.
		r = dirReal{skip: true}
		if err == nil && info.IsDir() {
			r.way = next
		}
		d.known[dir] = r
		return dirReal{}, false, false, true
	}
	// Resolved after the generation was read: a change made since is an
	// event, and the next call's generation forgets this. Whether it is a
	// directory is as watched as its real path: its entry is in a watched
	// directory.
	if x != clean && d.absent(x, clean) {
		r = dirReal{real: clean, ok: true}
		d.known[dir] = r
		return r, true, true, true
	}
	info, err := os.Lstat(clean)
	switch {
	case err == nil && info.Mode()&fs.ModeSymlink == 0:
		r = dirReal{real: clean, ok: true, exists: true, isDir: info.IsDir()}
	case errors.Is(err, fs.ErrNotExist):
		r = dirReal{real: clean, ok: true}
	default:
		// A link (or an entry that cannot be looked at): resolved, not
		// remembered.
		real, ok := paths.Canonical(clean)
		return dirReal{real: real, ok: ok}, false, true, false
	}
	d.known[dir] = r
	return r, true, true, true
}

// absent reports whether p, an entry of the directory x that the watch
// sees every change of under the generation d holds (d.mu held), is sure
// not to exist: x's listing, read once a generation after the generation
// was read (a name created since is an event, and the next call forgets
// the listing), does not hold p's name. False when x cannot be listed.
func (d *dirCache) absent(x, p string) bool {
	l, had := d.lists[x]
	if !had {
		if d.listed < maxListed {
			if names, ok := listFolder(x, maxListNames); ok {
				l = dirList{names: make(map[string]struct{}, len(names)), ok: true}
				for _, n := range names {
					l.names[n] = struct{}{}
				}
				d.listed += len(names)
			}
		}
		d.lists[x] = l
	}
	if !l.ok {
		return false
	}
	_, in := l.names[filepath.Base(p)]
	return !in
}

// lookAgain reports whether a path skipped for the folder way on the way
// is to be looked up afresh: the watch vouched for way since (the path
// was skipped before that), or way has not been asked about under the
// generation and is found on the way again.
func (d *dirCache) lookAgain(way string) bool {
	if ok, asked := d.wayVouched[way]; asked {
		return ok
	}
	return d.onWayAgain(way)
}

// onWayAgain reports whether dir was found on the way before, and notes
// that it was.
func (d *dirCache) onWayAgain(dir string) bool {
	if d.onWay[dir] {
		return true
	}
	if len(d.onWay) >= maxDirs {
		clear(d.onWay)
	}
	d.onWay[dir] = true
	return false
}

// Peek is Entry when p is remembered under the generation, or absent
// when p's folder is watched and its listing (read once a generation)
// lacks p's name, and asks the file system nothing else (known false):
// shell.Cache's Peek, for the words of a command analyzed afresh.
func (d *dirCache) Peek(p string) (exists, isDir, known bool) {
	gen := d.loader.Generation()
	d.mu.Lock()
	defer d.mu.Unlock()
	if gen != d.gen {
		return false, false, false
	}
	r, hit := d.known[p]
	if !hit {
		// A name absent from the listing of its folder, when the watch
		// sees every change of that folder: absent (the listing is read
		// once a generation).
		if filepath.IsAbs(p) && cleanpath.IsClean(p) {
			if wgen, x, watched := d.loader.WatchedAncestor(p); watched && wgen == gen && x != p && cleanpath.Dir(p) == x && d.absent(x, p) {
				return false, false, true
			}
		}
		return false, false, false
	}
	if r.skip || !r.ok || r.real != p {
		return false, false, false
	}
	return r.exists, r.isDir, true
}

// Entry implements paths.DirExistence: what an lstat of p would say, when
// the cache keeps p as its own real path (no link on the way): whether it
// exists and is a directory. One lookup (also shell.Cache's Known).
func (d *dirCache) Entry(p string) (exists, isDir, known bool) {
	r, kept, _, _ := d.lookup(p, false)
	if !kept || !r.ok || r.real != p {
		return false, false, false
	}
	return r.exists, r.isDir, true
}

// Vouch implements paths.Watcher (and shell.Cache's Vouch): the policy
// watch's word for dir (policy.Loader.Vouch), armed for it if need be.
func (d *dirCache) Vouch(dir string) (dev uint64, ok bool) { return d.loader.Vouch(dir) }
