package runtimecfg

import (
	"math"
	"runtime/debug"
	"testing"
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
