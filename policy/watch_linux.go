//go:build linux

package policy

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// changeWatch tells the loader when a policy file may have changed, so that
// a call costs one non-blocking read of an inotify descriptor instead of a
// stat per file, and an edit still takes effect on the very next call: the
// kernel queues the event before the writer's system call returns.
//
// The read stays on every call on purpose. A goroutine parked on the
// descriptor (in the netpoller) that bumps a generation when it wakes would
// make a quiet call free of system calls, but not exact: the event is
// queued when the write returns, the goroutine runs some time later, and a
// host that writes the file and then the next request can have that
// request decided before the goroutine ran — with the old policy. Only
// asking the kernel on the call's own path (this read) orders the two.
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
	fd    int
	masks map[string]uint32 // watched directory → the events asked for
	dirs  map[int]string    // watch descriptor → directory
	armed map[string]bool   // policy path → every change to it is an event
	local map[int64]bool    // file system type → inotify sees every change
	dirty bool
	buf   []byte
	// gen counts the times the watch was not quiet: what was learnt of a
	// watched directory under one generation holds until the next.
	gen uint64
}

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
)

// localFS are the file system types whose every change inotify reports.
var localFS = []int64{
	unix.EXT4_SUPER_MAGIC, unix.TMPFS_MAGIC, unix.XFS_SUPER_MAGIC, unix.BTRFS_SUPER_MAGIC,
	unix.OVERLAYFS_SUPER_MAGIC, unix.RAMFS_MAGIC, unix.F2FS_SUPER_MAGIC, 0x2fc12fc1, /* zfs */
}

// newChangeWatch returns a watch, or nil when inotify is unavailable (every
// call then stats every file).
func newChangeWatch() *changeWatch {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil
	}
	w := &changeWatch{fd: fd, masks: map[string]uint32{}, dirs: map[int]string{}, armed: map[string]bool{},
		local: map[int64]bool{}, buf: make([]byte, 16*(unix.SizeofInotifyEvent+unix.NAME_MAX+1))}
	for _, t := range localFS {
		w.local[t] = true
	}
	runtime.AddCleanup(w, func(fd int) { unix.Close(fd) }, fd)
	return w
}

// quiet reports whether none of paths can have changed since the watch was
// last armed for them. It consumes the pending events; after a false
// answer the caller stats the files and calls arm.
func (w *changeWatch) quiet(paths []string) bool {
	if w == nil {
		return false
	}
	if w.drain() {
		w.dirty = true
	}
	if w.dirty {
		w.gen++
		return false
	}
	for _, p := range paths {
		if !w.armed[p] {
			return false
		}
	}
	return true
}

// deepestWatched is the deepest of dir and the directories above it that
// is watched together with every directory above it; "" for none.
func (w *changeWatch) deepestWatched(dir string) string {
	if w == nil || !filepath.IsAbs(dir) {
		return ""
	}
	best := ""
	var chain []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		chain = append(chain, d)
		if d == "/" {
			break
		}
	}
	for i := len(chain) - 1; i >= 0; i-- {
		if _, ok := w.masks[chain[i]]; !ok {
			break
		}
		best = chain[i]
	}
	return best
}

// generation is the watch's generation (see gen).
func (w *changeWatch) generation() uint64 {
	if w == nil {
		return 0
	}
	return w.gen
}

// arm watches the directories of paths. It is called before the files are
// stat'ed and read, so that a change made while they are read is an event
// of the next call.
func (w *changeWatch) arm(paths []string) {
	if w == nil {
		return
	}
	w.gen++
	w.dirty = false
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
	// already is known to be there: had it gone or moved, its watch would
	// have been dropped on the event.
	for i := len(chain) - 1; i >= 0; i-- {
		d := chain[i]
		mask := uint32(watchStructure)
		if d == parent {
			mask = watchContent
		}
		if have, ok := w.masks[d]; ok && have&mask == mask {
			continue
		}
		info, err := os.Lstat(d)
		if errors.Is(err, fs.ErrNotExist) {
			return true
		}
		if err != nil || info.Mode()&fs.ModeSymlink != 0 || !info.IsDir() {
			return false
		}
		if !w.watch(d, mask) {
			return false
		}
	}
	info, err := os.Lstat(p)
	if err == nil && info.Mode()&fs.ModeSymlink != 0 {
		return false
	}
	return err == nil || errors.Is(err, fs.ErrNotExist)
}

// watch adds (or widens) the watch of directory d.
func (w *changeWatch) watch(d string, mask uint32) bool {
	var st unix.Statfs_t
	if err := unix.Statfs(d, &st); err != nil || !w.local[int64(st.Type)] {
		return false
	}
	if _, ok := w.masks[d]; ok {
		mask |= unix.IN_MASK_ADD
	}
	wd, err := unix.InotifyAddWatch(w.fd, d, mask|unix.IN_ONLYDIR|unix.IN_DONT_FOLLOW)
	if err != nil {
		return false
	}
	w.masks[d] |= mask
	w.dirs[wd] = d
	return true
}

// drain reads every pending event and reports whether there was any. A
// watch whose directory is gone or moved is forgotten, so that arming
// looks at its path again.
func (w *changeWatch) drain() bool {
	any := false
	for {
		n, err := unix.Read(w.fd, w.buf)
		if n <= 0 || err != nil {
			if err != nil && !errors.Is(err, unix.EAGAIN) && !errors.Is(err, unix.EINTR) {
				// The descriptor is unusable: never claim quiet again.
				w.armed = map[string]bool{}
				return true
			}
			return any
		}
		any = true
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&w.buf[off]))
			if ev.Mask&(unix.IN_IGNORED|unix.IN_DELETE_SELF|unix.IN_MOVE_SELF) != 0 {
				// The directory is gone or elsewhere now: the watch no
				// longer says anything about its path.
				if d, ok := w.dirs[int(ev.Wd)]; ok {
					delete(w.masks, d)
					delete(w.dirs, int(ev.Wd))
					_, _ = unix.InotifyRmWatch(w.fd, uint32(ev.Wd))
				}
			}
			off += unix.SizeofInotifyEvent + int(ev.Len)
		}
	}
}
