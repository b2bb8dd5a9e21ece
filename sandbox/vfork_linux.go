//go:build linux && (amd64 || arm64)

package sandbox

// canVfork: the child can be cloned sharing the caller's memory (no copy
// of its page tables, and none of the copy-on-write faults after it, each
// of which stops the other processors to flush their address caches).
const canVfork = true

// rawVfork is in vfork_$GOARCH.s.
func rawVfork(trap, a1, a2, a3 uintptr) (r1 uintptr, err uintptr)
