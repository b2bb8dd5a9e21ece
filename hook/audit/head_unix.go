//go:build unix

package audit

import (
	"os"
	"runtime/debug"
	"syscall"
)

// headFile is the open head file. After its first write it is mapped
// (shared), so that the head of a later record is stored into the file's
// page cache, which every reader and writer of the file sees as it sees a
// pwrite, after an fstat (much cheaper than a pwrite, which updates the
// file's times) shows the file is still a whole head: a store into a
// mapping past the end of a file cut shorter would be lost.
type headFile struct {
	f *os.File
	m []byte // the first headSize bytes, mapped; nil: write with pwrite
}

func openHead(path string) *headFile {
	f, err := os.OpenFile(HeadPath(path), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil
	}
	return &headFile{f: f}
}

// write rewrites the head record in place. A file that is not headSize
// long (cut shorter or emptied by someone else) is written with pwrite,
// which makes it whole again, as is one that faults (cut to nothing
// between the fstat and the store: the fault is caught).
func (h *headFile) write(rec []byte) {
	if h.m != nil && h.whole() && h.store(rec) {
		return
	}
	h.unmap()
	if _, err := h.f.WriteAt(rec, 0); err != nil {
		return
	}
	if info, err := h.f.Stat(); err == nil && info.Size() >= headSize {
		h.m, _ = syscall.Mmap(int(h.f.Fd()), 0, headSize, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	}
}

// store copies rec into the mapping; false when that faulted (SIGBUS: the
// file is shorter than the mapping now).
func (h *headFile) store(rec []byte) (ok bool) {
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if recover() != nil {
			ok = false
		}
	}()
	copy(h.m, rec)
	return true
}

// whole reports whether the file is a head's size.
func (h *headFile) whole() bool {
	var st syscall.Stat_t
	return syscall.Fstat(int(h.f.Fd()), &st) == nil && st.Size == headSize
}

func (h *headFile) unmap() {
	if h.m != nil {
		_ = syscall.Munmap(h.m)
		h.m = nil
	}
}

func (h *headFile) close() {
	h.unmap()
	h.f.Close()
}
