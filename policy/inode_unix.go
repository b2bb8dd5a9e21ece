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
