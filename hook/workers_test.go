package hook

import (
	"errors"
	"runtime"
	"sync"
	"testing"
	"time"
)

// TestWorkersNeverWait: with every kept worker busy (as when handlers wait
// for the host to answer prompts), a new request still runs at once.
func TestWorkersNeverWait(t *testing.T) {
	w := newWorkers()
	defer w.Stop()
	release := make(chan struct{})
	var started sync.WaitGroup
	n := keptWorkers * 3
	started.Add(n)
	for range n {
		w.Go(func() { started.Done(); <-release })
	}
	waitOrFail(t, &started, "blocked handlers did not all start")
	ran := make(chan struct{})
	w.Go(func() { close(ran) })
	select {
	case <-ran:
	case <-time.After(5 * time.Second):
		t.Fatal("a request waited for a busy worker")
	}
	close(release)
}

// TestWorkersKeepFew: after a burst, at most keptWorkers goroutines stay,
// they take later requests, and Stop ends them.
func TestWorkersKeepFew(t *testing.T) {
	before := runtime.NumGoroutine()
	w := newWorkers()
	release := make(chan struct{})
	var done sync.WaitGroup
	done.Add(20)
	for range 20 {
		w.Go(func() { <-release; done.Done() })
	}
	close(release)
	waitOrFail(t, &done, "handlers did not finish")
	settle(t, func() bool { return runtime.NumGoroutine() <= before+keptWorkers },
		"more than keptWorkers goroutines stayed after the burst")
	if got := w.kept.Load(); got != keptWorkers {
		t.Errorf("kept = %d, want %d", got, keptWorkers)
	}
	ran := make(chan struct{})
	w.Go(func() { close(ran) })
	<-ran
	w.Stop()
	settle(t, func() bool { return runtime.NumGoroutine() <= before }, "workers still running after Stop")
}

func waitOrFail(t *testing.T, wg *sync.WaitGroup, msg string) {
	t.Helper()
	ch := make(chan struct{})
	go func() { wg.Wait(); close(ch) }()
	select {
	case <-ch:
	case <-time.After(5 * time.Second):
		t.Fatal(msg)
	}
}

func settle(t *testing.T, ok func() bool, msg string) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if ok() {
			return
		}
	}
	t.Fatal(msg)
}

type recordingWriter struct {
	mu       sync.Mutex
	frames   []string
	released int
	fail     bool
}

func (w *recordingWriter) WriteFrame(b []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fail {
		return errors.New("broken pipe")
	}
	w.frames = append(w.frames, string(b))
	return nil
}

func (w *recordingWriter) Release() {
	w.mu.Lock()
	w.released++
	w.mu.Unlock()
}

// The outbox writes answers in the order they were sent, frees one slot per
// answer (written, dropped after a write error, or sent after close), and
// close returns once everything queued is written.
func TestOutboxWritesInOrderAndReleasesEach(t *testing.T) {
	w := &recordingWriter{}
	o := newOutbox(w, func(error) {})
	for i := 0; i < 100; i++ {
		o.send([]byte{byte(i)})
	}
	o.close()
	if len(w.frames) != 100 || w.released != 100 {
		t.Fatalf("%d frames written, %d released; want 100 and 100", len(w.frames), w.released)
	}
	for i, f := range w.frames {
		if f[0] != byte(i) {
			t.Fatalf("frame %d is %d: out of order", i, f[0])
		}
	}
	o.send([]byte("late"))
	if w.released != 101 || len(w.frames) != 100 {
		t.Fatalf("an answer sent after close: %d released, %d written", w.released, len(w.frames))
	}
	failing := &recordingWriter{fail: true}
	errs := 0
	o = newOutbox(failing, func(error) { errs++ })
	for i := 0; i < 5; i++ {
		o.send([]byte("x"))
	}
	o.close()
	if failing.released != 5 || errs != 1 {
		t.Fatalf("after a failed write: %d released, %d errors reported; want 5 and 1", failing.released, errs)
	}
}

func TestPendingWait(t *testing.T) {
	p := newPending()
	if !p.wait(time.Millisecond) {
		t.Fatal("nothing pending, yet wait gave up")
	}
	p.add()
	p.add()
	if p.wait(10 * time.Millisecond) {
		t.Fatal("wait returned with two calls pending")
	}
	go func() { p.done(); p.done() }()
	if !p.wait(time.Minute) {
		t.Fatal("wait gave up although the calls were answered")
	}
}
