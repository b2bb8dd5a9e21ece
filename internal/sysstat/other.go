//go:build unix && !(linux && (amd64 || arm64))

package sysstat

import "syscall"

// Lstat is syscall.Lstat.
func Lstat(path string, st *syscall.Stat_t) error { return syscall.Lstat(path, st) }

// Stat is syscall.Stat.
func Stat(path string, st *syscall.Stat_t) error { return syscall.Stat(path, st) }
