//go:build !linux

package policy

// changeWatch is only implemented on Linux; elsewhere every call stats
// every policy file.
type changeWatch struct{}

func newChangeWatch() *changeWatch                  { return nil }
func (w *changeWatch) quiet(paths []string) bool    { return false }
func (w *changeWatch) arm(paths []string)           {}
func (w *changeWatch) bump()                        {}
func (w *changeWatch) generation() uint64           { return 0 }
func (w *changeWatch) deepestWatched(string) string { return "" }
func (w *changeWatch) vouch(string) (uint64, bool)  { return 0, false }
