package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The confined command is started from a child cloned by hand: the child
// writes its ID maps, builds the file-system view, drops its capabilities,
// sets no_new_privs, enters the Landlock domain and execs the command,
// using system calls only. A second Go runtime (toolgate started again as
// a stage) would cost milliseconds a host pays on every bash call.
// Everything the child needs (C strings, the mounts with their flags, the
// ruleset) is prepared before the clone; the child reads it and writes
// nothing but its failure record. Where it can (canVfork), the child
// shares toolgate's memory and stack while this thread waits in the
// kernel for its exec, as Go's own os/exec does.

//go:linkname runtimeBeforeFork syscall.runtime_BeforeFork
func runtimeBeforeFork()

//go:linkname runtimeAfterFork syscall.runtime_AfterFork
func runtimeAfterFork()

//go:linkname runtimeAfterForkInChild syscall.runtime_AfterForkInChild
func runtimeAfterForkInChild()

// The child's steps, as its failure record names them.
const (
	stepSync = iota + 1
	stepMaps
	stepPrivate
	stepMount
	stepProc
	stepLoopback
	stepChdir
	stepCaps
	stepNoNewPrivs
	stepLandlock
	stepFiles
	stepExec
)

// rawMount is one mount(2) of the view, its strings NUL-terminated.
type rawMount struct {
	src, dst, fstype, data *byte
	flags                  uintptr
	op                     int // the mountOp it belongs to
}

// plan is everything the child reads. It is built, and kept alive, by
// the parent; the child only writes fail.
type plan struct {
	path       *byte
	argv, envv []*byte // each ends with nil
	cloneFlags uintptr
	pdeathsig  bool
	private    bool
	mounts     []rawMount
	proc       bool
	noProc     bool
	loopback   bool
	ifr        *unix.Ifreq
	cwd        *byte
	dropCaps   bool
	capHdr     unix.CapUserHeader
	capData    [2]unix.CapUserData
	ruleset    int // -1: no Landlock
	rsFlags    uintptr
	files      [3]int
	nextfd     int
	errW       int
	// mapPaths and maps are the new user namespace's ID maps, which the
	// child writes itself (setgroups first: gid_map needs it denied).
	writeMaps bool
	mapPaths  [3]*byte
	maps      [3][]byte
	fail      [3]uint32 // step, index, errno
}

// forkChild clones the child and, in it, confines and execs. In the
// child it may call only functions that cannot grow the stack (the raw
// system calls and the runtime's fork hooks): runtimeBeforeFork poisons
// the stack guard, and nothing in it may allocate or take a lock. The
// child never returns from this frame, and the parent returns from it at
// once: with a shared stack, the child's use of the frame is then over.
//
//go:norace
//go:noinline
func forkChild(pl *plan) (pid uintptr, err1 syscall.Errno) {
	var (
		r1   uintptr
		e    uintptr
		i    int
		c    uintptr
		fd   uintptr
		step uint32
		m    *rawMount
	)
	runtimeBeforeFork()
	if canVfork {
		// The child shares this memory and stack; this thread waits in the
		// kernel until it execs or exits, and then returns at once.
		r1, e = rawVfork(syscall.SYS_CLONE, pl.cloneFlags|syscall.CLONE_VM|syscall.CLONE_VFORK|uintptr(syscall.SIGCHLD), 0, 0)
		err1 = syscall.Errno(e)
	} else {
		r1, _, err1 = syscall.RawSyscall6(syscall.SYS_CLONE, pl.cloneFlags|uintptr(syscall.SIGCHLD), 0, 0, 0, 0, 0)
	}
	if err1 != 0 || r1 != 0 {
		return r1, err1 // the parent; the caller runs runtimeAfterFork
	}

	// In the child.
	runtimeAfterForkInChild()
	if pl.pdeathsig {
		if _, _, err1 = syscall.RawSyscall(syscall.SYS_PRCTL, unix.PR_SET_PDEATHSIG, uintptr(syscall.SIGKILL), 0); err1 != 0 {
			step = stepSync
			goto fail
		}
	}
	// The new user namespace maps this user and group to themselves.
	if pl.writeMaps {
		for i = 0; i < len(pl.maps); i++ {
			fd, _, err1 = syscall.RawSyscall6(syscall.SYS_OPENAT, atFDCWD, uintptr(unsafe.Pointer(pl.mapPaths[i])),
				syscall.O_WRONLY|syscall.O_CLOEXEC, 0, 0, 0)
			if err1 != 0 {
				step = stepMaps
				goto fail
			}
			_, _, err1 = syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&pl.maps[i][0])), uintptr(len(pl.maps[i])))
			syscall.RawSyscall(syscall.SYS_CLOSE, fd, 0, 0)
			if err1 != 0 {
				step = stepMaps
				goto fail
			}
		}
	}

	if pl.private {
		if _, _, err1 = syscall.RawSyscall6(syscall.SYS_MOUNT, 0, uintptr(unsafe.Pointer(&slash[0])), 0,
			syscall.MS_REC|syscall.MS_PRIVATE, 0, 0); err1 != 0 {
			step = stepPrivate
			goto fail
		}
	}
	for i = 0; i < len(pl.mounts); i++ {
		m = &pl.mounts[i]
		if _, _, err1 = syscall.RawSyscall6(syscall.SYS_MOUNT, uintptr(unsafe.Pointer(m.src)), uintptr(unsafe.Pointer(m.dst)),
			uintptr(unsafe.Pointer(m.fstype)), m.flags, uintptr(unsafe.Pointer(m.data)), 0); err1 != 0 {
			step = stepMount
			goto fail
		}
	}
	if pl.proc {
		if pl.noProc {
			err1 = syscall.EPERM
			step = stepProc
			goto fail
		}
		if _, _, err1 = syscall.RawSyscall6(syscall.SYS_MOUNT, uintptr(unsafe.Pointer(&procName[0])), uintptr(unsafe.Pointer(&procPath[0])),
			uintptr(unsafe.Pointer(&procName[0])), syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, 0, 0); err1 != 0 {
			step = stepProc
			goto fail
		}
	}
	if pl.loopback {
		fd, _, err1 = syscall.RawSyscall(unix.SYS_SOCKET, syscall.AF_INET, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, 0)
		if err1 != 0 {
			step = stepLoopback
			goto fail
		}
		if _, _, err1 = syscall.RawSyscall(syscall.SYS_IOCTL, fd, syscall.SIOCSIFFLAGS, uintptr(unsafe.Pointer(pl.ifr))); err1 != 0 {
			step = stepLoopback
			goto fail
		}
		syscall.RawSyscall(syscall.SYS_CLOSE, fd, 0, 0)
	}
	if _, _, err1 = syscall.RawSyscall(syscall.SYS_CHDIR, uintptr(unsafe.Pointer(pl.cwd)), 0, 0); err1 != 0 {
		step = stepChdir
		goto fail
	}
	if pl.dropCaps {
		// The bounding set emptied, the ambient set cleared and every
		// other set zeroed: a command running as root in the namespace
		// gets no capability at exec either.
		for c = 0; c < 64; c++ {
			if _, _, err1 = syscall.RawSyscall(syscall.SYS_PRCTL, unix.PR_CAPBSET_DROP, c, 0); err1 != 0 {
				if err1 == syscall.EINVAL && c > 0 {
					break // past the kernel's last capability
				}
				step = stepCaps
				goto fail
			}
		}
		if _, _, err1 = syscall.RawSyscall6(syscall.SYS_PRCTL, unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0, 0); err1 != 0 {
			step = stepCaps
			goto fail
		}
		if _, _, err1 = syscall.RawSyscall(syscall.SYS_CAPSET, uintptr(unsafe.Pointer(&pl.capHdr)), uintptr(unsafe.Pointer(&pl.capData[0])), 0); err1 != 0 {
			step = stepCaps
			goto fail
		}
	}
	if _, _, err1 = syscall.RawSyscall6(syscall.SYS_PRCTL, unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0, 0); err1 != 0 {
		step = stepNoNewPrivs
		goto fail
	}
	if pl.ruleset >= 0 {
		if _, _, err1 = syscall.RawSyscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(pl.ruleset), pl.rsFlags, 0); err1 != 0 {
			step = stepLandlock
			goto fail
		}
	}
	// Standard input, output and error: first above every descriptor in
	// use, then into place (without close-on-exec).
	for i = 0; i < 3; i++ {
		if _, _, err1 = syscall.RawSyscall(syscall.SYS_DUP3, uintptr(pl.files[i]), uintptr(pl.nextfd+i), syscall.O_CLOEXEC); err1 != 0 {
			step = stepFiles
			goto fail
		}
	}
	for i = 0; i < 3; i++ {
		if _, _, err1 = syscall.RawSyscall(syscall.SYS_DUP3, uintptr(pl.nextfd+i), uintptr(i), 0); err1 != 0 {
			step = stepFiles
			goto fail
		}
	}
	_, _, err1 = syscall.RawSyscall(syscall.SYS_EXECVE, uintptr(unsafe.Pointer(pl.path)),
		uintptr(unsafe.Pointer(&pl.argv[0])), uintptr(unsafe.Pointer(&pl.envv[0])))
	step = stepExec

fail:
	pl.fail[0], pl.fail[1], pl.fail[2] = step, uint32(i), uint32(err1)
	syscall.RawSyscall(syscall.SYS_WRITE, uintptr(pl.errW), uintptr(unsafe.Pointer(&pl.fail[0])), unsafe.Sizeof(pl.fail))
	for {
		syscall.RawSyscall(syscall.SYS_EXIT_GROUP, 126, 0, 0)
	}
}

// atFDCWD is AT_FDCWD (-100) as the system call takes it.
var atFDCWD = ^uintptr(99)

var (
	slash    = [...]byte{'/', 0}
	procName = [...]byte{'p', 'r', 'o', 'c', 0}
	procPath = [...]byte{'/', 'p', 'r', 'o', 'c', 0}
)

// nsError is the kernel refusing the namespaces themselves (the clone or
// the ID maps): Run may go on without them where the mode allows.
type nsError struct{ err error }

func (e *nsError) Error() string { return e.err.Error() }
func (e *nsError) Unwrap() error { return e.err }

// spawn runs c confined as cfg says and waits for it.
func spawn(cfg spawnConfig, c Command) (int, error) {
	env := c.Env
	if env == nil {
		env = os.Environ()
	}
	path, err := lookPath(c.Argv[0], env, cfg.Profile.Cwd)
	if err != nil {
		fmt.Fprintf(stderrOf(c), "toolgate sandbox: %v\n", err)
		return 127, nil
	}
	ops, err := mountOps(cfg)
	if err != nil {
		return 0, err
	}
	pl := &plan{ruleset: -1, pdeathsig: true}
	if pl.path, err = syscall.BytePtrFromString(path); err != nil {
		return 0, fmt.Errorf("sandbox: %s: %w", c.Argv[0], err)
	}
	if pl.argv, err = syscall.SlicePtrFromStrings(c.Argv); err != nil {
		return 0, fmt.Errorf("sandbox: arguments: %w", err)
	}
	if pl.envv, err = syscall.SlicePtrFromStrings(env); err != nil {
		return 0, fmt.Errorf("sandbox: environment: %w", err)
	}
	if pl.cwd, err = syscall.BytePtrFromString(cfg.Profile.Cwd); err != nil {
		return 0, fmt.Errorf("sandbox: working directory: %w", err)
	}
	if cfg.Namespaces {
		pl.cloneFlags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS
		if cfg.PID {
			pl.cloneFlags |= syscall.CLONE_NEWPID
		}
		if cfg.NetNS {
			pl.cloneFlags |= syscall.CLONE_NEWNET
			pl.loopback = true
			if pl.ifr, err = unix.NewIfreq("lo"); err != nil {
				return 0, fmt.Errorf("loopback: %w", err)
			}
			pl.ifr.SetUint16(unix.IFF_UP | unix.IFF_LOOPBACK)
		}
		pl.private, pl.proc, pl.noProc, pl.dropCaps = true, cfg.PID, cfg.NoProc, true
		uid, gid := strconv.Itoa(os.Getuid()), strconv.Itoa(os.Getgid())
		pl.writeMaps = true
		for i, m := range [3][2]string{{"/proc/self/setgroups", "deny"}, {"/proc/self/gid_map", gid + " " + gid + " 1\n"}, {"/proc/self/uid_map", uid + " " + uid + " 1\n"}} {
			pl.mapPaths[i], _ = syscall.BytePtrFromString(m[0])
			pl.maps[i] = []byte(m[1])
		}
		if pl.mounts, err = rawMounts(ops); err != nil {
			return 0, err
		}
		pl.capHdr.Version = unix.LINUX_CAPABILITY_VERSION_3
	}
	if cfg.LandlockV > 0 {
		fd, flags, err := ruleset(cfg)
		if err != nil {
			return 0, fmt.Errorf("landlock: %w", err)
		}
		if fd >= 0 {
			if fd, err = above2(fd); err != nil {
				return 0, fmt.Errorf("landlock: %w", err)
			}
			defer syscall.Close(fd)
			pl.ruleset, pl.rsFlags = fd, uintptr(flags)
		}
	}

	std, err := newStdio(c)
	if err != nil {
		return 0, err
	}
	defer std.closeAll()
	pl.files = std.childFDs
	var fail [2]int
	if err := pipe(&fail); err != nil {
		return 0, err
	}
	defer closeFDs(fail[:])
	pl.errW = fail[1]
	pl.nextfd = 3
	for _, fd := range append([]int{pl.ruleset, pl.errW}, pl.files[:]...) {
		if fd >= pl.nextfd {
			pl.nextfd = fd + 1
		}
	}

	// The parent's death kills the child (Pdeathsig follows the thread
	// that forked it: this goroutine keeps its thread until the end).
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	syscall.ForkLock.Lock()
	pid, errno := forkChild(pl)
	runtimeAfterFork()
	syscall.ForkLock.Unlock()
	runtime.KeepAlive(pl)
	if errno != 0 {
		if cfg.Namespaces {
			return 0, &nsError{fmt.Errorf("sandbox: new namespaces: %w", errno)}
		}
		return 0, fmt.Errorf("sandbox: %w", errno)
	}
	std.childStarted()
	syscall.Close(fail[1])
	fail[1] = -1
	// A signal before this point ends this process, and the parent-death
	// signal the child.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	defer signal.Stop(sigs)
	if err := childFailure(fail[0], ops, pl.mounts); err != nil {
		reap(int(pid))
		var ee *execError
		if errors.As(err, &ee) {
			fmt.Fprintf(stderrOf(c), "toolgate sandbox: %s: %v\n", c.Argv[0], ee.errno)
			return 126, nil
		}
		return 0, err
	}

	var killedBy syscall.Signal
	var mu sync.Mutex
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			select {
			case s := <-sigs:
				sig := s.(syscall.Signal)
				if cfg.PID && !catches(int(pid), sig) {
					// The command is PID 1 of its namespace: a signal it
					// does not catch would be ignored, so it gets what
					// the signal's default would have done.
					mu.Lock()
					killedBy = sig
					mu.Unlock()
					syscall.Kill(int(pid), syscall.SIGKILL)
					continue
				}
				syscall.Kill(int(pid), sig)
			case <-done:
				return
			}
		}
	}()
	ws, err := reap(int(pid))
	if err != nil {
		return 0, fmt.Errorf("sandbox: wait: %w", err)
	}
	std.wait()
	mu.Lock()
	defer mu.Unlock()
	switch {
	case ws.Signaled() && ws.Signal() == syscall.SIGKILL && killedBy != 0:
		return 128 + int(killedBy), nil
	case ws.Signaled():
		return 128 + int(ws.Signal()), nil
	}
	return ws.ExitStatus(), nil
}

// reap waits for pid.
func reap(pid int) (syscall.WaitStatus, error) {
	var ws syscall.WaitStatus
	for {
		_, err := syscall.Wait4(pid, &ws, 0, nil)
		if err != syscall.EINTR {
			return ws, err
		}
	}
}

// catches reports whether process pid has a handler for sig.
func catches(pid int, sig syscall.Signal) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return true
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "SigCgt:"); ok {
			mask, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			return err != nil || mask&(1<<(uint(sig)-1)) != 0
		}
	}
	return true
}

// childFailure reads the child's failure record: none (end of file at
// its exec) is nil.
func childFailure(fd int, ops []mountOp, raws []rawMount) error {
	var rec [12]byte
	n := 0
	for n < len(rec) {
		k, err := syscall.Read(fd, rec[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return fmt.Errorf("sandbox: %w", err)
		}
		if k == 0 {
			break
		}
		n += k
	}
	if n == 0 {
		return nil
	}
	if n != len(rec) {
		return errors.New("sandbox: the confining child ended half-way")
	}
	var f [3]uint32
	for i := range f {
		f[i] = *(*uint32)(unsafe.Pointer(&rec[i*4]))
	}
	step, index, errno := f[0], int(f[1]), syscall.Errno(f[2])
	switch step {
	case stepSync:
		return fmt.Errorf("sandbox: start: %w", errno)
	case stepMaps:
		return &nsError{fmt.Errorf("sandbox: user namespace ID maps: %w", errno)}
	case stepPrivate:
		// The first mount: a namespace that refuses it gives nothing.
		return &nsError{fmt.Errorf("private mounts: %w", errno)}
	case stepMount:
		if index < 0 || index >= len(raws) {
			return fmt.Errorf("mount: %w", errno)
		}
		op := ops[raws[index].op]
		return fmt.Errorf("%s %s: %w", [...]string{"pin", "read-only", "hide"}[op.kind], op.path, errno)
	case stepProc:
		return errRetryNoPID
	case stepExec:
		return &execError{errno}
	}
	if words, ok := stepWords[step]; ok {
		return fmt.Errorf("%s: %w", words, errno)
	}
	return fmt.Errorf("sandbox: the confining child failed (step %d): %w", step, errno)
}

// stepWords name the child's other steps in its failure's words.
var stepWords = map[uint32]string{
	stepLoopback:   "loopback",
	stepChdir:      "working directory",
	stepCaps:       "drop capabilities",
	stepNoNewPrivs: "no_new_privs",
	stepLandlock:   "landlock",
	stepFiles:      "sandbox: standard files",
}

// execError is the command's exec failing in the confined child.
type execError struct{ errno syscall.Errno }

func (e *execError) Error() string { return e.errno.Error() }

func above2(fd int) (int, error) {
	if fd > 2 {
		return fd, nil
	}
	nfd, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 3)
	syscall.Close(fd)
	return nfd, err
}

// pipe makes a close-on-exec pipe whose ends are above the standard
// descriptors (the child puts its standard files there last).
func pipe(p *[2]int) error {
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	for i := range p {
		fd, err := above2(p[i])
		if err != nil {
			p[i] = -1
			closeFDs(p[:])
			return fmt.Errorf("sandbox: %w", err)
		}
		p[i] = fd
	}
	return nil
}

func closeFDs(fds []int) {
	for i, fd := range fds {
		if fd >= 0 {
			syscall.Close(fd)
			fds[i] = -1
		}
	}
}

// lookPath finds file as the command's PATH would, relative entries taken
// from the command's working directory.
func lookPath(file string, env []string, cwd string) (string, error) {
	isExec := func(p string) bool {
		info, err := os.Stat(p)
		return err == nil && info.Mode().IsRegular() && info.Mode().Perm()&0o111 != 0
	}
	if strings.Contains(file, "/") {
		p := file
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		if !isExec(p) {
			return "", fmt.Errorf("%s: not an executable file", file)
		}
		return p, nil
	}
	pathEnv := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			pathEnv = v
		}
	}
	for _, dir := range filepath.SplitList(pathEnv) {
		if dir == "" {
			dir = "."
		}
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(cwd, dir)
		}
		if p := filepath.Join(dir, file); isExec(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: executable file not found in $PATH", file)
}
