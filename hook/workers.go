package hook

import (
	"sync"
	"sync/atomic"
	"time"
)

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

// maxInFlight is how many requests toolgate holds at once (docs/protocol.md,
// flow control: at least 1,024). A request holds its slot from the moment
// it is read until its answer is written, so when the host stops reading
// stdout toolgate stops reading stdin.
const maxInFlight = 1024

// frameWriter is the part of the stream the outbox writes with.
type frameWriter interface {
	WriteFrame(b []byte) error
	Release()
}

// outbox writes answers in the order they are decided, on one goroutine,
// and frees each request's slot once its answer is written. A decided call
// is handed over as bytes, so that its handler (and its stack) ends even
// while the host is not reading: what waits is only the answer's bytes, at
// most maxInFlight of them.
type outbox struct {
	w      frameWriter
	mu     sync.Mutex
	idle   *sync.Cond // signalled when writing ends
	closed bool
	// writing is true while a frame is being written, by run or by a
	// direct send; queued counts frames handed to run and not yet written.
	writing bool
	queued  int
	failed  bool
	queue   chan []byte
	done    chan struct{}
	onErr   func(error)
	// recycle (may be nil) takes each frame back once it is written.
	recycle func([]byte)
}

func newOutbox(w frameWriter, onErr func(error)) *outbox {
	o := &outbox{w: w, queue: make(chan []byte, maxInFlight+1), done: make(chan struct{}), onErr: onErr}
	o.idle = sync.NewCond(&o.mu)
	go o.run()
	return o
}

// send hands over one request's answer. When nothing is being written or
// waiting, the caller writes it itself (the common case of one call in
// flight: no hand-off to another goroutine; a host that does not read then
// holds up the caller, which is flow control too). Otherwise it is queued,
// which never blocks (each queued answer holds a slot, and there are no
// more slots than room in the queue).
func (o *outbox) send(frame []byte) {
	o.mu.Lock()
	if o.closed {
		o.mu.Unlock()
		o.w.Release()
		return
	}
	if o.writing || o.queued > 0 {
		o.queued++
		o.queue <- frame
		o.mu.Unlock()
		return
	}
	o.writing = true
	o.mu.Unlock()
	o.write(frame)
}

// write writes one frame (unless an earlier write failed) and frees its
// slot; the caller has set writing.
func (o *outbox) write(b []byte) {
	o.mu.Lock()
	failed := o.failed
	o.mu.Unlock()
	var err error
	if !failed && len(b) > 0 {
		err = o.w.WriteFrame(b)
	}
	o.mu.Lock()
	if err != nil {
		o.failed = true // the host is gone: the rest is dropped
	}
	o.writing = false
	o.idle.Broadcast()
	o.mu.Unlock()
	if err != nil {
		o.onErr(err)
	}
	if o.recycle != nil {
		o.recycle(b)
	}
	o.w.Release()
}

func (o *outbox) run() {
	defer close(o.done)
	for b := range o.queue {
		o.mu.Lock()
		for o.writing {
			o.idle.Wait()
		}
		o.writing = true
		o.queued--
		o.mu.Unlock()
		o.write(b)
	}
}

// close writes what is queued and returns when it is written.
func (o *outbox) close() {
	o.mu.Lock()
	if !o.closed {
		o.closed = true
		close(o.queue)
	}
	o.mu.Unlock()
	<-o.done
	o.mu.Lock()
	for o.writing { // a direct send still writing
		o.idle.Wait()
	}
	o.mu.Unlock()
}

// pending counts the calls read and not yet answered; shutdown waits for
// them (a WaitGroup cannot be waited on with a deadline and added to again).
type pending struct {
	mu sync.Mutex
	n  int
	// zero is closed when n comes to 0; it is made by a wait (not by
	// every call that makes n 1), nil while nobody waits.
	zero chan struct{}
	// answered counts answers, so a wait can tell a slow host from a
	// stuck call.
	answered atomic.Uint64
}

func newPending() *pending { return &pending{} }

func (p *pending) add() {
	p.mu.Lock()
	p.n++
	p.mu.Unlock()
}

func (p *pending) done() {
	p.answered.Add(1)
	p.mu.Lock()
	p.n--
	if p.n == 0 && p.zero != nil {
		close(p.zero)
		p.zero = nil
	}
	p.mu.Unlock()
}

// wait returns when no call is pending, or when none was answered for
// stall (a call stuck in a gate must not keep the process alive forever).
func (p *pending) wait(stall time.Duration) bool {
	for {
		p.mu.Lock()
		if p.n == 0 {
			p.mu.Unlock()
			return true
		}
		if p.zero == nil {
			p.zero = make(chan struct{})
		}
		z := p.zero
		p.mu.Unlock()
		before := p.answered.Load()
		select {
		case <-z:
			return true
		case <-time.After(stall):
			if p.answered.Load() == before {
				return false
			}
		}
	}
}
