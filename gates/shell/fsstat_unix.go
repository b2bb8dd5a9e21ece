//go:build unix

package shell

import (
	"syscall"

	"github.com/toolgate/toolgate/internal/sysstat"
)

// fsExists reports whether path names an entry (a dangling symlink
// included): os.Lstat's answer, without the FileInfo it allocates.
// TestFSNamesIsOS keeps it equal to os.Lstat.
func fsExists(path string) bool {
	var st syscall.Stat_t
	for {
		err := sysstat.Lstat(path, &st)
		if err != syscall.EINTR {
			return err == nil
		}
	}
}

// fsStat is os.Stat's mode bits of path (links followed), without the
// FileInfo it allocates. TestFSNamesIsOS keeps it equal to os.Stat,
// through fsIsDir and fsEnterable.
func fsStat(path string) (mode uint32, ok bool) {
	var st syscall.Stat_t
	for {
		err := sysstat.Stat(path, &st)
		if err != syscall.EINTR {
			return uint32(st.Mode), err == nil
		}
	}
}

// fsEnterable reports whether path is a directory everyone may enter.
func fsEnterable(path string) bool {
	mode, ok := fsStat(path)
	return ok && mode&syscall.S_IFMT == syscall.S_IFDIR && mode&0o111 == 0o111
}

func fsIsDir(path string) bool {
	mode, ok := fsStat(path)
	return ok && mode&syscall.S_IFMT == syscall.S_IFDIR
}

// fsNames lists directory real, sorted; ok is false past the budget. A
// path that is not a readable directory has no names. Opened
// with O_DIRECTORY, a FIFO is refused rather than blocking, and one open
// takes the place of os.Stat and os.Open (which also sets the descriptor
// up for the poller): the same answers in 4 system calls instead of 10.
// Its plain twin is os.Stat and os.File.Readdirnames (osNames in the
// test); TestFSNamesIsOS keeps them equal.
func fsNames(real string) (names []string, ok bool) { return fsListing(real) }

// fsListing is fsNames of a path known to be a directory.
func fsListing(real string) (names []string, ok bool) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(real, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, true
	}
	defer syscall.Close(fd)
	buf := make([]byte, 8192) // os.File's directory buffer
	for len(names) <= maxDirEntries {
		n, err := syscall.ReadDirent(fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || n <= 0 {
			break // what was read so far, as os.File.Readdirnames
		}
		_, _, names = syscall.ParseDirent(buf[:n], maxDirEntries+1-len(names), names)
	}
	return sortedNames(names)
}

// fsEntry is what an lstat of path says of it: whether it is a symbolic
// link, and its device.
func fsEntry(path string) (link bool, dev uint64, err error) {
	var st syscall.Stat_t
	for {
		err = sysstat.Lstat(path, &st)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return false, 0, err
	}
	return st.Mode&syscall.S_IFMT == syscall.S_IFLNK, uint64(st.Dev), nil
}
