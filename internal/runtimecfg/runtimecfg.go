// Package runtimecfg holds the Go runtime settings toolgate runs with, so
// that the binary and the benchmarks that speak for it use the same ones.
package runtimecfg

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
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
	// resident-memory budget (under 30 MB with 10,000 rules):
	// near the limit the collector runs as often as it must.
	MemoryLimit = 20 << 20
	// limitHeadroom is what the limit keeps above twice the live heap when
	// a very large policy makes that more than MemoryLimit.
	limitHeadroom = 4 << 20
)

// Apply sets GCPercent and MemoryLimit, except where the environment sets
// GOGC or GOMEMLIMIT, which keep precedence. After each collection the
// limit is raised above what is live when that is more than MemoryLimit
// leaves room for (a policy of far more rules than the budget's): the
// process then grows instead of collecting without end. Apply returns a
// function that restores the previous settings.
func Apply() (restore func()) {
	gc, limit := int(-2), int64(-1)
	if os.Getenv("GOGC") == "" {
		gc = debug.SetGCPercent(GCPercent)
	}
	w := &watcher{}
	if os.Getenv("GOMEMLIMIT") == "" {
		limit = debug.SetMemoryLimit(MemoryLimit)
		w.start()
	}
	return func() {
		w.stop()
		if gc != -2 {
			debug.SetGCPercent(gc)
		}
		if limit >= 0 {
			debug.SetMemoryLimit(limit)
		}
	}
}

// fitLimit returns the memory limit for a live heap of live bytes.
func fitLimit(live uint64) int64 {
	return max(MemoryLimit, int64(2*live)+limitHeadroom)
}

// sentinel is an object whose finalizer runs after a collection found it
// unreachable; it is large enough not to share a block with other small
// objects, which would keep its finalizer from running.
type sentinel struct{ _ [64]byte }

// watcher fits the memory limit to the live heap after every collection,
// until stopped. What is live is the runtime's own figure of the last
// collection (runtime/metrics' /gc/heap/live:bytes), read only in the
// finalizer, so a process that never collects (a hook host's one call)
// never reads it. Not MemStats.HeapAlloc: read when the finalizer gets to
// run, it also counts what was allocated since, which raised the limit
// past the resident-memory budget under a steady stream of calls.
type watcher struct {
	mu      sync.Mutex
	stopped bool
	sample  [1]metrics.Sample
}

func (w *watcher) start() {
	runtime.SetFinalizer(new(sentinel), w.afterCollection)
}

func (w *watcher) afterCollection(*sentinel) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return
	}
	w.sample[0].Name = "/gc/heap/live:bytes"
	metrics.Read(w.sample[:])
	if w.sample[0].Value.Kind() == metrics.KindUint64 {
		debug.SetMemoryLimit(fitLimit(w.sample[0].Value.Uint64()))
	}
	runtime.SetFinalizer(new(sentinel), w.afterCollection)
}

func (w *watcher) stop() {
	w.mu.Lock()
	w.stopped = true
	w.mu.Unlock()
}
