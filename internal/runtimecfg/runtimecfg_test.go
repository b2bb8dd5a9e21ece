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
	if got := fitLimit(4 << 20); got != MemoryLimit {
		t.Errorf("fitLimit(4 MiB) = %d, want MemoryLimit", got)
	}
	if got := fitLimit(100 << 20); got < 200<<20+limitHeadroom {
		t.Errorf("fitLimit(100 MiB) = %d MiB, want room above what is live", got>>20)
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
