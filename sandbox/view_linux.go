package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// mountOp is one step of the view, applied shallowest first so that a
// deeper one is not covered by a shallower one.
type mountOp struct {
	path string
	kind int // opPin, opReadOnly, opHide
	why  string
}

const (
	opPin = iota
	opReadOnly
	opHide
)

// mountOps are the view's steps for cfg's profile.
func mountOps(cfg spawnConfig) ([]mountOp, error) {
	if !cfg.Namespaces {
		return nil, nil
	}
	p := cfg.Profile
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
	return ops, nil
}

// rawMounts turns the view's steps into mount(2) calls. What each path
// is, and the flags a read-only remount must keep (a user namespace may
// not clear nosuid, nodev, noexec …), are read here, before the fork.
func rawMounts(ops []mountOp) ([]rawMount, error) {
	var out []rawMount
	cstr := func(s string) *byte {
		if s == "" {
			return nil
		}
		b, _ := syscall.BytePtrFromString(s)
		return b
	}
	var hiddenDirs []string // shallowest first, as ops are
	for i, op := range ops {
		if strings.IndexByte(op.path, 0) >= 0 {
			return nil, fmt.Errorf("%s: a NUL in the path", op.path)
		}
		if underAny(op.path, hiddenDirs) {
			continue // a hidden folder covers it: nothing below is reached
		}
		info, err := os.Lstat(op.path)
		if err != nil {
			if op.kind == opHide && errors.Is(err, os.ErrNotExist) {
				continue // nothing to hide
			}
			return nil, fmt.Errorf("%s: %w", op.path, err)
		}
		dst := cstr(op.path)
		switch op.kind {
		case opPin:
			out = append(out, rawMount{src: dst, dst: dst, flags: unix.MS_BIND, op: i})
		case opReadOnly:
			if info.Mode()&os.ModeSymlink != 0 {
				return nil, fmt.Errorf("read-only %s: a symlink (the profile names real paths)", op.path)
			}
			keep, err := keptFlags(op.path)
			if err != nil {
				return nil, fmt.Errorf("read-only %s: %w", op.path, err)
			}
			out = append(out, rawMount{src: dst, dst: dst, flags: unix.MS_BIND | unix.MS_REC, op: i},
				rawMount{dst: dst, flags: unix.MS_REMOUNT | unix.MS_BIND | unix.MS_RDONLY | keep, op: i})
		case opHide:
			if info.IsDir() {
				hiddenDirs = append(hiddenDirs, op.path)
				out = append(out, rawMount{src: cstr("tmpfs"), dst: dst, fstype: cstr("tmpfs"),
					flags: unix.MS_RDONLY | unix.MS_NOSUID | unix.MS_NODEV | unix.MS_NOEXEC, data: cstr("mode=000,size=4k"), op: i})
				continue
			}
			// /dev/null on a nodev mount: every open of it fails (EACCES),
			// so a read says it was refused, and nothing is left on disk.
			keep, err := keptFlags("/dev/null")
			if err != nil {
				return nil, fmt.Errorf("hide %s: %w", op.path, err)
			}
			null := cstr("/dev/null")
			out = append(out, rawMount{src: null, dst: dst, flags: unix.MS_BIND, op: i},
				rawMount{dst: dst, flags: unix.MS_REMOUNT | unix.MS_BIND | unix.MS_RDONLY | unix.MS_NODEV | keep, op: i})
		}
	}
	return out, nil
}

// keptFlags are the flags of the mount holding path that a bind of it
// keeps and a remount must repeat.
func keptFlags(path string) (uintptr, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return 0, err
	}
	var flags uintptr
	for _, f := range [][2]uintptr{{unix.ST_NOSUID, unix.MS_NOSUID}, {unix.ST_NODEV, unix.MS_NODEV},
		{unix.ST_NOEXEC, unix.MS_NOEXEC}, {unix.ST_NOATIME, unix.MS_NOATIME},
		{unix.ST_NODIRATIME, unix.MS_NODIRATIME}, {unix.ST_RELATIME, unix.MS_RELATIME}} {
		if uintptr(st.Flags)&f[0] != 0 {
			flags |= f[1]
		}
	}
	return flags, nil
}

// ruleset is the outer allow-list, built before the fork: read and run
// everything (what must not be read is hidden by the view), write only in
// the write roots and the usual devices; abstract sockets and signals
// scoped to the command's own processes; with the network off and no
// network namespace, no TCP connect or bind. -1: nothing to restrict.
func ruleset(cfg spawnConfig) (int, uint32, error) {
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
	return c.BestEffort().NewRulesetFD(rules...)
}

// underAny reports whether path lies below one of dirs.
func underAny(path string, dirs []string) bool {
	for _, d := range dirs {
		if strings.HasPrefix(path, d+"/") || d == "/" {
			return true
		}
	}
	return false
}
