//go:build linux && !amd64 && !arm64

package sandbox

// canVfork: elsewhere the child is a copy of the caller (a plain fork).
const canVfork = false

func rawVfork(trap, a1, a2, a3 uintptr) (r1 uintptr, err uintptr) {
	panic("sandbox: no vfork-style clone on this architecture")
}
