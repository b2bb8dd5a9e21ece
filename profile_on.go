//go:build profile

package main

import (
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"

	"github.com/toolgate/toolgate/hook"
)

// startProfile writes a CPU profile of the serve loop to
// $TOOLGATE_CPUPROFILE. It exists only in a binary built with -tags profile
// (the end-to-end benchmark's E2EBENCH_PROFILE), never in a release build;
// at the end it also writes the heap profile to $TOOLGATE_CPUPROFILE.heap.
// $TOOLGATE_CPUPROFILE_HZ sets the samples a second (pprof's default: 100).
// With $TOOLGATE_PHASES set it also times the phases of each call on the
// fast path and writes them there at the end (hook.WritePhases).
func startProfile() (stop func()) {
	p := os.Getenv("TOOLGATE_CPUPROFILE")
	if p == "" {
		return hook.WritePhases
	}
	f, err := os.Create(p)
	if err != nil {
		return hook.WritePhases
	}
	if hz, err := strconv.Atoi(os.Getenv("TOOLGATE_CPUPROFILE_HZ")); err == nil && hz > 0 {
		// More samples than pprof's 100 a second for a short run; the
		// runtime then warns once on standard error that the rate was
		// already set, which the profile does not mind.
		runtime.SetCPUProfileRate(hz)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return hook.WritePhases
	}
	return func() {
		hook.WritePhases()
		pprof.StopCPUProfile()
		f.Close()
		if h, err := os.Create(p + ".heap"); err == nil {
			_ = pprof.Lookup("heap").WriteTo(h, 0)
			h.Close()
		}
	}
}
