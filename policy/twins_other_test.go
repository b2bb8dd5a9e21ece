//go:build !linux

package policy

// restartWatch: only Linux has a watch to start over.
func restartWatch(*Loader) {}
