//go:build unix

package audit

import (
	"os"
	"runtime"
	"runtime/debug"
	"syscall"
)

// headFile is the open head file. After its first write it is mapped
// (shared), so that the head of a later record is stored into the file's
// page cache, which every reader and writer of the file sees as it sees a
// pwrite, without a system call. A store past the end of a file that was
// cut shorter would be lost, so the file must still be a whole head:
//
//   - on Linux, cutting a file zeroes its page cache past the new end (and
//     a mapped page past the end faults), so a mapping whose last byte is
//     still a head's newline is a file at least a head long;
//   - elsewhere, an fstat tells (still cheaper than a pwrite, which
//     updates the file's times).
//
// A file that is not whole is written with pwrite, which makes it whole
// again, as is one whose store faults (cut to nothing: the fault is
// caught).
type headFile struct {
	f *os.File
	m []byte // the first headSize bytes, mapped; nil: write with pwrite
	// written counts the pwrites: the file is mapped at the second, so
	// that a process that writes one record (claude-hook) maps nothing.
	written int
}

func openHead(path string) *headFile {
	f, err := os.OpenFile(HeadPath(path), os.O_RDWR|os.O_CREATE|openNoBlock, 0o600)
	if err != nil {
		return nil
	}
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		f.Close() // a FIFO or a device keeps no head: there is none
		return nil
	}
	return &headFile{f: f}
}

// write rewrites the head record rec (headSize bytes) in place.
func (h *headFile) write(rec []byte) {
	if h.m != nil && h.store(rec) {
		return
	}
	h.unmap()
	if _, err := h.f.WriteAt(rec, 0); err != nil {
		return
	}
	if h.written++; h.written < 2 {
		return
	}
	if info, err := h.f.Stat(); err == nil && info.Size() >= headSize {
		h.m, _ = syscall.Mmap(int(h.f.Fd()), 0, headSize, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	}
}

// store copies rec into the mapping when the file is whole; false when it
// is not, or when touching the mapping faulted (SIGBUS: the file is
// shorter than the mapping now).
func (h *headFile) store(rec []byte) (ok bool) {
	if runtime.GOOS != "linux" {
		var st syscall.Stat_t
		if syscall.Fstat(int(h.f.Fd()), &st) != nil || st.Size != headSize {
			return false
		}
	}
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if recover() != nil {
			ok = false
		}
	}()
	if h.m[headSize-1] != '\n' {
		return false // cut shorter (the rest was zeroed), or not a head
	}
	copy(h.m, rec)
	return true
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
