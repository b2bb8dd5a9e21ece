//go:build linux

package hook

import (
	"golang.org/x/sys/unix"
)

// fsCasefoldFl is FS_CASEFOLD_FL of linux/fs.h: a folder whose names are
// matched without regard to case (chattr +F).
const fsCasefoldFl = 0x40000000

// byteExactFS are the file systems whose names are matched byte for byte
// except in a folder flagged fsCasefoldFl (the flag is per folder and
// readable): ext4, f2fs, tmpfs and btrfs. XFS (its ASCII-CI format), ZFS
// (a dataset's casesensitivity) and overlays can match names without
// regard to case with no flag on the folder: not listed.
var byteExactFS = map[int64]bool{
	unix.EXT4_SUPER_MAGIC: true, unix.F2FS_SUPER_MAGIC: true, unix.TMPFS_MAGIC: true, unix.BTRFS_SUPER_MAGIC: true,
}

// listNames reads the names in dir, when there are at most max of them
// and a name absent from them is sure to be absent from dir: dir is a
// folder (opened without following a link) of a file system that matches
// names byte for byte and is not flagged to fold case. ok is false
// otherwise, or on any error.
//
// It reads the folder with getdents64 on the descriptor it opened until
// the end (a read of nothing): a small folder is two reads, where
// os.File's Readdirnames took a fcntl to wrap the descriptor and, asked
// for at most max+1 names, a third read to be sure of the end.
// TestListNames and TestListNamesOfLargeFolders keep it to what it lists.
func listNames(dir string, max int) (names []string, ok bool) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, false
	}
	defer unix.Close(fd)
	var st unix.Statfs_t
	if unix.Fstatfs(fd, &st) != nil || !byteExactFS[int64(st.Type)] {
		return nil, false
	}
	flags, err := unix.IoctlGetUint32(fd, unix.FS_IOC_GETFLAGS)
	if err != nil || flags&fsCasefoldFl != 0 {
		return nil, false
	}
	buf := make([]byte, direntBuf)
	for {
		n, err := unix.Getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n < 0 {
			return nil, false
		}
		if n == 0 {
			return names, true
		}
		_, _, names = unix.ParseDirent(buf[:n], -1, names)
		if len(names) > max {
			return nil, false
		}
	}
}

// direntBuf is the size of listNames's buffer: a read of a folder of a few
// dozen names, as os.File reads one.
const direntBuf = 8 << 10

// statfsType answers whether a path's file system is one listNames lists
// (for tests).
type statfsType struct{}

func (statfsType) byteExact(p string) bool {
	var st unix.Statfs_t
	return unix.Statfs(p, &st) == nil && byteExactFS[int64(st.Type)]
}
