package protocol

import (
	"strings"
	"testing"
	"time"
)

// TestReaderYieldsOncePerInterval: the reader passes through the scheduler
// before it waits for more input, at most once per yieldEvery, and again
// as soon as yieldEvery has passed.
func TestReaderYieldsOncePerInterval(t *testing.T) {
	p := newParking()
	clock := time.Unix(1000, 0)
	yields := 0
	p.now = func() time.Time { return clock }
	p.gosched = func() { yields++ }
	r := parkingReader{r: strings.NewReader(strings.Repeat("x", 64)), p: &p}
	buf := make([]byte, 1)
	steps := []struct {
		advance time.Duration
		want    int
	}{
		{0, 1}, // the first read yields
		{yieldEvery / 5, 1},
		{yieldEvery / 2, 1},
		{yieldEvery/2 - yieldEvery/5 - 1, 1}, // one nanosecond short
		{1, 2},                               // yieldEvery since the last
		{0, 2},
		{yieldEvery, 3},
		{10 * yieldEvery, 4}, // a long wait yields once, not ten times
		{yieldEvery - 1, 4},
	}
	for i, s := range steps {
		clock = clock.Add(s.advance)
		if _, err := r.Read(buf); err != nil {
			t.Fatalf("step %d: read: %v", i, err)
		}
		if yields != s.want {
			t.Fatalf("step %d (+%v): %d yields, want %d", i, s.advance, yields, s.want)
		}
	}
}

// TestStreamReaderYields: a stream's reader is the yielding one, with the
// real clock and scheduler.
func TestStreamReaderYields(t *testing.T) {
	s := NewStream(strings.NewReader("{}\n"), &strings.Builder{}, nil, FramingNewline, nil)
	if s.park.now == nil || s.park.gosched == nil {
		t.Fatal("the stream's parking has no clock or scheduler")
	}
	before := time.Now()
	if _, err := s.in.ReadByte(); err != nil {
		t.Fatal(err)
	}
	if s.park.yielded.Before(before) {
		t.Fatalf("the first read did not yield (yielded %v, read at %v)", s.park.yielded, before)
	}
}
