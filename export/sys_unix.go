//go:build unix

package export

import (
	"errors"
	"os"
	"syscall"
)

// fileIdentity is the device and inode of an open file (the cursor's
// identity of the log, with its first record's hash).
func fileIdentity(info os.FileInfo) (dev, ino uint64) {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), uint64(st.Ino)
	}
	return 0, 0
}

// tryLock takes the exclusive lock of f without waiting: false when
// another sender holds it.
func tryLock(f *os.File) (bool, error) {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, syscall.EWOULDBLOCK):
			return false, nil
		case errors.Is(err, syscall.EINTR):
			continue
		}
		return false, err
	}
}

func unlock(f *os.File) { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

// detach makes a started drain its own session: no terminal, not in the
// hook's process group, so the host waiting for the hook waits for nothing
// of it (and a signal to the hook's group does not reach it).
func detach() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
