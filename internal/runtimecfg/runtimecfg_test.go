package runtimecfg

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestApply(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	before := debug.SetGCPercent(100)
	restore := Apply()
	if got := debug.SetGCPercent(GCPercent); got != GCPercent {
		t.Errorf("GC percent = %d, want %d", got, GCPercent)
	}
	if got := debug.SetMemoryLimit(-1); got != MemoryLimit {
		t.Errorf("memory limit = %d, want %d", got, MemoryLimit)
	}
	restore()
	if got := debug.SetGCPercent(before); got != 100 {
		t.Errorf("GC percent after restore = %d, want 100", got)
	}
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("memory limit after restore = %d, want none", got)
	}
}

// TestApplyEnvironmentWins: GOGC and GOMEMLIMIT set by the person running
// toolgate are left alone.
func TestApplyEnvironmentWins(t *testing.T) {
	t.Setenv("GOGC", "50")
	t.Setenv("GOMEMLIMIT", "1GiB")
	before := debug.SetGCPercent(77)
	defer debug.SetGCPercent(before)
	restore := Apply()
	defer restore()
	if got := debug.SetGCPercent(77); got != 77 {
		t.Errorf("GC percent = %d, want 77 (left alone)", got)
	}
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("memory limit = %d, want none (left alone)", got)
	}
}

func TestFitLimit(t *testing.T) {
	if got := fitLimit(4<<20, 256<<10); got != MemoryLimit {
		t.Errorf("fitLimit(4 MiB, 256 KiB) = %d, want MemoryLimit", got)
	}
	if got := fitLimit(100<<20, 0); got < 200<<20+limitHeadroom {
		t.Errorf("fitLimit(100 MiB, 0) = %d MiB, want room above what is live", got>>20)
	}
	if got := fitLimit(4<<20, 64<<20); got < 8<<20+64<<20+limitHeadroom {
		t.Errorf("fitLimit(4 MiB, 64 MiB of stacks) = %d MiB, want room above the stacks", got>>20)
	}
}

// TestLimitFollowsLiveHeap: with more live than MemoryLimit leaves room
// for, the limit is raised after a collection instead of the collector
// running without end.
func TestLimitFollowsLiveHeap(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	restore := Apply()
	defer restore()
	big := make([]byte, 48<<20)
	for i := range big {
		big[i] = byte(i)
	}
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		runtime.GC()
		if debug.SetMemoryLimit(-1) >= 2*48<<20 {
			runtime.KeepAlive(big)
			return
		}
	}
	t.Errorf("memory limit stayed at %d MiB with 48 MiB live", debug.SetMemoryLimit(-1)>>20)
}

// TestLimitFollowsStacks: a goroutine whose stack holds more than
// MemoryLimit leaves room for (a parse recursing thousands deep) raises the
// limit after a collection, instead of the collector scanning that stack
// without end.
func TestLimitFollowsStacks(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	restore := Apply()
	defer restore()
	deep, done := make(chan struct{}), make(chan struct{})
	go func() {
		recurse(48<<20/256, deep, done) // about 48 MiB of stack
	}()
	<-deep
	defer close(done)
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		runtime.GC()
		if debug.SetMemoryLimit(-1) >= 48<<20 {
			return
		}
	}
	t.Errorf("memory limit stayed at %d MiB with a 48 MiB stack", debug.SetMemoryLimit(-1)>>20)
}

// recurse calls itself n times, each frame holding 256 bytes, then says so
// on deep and waits for done.
func recurse(n int, deep, done chan struct{}) byte {
	var frame [256]byte
	frame[n%256] = byte(n)
	if n == 0 {
		close(deep)
		<-done
		return frame[0]
	}
	return recurse(n-1, deep, done) + frame[n%256]
}

// PauseCollector stops the collector while any pause is open, across
// overlapping pauses, and puts back the settings of before when the last
// resumes; a second resume of one pause does nothing.
func TestPauseCollector(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(150))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(64 << 20))
	gcNow := func() int {
		p := debug.SetGCPercent(-1)
		debug.SetGCPercent(p)
		return p
	}
	first := PauseCollector()
	second := PauseCollector()
	if got, limit := gcNow(), debug.SetMemoryLimit(-1); got != -1 || limit != math.MaxInt64 {
		t.Fatalf("paused: GC percent %d, limit %d; want -1 and none", got, limit)
	}
	first()
	first()
	if got := gcNow(); got != -1 {
		t.Fatalf("one of two pauses resumed (twice): GC percent %d, want still -1", got)
	}
	second()
	if got, limit := gcNow(), debug.SetMemoryLimit(-1); got != 150 || limit != 64<<20 {
		t.Fatalf("all resumed: GC percent %d, limit %d; want 150 and 64 MiB", got, limit)
	}
}
