//go:build !unix

package audit

import "os"

// fileID is what tells one file from another (os.SameFile).
type fileID struct{ info os.FileInfo }

func (a fileID) same(b fileID) bool {
	return a.info != nil && b.info != nil && os.SameFile(a.info, b.info)
}

func statPath(path string) (fileID, int64, error) {
	info, err := os.Stat(path)
	if err != nil {
		return fileID{}, 0, err
	}
	return fileID{info}, info.Size(), nil
}

func fstatID(f *os.File) (fileID, error) {
	info, err := f.Stat()
	if err != nil {
		return fileID{}, err
	}
	return fileID{info}, nil
}
