//go:build unix

package policy

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

func inode(info fs.FileInfo) uint64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return st.Ino
	}
	return 0
}

// openNoBlock opens without blocking, so a FIFO put where a policy file
// should be never hangs the process.
const openNoBlock = syscall.O_NONBLOCK

// managedDirProblem says why dir cannot hold the managed file, or "": it
// must be an absolute path to a folder owned by root that no one else may
// write, so that no user process can put a policy there.
func managedDirProblem(dir string) string {
	if !filepath.IsAbs(dir) {
		return "not an absolute path"
	}
	info, err := os.Stat(dir)
	if err != nil {
		return err.Error()
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	switch {
	case !info.IsDir():
		return "not a folder"
	case !ok || st.Uid != 0:
		return "not owned by root"
	case info.Mode().Perm()&0o022 != 0:
		return "writable by others than its owner"
	}
	return ""
}
