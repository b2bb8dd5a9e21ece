//go:build linux

package policy

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/toolgate/toolgate/internal/cleanpath"
)

// changeWatch tells the loader when a policy file may have changed, so that
// a call costs one non-blocking epoll_wait of an inotify descriptor (and of
// /proc/self/mountinfo, for mounts) instead of a stat per file, and an edit
// still takes effect on the very next call: the kernel queues the event
// before the writer's system call returns.
//
// It also vouches for the directories the evaluations a session remembers
// depend on (vouch; the memo then asks their answers no more while the
// generation lasts): they are watched the same way, within bounds, and a
// busy one is given up. A mount or unmount anywhere, an overflowed queue,
// or the bounds reached start everything over (a new inotify instance).
//
// The epoll_wait stays on every call on purpose. A goroutine parked on the
// descriptor (in the netpoller) that bumps a generation when it wakes would
// make a quiet call free of system calls, but not exact: the event is
// queued when the write returns, the goroutine runs some time later, and a
// host that writes the file and then the next request can have that
// request decided before the goroutine ran — with the old policy. Only
// asking the kernel on the call's own path (this epoll_wait) orders the two.
//
// A file is watched through every directory above it, from the root down to
// its parent (or down to the deepest one that exists, so that creating the
// missing ones is seen): a rename or removal of any of them, and any change
// to an entry of the parent, is an event. Any event at all makes the next
// call stat every file again and re-arm. A file is never trusted to the
// watch — it is stat'ed on every call as before — when the watch cannot see
// every change: it or a directory above it is a symbolic link (a change to
// the target is not an event in the watched directory), or a directory is on
// a file system where inotify misses other machines' writes (NFS, FUSE, SMB,
// 9p …: only the local file systems below are trusted).
type changeWatch struct {
	fds *watchFDs
	// dirs are the watched directories, by path; wds the same by watch
	// descriptor. Every directory above a watched one is watched too (a
	// chain from the root): a watch is added root first, and forgetting a
	// directory forgets every one below it.
	dirs  map[string]*watchedDir
	wds   map[int]string
	armed map[string]bool  // policy path → every change to it is an event
	local map[int64]bool   // file system type → inotify sees every change
	gone  map[int]struct{} // watch descriptors removed, whose IN_IGNORED is still to come
	dirty bool
	buf   []byte
	evs   [2]unix.EpollEvent
	// vouched counts the directories vouch watched for their entries
	// (leaves), added the watches vouch added; past maxVouched or
	// maxVouchWatches the watch starts over.
	vouched, added int
	calls          uint64          // questions asked (quiet)
	noisy          map[string]bool // directories given up as noisy
	// gen counts the times the watch was not quiet: what was learnt of a
	// watched directory under one generation holds until the next. It
	// moves under the loader's lock, and is read without it
	// (Loader.Generation: every directory-cache lookup asks it).
	gen atomic.Uint64
}

// watchFDs are the watch's descriptors: the inotify instance,
// /proc/self/mountinfo, which poll reports with priority (EPOLLPRI) after
// every mount or unmount in the process's mount namespace (a mount changes
// what a path names without an inotify event), and an epoll instance of
// both, asked once a call (cheaper than a read of the inotify one that
// finds nothing); -1 when they could not be opened.
type watchFDs struct {
	inotify, mounts, epoll int
	opened                 bool // mounts and epoll were opened (or tried): at the first arm, not at start
}

// watchedDir is one watched directory.
type watchedDir struct {
	mask uint32 // the events asked for
	wd   int
	dev  uint64 // its device
	root bool   // owned by root: only root can change its permissions
	// leaf: vouch watched it for its entries, with every directory above
	// watched as vouch needs.
	leaf bool
	// policy: a policy file's watch needs it (never given up as noisy).
	policy bool
	// window, fired, last: the call (quiet) its events are counted from,
	// the calls since then with one, the last such call.
	window, last uint64
	fired        int
}

// A directory vouch watched that had events in noisyFired of the drains
// of noisyCalls calls is noisy: every event is a new generation, which
// forgets everything kept, so watching it costs more than asking again.
// It is no longer watched, and vouch says no for it and below it until
// the watch starts over.
const (
	noisyFired = 4
	noisyCalls = 64
	maxNoisy   = 256
)

// Directory events that matter. Above a policy file's parent: entries
// created, removed or renamed, and the directory itself going away. In the
// parent also every change to an entry: written, or changed in its
// attributes (mtime, mode), the parent's own attributes included.
//
// The directories above the parent are not asked for IN_ATTRIB: it is an
// event an entry can have (inotify reports it for the directory's
// children), so asking for it makes the kernel mark every cached dentry
// under the directory when the watch is added, and for / or /tmp that was
// milliseconds of every start. What it would add is the attributes of
// those directories themselves (chmod, chown, touch): they change neither
// which file a path names nor its content (a file made unreachable that
// way keeps the rules it had, which were also its last good version). A
// file whose lstat fails when the watch is armed (a directory above it
// cannot be searched) is not trusted to the watch (armPath): it is stat'ed
// on every call until it can be, so a permission fixed later is seen.
const (
	watchStructure = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO |
		unix.IN_DELETE_SELF | unix.IN_MOVE_SELF
	watchContent = watchStructure | unix.IN_ATTRIB | unix.IN_MODIFY | unix.IN_CLOSE_WRITE
	// watchEntries: a directory vouch answers for (its entries' names,
	// types, identities and attributes; not their contents).
	watchEntries = watchStructure | unix.IN_ATTRIB
)

// localFS are the file system types whose every change inotify reports.
var localFS = []int64{
	unix.EXT4_SUPER_MAGIC, unix.TMPFS_MAGIC, unix.XFS_SUPER_MAGIC, unix.BTRFS_SUPER_MAGIC,
	unix.OVERLAYFS_SUPER_MAGIC, unix.RAMFS_MAGIC, unix.F2FS_SUPER_MAGIC, 0x2fc12fc1, /* zfs */
}

// Bounds of what vouch watches: past them the watch starts over (every
// watch removed, a new generation), so that a session wandering through
// many directories keeps a bounded number of watches and kernel memory.
const (
	maxVouched      = 256  // directories watched for their entries
	maxVouchWatches = 1024 // watches vouch added, the chains above them included
)

// newChangeWatch returns a watch, or nil when inotify is unavailable (every
// call then stats every file).
func newChangeWatch() *changeWatch {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil
	}
	w := &changeWatch{fds: &watchFDs{inotify: fd, mounts: -1, epoll: -1}, armed: map[string]bool{},
		local: map[int64]bool{}, buf: make([]byte, 16*(unix.SizeofInotifyEvent+unix.NAME_MAX+1))}
	w.forgetAll()
	for _, t := range localFS {
		w.local[t] = true
	}
	runtime.AddCleanup(w, func(f *watchFDs) {
		for _, fd := range []int{f.inotify, f.mounts, f.epoll} {
			if fd >= 0 {
				unix.Close(fd)
			}
		}
	}, w.fds)
	return w
}

// forgetAll empties the watch's books (the descriptor's watches are the
// caller's to remove).
func (w *changeWatch) forgetAll() {
	w.dirs, w.wds, w.gone, w.noisy = map[string]*watchedDir{}, map[int]string{}, map[int]struct{}{}, map[string]bool{}
	w.vouched, w.added = 0, 0
}

// quiet reports whether none of paths can have changed since the watch was
// last armed for them. It consumes the pending events; after a false
// answer the caller stats the files and calls arm.
func (w *changeWatch) quiet(paths []string) bool {
	if w == nil {
		return false
	}
	w.calls++
	if w.changed() {
		w.dirty = true
	}
	if w.dirty {
		w.gen.Add(1)
		return false
	}
	for _, p := range paths {
		if !w.armed[p] {
			return false
		}
	}
	return true
}

// changed reports whether anything happened since it was last asked: an
// inotify event, or a mount or unmount. One epoll_wait of both descriptors
// (cheaper than a read of the inotify one when nothing did).
func (w *changeWatch) changed() bool {
	if w.fds.inotify < 0 {
		// No instance (a restart could not make one): never quiet again.
		w.armed = map[string]bool{}
		return true
	}
	if w.fds.epoll < 0 {
		return w.drain()
	}
	var n int
	var err error
	for {
		n, err = unix.EpollWait(w.fds.epoll, w.evs[:], 0)
		if err != unix.EINTR {
			break
		}
	}
	if n == 0 && err == nil {
		return false
	}
	mounts, events := err != nil, err != nil // an error: ask both
	for _, ev := range w.evs[:max(n, 0)] {
		switch int(ev.Fd) {
		case w.fds.mounts:
			mounts = true
		case w.fds.inotify:
			events = true
		}
	}
	if err != nil {
		// The epoll instance is unusable: mounts are not reported from
		// now on (nothing is vouched for), events are read.
		unix.Close(w.fds.epoll)
		w.fds.epoll = -1
		unix.Close(w.fds.mounts)
		w.fds.mounts = -1
	}
	any := false
	if mounts {
		// A mount or unmount: a watched path may name another directory
		// now (one mounted over it), whose changes no watch sees. Start
		// over.
		any = true
		w.restart()
	}
	if events && w.drain() {
		any = true
	}
	return any
}

// restart removes every watch (a new inotify instance: no event of the
// old one is still to come) and marks the watch dirty: the next question
// is answered not quiet, and the policy's files are armed again.
func (w *changeWatch) restart() {
	unix.Close(w.fds.inotify)
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		fd = -1 // every read fails: never quiet again
	}
	w.fds.inotify = fd
	if fd >= 0 && w.fds.epoll >= 0 {
		if unix.EpollCtl(w.fds.epoll, unix.EPOLL_CTL_ADD, fd, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(fd)}) != nil {
			unix.Close(w.fds.epoll)
			w.fds.epoll = -1
			unix.Close(w.fds.mounts)
			w.fds.mounts = -1
		}
	}
	w.forgetAll()
	w.armed = map[string]bool{}
	w.dirty = true
}

// openMounts opens /proc/self/mountinfo and the epoll instance of it and
// the inotify one; on any failure neither (mounts are not reported, and
// vouch vouches for nothing).
func (w *changeWatch) openMounts() {
	mounts, err := unix.Open("/proc/self/mountinfo", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		unix.Close(mounts)
		return
	}
	if unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, mounts, &unix.EpollEvent{Events: unix.EPOLLPRI, Fd: int32(mounts)}) != nil ||
		unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, w.fds.inotify, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(w.fds.inotify)}) != nil {
		unix.Close(ep)
		unix.Close(mounts)
		return
	}
	w.fds.mounts, w.fds.epoll = mounts, ep
}

// deepestWatched is the deepest of dir and the directories above it that
// is watched together with every directory above it; "" for none. It
// walks dir's own prefixes from the root down, allocating nothing (a
// clean dir); its plain twin is the chain of filepath.Dir from dir up,
// and TestDeepestWatchedIsPlain keeps them equal.
func (w *changeWatch) deepestWatched(dir string) string {
	if w == nil || !filepath.IsAbs(dir) {
		return ""
	}
	if _, ok := w.dirs["/"]; !ok {
		return ""
	}
	d, best := cleanpath.Clean(dir), "/"
	for i := 1; i <= len(d); i++ {
		if i < len(d) && d[i] != '/' {
			continue
		}
		if i == 1 && i == len(d) {
			break // d is "/"
		}
		if _, ok := w.dirs[d[:i]]; !ok {
			break
		}
		best = d[:i]
	}
	return best
}

// bump starts a new generation.
func (w *changeWatch) bump() {
	if w != nil {
		w.gen.Add(1)
	}
}

// generation is the watch's generation (see gen).
func (w *changeWatch) generation() uint64 {
	if w == nil {
		return 0
	}
	return w.gen.Load()
}

// arm watches the directories of paths. It is called before the files are
// stat'ed and read, so that a change made while they are read is an event
// of the next call.
func (w *changeWatch) arm(paths []string) {
	if w == nil {
		return
	}
	w.gen.Add(1)
	w.dirty = false
	if !w.fds.opened {
		// Opened before anything is armed: a mount after it is reported.
		w.fds.opened = true
		w.openMounts()
	}
	for _, p := range paths {
		w.armed[p] = w.armPath(p)
	}
}

// armPath watches every existing directory above p and reports whether the
// watch sees every change to p.
func (w *changeWatch) armPath(p string) bool {
	if !filepath.IsAbs(p) {
		return false
	}
	p = filepath.Clean(p)
	parent := filepath.Dir(p)
	var chain []string
	for d := parent; ; d = filepath.Dir(d) {
		chain = append(chain, d)
		if d == "/" {
			break
		}
	}
	// From the root down: stop at the first directory that does not exist
	// (its creation is an event of the one above it). A directory watched
	// already is known to be there: had it, or one above it, gone or
	// moved, its watch would have been forgotten on the event (drain).
	for i := len(chain) - 1; i >= 0; i-- {
		d := chain[i]
		mask := uint32(watchStructure)
		if d == parent {
			mask = watchContent
		}
		if have, ok := w.dirs[d]; ok && have.mask&mask == mask {
			have.policy = true
			continue
		}
		info, err := os.Lstat(d)
		if errors.Is(err, fs.ErrNotExist) {
			return true
		}
		if err != nil || info.Mode()&fs.ModeSymlink != 0 || !info.IsDir() {
			return false
		}
		if !w.watch(d, mask, info) {
			return false
		}
		w.dirs[d].policy = true
	}
	info, err := os.Lstat(p)
	if err == nil && info.Mode()&fs.ModeSymlink != 0 {
		return false
	}
	return err == nil || errors.Is(err, fs.ErrNotExist)
}

// watch adds (or widens) the watch of directory d, whose lstat is info.
func (w *changeWatch) watch(d string, mask uint32, info fs.FileInfo) bool {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok || w.fds.inotify < 0 {
		return false
	}
	var sf unix.Statfs_t
	if err := unix.Statfs(d, &sf); err != nil || !w.local[int64(sf.Type)] {
		return false
	}
	have := w.dirs[d]
	if have != nil {
		mask |= unix.IN_MASK_ADD
	}
	wd, err := unix.InotifyAddWatch(w.fds.inotify, d, mask|unix.IN_ONLYDIR|unix.IN_DONT_FOLLOW)
	if err != nil {
		return false
	}
	if have == nil {
		have = &watchedDir{}
		w.dirs[d] = have
	} else if have.wd != wd {
		delete(w.wds, have.wd) // another directory than the one watched: unlikely, as it would have been an event
	}
	have.mask |= mask &^ unix.IN_MASK_ADD
	have.wd, have.dev, have.root = wd, uint64(st.Dev), st.Uid == 0
	w.wds[wd] = d
	return true
}

// vouch reports whether the watch sees, from now on, every change that
// could alter what an lstat or readlink of an entry of dir answers (its
// type, permissions, owner, identity, link target; not its content) or
// what a listing of dir answers: each is an event, and the next call's
// generation is another. It watches dir and every directory above it as
// needed: dir for its entries (created, removed, renamed, their attributes
// changed: IN_ATTRIB, which a directory's watch reports for its entries),
// the directories above for theirs (replaced, renamed) and, when not
// owned by root, for their own attributes (permissions on the way); a
// directory owned by root only root can change, and root is not guarded
// against. When a directory on the way does not exist or is no directory,
// nothing below it exists, and its creation or replacement is an event of
// the one above: vouched too (dev 0). dev is dir's device: an entry on
// another (a mount point) is the root of another file system, whose
// changes this watch may not see. False, and nothing vouched, when a
// directory on the way is a symbolic link (a change to its target is no
// event here) or cannot be looked at, is on a file system where inotify
// misses changes, when mounts are not reported, or past the bounds.
func (w *changeWatch) vouch(dir string) (dev uint64, ok bool) {
	if w == nil || w.dirty || w.fds.inotify < 0 || w.fds.epoll < 0 || !filepath.IsAbs(dir) {
		return 0, false
	}
	dir = filepath.Clean(dir)
	if d := w.dirs[dir]; d != nil && d.leaf {
		return d.dev, true
	}
	if len(w.noisy) > 0 {
		for n := range w.noisy {
			if dir == n || strings.HasPrefix(dir, n+"/") {
				return 0, false
			}
		}
	}
	// From the root down, each directory a prefix of dir (no allocation).
	ends := make([]int, 0, 16)
	for i := 1; i < len(dir); i++ {
		if dir[i] == '/' {
			ends = append(ends, i)
		}
	}
	ends = append(ends, len(dir))
	depth := len(ends)
	if dir == "/" {
		depth = 0
	}
	for i := 0; i <= depth; i++ {
		d := "/"
		if i > 0 {
			d = dir[:ends[i-1]]
		}
		last := i == depth
		have := w.dirs[d]
		if have != nil && have.mask&watchStructure == watchStructure && (have.root && !last || have.mask&unix.IN_ATTRIB != 0) {
			if last {
				w.markLeaf(have)
			}
			continue
		}
		info, err := os.Lstat(d)
		if i > 0 && (errors.Is(err, fs.ErrNotExist) || err == nil && info.Mode()&(fs.ModeDir|fs.ModeSymlink) == 0) {
			return 0, true // not vouched for as a leaf: looked at each time
		}
		if err != nil || info.Mode()&fs.ModeSymlink != 0 || !info.IsDir() {
			return 0, false
		}
		st, isStat := info.Sys().(*syscall.Stat_t)
		if !isStat {
			return 0, false
		}
		mask := uint32(watchStructure)
		if last || st.Uid != 0 {
			mask = watchEntries
		}
		if have == nil {
			if w.added >= maxVouchWatches {
				w.restart()
				return 0, false
			}
			w.added++
		}
		if !w.watch(d, mask, info) {
			return 0, false
		}
		if last {
			w.markLeaf(w.dirs[d])
		}
	}
	if d := w.dirs[dir]; d != nil && d.leaf {
		return d.dev, true
	}
	return 0, false
}

// markLeaf marks d vouched for, within the bound (past it the watch
// starts over: d stays unmarked, and the next vouch watches afresh).
func (w *changeWatch) markLeaf(d *watchedDir) {
	if d.leaf {
		return
	}
	if w.vouched >= maxVouched {
		w.restart()
		return
	}
	w.vouched++
	d.leaf = true
}

// forget forgets the watch of directory p and of every directory below it
// (their paths may name other directories now) and removes them from the
// instance, whose IN_IGNORED for them is not news.
func (w *changeWatch) forget(p string) {
	if _, ok := w.dirs[p]; !ok {
		return // nothing below is watched either: chains run from the root
	}
	prefix := p + "/"
	if p == "/" {
		prefix = "/"
	}
	for d, x := range w.dirs {
		if d != p && !strings.HasPrefix(d, prefix) {
			continue
		}
		delete(w.dirs, d)
		if w.wds[x.wd] == d {
			delete(w.wds, x.wd)
		}
		if x.leaf {
			w.vouched--
		}
		if _, err := unix.InotifyRmWatch(w.fds.inotify, uint32(x.wd)); err == nil {
			w.gone[x.wd] = struct{}{}
		}
	}
}

// count counts an event of watched directory d for this call's drain
// (once a call), and gives d up when it is noisy.
func (w *changeWatch) count(d string) {
	x := w.dirs[d]
	if x == nil || x.policy || x.fired > 0 && x.last == w.calls {
		return
	}
	if x.fired == 0 || w.calls-x.window >= noisyCalls {
		x.window, x.fired = w.calls, 0
	}
	x.last = w.calls
	x.fired++
	if x.fired < noisyFired {
		return
	}
	if len(w.noisy) >= maxNoisy {
		clear(w.noisy)
	}
	w.noisy[d] = true
	w.forget(d)
}

// drain reads every pending event and reports whether there was any. A
// watch whose directory is gone or moved, or whose directory or one above
// it had an entry created, removed or renamed over or away, is forgotten
// with every watch below it, so that arming looks at its path again.
func (w *changeWatch) drain() bool {
	any := false
	for {
		n, err := unix.Read(w.fds.inotify, w.buf)
		if n <= 0 || err != nil {
			if err != nil && !errors.Is(err, unix.EAGAIN) && !errors.Is(err, unix.EINTR) {
				// The descriptor is unusable: never claim quiet again.
				w.armed = map[string]bool{}
				return true
			}
			return any
		}
		overflow := false
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&w.buf[off]))
			name := ""
			if ev.Len > 0 && off+unix.SizeofInotifyEvent+int(ev.Len) <= n {
				b := w.buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+int(ev.Len)]
				if i := slices.Index(b, 0); i >= 0 {
					b = b[:i]
				}
				name = string(b)
			}
			off += unix.SizeofInotifyEvent + int(ev.Len)
			wd := int(ev.Wd)
			if _, ok := w.gone[wd]; ok {
				// A watch removed on purpose: its events are of a
				// directory no longer watched.
				if ev.Mask&unix.IN_IGNORED != 0 {
					delete(w.gone, wd)
				}
				continue
			}
			any = true
			if ev.Mask&unix.IN_Q_OVERFLOW != 0 {
				overflow = true // events were lost: which watches still hold is unknown
				continue
			}
			d, ok := w.wds[wd]
			if !ok {
				continue
			}
			w.count(d)
			switch {
			case ev.Mask&(unix.IN_IGNORED|unix.IN_DELETE_SELF|unix.IN_MOVE_SELF|unix.IN_UNMOUNT) != 0:
				// The directory is gone or elsewhere now: the watch no
				// longer says anything about its path, nor those below.
				w.forget(d)
			case name != "" && ev.Mask&(unix.IN_CREATE|unix.IN_DELETE|unix.IN_MOVED_FROM|unix.IN_MOVED_TO) != 0:
				w.forget(filepath.Join(d, name))
			}
		}
		if overflow {
			w.restart()
			return true
		}
	}
}
