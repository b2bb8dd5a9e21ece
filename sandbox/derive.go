package sandbox

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/toolgate/toolgate/gates"
	"github.com/toolgate/toolgate/gates/paths"
	"github.com/toolgate/toolgate/policy"
)

// Walk bounds: the walk that finds files the policy denies reading stops
// after this many entries or this long, and says what it left unchecked.
const (
	DefaultWalkEntries = 20000
	DefaultWalkTime    = 200 * time.Millisecond
)

// Input is what Derive needs to know about the command and its machine.
type Input struct {
	Cwd     string
	Home    string
	TempDir string
	// Getenv reads the command's environment (PATH, GOMODCACHE,
	// XDG_RUNTIME_DIR, SSH_AUTH_SOCK …).
	Getenv func(string) string
	Policy *policy.Policy
	// Own are toolgate's own files (gates.OwnFiles): every policy file
	// location of every scope, the trust store's folder, the audit log
	// and its head.
	Own []string
	// Writes are the paths outside the project that this command writes
	// (redirect targets, destinations) and its decision allowed or the
	// person approved: each is a write root, an existing one as itself, a
	// missing one as its folder (never $HOME or a folder above it).
	Writes []string
	// Writable are protected paths this command may write because the
	// person approved a prompt that named them (a git unit that writes
	// .git/config by design): they are not made read-only.
	Writable    []string
	WalkEntries int
	WalkTime    time.Duration
	// CacheDir keeps the answers of earlier walks (toolgate's own folder,
	// which a confined command cannot write); "" walks every time.
	CacheDir string
}

// Derive computes the profile for a command run in in.Cwd by in.Policy
// . notes are what the person should know about it (no project
// write root, a walk cut short), in words.
func Derive(in Input) (*Profile, []string, error) {
	if in.Getenv == nil {
		in.Getenv = os.Getenv
	}
	if in.WalkEntries == 0 {
		in.WalkEntries = DefaultWalkEntries
	}
	if in.WalkTime == 0 {
		in.WalkTime = DefaultWalkTime
	}
	cwd, err := filepath.EvalSymlinks(in.Cwd)
	if err != nil {
		return nil, nil, fmt.Errorf("working directory: %w", err)
	}
	home := realOr(in.Home)
	d := &deriver{in: in, home: home, cwd: cwd, seen: map[string]bool{}, view: paths.NewView()}
	for _, w := range in.Writable {
		// Marked seen, a path is never listed read-only.
		d.seen[filepath.Clean(w)], d.seen[realOr(w)] = true, true
	}
	d.p = &Profile{Version: ProfileVersion, Mode: "on", Cwd: cwd}
	if in.Policy != nil {
		if in.Policy.Sandbox.Mode == policy.SandboxRequired {
			d.p.Mode = "required"
		}
		d.p.NetworkOff = in.Policy.Sandbox.NetworkOff
	}
	d.writeRoots()
	d.readOnly()
	d.hidden()
	if len(d.missing) > 0 {
		d.p.Unenforced = append(d.p.Unenforced, "protected files not there yet get no placeholder (one would show in the work tree): one the command creates is moved aside within 50 ms, and once more when the command ends: "+strings.Join(d.missing, ", "))
	}
	d.sockets()
	return d.p, d.notes, nil
}

type deriver struct {
	in        Input
	home, cwd string
	project   string // "" when the cwd gives no write root
	p         *Profile
	notes     []string
	seen      map[string]bool // read-only paths already listed
	// denies are the read and path denies of the policy's sides.
	denies []*policy.Rule
	// view answers the walk's path resolutions from what it listed.
	view *paths.View
	// missing are protected files not there yet that no placeholder
	// stands for (one would show in the work tree).
	missing []string
}

func realOr(p string) string {
	if p == "" {
		return ""
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// cacheDirs are the per-user folders everyday tools write (relative to
// home), beside Go's own caches read from the environment.
var cacheDirs = []string{".npm", ".cache", ".cargo/registry", ".cargo/git", ".m2/repository",
	".gradle/caches", ".bun/install/cache", ".local/share/pnpm/store", ".yarn/berry/cache"}

func (d *deriver) addWrite(path, why string) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return // a folder that is not there is no write root (Landlock binds inodes)
	}
	for _, w := range d.p.Write {
		if within(real, w.Path) {
			return
		}
	}
	d.p.Write = append(d.p.Write, Entry{Path: real, Why: why})
}

func (d *deriver) writeRoots() {
	switch {
	case d.cwd == "/" || d.home != "" && within(d.home, d.cwd):
		d.notes = append(d.notes, fmt.Sprintf("no project write root: the working directory %s is / , $HOME or above it", d.cwd))
	default:
		d.project = d.cwd
		d.p.Write = append(d.p.Write, Entry{Path: d.cwd, Why: "the project"})
	}
	tmp := d.in.TempDir
	if tmp == "" {
		tmp = os.TempDir()
	}
	d.addWrite(tmp, "the temp directory")
	if d.home != "" {
		for _, c := range cacheDirs {
			d.addWrite(filepath.Join(d.home, c), "a per-user cache")
		}
	}
	for _, env := range []string{"GOMODCACHE", "GOCACHE"} {
		if v := d.in.Getenv(env); v != "" {
			d.addWrite(v, "Go's "+env)
		}
	}
	if d.in.Getenv("GOMODCACHE") == "" && d.home != "" {
		gopath := d.in.Getenv("GOPATH")
		if gopath == "" {
			gopath = filepath.Join(d.home, "go")
		}
		d.addWrite(filepath.Join(strings.Split(gopath, ":")[0], "pkg", "mod"), "Go's module cache")
	}
	if pol := d.in.Policy; pol != nil {
		for _, w := range pol.Sandbox.Write {
			d.addWrite(policy.ExpandHome(w, d.in.Home), "sandboxWrite")
		}
	}
	for _, w := range d.in.Writes {
		w = filepath.Clean(w)
		if !filepath.IsAbs(w) || rootOf(d.p.Write, realOr(w)) != "" || rootOf(d.p.Write, realOr(filepath.Dir(w))) != "" {
			continue // not a path, or writable already
		}
		if w == "/" || d.home != "" && within(d.home, realOr(w)) {
			d.p.Unenforced = append(d.p.Unenforced, fmt.Sprintf("%s is not made writable (it is / , $HOME or above it)", w))
			continue
		}
		if _, err := os.Lstat(w); err == nil {
			d.addWrite(w, "a path this command's decision lets it write")
			continue
		}
		parent := filepath.Dir(w)
		if parent == "/" || d.home != "" && within(d.home, realOr(parent)) {
			d.p.Unenforced = append(d.p.Unenforced, fmt.Sprintf("%s is not there yet and its folder %s is not made writable (it is / , $HOME or above it)", w, parent))
			continue
		}
		d.addWrite(parent, "the folder of a path this command's decision lets it write")
	}
	// A worktree's real git folder is written by every commit.
	if d.project != "" {
		if gitdir, common := gitDirs(filepath.Join(d.project, ".git")); gitdir != "" {
			d.addWrite(common, "the repository's git folder (a worktree's)")
			d.repo(gitdir)
			d.repo(common)
			d.gitfile(filepath.Join(d.project, ".git"))
		}
	}
}

// gitfile keeps a .git file read-only: it names the git folder whose
// hooks and configuration the repository uses, and one edited to name a
// folder the command made would arm hooks the kernel never saw.
func (d *deriver) gitfile(path string) {
	d.protect(path, false, "a gitfile: which git folder the repository uses (built-in protected path)")
}

// gitDirs reads a gitfile (.git that is a file: a worktree or submodule)
// and returns its git folder and common folder; "" when path is none.
func gitDirs(path string) (gitdir, common string) {
	info, err := os.Lstat(path)
	if err != nil || !info.Mode().IsRegular() || info.Size() > 4096 {
		return "", ""
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", ""
	}
	g, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
	if !ok {
		return "", ""
	}
	if !filepath.IsAbs(g) {
		g = filepath.Join(filepath.Dir(path), g)
	}
	gitdir = realOr(g)
	common = gitdir
	if c, err := os.ReadFile(filepath.Join(gitdir, "commondir")); err == nil {
		cd := strings.TrimSpace(string(c))
		if !filepath.IsAbs(cd) {
			cd = filepath.Join(gitdir, cd)
		}
		common = realOr(cd)
	}
	return gitdir, common
}

// protect lists path read-only when it lies in a write root. One that
// does not exist yet is made read-only through the first folder on its
// way that is missing (an empty read-only folder stands there while the
// command runs, which git does not show); a missing file whose folder is
// there is given an empty placeholder inside a git folder, and otherwise
// (it would show in the work tree) is said to be unenforced.
func (d *deriver) protect(path string, dir bool, why string) {
	path = filepath.Clean(path)
	root := rootOf(d.p.Write, path)
	if root == "" || path == root {
		return
	}
	if _, err := os.Lstat(path); err != nil {
		top := path
		for p := filepath.Dir(path); p != root && len(p) > len(root); p = filepath.Dir(p) {
			if _, err := os.Lstat(p); err == nil {
				break
			}
			top = p
		}
		switch {
		case top != path:
			path, dir = top, true
		case dir:
		case strings.Contains(path, "/.git/") || filepath.Base(filepath.Dir(path)) == ".git":
		default:
			d.absent(path, why)
			return
		}
	} else if real, err := filepath.EvalSymlinks(path); err == nil {
		if rootOf(d.p.Write, real) == "" {
			return // it lives outside every write root: read-only already
		}
		path = real
	}
	if d.seen[path] {
		return
	}
	d.seen[path] = true
	d.p.ReadOnly = append(d.p.ReadOnly, Entry{Path: path, Dir: dir, Why: why})
}

// absent lists a protected file that is not there yet and has no
// placeholder: Run moves aside one the command creates.
func (d *deriver) absent(path, why string) {
	if d.seen[path] {
		return
	}
	d.seen[path] = true
	d.missing = append(d.missing, path)
	d.p.Absent = append(d.p.Absent, Entry{Path: path, Why: why})
}

// fileLike reports whether a path toolgate names as its own, not there
// yet, is a file (a policy, agent or log file) rather than a folder.
func fileLike(p string) bool {
	switch filepath.Ext(p) {
	case ".json", ".jsonc", ".jsonl", ".head", ".md", ".log":
		return true
	}
	return false
}

// repo protects the rows of the arming table kept below a git folder.
func (d *deriver) repo(gitdir string) {
	for _, r := range gates.ArmingTable {
		if r.Kernel == "repo" {
			p := filepath.Join(gitdir, r.Path)
			if _, err := os.Lstat(p); err != nil && r.Path != "hooks" && r.Path != "config" {
				// A placeholder commondir would stop git itself (it reads
				// the file whenever it is there); config.worktree counts
				// only where the read-only config says so.
				if r.Path == "commondir" {
					d.absent(p, r.Why+" (built-in protected path)")
				}
				continue
			}
			d.protect(p, r.Dir, r.Why+" (built-in protected path)")
		}
	}
	// Submodules keep their git folders in modules/.
	if mods, err := os.ReadDir(filepath.Join(gitdir, "modules")); err == nil {
		for _, m := range mods {
			if m.IsDir() {
				d.repo(filepath.Join(gitdir, "modules", m.Name()))
			}
		}
	}
}

func (d *deriver) readOnly() {
	for _, own := range d.in.Own {
		if own == "" {
			continue
		}
		info, err := os.Lstat(own)
		dir := err == nil && info.IsDir() || err != nil && !fileLike(own)
		d.protect(own, dir, "toolgate's own files (built-in protected path)")
	}
	// Every repository at the top of a write root (the temp directory
	// excepted: it is everyone's scratch space).
	for _, w := range d.p.Write {
		if w.Why == "the temp directory" {
			continue
		}
		if info, err := os.Lstat(filepath.Join(w.Path, ".git")); err == nil && info.IsDir() {
			d.repo(filepath.Join(w.Path, ".git"))
		}
	}
	if d.project != "" {
		for _, r := range gates.ArmingTable {
			if r.Kernel == "root" {
				d.protect(filepath.Join(d.project, r.Path), r.Dir, r.Why+" (built-in protected path)")
			}
		}
	}
	if d.home != "" {
		for _, r := range gates.ArmingTable {
			if r.Kernel == "home" {
				d.protect(filepath.Join(d.home, r.Path), r.Dir, r.Why+" (built-in protected path)")
			}
		}
	}
	// A PATH folder under a cache or sandboxWrite root stays read-only (a
	// file written there runs for the next command of that name); one in
	// the project (node_modules/.bin) is the build's own.
	for _, dir := range filepath.SplitList(d.in.Getenv("PATH")) {
		real := realOr(dir)
		if filepath.IsAbs(dir) && rootOf(d.p.Write, real) != "" && !d.inTemp(real) && (d.project == "" || !within(real, d.project)) {
			if _, err := os.Stat(dir); err == nil {
				d.protect(dir, true, "a folder on PATH (built-in protected path)")
			}
		}
	}
}

func (d *deriver) inTemp(p string) bool {
	for _, w := range d.p.Write {
		if w.Why == "the temp directory" && within(p, w.Path) {
			return true
		}
	}
	return false
}

// hidden hides what the policy denies reading: a denied folder whole, and
// the existing files a bounded walk of the project and of each pattern's
// named folder finds matching a deny.
func (d *deriver) hidden() {
	pol := d.in.Policy
	if pol == nil {
		return
	}
	var named []string
	// The denies of every side the gates decide on: the policy, the
	// policy without untrusted project files, the managed file.
	for _, side := range []*policy.Policy{pol, pol.Without(), pol.Managed()} {
		if side == nil {
			continue
		}
		for _, r := range side.Rules() {
			if r.Action == policy.Deny && !r.IsFallback() && (r.MatchesSurface("path") || r.MatchesSurface("read")) {
				d.denies = append(d.denies, r)
			}
		}
	}
	any := len(d.denies) > 0
	for _, r := range d.denies {
		pat := policy.ExpandHome(r.Pattern, d.in.Home)
		if !filepath.IsAbs(pat) {
			continue // relative: the project walk finds it
		}
		prefix := pat
		if i := strings.IndexAny(pat, "*?["); i >= 0 {
			prefix = pat[:i]
		}
		dir := filepath.Clean(prefix)
		if !strings.HasSuffix(prefix, "/") {
			dir = filepath.Dir(prefix)
		}
		if whole := strings.TrimSuffix(pat, "/*"); whole != pat && !strings.ContainsAny(whole, "*?[") {
			// "X/*": the folder itself is denied.
			d.hide(filepath.Clean(whole), true, ruleWhy(r))
			continue
		}
		named = append(named, dir)
	}
	if !any && d.project == "" {
		return
	}
	if !any {
		named = nil
	}
	var starts []string
	if d.project != "" {
		starts = append(starts, d.project)
	}
	sort.Strings(named)
	for _, n := range named {
		if len(starts) == 0 || !within(n, starts[len(starts)-1]) {
			starts = append(starts, n)
		}
	}
	key := d.walkKey(starts, any)
	w, ok := loadWalk(d.in.CacheDir, key)
	if !ok {
		w = d.walk(starts, any)
		w.Key = key
		storeWalk(d.in.CacheDir, w)
	}
	for _, h := range w.Hidden {
		d.hide(h.Path, h.Dir, h.Why)
	}
	for _, r := range w.Repos {
		d.repo(r)
	}
	for g := range w.Gitfiles {
		d.gitfile(g)
	}
	for _, start := range w.Cut {
		d.unwalked(start)
	}
}

// walk walks starts within the bound: the files the policy denies
// reading, the git folders below the top of the project, and each folder
// it listed with its stamp (a later walk of the same folders and policy
// is that walk's answer while no stamp changed).
func (d *deriver) walk(starts []string, any bool) *walkResult {
	w := &walkResult{Version: walkVersion, Dirs: map[string]dirStamp{}}
	names := listings{}
	defer names.into(w)
	deadline := time.Now().Add(d.in.WalkTime)
	budget := d.in.WalkEntries
	for _, start := range starts {
		if budget <= 0 || time.Now().After(deadline) {
			w.Cut = append(w.Cut, start)
			w.Uncacheable = w.Uncacheable || budget > 0
			continue
		}
		err := filepath.WalkDir(start, func(path string, e fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			// The listing says what each entry is: resolving its path
			// asks the file system nothing more.
			d.view.Seed(path, e.Type())
			if path != start {
				names.add(filepath.Dir(path), e)
			}
			if e.Type()&fs.ModeSymlink != 0 {
				if w.Links == nil {
					w.Links = map[string]string{}
				}
				w.Links[path] = realOf(path)
			}
			budget--
			if budget <= 0 || budget%256 == 0 && time.Now().After(deadline) {
				w.Cut = append(w.Cut, start)
				// The folders on the way to here were listed in part.
				for dir := filepath.Dir(path); within(dir, start); dir = filepath.Dir(dir) {
					names.relist(dir)
					if dir == start {
						break
					}
				}
				// A walk the clock cut short says nothing of the next one.
				w.Uncacheable = w.Uncacheable || budget > 0
				return fs.SkipAll
			}
			if e.Name() == ".git" {
				// A repository below the top of the project: its hooks
				// and configuration run for the person later, as the
				// top one's do.
				if d.project != "" && within(path, d.project) && path != filepath.Join(d.project, ".git") {
					switch st, ok := stampKind(path, syscall.S_IFREG); {
					case e.IsDir():
						w.Repos = append(w.Repos, path)
					case !ok:
						w.Uncacheable = true // neither a folder nor a file: not kept
					default:
						// A gitfile names its git folder: stamped before it
						// is read, so an edit after this is seen.
						if w.Gitfiles == nil {
							w.Gitfiles = map[string]dirStamp{}
						}
						w.Gitfiles[path] = st
						if gitdir, common := gitDirs(path); gitdir != "" {
							w.Repos = append(w.Repos, gitdir)
							if common != gitdir {
								w.Repos = append(w.Repos, common)
							}
						}
					}
				}
				if e.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if any {
				if r := d.denied(path); r != nil {
					w.Hidden = append(w.Hidden, Entry{Path: path, Dir: e.IsDir(), Why: ruleWhy(r)})
					if e.IsDir() {
						return fs.SkipDir
					}
				}
			}
			if e.IsDir() {
				// Stamped as it is listed: a change after this is seen.
				if st, ok := stampOf(path); ok {
					w.Dirs[path] = st
				} else {
					w.Uncacheable = true
				}
			}
			return nil
		})
		_ = err
	}
	return w
}

func (d *deriver) unwalked(start string) {
	msg := fmt.Sprintf("files under %s were not all looked at (walk bound: %d entries or %v): files the policy denies reading past it are not hidden, and git folders past it are not made read-only", start, d.in.WalkEntries, d.in.WalkTime)
	d.p.Unenforced = append(d.p.Unenforced, msg)
}

// mayDeny reports whether a deny of the policy's sides matches one of
// values: only then can an answer for them be a deny (most entries of a
// walk match none, and skip the full resolution).
func (d *deriver) mayDeny(values []string) bool {
	for _, r := range d.denies {
		for _, v := range values {
			if r.MatchesValue(v, true) {
				return true
			}
		}
	}
	return false
}

// denied is the deny rule that decides reading path, nil for none.
func (d *deriver) denied(path string) *policy.Rule {
	p := d.view.New(path, d.cwd, d.cwd, d.in.Home)
	values := append(p.Spelled(), p.RealForms()...)
	if !d.mayDeny(values) {
		return nil // no deny matches any form: no answer can be a deny
	}
	for _, surface := range []string{"read", "path"} {
		res := d.in.Policy.ResolveSides(policy.Query{Surface: surface, Values: values})
		if res.Action == policy.Deny && res.Rule != nil && !res.Rule.IsFallback() {
			return res.Rule
		}
	}
	return nil
}

func ruleWhy(r *policy.Rule) string {
	where := r.Origin.Scope
	if r.Origin.Path != "" {
		where = fmt.Sprintf("%s:%d", r.Origin.Path, r.Origin.Line)
	}
	return fmt.Sprintf("%s deny %q (%s)", r.Surface, r.Pattern, where)
}

// hide lists path hidden, unless hiding it would hide a write root or the
// working directory (then it is said to be unenforced).
func (d *deriver) hide(path string, dir bool, why string) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return // nothing there to hide
	}
	if within(d.cwd, real) {
		d.p.Unenforced = append(d.p.Unenforced, fmt.Sprintf("%s (%s) holds the working directory and is not hidden", real, why))
		return
	}
	for _, w := range d.p.Write {
		if within(w.Path, real) {
			d.p.Unenforced = append(d.p.Unenforced, fmt.Sprintf("%s (%s) holds the write root %s and is not hidden", real, why, w.Path))
			return
		}
	}
	for _, h := range d.p.Hidden {
		if within(real, h.Path) {
			return
		}
	}
	d.p.Hidden = append(d.p.Hidden, Entry{Path: real, Dir: dir, Why: why})
}

// sockets hides the ways to processes outside: the runtime folder, the
// docker socket, tmux's and screen's socket folders and the ssh agent's,
// unless sandboxSockets lists them.
func (d *deriver) sockets() {
	var allowed []string
	if pol := d.in.Policy; pol != nil {
		for _, s := range pol.Sandbox.Sockets {
			allowed = append(allowed, realOr(policy.ExpandHome(s, d.in.Home)))
		}
	}
	cands := []string{d.in.Getenv("XDG_RUNTIME_DIR"), "/run/docker.sock", "/var/run/docker.sock",
		filepath.Join(os.TempDir(), fmt.Sprintf("tmux-%d", os.Getuid())), "/run/screen", "/var/run/screen"}
	if sock := d.in.Getenv("SSH_AUTH_SOCK"); sock != "" {
		cands = append(cands, filepath.Dir(sock))
	}
	for _, c := range cands {
		if c == "" || c == "/" || c == "." {
			continue
		}
		real, err := filepath.EvalSymlinks(c)
		if err != nil {
			continue
		}
		ok := false
		for _, a := range allowed {
			if within(real, a) || within(a, real) {
				ok = true
			}
		}
		if ok || within(d.cwd, real) || rootInside(d.p.Write, real) || real == os.TempDir() {
			continue
		}
		info, err := os.Stat(real)
		if err != nil {
			continue
		}
		d.p.Sockets = append(d.p.Sockets, Entry{Path: real, Dir: info.IsDir(), Why: "a way to processes outside the sandbox (sandboxSockets lists what stays open)"})
	}
}

// rootInside reports whether a write root lies in dir.
func rootInside(roots []Entry, dir string) bool {
	for _, w := range roots {
		if within(w.Path, dir) {
			return true
		}
	}
	return false
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
