//go:build unix

package policy

import (
	"io/fs"
	"syscall"
)

func inode(info fs.FileInfo) uint64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return st.Ino
	}
	return 0
}

// openNoBlock opens without blocking, so a FIFO put where a policy file
// should be never hangs the process (SPEC §1.3).
const openNoBlock = syscall.O_NONBLOCK
