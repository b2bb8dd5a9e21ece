package gates

import (
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"

	"github.com/toolgate/toolgate/gates/paths"
	"github.com/toolgate/toolgate/gates/shell"
	"github.com/toolgate/toolgate/policy"
)

// SentinelProtected is reported when a change to toolgate's own policy
// files or audit log was floored to ask.
const SentinelProtected = "<toolgate-own-files>"

// protectedPaths are the files an agent must not change silently: the
// policy that governs it (every scope, legacy files, agent files, MCP server
// names) and the audit log. A project file can loosen an ask, so an agent
// that could write it unasked could grant itself anything the global
// policy merely asks for. They are worked out once per call and kept in
// it. Its plain twin is OwnFiles worked out afresh;
// TestProtectedPathsCacheIsOwnFiles keeps them equal.
func protectedPaths(c *Call) []string {
	if c.protectedDirs != nil {
		return c.protectedDirs
	}
	if k := lastOwnFiles.Load(); k != nil && k.agentDir == c.AgentDir && k.cwd == c.Cwd && slices.Equal(k.protected, c.Protected) {
		c.protectedDirs, c.protectedClean = k.out, k.clean
		return k.out
	}
	out := slices.Clip(OwnFiles(c.Protected, c.AgentDir, c.Cwd)) // shared: an append copies
	clean := cleanOwnFiles(out, len(c.Protected))
	lastOwnFiles.Store(&ownFilesOf{protected: slices.Clone(c.Protected), agentDir: c.AgentDir, cwd: c.Cwd, out: out, clean: clean})
	c.protectedDirs, c.protectedClean = out, clean
	return out
}

// cleanOwnFiles is OwnFiles' out cleaned, its empty entries left out: the
// first n (the call's Protected) cleaned, the rest clean already
// (joinClean's).
func cleanOwnFiles(out []string, n int) []string {
	clean := make([]string, 0, len(out))
	for i, dir := range out {
		switch {
		case dir == "":
		case i >= n:
			clean = append(clean, dir)
		default:
			clean = append(clean, paths.Clean(dir))
		}
	}
	return slices.Clip(clean) // shared: an append copies
}

// lastOwnFiles is the last OwnFiles protectedPaths worked out: a session's
// calls ask for the same one (the same files, agent folder and working
// directory) and get it without the joins. Nothing changes an entry.
var lastOwnFiles atomic.Pointer[ownFilesOf]

type ownFilesOf struct {
	protected     []string
	agentDir, cwd string
	out, clean    []string
}

// OwnFiles is protected (the host's and the session's own files: --config
// files, the audit log, toolgate's policy folders) with pi's policy files
// of agentDir and cwd: every path no call may change unasked, and that
// confinement keeps read-only.
func OwnFiles(protected []string, agentDir, cwd string) []string {
	out := make([]string, 0, len(protected)+7)
	out = append(out, protected...)
	if agentDir != "" {
		out = append(out,
			joinClean(agentDir, "extensions/pi-permission-system"),
			joinClean(agentDir, "agents"),
			joinClean(agentDir, "pi-permissions.jsonc"),
			joinClean(agentDir, "mcp.json"))
	}
	if cwd != "" {
		out = append(out,
			joinClean(cwd, ".pi/extensions/pi-permission-system"),
			joinClean(cwd, ".pi/agents"),
			joinClean(cwd, ".pi/agent/pi-permissions.jsonc"))
	}
	return out
}

// joinClean is filepath.Join(dir, rel) for a clean relative rel, without
// the cleaning pass when dir is clean already (TestJoinCleanIsJoin).
func joinClean(dir, rel string) string {
	if dir != "/" && dir != "." && paths.IsClean(dir) {
		return dir + "/" + rel
	}
	return filepath.Join(dir, rel)
}

// guardSet is protectedPaths cleaned, with the real paths of those that
// resolve elsewhere, worked out once per evaluation rather than per path.
// TestFastGuardIsPlain keeps guard with it equal to the plain guard.
type guardSet struct {
	dirs  []string // protectedPaths, cleaned
	reals []string // their real paths where those differ
}

func guards(c *Call) *guardSet {
	if c.memo != nil && c.memo.guards != nil {
		return c.memo.guards
	}
	dirs := protectedPaths(c)
	g := keptGuards(c, dirs)
	if g == nil {
		g = &guardSet{dirs: c.protectedClean} // worked out with dirs, as pure
		for _, dir := range dirs {
			if real, ok := c.canonicalDir(dir); ok && real != dir && real != "" {
				g.reals = append(g.reals, paths.Clean(real))
			}
		}
	}
	if c.memo != nil {
		c.memo.guards = g
	}
	return g
}

// keptGuards is the guard set of the protected paths dirs from the last
// call's, when the directory cache answered every one of their real paths
// under its generation as one it answers the same again while that
// generation lasts (paths.KeptDirs), and the generation is still that
// one: the set guards would build again, without asking the cache again
// for each path. It builds it (asking the cache) and keeps it when it can
// be kept; nil when the call must build its own: no kept cache, an
// evaluation that records its questions (Evals), a path the cache does not
// keep. Its plain twin is guards' own loop (KeepGuards(false));
// TestKeptGuardsAreBuilt keeps them equal across changes.
func keptGuards(c *Call, dirs []string) *guardSet {
	if ownGuards.Load() || c.fs == nil || c.fs.Recording() || c.fs.Dirs == nil || len(dirs) == 0 {
		return nil
	}
	kd, ok := c.fs.Dirs.(paths.KeptDirs)
	gd, gok := c.fs.Dirs.(generationer)
	if !ok || !gok {
		return nil
	}
	if !reflect.TypeOf(c.fs.Dirs).Comparable() {
		return nil // kept by identity (a pointer, as the server's)
	}
	gen := gd.Generation()
	if k := lastGuards.Load(); k != nil && k.gen == gen && k.dirs == c.fs.Dirs && sameSlice(k.protected, dirs) {
		if k.g != nil {
			guardsTaken.Add(1)
		}
		return k.g // nil: not kept (a path the cache does not keep)
	}
	g := &guardSet{dirs: c.protectedClean}
	kept := true
	for _, dir := range dirs {
		real, ok, hit, stable := kd.CanonicalKept(dir)
		if !hit || !stable {
			kept = false
			break
		}
		if ok && real != dir && real != "" {
			g.reals = append(g.reals, paths.Clean(real))
		}
	}
	if !kept {
		g = nil
	}
	if gd.Generation() == gen {
		lastGuards.Store(&guardsOf{protected: dirs, dirs: c.fs.Dirs, gen: gen, g: g})
	}
	return g
}

// ownGuards, when set (KeepGuards(false)), has every call build its own
// guard set: the plain twin of keptGuards.
var ownGuards atomic.Bool

// KeepGuards sets whether a call may take the guard set the last call
// worked out (keptGuards) and returns a function that restores the
// setting: off, each call builds its own, the plain twin the tests
// compare with.
func KeepGuards(on bool) (restore func()) {
	was := ownGuards.Swap(!on)
	lastGuards.Store(nil)
	return func() { ownGuards.Store(was); lastGuards.Store(nil) }
}

// guardsTaken counts the calls that took the guard set of a call before
// (KeptGuardsTaken).
var guardsTaken atomic.Uint64

// KeptGuardsTaken is how many calls took the guard set a call before
// them worked out (keptGuards), for the tests that check it happens.
func KeptGuardsTaken() uint64 { return guardsTaken.Load() }

// lastGuards is the guard set keptGuards last worked out: nothing changes
// an entry, and its guardSet is shared (read only).
var lastGuards atomic.Pointer[guardsOf]

type guardsOf struct {
	protected []string // protectedPaths' shared slice (lastOwnFiles)
	dirs      any      // the directory cache that answered
	gen       uint64
	g         *guardSet
}

// sameSlice reports whether a and b are the same slice (not merely equal):
// protectedPaths hands every call of a session the one it keeps.
func sameSlice(a, b []string) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// protected reports whether either identity of p is, or lies in, one of
// toolgate's own files: its spelled or real form in one of them, or its
// real form in one's real path.
func protected(c *Call, p paths.Path) bool {
	if h, ok := p.Host(); ok && protected(c, h) {
		return true
	}
	g := guards(c)
	abs, real := p.Abs, p.Real // clean, as New makes them
	other := real != abs       // the real form of a path without links is its absolute one
	for _, dir := range g.dirs {
		if paths.WithinClean(abs, dir) || other && paths.WithinClean(real, dir) {
			return true
		}
	}
	for _, dir := range g.reals {
		if paths.WithinClean(real, dir) {
			return true
		}
	}
	return false
}

// SentinelArming is reported when a change that would make a later
// allowed command run code (git configuration and hooks, shell start-up
// files) was floored to ask.
const SentinelArming = shell.SentinelArming

// guard returns the floor a change to p gets: SentinelProtected for
// toolgate's own files, SentinelArming for a file that makes later commands
// run code, "" for none. Its plain twin is guardPlain (plain_test.go);
// TestFastGuardIsPlain keeps them equal.
func guard(c *Call, p paths.Path) string {
	switch {
	case protected(c, p):
		return SentinelProtected
	case arming(c.fs, p):
		return SentinelArming
	}
	return ""
}

// floorProtected turns an allow into an ask, with no session option: every
// change to toolgate's own files, and every arming write, is asked,
// whatever the policy says. sentinel is what guard returned.
func floorProtected(o *Outcome, sentinel string) {
	if o.D.State == policy.Allow {
		o.D.State, o.D.Rule, o.D.Session, o.D.Sentinel = policy.Ask, nil, false, sentinel
	}
	o.D.SessionPatterns = nil
}

// arming reports whether either identity of p (or, for a path whose
// location is unknown, its literal) is a file that makes a later command
// run code when written (issue 12.5): git configuration and hooks, shell
// start-up files, and the like.
func arming(v *paths.View, p paths.Path) bool {
	if h, ok := p.Host(); ok && arming(v, h) { // the file the host really writes
		return true
	}
	// A directory named config (Rails' config/) is no configuration file;
	// whether it is one is asked only of a path named like one.
	dir := func() bool {
		if p.Real == "" {
			return false
		}
		info, err := v.Stat(p.Real) // through the view: recorded (Evals)
		return err == nil && info.IsDir()
	}
	forms := [...]string{p.Abs, p.Real, p.Literal}
	for i, s := range forms {
		// New made them clean; a form equal to one before it (the real
		// path of a path without links is its absolute one) says nothing new.
		if s != "" && (i == 0 || s != forms[0]) && (i < 2 || s != forms[1]) && armingClean(s, dir) {
			return true
		}
	}
	return false
}

// ArmingRow is one row of the table of files that arm: a file that makes
// a later command run code when written (issue 12.5).
type ArmingRow struct {
	// Name is a file name that arms wherever it is (Match "name"), or a
	// folder every file in which arms (Match "dir": from the root when it
	// is a system folder, anywhere else), or a case armingClean's code
	// decides (Match "code": git's and husky's hooks).
	Name  string
	Match string
	// Kernel says where confinement keeps the row read-only inside its
	// write roots: "repo" below each repository's git folder
	// (Path, even before it exists), "root" at the top of each write root
	// (Path, when it exists), "home" below $HOME (Path); "" for none (the
	// analysis floors it; a system folder is no write root).
	Kernel string
	Path   string
	Dir    bool
	Why    string
}

// ArmingTable is every arming file. A file named "config" is git's own
// (.git/config, a bare repository's config, ~/.config/git/config) as well
// as ssh's, aws's and kubectl's, which run programs too; .envrc is run by
// direnv; .npmrc sets the shell and node options of every npm script; the
// folders on a usual PATH arm too (a file written there, ~/.local/bin/git,
// runs for the next allowed git).
var ArmingTable = []ArmingRow{
	{Name: ".bashrc", Match: "name", Kernel: "home", Path: ".bashrc", Why: "shell start-up file"},
	{Name: ".bash_profile", Match: "name", Kernel: "home", Path: ".bash_profile", Why: "shell start-up file"},
	{Name: ".bash_login", Match: "name", Kernel: "home", Path: ".bash_login", Why: "shell start-up file"},
	{Name: ".bash_logout", Match: "name", Kernel: "home", Path: ".bash_logout", Why: "shell start-up file"},
	{Name: ".bash_aliases", Match: "name", Kernel: "home", Path: ".bash_aliases", Why: "shell start-up file"},
	{Name: ".profile", Match: "name", Kernel: "home", Path: ".profile", Why: "shell start-up file"},
	{Name: ".zshrc", Match: "name", Kernel: "home", Path: ".zshrc", Why: "shell start-up file"},
	{Name: ".zprofile", Match: "name", Kernel: "home", Path: ".zprofile", Why: "shell start-up file"},
	{Name: ".zshenv", Match: "name", Kernel: "home", Path: ".zshenv", Why: "shell start-up file"},
	{Name: ".zlogin", Match: "name", Kernel: "home", Path: ".zlogin", Why: "shell start-up file"},
	{Name: ".zlogout", Match: "name", Kernel: "home", Path: ".zlogout", Why: "shell start-up file"},
	{Name: ".kshrc", Match: "name", Kernel: "home", Path: ".kshrc", Why: "shell start-up file"},
	{Name: ".mkshrc", Match: "name", Kernel: "home", Path: ".mkshrc", Why: "shell start-up file"},
	{Name: ".cshrc", Match: "name", Kernel: "home", Path: ".cshrc", Why: "shell start-up file"},
	{Name: ".tcshrc", Match: "name", Kernel: "home", Path: ".tcshrc", Why: "shell start-up file"},
	{Name: ".login", Match: "name", Kernel: "home", Path: ".login", Why: "shell start-up file"},
	{Name: ".logout", Match: "name", Kernel: "home", Path: ".logout", Why: "shell start-up file"},
	{Name: ".xprofile", Match: "name", Kernel: "home", Path: ".xprofile", Why: "session start-up file"},
	{Name: ".xinitrc", Match: "name", Kernel: "home", Path: ".xinitrc", Why: "session start-up file"},
	{Name: ".xsession", Match: "name", Kernel: "home", Path: ".xsession", Why: "session start-up file"},
	{Name: ".envrc", Match: "name", Kernel: "root", Path: ".envrc", Why: "direnv start-up file"},
	{Name: ".gitconfig", Match: "name", Kernel: "home", Path: ".gitconfig", Why: "git configuration"},
	{Name: "gitconfig", Match: "name", Why: "git configuration"},
	{Name: ".npmrc", Match: "name", Kernel: "root", Path: ".npmrc", Why: "npm configuration (runs scripts)"},
	{Name: "config", Match: "name", Kernel: "repo", Path: "config", Why: "git configuration"},
	{Name: "config.worktree", Match: "name", Kernel: "repo", Path: "config.worktree", Why: "git worktree configuration"},
	{Name: "config.fish", Match: "name", Why: "shell start-up file"},
	{Name: "bash.bashrc", Match: "name", Why: "shell start-up file"},
	{Name: "bashrc", Match: "name", Why: "shell start-up file"},
	{Name: "zshrc", Match: "name", Why: "shell start-up file"},
	{Name: "zshenv", Match: "name", Why: "shell start-up file"},
	{Name: "zprofile", Match: "name", Why: "shell start-up file"},
	{Name: "hooks", Match: "code", Kernel: "repo", Path: "hooks", Dir: true, Why: "git hooks"},
	{Name: "commondir", Match: "code", Kernel: "repo", Path: "commondir", Why: "git's link to another repository's folder (its hooks and configuration)"},
	{Name: ".husky", Match: "code", Kernel: "root", Path: ".husky", Dir: true, Why: "husky's git hooks"},
	{Name: "/etc/profile.d", Match: "dir", Why: "shell start-up folder"},
	{Name: "/etc/zsh", Match: "dir", Why: "shell start-up folder"},
	{Name: "/.config/fish", Match: "dir", Kernel: "home", Path: ".config/fish", Dir: true, Why: "shell start-up folder"},
	{Name: "/.local/bin", Match: "dir", Kernel: "home", Path: ".local/bin", Dir: true, Why: "a folder on PATH"},
	{Name: "/usr/local/bin", Match: "dir", Why: "a folder on PATH"},
	{Name: "/usr/local/sbin", Match: "dir", Why: "a folder on PATH"},
	{Name: "/usr/bin", Match: "dir", Why: "a folder on PATH"},
	{Name: "/usr/sbin", Match: "dir", Why: "a folder on PATH"},
	{Name: "/bin", Match: "dir", Why: "a folder on PATH"},
	{Name: "/sbin", Match: "dir", Why: "a folder on PATH"},
}

// armingNames and armingDirs are ArmingTable's "name" and "dir" rows.
var armingNames, armingDirs = func() (map[string]bool, []string) {
	names := map[string]bool{}
	var dirs []string
	for _, r := range ArmingTable {
		switch r.Match {
		case "name":
			names[r.Name] = true
		case "dir":
			dirs = append(dirs, r.Name)
		}
	}
	return names, dirs
}()

func systemDir(d string) bool {
	for _, root := range []string{"/etc/", "/usr/", "/bin", "/sbin"} {
		if strings.HasPrefix(d, root) {
			return true
		}
	}
	return false
}

// lowerASCIIInto writes s in lower case into buf when s is ASCII, fits
// and has an upper-case letter, and returns its length; 0 and true when
// s is lower case already (no copy needed); false when s is not ASCII or
// too long (strings.ToLower then).
func lowerASCIIInto(buf *[256]byte, s string) (int, bool) {
	upper := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			return 0, false
		}
		upper = upper || 'A' <= c && c <= 'Z'
	}
	if !upper {
		return 0, true
	}
	if len(s) > len(buf) {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	return len(s), true
}

// armingPath matches without regard to letter case: on a case-insensitive
// file system (macOS) .GIT/CONFIG is .git/config. Its plain twin is
// armingPathPlain (plain_test.go); TestFastGuardIsPlain keeps them equal.
func armingPath(s string, isDir func() bool) bool { return armingClean(paths.Clean(s), isDir) }

// armingClean is armingPath of a clean s.
func armingClean(s string, isDir func() bool) bool {
	// Lower case: s itself when it is already; an ASCII path that is not
	// (a home folder /home/Ann) in buf rather than a new string on every
	// call; any other with strings.ToLower.
	var buf [256]byte
	if n, ok := lowerASCIIInto(&buf, s); ok {
		if n > 0 {
			s = unsafe.String(&buf[0], n)
		}
	} else {
		s = strings.ToLower(s)
	}
	base := s[strings.LastIndexByte(s, '/')+1:]
	if armingNames[base] && !((base == "config" || base == "config.worktree") && isDir()) ||
		s == "/etc/profile" || s == "/etc/environment" {
		return true
	}
	inGit := false // below a .git directory (its modules and worktrees too)
	prev := ""
	// first is s's first component (rooted s); named marks the folders of
	// armingDirTable that are not system folders whose first component is
	// one of s's: a folder of the table can stand in s only then.
	first, named, i := "", uint64(0), 0
	for rest := s; ; i++ {
		part, next, more := strings.Cut(rest, "/")
		if i == 1 && s[0] == '/' {
			first = part
		}
		for _, f := range armingFirsts {
			if part == f.first {
				named |= f.dirs
			}
		}
		switch part {
		case ".git":
			inGit = true
			// The .git entry itself (a gitfile that points elsewhere), its
			// hooks, and its worktree and module links.
			if !more {
				return true
			}
			if n, _, _ := strings.Cut(next, "/"); n == "hooks" || n == "commondir" {
				return true
			}
		case ".husky", "hooks":
			if part == ".husky" || inGit || strings.HasSuffix(prev, ".git") {
				return true // a bare repository's hooks: x.git/hooks; a submodule's: .git/modules/m/hooks
			}
		}
		if !more {
			break
		}
		prev, rest = part, next
	}
	for j, d := range armingDirTable {
		if d.system && first == d.first && paths.WithinClean(s, d.dir) || !d.system && named&(1<<j) != 0 && containsDir(s, d.dir) {
			return true
		}
	}
	return false
}

// armingDirTable is armingDirs with whether each is a system directory
// and its first component (each starts with "/"; at most 64 of them).
var armingDirTable = func() []armingDir {
	if len(armingDirs) > 64 {
		panic("gates: more than 64 arming folders")
	}
	out := make([]armingDir, len(armingDirs))
	for i, d := range armingDirs {
		if !strings.HasPrefix(d, "/") {
			panic("gates: arming folder " + d + " does not start with /")
		}
		first, _, _ := strings.Cut(d[1:], "/")
		out[i] = armingDir{dir: d, system: systemDir(d), first: first}
	}
	return out
}()

// armingFirsts are the first components of the folders of armingDirTable
// that are not system folders, each with those folders (bits of their
// positions in the table).
var armingFirsts = func() []armingFirst {
	var out []armingFirst
	for j, d := range armingDirTable {
		if d.system {
			continue
		}
		k := slices.IndexFunc(out, func(f armingFirst) bool { return f.first == d.first })
		if k < 0 {
			k = len(out)
			out = append(out, armingFirst{first: d.first})
		}
		out[k].dirs |= 1 << j
	}
	return out
}()

type armingFirst struct {
	first string
	dirs  uint64 // bits of the folders' positions in armingDirTable
}

type armingDir struct {
	dir    string
	system bool
	first  string // the component after the leading "/"
}

// containsDir reports whether d (which starts with "/") stands in s as
// whole components: strings.Contains(s+"/", d+"/"), its plain twin.
// TestFastGuardIsPlain keeps them equal, through armingPath.
func containsDir(s, d string) bool {
	for off := 0; off <= len(s); {
		i := strings.Index(s[off:], d)
		if i < 0 {
			return false
		}
		end := off + i + len(d)
		if end == len(s) || s[end] == '/' {
			return true
		}
		off += i + 1
	}
	return false
}
