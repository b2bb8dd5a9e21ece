// Package runtimecfg holds the Go runtime settings toolgate runs with, so
// that the binary and the benchmarks that speak for it use the same ones.
package runtimecfg

import (
	"math"
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
// limit is raised above what is live and the goroutine stacks when that is
// more than MemoryLimit leaves room for (a policy of far more rules than
// the budget's, or the deep stack of the parse of a command nested
// thousands deep): the process then grows instead of collecting without
// end, each collection scanning the whole stack again. Apply returns a
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

// fitLimit returns the memory limit for a live heap of live bytes and
// goroutine stacks of stacks bytes. A collection cannot free a stack in
// use; the stacks shrink again at the collections after the call that
// grew them, and the limit with them.
func fitLimit(live, stacks uint64) int64 {
	return max(MemoryLimit, int64(2*live+stacks)+limitHeadroom)
}

// sentinel is an object whose finalizer runs after a collection found it
// unreachable; it is large enough not to share a block with other small
// objects, which would keep its finalizer from running.
type sentinel struct{ _ [64]byte }

// watcher fits the memory limit to the live heap and the stacks after every
// collection, until stopped. What is live is the runtime's own figure of
// the last collection (runtime/metrics' /gc/heap/live:bytes, and
// /memory/classes/heap/stacks:bytes for the stacks), read only in the
// finalizer, so a process that never collects (a hook host's one call)
// never reads it. Not MemStats.HeapAlloc: read when the finalizer gets to
// run, it also counts what was allocated since, which raised the limit
// past the resident-memory budget under a steady stream of calls.
type watcher struct {
	mu      sync.Mutex
	stopped bool
	sample  [2]metrics.Sample
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
	w.sample[1].Name = "/memory/classes/heap/stacks:bytes"
	metrics.Read(w.sample[:])
	live, stacks := w.sample[0].Value, w.sample[1].Value
	if live.Kind() == metrics.KindUint64 && stacks.Kind() == metrics.KindUint64 {
		debug.SetMemoryLimit(fitLimit(live.Uint64(), stacks.Uint64()))
	}
	runtime.SetFinalizer(new(sentinel), w.afterCollection)
}

func (w *watcher) stop() {
	w.mu.Lock()
	w.stopped = true
	w.mu.Unlock()
}

// paused counts the callers of PauseCollector that have not resumed.
var paused struct {
	mu    sync.Mutex
	n     int
	gc    int
	limit int64
}

// PauseCollector stops the collector until the returned resume is called,
// for work whose memory is live until it ends anyway (the syntax tree of a
// large command) and which may hold a stack so deep that each collection
// scanning it costs more than the work: a command nested thousands deep
// took seconds while the collector ran again and again under the memory
// limit. Pauses nest and may overlap across goroutines: the collector runs
// again when the last one resumes. Each first pause and last resume stops
// the world briefly, so this is for work of milliseconds, not microseconds.
func PauseCollector() (resume func()) {
	paused.mu.Lock()
	if paused.n == 0 {
		paused.gc = debug.SetGCPercent(-1)
		paused.limit = debug.SetMemoryLimit(math.MaxInt64)
	}
	paused.n++
	paused.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			paused.mu.Lock()
			defer paused.mu.Unlock()
			paused.n--
			if paused.n == 0 {
				debug.SetMemoryLimit(paused.limit)
				debug.SetGCPercent(paused.gc)
			}
		})
	}
}
