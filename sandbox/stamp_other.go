//go:build !linux

package sandbox

import (
	"os"
	"syscall"
)

// Off Linux nothing runs confined (Run fails closed); a kept walk is
// stamped by what os.Lstat says, which is enough for explain and doctor.
func stampOf(path string) (dirStamp, bool) { return stampKind(path, syscall.S_IFDIR) }

func stampKind(path string, kind uint32) (dirStamp, bool) {
	info, err := os.Lstat(path)
	if err != nil || kind == syscall.S_IFDIR && !info.IsDir() || kind == syscall.S_IFREG && !info.Mode().IsRegular() {
		return dirStamp{}, false
	}
	return dirStamp{Mtime: info.ModTime().UnixNano(), Ctime: info.Size()}, true
}
