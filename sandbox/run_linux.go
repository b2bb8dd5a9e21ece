package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
)

// Run runs c confined by p and returns its exit status (128+n for a
// command killed by signal n). An error means the command did not run:
// the profile cannot be enforced as its mode requires, or the machine
// refused a part; it is never run less confined than p says without
// saying so on c.Stderr.
func Run(p *Profile, c Command) (int, error) { return run(p, c, options{}) }

func run(p *Profile, c Command, o options) (int, error) {
	if err := p.Validate(); err != nil {
		return 0, err
	}
	if len(c.Argv) == 0 {
		return 0, errors.New("sandbox: no command")
	}
	stderr := c.Stderr
	switch stderr.(type) {
	case nil:
		stderr = io.Discard
	case *os.File:
	default:
		// The command's own stderr and toolgate's words about it (the
		// watch of absent files says them while it runs) share it.
		stderr = &lockedWriter{w: stderr}
		c.Stderr = stderr
	}
	abi := landlockABI()
	// The namespaces are assumed until the kernel refuses one (reading
	// its switches first would cost every command a dozen file reads);
	// then its switches say what to go on with.
	real := Report{LandlockABI: abi, Namespaces: []string{"user", "mount", "pid", "net"}}
	rep := real
	if pretend := os.Getenv(PretendEnv); pretend != "" {
		rep = probe(pretend, abi, nsAllowed) // it only lowers what is reported: the view is never built weaker
	}
	if p.Mode == "required" && !rep.ProtectedEnforced() {
		return 0, fmt.Errorf("sandbox is required but this machine cannot enforce it: %s", strings.Join(rep.Missing, "; "))
	}
	cfg := spawnConfig{Profile: p, LandlockV: real.LandlockABI, NoProc: o.noProc}
	cfg.set(real, o)
	if real.LandlockABI == 0 {
		fmt.Fprintln(stderr, "toolgate sandbox: warning: no Landlock on this machine: writes outside the write roots are not stopped by the kernel")
	}
	if !cfg.Namespaces {
		fmt.Fprintf(stderr, "toolgate sandbox: warning: no user and mount namespaces: %s; hidden paths stay readable\n", NotEnforced)
	}
	for _, u := range p.Unenforced {
		fmt.Fprintf(stderr, "toolgate sandbox: not kernel-enforced for this command: %s\n", u)
	}

	var created []string
	var held []*os.File
	defer func() {
		for _, f := range held {
			f.Close()
		}
		removePlaceholders(created)
	}()
	absent := stillAbsent(p.Absent)
	defer moveAsideCreated(absent, stderr)
	guard := guardAbsent(absent, stderr)
	defer guard.stop() // before the last check (defers run in reverse)
	if cfg.Namespaces {
		var err error
		if created, err = placeholders(p.ReadOnly); err != nil {
			return 0, err
		}
		held = holdFolders(p.ReadOnly)
	}
	code, err := spawn(cfg, c)
	if errors.Is(err, errRetryNoPID) {
		fmt.Fprintln(stderr, "toolgate sandbox: warning: /proc cannot be mounted for a PID namespace here: the command runs without one (it sees the user's other processes)")
		cfg.PID = false
		code, err = spawn(cfg, c)
	}
	defer func() {
		if code != 0 && err == nil {
			fmt.Fprintf(stderr, "toolgate sandbox: the command failed (exit %d) while confined\n", code)
			for _, h := range Hints(p, c.Argv, envHome(c.Env)) {
				fmt.Fprintf(stderr, "toolgate sandbox: %s\n", h)
			}
		}
	}()
	var nsErr *nsError
	if err != nil && cfg.Namespaces && errors.As(err, &nsErr) {
		// Refused: what the kernel's switches allow, else none.
		if real = probe("", abi, nsAllowed); real.Has("user") && real.Has("mount") && !o.noNamespaces &&
			(cfg.PID && !real.Has("pid") || cfg.NetNS && !real.Has("net")) {
			cfg.set(real, o)
			code, err = spawn(cfg, c)
		}
	}
	if err != nil && cfg.Namespaces && errors.As(err, &nsErr) {
		if p.Mode == "required" {
			return 0, fmt.Errorf("sandbox is required but the kernel refused its namespaces: %w", err)
		}
		fmt.Fprintf(stderr, "toolgate sandbox: warning: the kernel refused user namespaces (%v): %s; hidden paths stay readable\n", err, NotEnforced)
		cfg.Namespaces, cfg.PID, cfg.NetNS = false, false, false
		code, err = spawn(cfg, c)
	}
	return code, err
}

// placeholders creates the read-only paths that do not exist yet (and the
// folders above them), so that each has a mount target; it returns what
// it created, parents first.
func placeholders(ro []Entry) ([]string, error) {
	var created []string
	for _, e := range ro {
		if _, err := os.Lstat(e.Path); err == nil {
			continue
		}
		var missing []string
		for d := filepath.Dir(e.Path); d != "/"; d = filepath.Dir(d) {
			if _, err := os.Lstat(d); err == nil {
				break
			}
			missing = append(missing, d)
		}
		for i := len(missing) - 1; i >= 0; i-- {
			if err := os.Mkdir(missing[i], 0o755); err != nil {
				return created, fmt.Errorf("sandbox: placeholder %s: %w", missing[i], err)
			}
			created = append(created, missing[i])
		}
		if e.Dir {
			if err := os.Mkdir(e.Path, 0o755); err != nil {
				return created, fmt.Errorf("sandbox: placeholder %s: %w", e.Path, err)
			}
		} else {
			f, err := os.OpenFile(e.Path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
			if err != nil {
				return created, fmt.Errorf("sandbox: placeholder %s: %w", e.Path, err)
			}
			f.Close()
		}
		created = append(created, e.Path)
	}
	return created, nil
}

// holdFolders takes a shared lock on each read-only folder for the
// command's lifetime: a placeholder another confined command made (and
// would remove when it ends) is then left standing while this one's
// mount sits on it (removing it would undo that mount).
func holdFolders(ro []Entry) []*os.File {
	var held []*os.File
	for _, e := range ro {
		f, err := os.OpenFile(e.Path, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW, 0)
		if err != nil {
			continue
		}
		if syscall.Flock(int(f.Fd()), syscall.LOCK_SH) != nil {
			f.Close()
			continue
		}
		held = append(held, f)
	}
	return held
}

// removePlaceholders removes what placeholders created, deepest first,
// each only while it is still an empty file or folder (the person may
// have put something there meanwhile, outside the sandbox) and no other
// confined command holds it (holdFolders).
func removePlaceholders(created []string) {
	sort.SliceStable(created, func(i, j int) bool { return len(created[i]) > len(created[j]) })
	for _, p := range created {
		info, err := os.Lstat(p)
		if err != nil {
			continue
		}
		if info.IsDir() {
			f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW, 0)
			if err != nil {
				continue
			}
			if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
				os.Remove(p) // a folder that is not empty stays
			}
			f.Close()
		} else if info.Mode().IsRegular() && info.Size() == 0 {
			os.Remove(p)
		}
	}
}

// envHome is HOME of env (nil: of this process).
func envHome(env []string) string {
	if env == nil {
		return os.Getenv("HOME")
	}
	home := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = v
		}
	}
	return home
}

// stillAbsent are those of the absent protected files not there now.
func stillAbsent(es []Entry) []Entry {
	var out []Entry
	for _, e := range es {
		if _, err := os.Lstat(e.Path); errors.Is(err, os.ErrNotExist) {
			out = append(out, e)
		}
	}
	return out
}

// moveAsideCreated moves aside each absent protected file that is there
// now: the confined command created it (the whole PID namespace has
// ended by now), and a start-up or configuration file it wrote must not
// act for the person. It is renamed, never removed, and said on stderr.
func moveAsideCreated(absent []Entry, stderr io.Writer) {
	for _, e := range absent {
		moveAside(e, stderr)
	}
}

// set chooses the namespaces from what the machine gives.
func (cfg *spawnConfig) set(r Report, o options) {
	cfg.Namespaces = r.Has("user") && r.Has("mount") && !o.noNamespaces
	cfg.PID = cfg.Namespaces && r.Has("pid")
	cfg.NetNS = cfg.Namespaces && cfg.Profile.NetworkOff && r.Has("net")
}

// errRetryNoPID: the command must be started again without a PID
// namespace.
var errRetryNoPID = errors.New("sandbox: no /proc for a PID namespace")

// lockedWriter serializes writes to a writer that is not a file.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}
