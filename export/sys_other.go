//go:build !unix

package export

import (
	"errors"
	"os"
	"syscall"
)

func fileIdentity(info os.FileInfo) (dev, ino uint64) { return 0, 0 }

// tryLock: without flock there is no way to keep one sender per log, so
// there is no sender.
func tryLock(f *os.File) (bool, error) {
	return false, errors.New("export needs flock, which this system lacks")
}

func unlock(f *os.File) {}

func detach() *syscall.SysProcAttr { return nil }
