package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// StageMain is the confining stage: toolgate re-executed with StageArg,
// in new namespaces when the machine has them. It reads its configuration
// from fd 3, builds the view, drops its capabilities, sets no_new_privs,
// applies Landlock and runs the command; it never returns. Any failure
// before the command starts exits 126 with the reason on stderr (the
// command does not run).
func StageMain() {
	// The command is forked from this thread, which alone drops its
	// capabilities (per-thread state; a signal to every thread for each
	// of forty capabilities would cost milliseconds). Landlock and
	// no_new_privs are applied to every thread.
	runtime.LockOSThread()
	// The configuration and status pipes are the stage's alone: the
	// command must not forge the status it ends with.
	syscall.CloseOnExec(3)
	syscall.CloseOnExec(4)
	cfg, err := readStage()
	if err == nil {
		err = confine(cfg)
	}
	if errors.Is(err, errNoProc) {
		if status := os.NewFile(4, "status"); status != nil {
			fmt.Fprintln(status, statusNoPID)
		}
		os.Exit(126)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "toolgate sandbox: %v; the command did not run\n", err)
		os.Exit(126)
	}
	path, err := exec.LookPath(cfg.Argv[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "toolgate sandbox: %v\n", err)
		os.Exit(127)
	}
	if !cfg.Namespaces {
		err = syscall.Exec(path, cfg.Argv, os.Environ())
		fmt.Fprintf(os.Stderr, "toolgate sandbox: %s: %v\n", cfg.Argv[0], err)
		os.Exit(126)
	}
	code := initProcess(path, cfg.Argv)
	// The status goes to the outer process before this one exits: the
	// kernel's teardown of the namespaces at exit takes milliseconds
	// that the caller need not wait for.
	os.Stdin.Close() // the caller's pipes see their end now, not after the teardown
	os.Stdout.Close()
	os.Stderr.Close()
	if status := os.NewFile(4, "status"); status != nil {
		fmt.Fprintf(status, "%d\n", code)
		status.Close()
	}
	os.Exit(code)
}

func readStage() (*stageConfig, error) {
	f := os.NewFile(3, "stage")
	if f == nil {
		return nil, errors.New("no stage configuration")
	}
	defer f.Close()
	var cfg stageConfig
	if err := json.NewDecoder(f).Decode(&cfg); err != nil {
		return nil, fmt.Errorf("stage configuration: %w", err)
	}
	if cfg.Profile == nil || cfg.Profile.Validate() != nil || len(cfg.Argv) == 0 {
		return nil, errors.New("stage configuration: bad profile")
	}
	return &cfg, nil
}

// initProcess runs the command from the stage, which stays its parent:
// PID 1 of the command's PID namespace where there is one (when it exits,
// whatever the command left running is killed). It passes on the signals
// it gets and returns the command's status.
func initProcess(path string, argv []string) int {
	cmd := exec.Command(path, argv[1:]...)
	cmd.Args = argv
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "toolgate sandbox: %s: %v\n", argv[0], err)
		return 127
	}
	go func() {
		for s := range sigs {
			cmd.Process.Signal(s)
		}
	}()
	err := cmd.Wait()
	code, _ := exitCode(cmd.ProcessState, err)
	return code
}

// confine builds the file-system view and applies the kernel's rules.
func confine(cfg *stageConfig) error {
	p := cfg.Profile
	if cfg.Namespaces {
		if err := buildView(cfg); err != nil {
			return err
		}
	}
	if err := os.Chdir(p.Cwd); err != nil {
		return fmt.Errorf("working directory: %w", err)
	}
	if cfg.Namespaces {
		if err := dropCaps(); err != nil {
			return err
		}
	}
	if err := llsys.AllThreadsPrctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if cfg.LandlockV > 0 {
		if err := applyLandlock(cfg); err != nil {
			return fmt.Errorf("landlock: %w", err)
		}
	}
	return nil
}

// errNoProc is a PID namespace whose /proc cannot be mounted.
var errNoProc = errors.New("no /proc for the PID namespace")

// statusNoPID is what the stage reports instead of a status when it needs
// to be run without a PID namespace.
const statusNoPID = "no-pid-namespace"

// mountOp is one mount of the view, applied shallowest first so that a
// deeper one is not covered by a shallower one.
type mountOp struct {
	path string
	kind int // pin, readOnly, hideFile, hideDir
	why  string
}

const (
	opPin = iota
	opReadOnly
	opHide
)

func buildView(cfg *stageConfig) error {
	p := cfg.Profile
	// Nothing done here reaches the parent namespace.
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("private mounts: %w", err)
	}
	var ops []mountOp
	pinned := map[string]bool{}
	for _, e := range p.ReadOnly {
		root := rootOf(p.Write, e.Path)
		// Each folder between the write root and the protected path is
		// made a mount point of itself: a mount point cannot be renamed or
		// removed, so "mv .git x && mkdir .git" cannot leave the read-only
		// hooks behind under another name.
		if root != "" {
			for d := filepath.Dir(e.Path); d != root && strings.HasPrefix(d, root+"/"); d = filepath.Dir(d) {
				if !pinned[d] {
					pinned[d] = true
					ops = append(ops, mountOp{path: d, kind: opPin})
				}
			}
		}
		ops = append(ops, mountOp{path: e.Path, kind: opReadOnly, why: e.Why})
	}
	for _, e := range append(append([]Entry(nil), p.Hidden...), p.Sockets...) {
		ops = append(ops, mountOp{path: e.Path, kind: opHide, why: e.Why})
	}
	sort.SliceStable(ops, func(i, j int) bool {
		di, dj := strings.Count(ops[i].path, "/"), strings.Count(ops[j].path, "/")
		if di != dj {
			return di < dj
		}
		return ops[i].kind < ops[j].kind
	})
	for _, op := range ops {
		if err := op.apply(); err != nil {
			return err
		}
	}
	if cfg.PID {
		// A /proc of the new PID namespace shows only the command's
		// processes, and the all-threads calls of Landlock's library need
		// it (they find this process's threads there). Where the kernel
		// refuses it (a container that masks parts of /proc), the outer
		// process runs the stage again without a PID namespace.
		if cfg.NoProc || unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "") != nil {
			return errNoProc
		}
	}
	if cfg.NetNS {
		if err := loopbackUp(); err != nil {
			return fmt.Errorf("loopback: %w", err)
		}
	}
	return nil
}

func (op mountOp) apply() error {
	info, err := os.Lstat(op.path)
	if err != nil {
		if op.kind == opHide && errors.Is(err, os.ErrNotExist) {
			return nil // nothing to hide
		}
		return fmt.Errorf("%s: %w", op.path, err)
	}
	switch op.kind {
	case opPin:
		if err := unix.Mount(op.path, op.path, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("pin %s: %w", op.path, err)
		}
	case opReadOnly:
		if info.Mode()&os.ModeSymlink != 0 {
			return fmt.Errorf("read-only %s: a symlink (the profile names real paths)", op.path)
		}
		if err := bindReadOnly(op.path, op.path, unix.MS_REC, 0); err != nil {
			return fmt.Errorf("read-only %s: %w", op.path, err)
		}
	case opHide:
		if info.IsDir() {
			err = unix.Mount("tmpfs", op.path, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "mode=000,size=4k")
		} else {
			// /dev/null on a nodev mount: every open of it fails (EACCES),
			// so a read says it was refused, and nothing is left on disk.
			err = bindReadOnly("/dev/null", op.path, 0, unix.MS_NODEV)
		}
		if err != nil {
			return fmt.Errorf("hide %s: %w", op.path, err)
		}
	}
	return nil
}

// bindReadOnly binds src over dst and makes that mount read-only, keeping
// the flags a user namespace may not clear (nosuid, nodev, noexec …).
func bindReadOnly(src, dst string, rec, extra uintptr) error {
	if err := unix.Mount(src, dst, "", unix.MS_BIND|rec, ""); err != nil {
		return err
	}
	var st unix.Statfs_t
	if err := unix.Statfs(dst, &st); err != nil {
		return err
	}
	flags := unix.MS_REMOUNT | unix.MS_BIND | unix.MS_RDONLY | extra
	for _, f := range [][2]uintptr{{unix.ST_NOSUID, unix.MS_NOSUID}, {unix.ST_NODEV, unix.MS_NODEV},
		{unix.ST_NOEXEC, unix.MS_NOEXEC}, {unix.ST_NOATIME, unix.MS_NOATIME},
		{unix.ST_NODIRATIME, unix.MS_NODIRATIME}, {unix.ST_RELATIME, unix.MS_RELATIME}} {
		if uintptr(st.Flags)&f[0] != 0 {
			flags |= f[1]
		}
	}
	return unix.Mount("", dst, "", flags, "")
}

// rootOf is the write root that holds path, "" for none.
func rootOf(roots []Entry, path string) string {
	best := ""
	for _, r := range roots {
		if (path == r.Path || strings.HasPrefix(path, r.Path+"/") || r.Path == "/") && len(r.Path) > len(best) {
			best = r.Path
		}
	}
	return best
}

// dropCaps leaves the stage's thread, and so the command forked from it,
// no capability: the bounding set emptied, the ambient set cleared and
// every other set zeroed (a command running as root in the namespace
// then gets none at exec either).
func dropCaps() error {
	for c := 0; c <= unix.CAP_LAST_CAP+8; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil {
			if errors.Is(err, unix.EINVAL) && c > 0 {
				break // past the kernel's last capability
			}
			return fmt.Errorf("drop capability %d: %w", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("clear ambient capabilities: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("drop capabilities: %w", err)
	}
	return nil
}

func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}

// applyLandlock is the outer allow-list: read and run everything (what
// must not be read is hidden by the view), write only in the write roots
// and the usual devices; abstract sockets and signals scoped to the
// command's own processes; with the network off and no network
// namespace, no TCP connect or bind.
func applyLandlock(cfg *stageConfig) error {
	p := cfg.Profile
	all := landlock.V11
	c := landlock.Config{HandledAccessFS: all.HandledAccessFS, Scoped: all.Scoped}
	if p.NetworkOff && !cfg.NetNS {
		c.HandledAccessNet = all.HandledAccessNet
	}
	rw := landlock.AccessFSSet(llsys.AccessFSExecute | llsys.AccessFSWriteFile | llsys.AccessFSReadFile |
		llsys.AccessFSReadDir | llsys.AccessFSRemoveDir | llsys.AccessFSRemoveFile | llsys.AccessFSMakeChar |
		llsys.AccessFSMakeDir | llsys.AccessFSMakeReg | llsys.AccessFSMakeSock | llsys.AccessFSMakeFifo |
		llsys.AccessFSMakeBlock | llsys.AccessFSMakeSym | llsys.AccessFSTruncate)
	var dirs, files []string
	for _, w := range p.Write {
		if info, err := os.Stat(w.Path); err == nil && !info.IsDir() {
			files = append(files, w.Path) // a file is a root with file rights only
		} else {
			dirs = append(dirs, w.Path)
		}
	}
	fileRights := landlock.AccessFSSet(llsys.AccessFSExecute | llsys.AccessFSWriteFile | llsys.AccessFSReadFile | llsys.AccessFSTruncate)
	rules := []landlock.Rule{
		landlock.RODirs("/"),
		landlock.PathAccess(rw, dirs...).WithRefer().IgnoreIfMissing(),
		landlock.PathAccess(fileRights, files...).IgnoreIfMissing(),
		landlock.RWFiles("/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx").WithIoctlDev().IgnoreIfMissing(),
		landlock.RWDirs("/dev/pts", "/dev/shm").WithIoctlDev().IgnoreIfMissing(),
	}
	return c.BestEffort().Restrict(rules...)
}
