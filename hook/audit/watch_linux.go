//go:build linux

package audit

import (
	"encoding/binary"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// pathWatch tells a record, without a look up of the log's path, that the
// path still names the open file: an inotify watch of the file and of
// every directory on the way to it from /, and a watch of the mount table
// (a file system mounted over a directory on the way replaces it without a
// directory event), both read by one epoll_wait that finds nothing ready
// while nothing changed. A record then needs only the file's size
// (lseek), which tells whether another writer appended.
//
// What it watches, for a path /d1/…/dn/name (absolute, without "..", no
// symbolic link on the way: anything else is not watched and every record
// stats the path):
//
//   - each directory /, /d1, …, /dn: the creation, deletion and moves of
//     the next name on the way (an event about another name is read and
//     ignored), its own move and deletion; not its attributes (as policy's
//     watch: a chmod changes neither which file the path names nor what
//     is in it, and a watch of a directory's attributes makes the kernel
//     walk every name it caches in it, milliseconds for / or /tmp);
//   - the file: its move, deletion and attribute change (the link count);
//   - the mount table of the process (/proc/self/mountinfo: any mount or
//     unmount).
//
// Any of those, an event it cannot read, an overflow of the queue or an
// error of any call ends the watch: that record stats the path as before
// (the only judge of whether the path still names the file) and, when it
// does, the watch is armed again: its watches first, from / down, then a
// look at the path (not following a link at its end) that must still find
// the file, so that any change after that look is an event of the new
// watch. A directory or the file on a file system whose every change
// inotify does not report (network, FUSE) is not watched. Events are
// queued before the call that made the change returns, so a change made
// before a record took the lock is seen by that record.
// TestWatchDecidesAsTheStat keeps it equal to the stat it stands for.
type pathWatch struct {
	in, ep, mounts int // inotify, epoll and mountinfo descriptors; -1: closed
	armed          bool
	dirs           []dirWatch
	file           int32   // the watch descriptor of the file
	wds            []int32 // every watch added since the last disarm
	// records counts the records looked at while not armed: a watch is
	// armed at the second (a process that writes one record, as
	// claude-hook does, pays nothing for it); skip is how many more to
	// look at after an arming that failed before trying again (wait, the
	// next skip).
	records    int
	skip, wait int
	// hits counts the records the watch answered, armedAt is hits when it
	// was armed, and arms counts the armings (for tests).
	hits, armedAt uint64
	arms          int
	// busy counts the watches ended by events about other names that
	// kept coming (or overflowed the queue): a busy directory on the way,
	// such as a shared /tmp, not a change of the way (for tests).
	busy int
	evs  [4]unix.EpollEvent
	buf  []byte
}

// dirWatch is a directory on the way and the name in it that leads on.
type dirWatch struct {
	wd   int32
	next string
}

const (
	watchDirMask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO |
		unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_ONLYDIR | unix.IN_DONT_FOLLOW
	watchFileMask = unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_ATTRIB | unix.IN_DONT_FOLLOW
	// watchEnds are the events that end a watch whatever they are about.
	watchEnds = unix.IN_Q_OVERFLOW | unix.IN_IGNORED | unix.IN_UNMOUNT |
		unix.IN_DELETE_SELF | unix.IN_MOVE_SELF
)

// watchedFS reports that t is a file system type whose every change
// inotify reports (policy's watch trusts the same ones).
func watchedFS(t int64) bool {
	switch t {
	case unix.EXT4_SUPER_MAGIC, unix.TMPFS_MAGIC, unix.XFS_SUPER_MAGIC, unix.BTRFS_SUPER_MAGIC,
		unix.OVERLAYFS_SUPER_MAGIC, unix.RAMFS_MAGIC, unix.F2FS_SUPER_MAGIC, 0x2fc12fc1 /* zfs */ :
		return true
	}
	return false
}

func newPathWatch() pathWatch { return pathWatch{in: -1, ep: -1, mounts: -1, wait: 64} }

// unchanged reports that nothing the watch watches changed since it was
// armed (events about other names are read and dropped). False ends the
// watch: the record must stat the path.
func (w *pathWatch) unchanged() bool {
	if !w.armed {
		return false
	}
	n, err := unix.EpollWait(w.ep, w.evs[:], 0)
	if err != nil {
		w.end()
		return false
	}
	for _, ev := range w.evs[:n] {
		if ev.Fd != int32(w.in) || ev.Events != unix.EPOLLIN || !w.drain() {
			w.end()
			return false
		}
	}
	w.hits++
	return true
}

// end disarms a watch that something ended. One that ended soon after it
// was armed (the way keeps changing) is armed again only some records
// later, and later each time, so that arming (some twenty system calls)
// never costs more than the stats it saves.
func (w *pathWatch) end() {
	if w.hits-w.armedAt < 16 {
		w.skip, w.wait = w.wait, min(2*w.wait, 4096)
	} else {
		w.wait = 64
	}
	w.disarm()
}

// drain reads the queued events; false when one of them is about the way
// to the file (or cannot be read), or when they keep coming.
func (w *pathWatch) drain() bool {
	for range 64 {
		n, err := unix.Read(w.in, w.buf)
		switch {
		case err == unix.EAGAIN:
			return true
		case err == unix.EINTR:
			continue
		case err != nil || n <= 0 || !w.unrelated(w.buf[:n]):
			return false
		}
	}
	w.busy++
	return false
}

// unrelated reports that every event in b is about a name off the way.
func (w *pathWatch) unrelated(b []byte) bool {
	for len(b) > 0 {
		if len(b) < unix.SizeofInotifyEvent {
			return false
		}
		wd := int32(binary.NativeEndian.Uint32(b[0:]))
		mask := binary.NativeEndian.Uint32(b[4:])
		size := int(binary.NativeEndian.Uint32(b[12:]))
		if len(b) < unix.SizeofInotifyEvent+size {
			return false
		}
		name := b[unix.SizeofInotifyEvent : unix.SizeofInotifyEvent+size]
		for len(name) > 0 && name[len(name)-1] == 0 {
			name = name[:len(name)-1]
		}
		if !w.offTheWay(wd, mask, name) {
			return false
		}
		b = b[unix.SizeofInotifyEvent+size:]
	}
	return true
}

// offTheWay reports that one event is about another name in a directory
// on the way: nothing the path goes through.
func (w *pathWatch) offTheWay(wd int32, mask uint32, name []byte) bool {
	if mask&unix.IN_Q_OVERFLOW != 0 {
		w.busy++
		return false
	}
	if mask&watchEnds != 0 || len(name) == 0 {
		return false
	}
	for _, d := range w.dirs {
		if d.wd == wd {
			return string(name) != d.next
		}
	}
	return false // the file's, or a watch it does not know
}

// want reports that a record whose stat of the path found the file should
// arm the watch.
func (w *pathWatch) want() bool {
	if w.armed {
		return false
	}
	if w.records++; w.records < 2 {
		return false
	}
	if w.skip > 0 {
		w.skip--
		return false
	}
	return true
}

// arm watches the way to path, which a stat found naming the file id: it
// adds the watches from / down, then checks (a stat of the path that does
// not follow a link at its end) that the path still names id, so that a
// change after that check is an event. An arming that fails leaves the
// watch unarmed and is tried again some records later.
//
// The inotify instance is kept from arming to arming (the watches of the
// last one are removed): closing one waits for the kernel to retire its
// watches, milliseconds a record would wait.
func (w *pathWatch) arm(path string, id fileID) {
	w.arms++
	if !w.add(path, id) {
		w.disarm()
		w.skip, w.wait = w.wait, min(2*w.wait, 4096)
		return
	}
	w.armed, w.armedAt = true, w.hits
}

func (w *pathWatch) add(path string, id fileID) bool {
	// A path that is not clean names what its clean form names, but for
	// "..", which goes up from where a link led.
	if p := filepath.Clean(path); p != path {
		if strings.Contains(path, "..") {
			return false
		}
		path = p
	}
	if !filepath.IsAbs(path) || path == "/" || !w.open() {
		return false
	}
	w.disarm()
	// What is queued is about the watches just removed, or from before:
	// read and dropped, with a change of the mount table (the watches
	// below are added after it).
	for i := 0; ; i++ {
		n, err := unix.EpollWait(w.ep, w.evs[:], 0)
		if err != nil || i == 8 {
			return false
		}
		if n == 0 {
			break
		}
		for {
			if _, err := unix.Read(w.in, w.buf); err == unix.EAGAIN {
				break
			} else if err != nil && err != unix.EINTR {
				return false
			}
		}
	}
	// From / down: a directory is watched before the name in it is
	// looked up, so that a change after that is an event.
	dir, rest := "/", path[1:]
	for {
		next, more, deeper := strings.Cut(rest, "/")
		wd, ok := w.watch(dir, watchDirMask)
		if !ok {
			return false
		}
		w.dirs = append(w.dirs, dirWatch{wd, next})
		if !deeper {
			break
		}
		dir, rest = filepath.Join(dir, next), more
	}
	wd, ok := w.watch(path, watchFileMask)
	if !ok {
		return false
	}
	w.file = wd
	// The name itself is the file, not a link to it (the watch is of what
	// the name is).
	var st unix.Statx_t
	if unix.Statx(unix.AT_FDCWD, path, unix.AT_SYMLINK_NOFOLLOW|unix.AT_STATX_SYNC_AS_STAT, statMask, &st) != nil ||
		st.Mask&statMask != statMask || (fileID{unix.Mkdev(st.Dev_major, st.Dev_minor), st.Ino}) != id {
		return false
	}
	return true
}

// open opens the inotify instance, the mount table and the epoll instance
// that waits for both, once.
func (w *pathWatch) open() bool {
	if w.ep >= 0 {
		return true
	}
	var err error
	if w.mounts, err = unix.Open("/proc/self/mountinfo", unix.O_RDONLY|unix.O_CLOEXEC, 0); err == nil {
		w.in, err = unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	}
	if err == nil {
		w.ep, err = unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	}
	if err == nil {
		err = unix.EpollCtl(w.ep, unix.EPOLL_CTL_ADD, w.in, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(w.in)})
	}
	if err == nil {
		err = unix.EpollCtl(w.ep, unix.EPOLL_CTL_ADD, w.mounts, &unix.EpollEvent{Events: unix.EPOLLPRI, Fd: int32(w.mounts)})
	}
	if err != nil {
		w.close()
		return false
	}
	if w.buf == nil {
		w.buf = make([]byte, 16*(unix.SizeofInotifyEvent+unix.NAME_MAX+1))
	}
	return true
}

// watch adds the watch of p, on a file system whose changes inotify reports.
func (w *pathWatch) watch(p string, mask uint32) (int32, bool) {
	wd, err := unix.InotifyAddWatch(w.in, p, mask)
	if err != nil {
		return 0, false
	}
	w.wds = append(w.wds, int32(wd))
	var st unix.Statfs_t
	if unix.Statfs(p, &st) != nil || !watchedFS(int64(st.Type)) {
		return 0, false
	}
	return int32(wd), true
}

// disarm removes the watches (their events, and any left queued, are
// read and dropped when it is armed again).
func (w *pathWatch) disarm() {
	for _, wd := range w.wds {
		_, _ = unix.InotifyRmWatch(w.in, uint32(wd))
	}
	w.armed, w.dirs, w.wds, w.file = false, w.dirs[:0], w.wds[:0], 0
}

// close ends the watch and closes its descriptors; the inotify instance
// is closed by a goroutine of its own (see arm).
func (w *pathWatch) close() {
	w.disarm()
	if w.in >= 0 {
		go unix.Close(w.in)
		w.in = -1
	}
	for _, fd := range []*int{&w.ep, &w.mounts} {
		if *fd >= 0 {
			unix.Close(*fd)
			*fd = -1
		}
	}
}

// seekEnd is the size of f's file: an lseek to its end (no path, no
// attributes).
func seekEnd(fd uintptr) (int64, error) {
	for {
		n, err := unix.Seek(int(fd), 0, unix.SEEK_END)
		if err != unix.EINTR {
			return n, err
		}
	}
}
