//go:build unix

package main

import (
	"os"
	"runtime"
	"syscall"
)

// maxRSS is a finished process's peak resident memory in bytes, from its
// rusage (kilobytes on Linux, bytes on Darwin).
func maxRSS(st *os.ProcessState) int64 {
	ru, ok := st.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" {
		return int64(ru.Maxrss)
	}
	return int64(ru.Maxrss) << 10
}

// switches is how many times a finished process's threads gave up the CPU
// (voluntary: a wait, such as a read or the runtime's monitor sleeping)
// and were made to (involuntary), from its rusage.
func switches(st *os.ProcessState) (voluntary, involuntary int64) {
	ru, ok := st.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, 0
	}
	return int64(ru.Nvcsw), int64(ru.Nivcsw)
}
