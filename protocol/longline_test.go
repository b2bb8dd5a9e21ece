package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"runtime"
	"testing"
)

// longLine is a reader of one request whose line is n bytes long (a huge
// command), then a short request: made as it is read, never held whole.
type longLine struct {
	head, tail []byte
	fill       int // bytes of the command still to give
	off        int // into head, then tail
	inTail     bool
}

func newLongLine(n int) *longLine {
	head := []byte(`{"jsonrpc":"2.0","id":7,"method":"tool_call","params":{"toolCallId":"c","toolName":"bash","input":{"command":"`)
	tail := []byte(`"}}}` + "\n" + `{"jsonrpc":"2.0","id":8,"method":"shutdown"}` + "\n")
	return &longLine{head: head, tail: tail, fill: n - len(head) - len(`"}}}`)}
}

func (r *longLine) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		switch {
		case r.off < len(r.head) && !r.inTail:
			c := copy(p[n:], r.head[r.off:])
			r.off += c
			n += c
		case r.fill > 0:
			c := min(r.fill, len(p)-n)
			for i := range c {
				p[n+i] = 'x'
			}
			r.fill -= c
			n += c
		default:
			if !r.inTail {
				r.inTail, r.off = true, 0
			}
			if r.off == len(r.tail) {
				if n == 0 {
					return 0, io.EOF
				}
				return n, nil
			}
			c := copy(p[n:], r.tail[r.off:])
			r.off += c
			n += c
		}
	}
	return n, nil
}

// readLongLine reads the two requests of a line of n bytes: the first is
// refused with its id kept, the second served.
func readLongLine(tb testing.TB, n int) {
	var out bytes.Buffer
	s := NewStream(newLongLine(n), &out, nil, FramingNewline, nil)
	var m struct {
		ID     any              `json:"id"`
		Method string           `json:"method"`
		Meta   *json.RawMessage `json:"meta"`
	}
	if err := s.ReadObject(&m); err != nil {
		tb.Fatalf("ReadObject: %v", err)
	}
	var perr *ParamsError
	if raw, err := s.Params(m.Meta); m.ID != float64(7) || raw != nil || !errors.As(err, &perr) {
		tb.Fatalf("the long line: id %v, params %d bytes, err %v; want id 7 refused", m.ID, len(raw), err)
	}
	s.Release()
	m.ID, m.Method = nil, ""
	if err := s.ReadObject(&m); err != nil || m.ID != float64(8) || m.Method != "shutdown" {
		tb.Fatalf("the request after it: id %v method %q err %v", m.ID, m.Method, err)
	}
}

// A line longer than MaxMessageBytes is read through without being held
// whole and without the copies of a growing buffer: what is allocated to
// read it is about the cap (the part read before it is known to be too
// long), not a multiple of it.
func TestOverCapLineIsNotHeld(t *testing.T) {
	n := MaxMessageBytes + MaxMessageBytes/2
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	readLongLine(t, n)
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	if limit := uint64(MaxMessageBytes) * 5 / 4; allocated > limit {
		t.Fatalf("reading a %d-byte line allocated %d bytes (%.2f× the %d-byte cap), want at most %d",
			n, allocated, float64(allocated)/MaxMessageBytes, MaxMessageBytes, limit)
	}
}

// BenchmarkOverCapLine300MB reads a 300 MB line (and the request after
// it), reporting the bytes allocated and the peak of the live heap as
// multiples of the cap.
//
//	go test -run '^$' -bench OverCapLine -benchtime 3x ./protocol/
func BenchmarkOverCapLine300MB(b *testing.B) {
	const n = 300 << 20
	var peak uint64
	for b.Loop() {
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		stop := make(chan struct{})
		done := make(chan uint64)
		go func() { // sample the heap while the line is read
			var m runtime.MemStats
			top := uint64(0)
			for {
				runtime.ReadMemStats(&m)
				top = max(top, m.HeapInuse)
				select {
				case <-stop:
					done <- top
					return
				default:
				}
			}
		}()
		readLongLine(b, n)
		close(stop)
		top := <-done
		if top > before.HeapInuse {
			peak = max(peak, top-before.HeapInuse)
		}
	}
	b.ReportMetric(float64(peak)/MaxMessageBytes, "peak-heap/cap")
	b.ReportAllocs()
}
