package export

import (
	"os"
	"os/exec"
	"time"
)

// Pending reports whether the log holds something the cursor does not
// cover (a record past it, or a log that is not the cursor's), and that
// an attempt may be made now (no outage's back-off is running). It reads
// the cursor and stats the log: what a hook process can afford after its
// answer.
func Pending(log string) (bool, error) {
	info, err := os.Stat(log)
	if err != nil {
		if os.IsNotExist(err) {
			return false, nil
		}
		return false, err
	}
	c, err := ReadCursor(log)
	if err != nil || c == nil {
		return info.Size() > 0, nil
	}
	if o := c.Outage; o != nil && time.Now().Before(o.RetryAt) {
		return false, nil
	}
	dev, ino := fileIdentity(info)
	return dev != c.Device || ino != c.Inode || info.Size() != c.Offset, nil
}

// Busy reports whether a sender holds the log's lock now. It takes the
// lock for a moment to know (a lock file it cannot open counts as busy:
// no sender can run then either).
func Busy(log string) bool {
	f, err := os.OpenFile(LockPath(log), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return true
	}
	defer f.Close()
	ok, err := tryLock(f)
	if err != nil || !ok {
		return true
	}
	unlock(f)
	return false
}

// StartDrain starts `exe args…` (toolgate export --drain …) detached when
// the log has something to send and no sender holds its lock: its own
// session, stdin, stdout and stderr on /dev/null, not waited for. A hook
// process calls it after its answer is written, and never sends itself.
// It reports whether a drain was started. Whichever drain takes the lock
// sends; one that finds it taken exits (the holder looks again after it
// lets go, so nothing appended meanwhile is left behind).
func StartDrain(log, exe string, args []string) (bool, error) {
	if more, err := Pending(log); err != nil || !more {
		return false, err
	}
	if Busy(log) {
		return false, nil
	}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return false, err
	}
	defer null.Close()
	cmd := exec.Command(exe, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = null, null, null
	cmd.SysProcAttr = detach()
	if err := cmd.Start(); err != nil {
		return false, err
	}
	// Not waited for: the drain outlives the hook. Release frees what
	// the process handle holds here.
	_ = cmd.Process.Release()
	return true, nil
}

// Behind is how much of the log at path the collector has not
// acknowledged: the complete records past the cursor and their bytes (the
// whole log when the cursor is missing, unreadable or of another file),
// for `toolgate doctor`.
func Behind(log string) (records int, bytes int64, err error) {
	f, err := os.Open(log)
	if err != nil {
		if os.IsNotExist(err) {
			return 0, 0, nil
		}
		return 0, 0, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return 0, 0, err
	}
	off := int64(0)
	if c, _ := ReadCursor(log); c != nil {
		if dev, ino := fileIdentity(info); dev == c.Device && ino == c.Inode && c.Offset <= info.Size() {
			off = c.Offset
		}
	}
	buf := make([]byte, 64<<10)
	for pos := off; ; {
		n, rerr := f.ReadAt(buf, pos)
		for _, b := range buf[:n] {
			if b == '\n' {
				records++
			}
		}
		pos += int64(n)
		if rerr != nil {
			return records, pos - off, nil
		}
	}
}
