//go:build !unix

package policy

import "io/fs"

func inode(fs.FileInfo) uint64 { return 0 }

const openNoBlock = 0
