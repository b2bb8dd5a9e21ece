//go:build unix && !linux

package audit

import (
	"os"
	"syscall"
)

// fileID is what tells one file from another: its device and inode.
type fileID struct{ dev, ino uint64 }

// statPath is the file path names (following links, as os.Stat) and its
// size: one stat, without the allocations of os.Stat.
func statPath(path string) (fileID, int64, error) {
	var st syscall.Stat_t
	for {
		err := syscall.Stat(path, &st)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return fileID{}, 0, &os.PathError{Op: "stat", Path: path, Err: err}
		}
		return fileID{uint64(st.Dev), uint64(st.Ino)}, st.Size, nil
	}
}

// fstatID is the file f is.
func fstatID(f *os.File) (fileID, error) {
	var st syscall.Stat_t
	for {
		err := syscall.Fstat(int(f.Fd()), &st)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return fileID{}, &os.PathError{Op: "fstat", Path: f.Name(), Err: err}
		}
		return fileID{uint64(st.Dev), uint64(st.Ino)}, nil
	}
}

func (a fileID) same(b fileID) bool { return a == b }
