package hook

import (
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
