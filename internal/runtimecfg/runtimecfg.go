// Package runtimecfg holds the Go runtime settings toolgate runs with, so
// that the binary and the benchmarks that speak for it use the same ones.
package runtimecfg

import (
	"os"
	"runtime/debug"
)

const (
	// GCPercent lets the heap grow to five times what is live between
	// collections instead of twice: a 64 KiB bash command allocates about
	// 2.5 MB while its syntax tree is live, and with Go's default of 100
	// the collector runs during nearly every such analysis and costs a
	// quarter of its time.
	GCPercent = 400
	// MemoryLimit is the soft limit on memory the Go runtime manages. It
	// keeps the larger GCPercent from growing the process past the
	// resident-memory budget (SPEC.md §8: under 30 MB with 10,000 rules):
	// near the limit the collector runs as often as it must.
	MemoryLimit = 20 << 20
)

// Apply sets GCPercent and MemoryLimit, except where the environment sets
// GOGC or GOMEMLIMIT, which keep precedence. It returns a function that
// restores the previous settings.
func Apply() (restore func()) {
	gc, limit := int(-2), int64(-1)
	if os.Getenv("GOGC") == "" {
		gc = debug.SetGCPercent(GCPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		limit = debug.SetMemoryLimit(MemoryLimit)
	}
	return func() {
		if gc != -2 {
			debug.SetGCPercent(gc)
		}
		if limit >= 0 {
			debug.SetMemoryLimit(limit)
		}
	}
}
