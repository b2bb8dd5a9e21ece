//go:build !unix

package shell

import "os"

// fsExists reports whether path names an entry (a dangling symlink
// included).
func fsExists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
