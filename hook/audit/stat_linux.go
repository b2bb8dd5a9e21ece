//go:build linux

package audit

import (
	"os"

	"golang.org/x/sys/unix"
)

// fileID is what tells one file from another: its device and inode.
type fileID struct{ dev, ino uint64 }

// statMask is what a record's look at the log asks for: the inode (with the
// device, always filled) and the size, not the times. A stat that reports
// the times marks them as looked at, and a file system with multigrain
// timestamps (ext4, xfs, btrfs, tmpfs since Linux 6.13) then gives the next
// write a fine-grained time, which is an inode update of every write
// (a journal transaction on ext4); unasked, the write keeps the coarse
// clock and updates the times once a tick.
const statMask = unix.STATX_INO | unix.STATX_SIZE

// statPath is the file path names (following links, as os.Stat) and its
// size: one statx, without the allocations of os.Stat. Its plain twin is
// stat(2) (statPathOld); TestStatPathIsStat keeps them equal.
func statPath(path string) (fileID, int64, error) {
	var st unix.Statx_t
	for {
		err := unix.Statx(unix.AT_FDCWD, path, unix.AT_STATX_SYNC_AS_STAT, statMask, &st)
		if err == unix.EINTR {
			continue
		}
		if err == unix.ENOSYS {
			return statPathOld(path)
		}
		if err != nil {
			return fileID{}, 0, &os.PathError{Op: "statx", Path: path, Err: err}
		}
		if st.Mask&statMask != statMask {
			return statPathOld(path) // not reported: ask as before
		}
		return fileID{unix.Mkdev(st.Dev_major, st.Dev_minor), st.Ino}, int64(st.Size), nil
	}
}

// statPathOld is statPath by stat(2), where statx does not answer.
func statPathOld(path string) (fileID, int64, error) {
	var st unix.Stat_t
	for {
		err := unix.Stat(path, &st)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fileID{}, 0, &os.PathError{Op: "stat", Path: path, Err: err}
		}
		return fileID{devID(uint64(st.Dev)), st.Ino}, st.Size, nil
	}
}

// fstatID is the file f is, asked as statPath asks (so that the two
// compare: the same call, the same encoding of the device).
func fstatID(f *os.File) (fileID, error) {
	var st unix.Statx_t
	for {
		err := unix.Statx(int(f.Fd()), "", unix.AT_EMPTY_PATH|unix.AT_STATX_SYNC_AS_STAT, statMask, &st)
		if err == unix.EINTR {
			continue
		}
		if err == unix.ENOSYS || err == nil && st.Mask&statMask != statMask {
			return fstatIDOld(f)
		}
		if err != nil {
			return fileID{}, &os.PathError{Op: "statx", Path: f.Name(), Err: err}
		}
		return fileID{unix.Mkdev(st.Dev_major, st.Dev_minor), st.Ino}, nil
	}
}

// devID is a device number of stat(2) in statx's encoding (Mkdev).
func devID(dev uint64) uint64 { return unix.Mkdev(unix.Major(dev), unix.Minor(dev)) }

func fstatIDOld(f *os.File) (fileID, error) {
	var st unix.Stat_t
	for {
		err := unix.Fstat(int(f.Fd()), &st)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fileID{}, &os.PathError{Op: "fstat", Path: f.Name(), Err: err}
		}
		return fileID{devID(uint64(st.Dev)), st.Ino}, nil
	}
}

func (a fileID) same(b fileID) bool { return a == b }
