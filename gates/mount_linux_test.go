//go:build linux

package gates

import "syscall"

// mountTmpfs mounts a small tmpfs over dir (root only); unmount undoes it.
func mountTmpfs(dir string) error { return syscall.Mount("toolgate-test", dir, "tmpfs", 0, "size=64k") }

func unmount(dir string, lazy bool) error {
	flags := 0
	if lazy {
		flags = syscall.MNT_DETACH
	}
	return syscall.Unmount(dir, flags)
}
