//go:build unix

package audit

import "syscall"

// lock takes an exclusive advisory lock so that two toolgate processes
// appending to one log keep one chain.
func (l *Log) lock() error {
	for {
		err := syscall.Flock(int(l.f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			return err
		}
	}
}

func (l *Log) unlock() { _ = syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN) }

// openNoBlock opens the log without blocking (a FIFO cannot hang it).
const openNoBlock = syscall.O_NONBLOCK
