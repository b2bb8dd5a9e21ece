//go:build linux

package policy

// restartWatch makes l's watch start over, as a mount or unmount anywhere
// does (TestWatchedLoaderIsOneShot).
func restartWatch(l *Loader) {
	if l.watch != nil {
		l.watch.restart()
	}
}
