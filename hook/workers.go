package hook

import "sync/atomic"

// keptWorkers is how many handler goroutines wait for the next request
// instead of ending.
const keptWorkers = 4

// workers runs request handlers. A handler's call chain (JSON decoding, the
// bash parser, the gates, the audit log) needs a deeper stack than a new
// goroutine starts with; a few goroutines kept between requests keep their
// grown stacks, so that a request does not pay for growing one again. When
// none is idle, a request gets a goroutine of its own as before: a handler
// waiting for the host's answer to a prompt never holds up another request.
type workers struct {
	queue chan func() // unbuffered: a send succeeds only to an idle worker
	done  chan struct{}
	kept  atomic.Int32
}

func newWorkers() *workers {
	return &workers{queue: make(chan func()), done: make(chan struct{})}
}

// Go runs f on an idle worker, or on a new goroutine.
func (w *workers) Go(f func()) {
	select {
	case w.queue <- f:
	default:
		go w.run(f)
	}
}

func (w *workers) run(f func()) {
	f()
	if w.kept.Add(1) > keptWorkers {
		w.kept.Add(-1)
		return
	}
	defer w.kept.Add(-1)
	for {
		select {
		case f := <-w.queue:
			f()
		case <-w.done:
			return
		}
	}
}

// Stop lets the idle workers end; handlers still running finish first.
func (w *workers) Stop() { close(w.done) }
