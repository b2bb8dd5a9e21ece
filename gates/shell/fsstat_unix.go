//go:build unix

package shell

import "syscall"

// fsExists reports whether path names an entry (a dangling symlink
// included): os.Lstat's answer, without the FileInfo it allocates.
func fsExists(path string) bool {
	var st syscall.Stat_t
	for {
		err := syscall.Lstat(path, &st)
		if err != syscall.EINTR {
			return err == nil
		}
	}
}
