//go:build linux

// Package testmount mounts and unmounts the small file systems the tests
// of the file-system watches mount over a directory (root only).
package testmount

import "syscall"

// Tmpfs mounts a small tmpfs over dir.
func Tmpfs(dir string) error { return syscall.Mount("toolgate-test", dir, "tmpfs", 0, "size=64k") }

// Unmount undoes a mount at dir; lazy detaches it even while it is busy.
func Unmount(dir string, lazy bool) error {
	flags := 0
	if lazy {
		flags = syscall.MNT_DETACH
	}
	return syscall.Unmount(dir, flags)
}
