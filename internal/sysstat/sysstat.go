// Package sysstat is lstat(2) and stat(2) into a caller's Stat_t without
// the allocation syscall.Lstat and syscall.Stat make for the path's bytes:
// on Linux (amd64, arm64) a path shorter than pathBuf is copied, with its
// NUL, into a buffer on the stack. Elsewhere, and for a longer path, they
// are syscall's own. syscall's are their plain twins; TestIsSyscall keeps
// them equal. Neither retries on EINTR: the callers do.
package sysstat

// pathBuf is the longest path (with its NUL) a call copies to the stack.
const pathBuf = 512
