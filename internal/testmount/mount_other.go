//go:build !linux

// Package testmount mounts and unmounts the small file systems the tests
// of the file-system watches mount over a directory (root only).
package testmount

import "errors"

// Tmpfs: mounts are Linux's here.
func Tmpfs(dir string) error { return errors.ErrUnsupported }

// Unmount: mounts are Linux's here.
func Unmount(dir string, lazy bool) error { return errors.ErrUnsupported }
