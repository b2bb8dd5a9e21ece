//go:build !unix

package audit

import "os"

// headFile is the open head file, written with pwrite.
type headFile struct{ f *os.File }

func openHead(path string) *headFile {
	f, err := os.OpenFile(HeadPath(path), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil
	}
	return &headFile{f: f}
}

func (h *headFile) write(rec []byte) { _, _ = h.f.WriteAt(rec, 0) }

func (h *headFile) close() { h.f.Close() }
