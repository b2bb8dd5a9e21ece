//go:build profile

package main

import (
	"os"
	"runtime/pprof"
)

// startProfile writes a CPU profile of the serve loop to
// $TOOLGATE_CPUPROFILE. It exists only in a binary built with -tags profile
// (the end-to-end benchmark's E2EBENCH_PROFILE), never in a release build;
// at the end it also writes the heap profile to $TOOLGATE_CPUPROFILE.heap.
func startProfile() (stop func()) {
	p := os.Getenv("TOOLGATE_CPUPROFILE")
	if p == "" {
		return func() {}
	}
	f, err := os.Create(p)
	if err != nil {
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
		if h, err := os.Create(p + ".heap"); err == nil {
			_ = pprof.Lookup("heap").WriteTo(h, 0)
			h.Close()
		}
	}
}
