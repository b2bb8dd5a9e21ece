//go:build linux && (amd64 || arm64)

package sysstat

import (
	"strings"
	"syscall"
	"unsafe"
)

const (
	atFDCWD           = -0x64
	atSymlinkNoFollow = 0x100
)

// Lstat is syscall.Lstat.
func Lstat(path string, st *syscall.Stat_t) error {
	if len(path) >= pathBuf {
		return syscall.Lstat(path, st)
	}
	return fstatat(path, st, atSymlinkNoFollow)
}

// Stat is syscall.Stat.
func Stat(path string, st *syscall.Stat_t) error {
	if len(path) >= pathBuf {
		return syscall.Stat(path, st)
	}
	return fstatat(path, st, 0)
}

func fstatat(path string, st *syscall.Stat_t, flags int) error {
	if strings.IndexByte(path, 0) >= 0 {
		return syscall.EINVAL // as syscall's BytePtrFromString says
	}
	var buf [pathBuf]byte
	copy(buf[:], path) // the NUL after it: the buffer's zero
	fd := atFDCWD
	_, _, e := syscall.Syscall6(sysFstatat, uintptr(fd), uintptr(unsafe.Pointer(&buf[0])), uintptr(unsafe.Pointer(st)), uintptr(flags), 0, 0)
	if e != 0 {
		return e
	}
	return nil
}
