//go:build !unix

package shell

import "os"

// fsExists reports whether path names an entry (a dangling symlink
// included).
func fsExists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

func fsEnterable(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.IsDir() && info.Mode().Perm()&0o111 == 0o111
}

func fsIsDir(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.IsDir()
}

// fsNames lists directory real, sorted; ok is false past the budget.
func fsNames(real string) (names []string, ok bool) {
	// Stat first: opening a FIFO for reading would block.
	if info, err := os.Stat(real); err != nil || !info.IsDir() {
		return nil, true
	}
	return fsListing(real)
}

// fsListing is fsNames of a path known to be a directory.
func fsListing(real string) (names []string, ok bool) {
	f, err := os.Open(real)
	if err != nil {
		return nil, true
	}
	defer f.Close()
	names, _ = f.Readdirnames(maxDirEntries + 1)
	return sortedNames(names)
}

// fsEntry: no device numbers here; never answered (nothing is kept).
func fsEntry(path string) (link bool, dev uint64, err error) { return true, 0, os.ErrInvalid }
