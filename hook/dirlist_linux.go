//go:build linux

package hook

import (
	"io"
	"os"

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
func listNames(dir string, max int) (names []string, ok bool) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, false
	}
	f := os.NewFile(uintptr(fd), dir)
	defer f.Close()
	var st unix.Statfs_t
	if unix.Fstatfs(fd, &st) != nil || !byteExactFS[int64(st.Type)] {
		return nil, false
	}
	flags, err := unix.IoctlGetUint32(fd, unix.FS_IOC_GETFLAGS)
	if err != nil || flags&fsCasefoldFl != 0 {
		return nil, false
	}
	names, err = f.Readdirnames(max + 1)
	if err != nil && err != io.EOF || len(names) > max {
		return nil, false
	}
	if err == nil {
		// Fewer than asked and no end reported: read on to be sure.
		more, err2 := f.Readdirnames(1)
		if len(more) > 0 || err2 != io.EOF {
			return nil, false
		}
	}
	return names, true
}

// statfsType answers whether a path's file system is one listNames lists
// (for tests).
type statfsType struct{}

func (statfsType) byteExact(p string) bool {
	var st unix.Statfs_t
	return unix.Statfs(p, &st) == nil && byteExactFS[int64(st.Type)]
}
