package protocol

import (
	"runtime"
	"sync"
	"time"
)

// skeleton keeps the top level of a JSON message and drops what is nested
// below it: {"id":7,"method":"tool_call","params":{…}} becomes
// {"id":7,"method":"tool_call","params":{}}. It is fed the bytes of a
// message toolgate will not keep whole (longer than MaxMessageBytes, or
// nested deeper than the decoder goes) in pieces, with constant state, so
// that such a request can still be answered by its id. It does not
// validate: the result is checked as JSON again.
type skeleton struct {
	out      []byte
	depth    int
	maxDepth int
	inStr    bool
	esc      bool
	strStart int  // where the current top-level string starts in out
	overflow bool // out outgrew maxSkeleton: nothing can be read
}

const (
	maxSkeleton    = 64 << 10 // bytes of top level kept
	maxSkeletonStr = 1 << 10  // a longer top-level string is kept as {}
)

func (k *skeleton) emit(c byte) {
	if len(k.out) >= maxSkeleton {
		k.overflow = true
		return
	}
	k.out = append(k.out, c)
}

func (k *skeleton) feed(b []byte) {
	for _, c := range b {
		if k.inStr {
			top := k.depth <= 1
			switch {
			case k.esc:
				k.esc = false
			case c == '\\':
				k.esc = true
			case c == '"':
				k.inStr = false
				if top {
					if len(k.out)-k.strStart > maxSkeletonStr {
						// Not kept: an object in its place can be no id
						// and no method (nor a key: the skeleton is then
						// not JSON), only params.
						k.out = append(k.out[:k.strStart], "{}"...)
						continue
					}
					k.emit(c)
				}
				continue
			}
			if top && len(k.out)-k.strStart <= maxSkeletonStr {
				k.emit(c)
			}
			continue
		}
		switch c {
		case '"':
			k.inStr = true
			if k.depth <= 1 {
				k.strStart = len(k.out)
				k.emit(c)
			}
		case '{', '[':
			k.depth++
			if k.depth > k.maxDepth {
				k.maxDepth = k.depth
			}
			if k.depth <= 2 {
				k.emit(c)
			}
		case '}', ']':
			if k.depth <= 2 {
				k.emit(c)
			}
			k.depth--
		default:
			if k.depth <= 1 {
				k.emit(c)
			}
		}
	}
}

// bytes is the skeleton, when it could be kept.
func (k *skeleton) bytes() ([]byte, bool) {
	return k.out, !k.overflow && !k.inStr && k.depth == 0
}

// parking says whether the reader is waiting for input (or for a free
// slot): then every message the host wrote so far has been taken.
//
// The channel state hands out is closed when the reader parks; it is made
// only when someone asks (a prompt waiting for quiet), not for every read.
type parking struct {
	mu     sync.Mutex
	parked bool
	ended  bool
	epoch  uint64        // counts the times the reader went on reading
	ch     chan struct{} // closed at the next park; nil until state asks
	closed chan struct{} // always closed: what state hands out while parked
	// yielded is when the reader last passed through the scheduler (see
	// yield); now and gosched are time.Now and runtime.Gosched but in
	// tests.
	yielded time.Time
	now     func() time.Time
	gosched func()
}

// yieldEvery bounds how long the reading goroutine goes without passing
// through the scheduler. The runtime takes a goroutine that kept its P
// for 10 ms without being scheduled anew for one that needs preempting:
// caught in a read, its P is taken from it and handed to another thread
// (a wake-up), and sysmon, having found work, polls every 20 µs again for
// the next millisecond and more. A reader that answers call after call
// on its own goroutine (the fast path) is never scheduled anew unless it
// yields: it does so here, before it waits for the next message, at most
// once per yieldEvery.
const yieldEvery = 5 * time.Millisecond

// yield lets the scheduler run once when yieldEvery has passed since the
// last time.
func (p *parking) yield() {
	if now := p.now(); now.Sub(p.yielded) >= yieldEvery {
		p.yielded = now
		p.gosched()
	}
}

func newParking() parking {
	closed := make(chan struct{})
	close(closed)
	return parking{closed: closed, now: time.Now, gosched: runtime.Gosched}
}

// parkLocked marks the reader parked and wakes whoever waits for it.
func (p *parking) parkLocked() {
	if !p.parked {
		p.parked = true
		if p.ch != nil {
			close(p.ch)
			p.ch = nil
		}
	}
}

func (p *parking) park() {
	p.mu.Lock()
	p.parkLocked()
	p.mu.Unlock()
}

func (p *parking) unpark() {
	p.mu.Lock()
	if p.parked && !p.ended {
		p.parked = false
		p.epoch++
	}
	p.mu.Unlock()
}

// end parks the reader for good: the input has ended.
func (p *parking) end() {
	p.mu.Lock()
	p.ended = true
	p.parkLocked()
	p.mu.Unlock()
}

// state returns a channel that is closed while the reader is parked, the
// epoch, and whether it is parked now.
func (p *parking) state() (<-chan struct{}, uint64, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.parked {
		return p.closed, p.epoch, true
	}
	if p.ch == nil {
		p.ch = make(chan struct{})
	}
	return p.ch, p.epoch, false
}

// parkingReader marks the reader parked while it waits in Read.
type parkingReader struct {
	r interface{ Read([]byte) (int, error) }
	p *parking
}

func (r parkingReader) Read(b []byte) (int, error) {
	r.p.yield()
	r.p.park()
	n, err := r.r.Read(b)
	r.p.unpark()
	return n, err
}
