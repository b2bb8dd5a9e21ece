//go:build !unix

package policy

import "io/fs"

func inode(fs.FileInfo) uint64 { return 0 }

const openNoBlock = 0

// managedDirProblem: without owners to check, TOOLGATE_MANAGED_DIR is
// never honoured.
func managedDirProblem(string) string { return "file owners cannot be checked on this system" }
