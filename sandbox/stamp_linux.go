package sandbox

import "syscall"

func stampOf(path string) (dirStamp, bool) { return stampKind(path, syscall.S_IFDIR) }

// stampKind is stampOf for a file of kind (syscall.S_IFDIR, S_IFREG).
func stampKind(path string, kind uint32) (dirStamp, bool) {
	var st syscall.Stat_t
	if err := syscall.Lstat(path, &st); err != nil || st.Mode&syscall.S_IFMT != kind {
		return dirStamp{}, false
	}
	return dirStamp{Ino: st.Ino, Dev: uint64(st.Dev), Ctime: int64(st.Ctim.Sec)*1e9 + int64(st.Ctim.Nsec), Mtime: int64(st.Mtim.Sec)*1e9 + int64(st.Mtim.Nsec)}, true
}
