package policy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Locations say where the policy files of a session are.
type Locations struct {
	AgentDir string
	Home     string
	// ConfigHome is $XDG_CONFIG_HOME (empty: Home/.config); toolgate's own
	// global file is ConfigHome/toolgate/config.json.
	ConfigHome string
	Cwd        string
	// ConfigFiles are --config files, merged after the project file with
	// the trust of the global scope.
	ConfigFiles []string
	// ProjectTrusted false is the host's own distrust of the project
	// (initialize.projectTrusted): its files are read as untrusted, whatever
	// the trust store says (they tighten, never loosen).
	ProjectTrusted bool
	// ManagedDir is $TOOLGATE_MANAGED_DIR (empty: DefaultManagedDir),
	// honoured only for a folder owned by root and writable by no one else.
	ManagedDir string
	// AgentName selects the agent files (empty: none).
	AgentName string
	// NamedConfigs: ConfigFiles are global wherever they lie (the files a
	// policy author's tool was asked about); otherwise one inside the
	// working directory is project scope.
	NamedConfigs bool
}

// AgentPath is the agent file of name under dir (AGENT_DIR/agents or
// <cwd>/.pi/agents).
func AgentPath(dir, name string) string { return filepath.Join(dir, name+".md") }

// GlobalPath is the global config file under agentDir.
func GlobalPath(agentDir string) string {
	return filepath.Join(agentDir, "extensions", "pi-permission-system", "config.json")
}

// ToolgateGlobalPath is toolgate's own global file, for hosts without pi
// configHome/toolgate/config.json, configHome defaulting to
// home/.config.
func ToolgateGlobalPath(configHome, home string) string {
	if configHome == "" {
		configHome = filepath.Join(home, ".config")
	}
	return filepath.Join(configHome, "toolgate", "config.json")
}

// ToolgateProjectPath is toolgate's own project file: <cwd>/.toolgate/config.json.
func ToolgateProjectPath(cwd string) string { return filepath.Join(cwd, ".toolgate", "config.json") }

// LegacyGlobalPath is the original extension's global policy file.
func LegacyGlobalPath(agentDir string) string { return filepath.Join(agentDir, "pi-permissions.jsonc") }

// LegacyProjectPath is the original extension's project policy file.
func LegacyProjectPath(cwd string) string {
	return filepath.Join(cwd, ".pi", "agent", "pi-permissions.jsonc")
}

// MCPPath is the file that names the MCP servers (AGENT_DIR/mcp.json).
func MCPPath(agentDir string) string { return filepath.Join(agentDir, "mcp.json") }

// ProjectPath is the project config file under cwd.
func ProjectPath(cwd string) string {
	return filepath.Join(cwd, ".pi", "extensions", "pi-permission-system", "config.json")
}

type stamp struct {
	exists bool
	mtime  time.Time
	size   int64
	ino    uint64
	mode   fs.FileMode
}

type cached struct {
	stamp stamp
	file  *File
	// sum is the SHA-256 of the bytes file was parsed from (project
	// files only, for the trust store).
	sum string
}

// Loader reads policy files, re-reading a file only when its modification
// time (or size) changed, and recomposes the policy only when some file did.
// It is the only part of this package that touches the file system.
type Loader struct {
	mu    sync.Mutex
	files map[string]cached
	// good is each file's last version without file-level errors, kept
	// for the life of the process (Reload does not forget it).
	good    map[string]*File
	goodSum map[string]string
	lastKey string
	keyBuf  []byte
	last    *Policy

	// watch makes an unchanged policy cost one system call: the files the
	// last pass read (lastPaths, for the locations lastLoc) are watched,
	// and while it stays quiet the last policy stands. Every other call
	// reads as before; rearm asks for one more full pass, watched from its
	// start, after a pass whose files were not watched yet.
	watch     *changeWatch
	lastLoc   Locations
	hasLoc    bool
	lastPaths []string
	// armedOK: the watch said every one of lastPaths is armed, at
	// generation armedGen (see quiet).
	armedOK  bool
	armedGen uint64
	seen     []string
	rearm    bool

	// trust is the trust store as last read (trustStamp), or why it
	// could not be read (trustErr).
	trust      *TrustStore
	trustErr   error
	trustStamp stamp
	trustRead  bool
	// lastScopes are the files last composed, as judged (ProjectFiles).
	lastScopes []ScopeFile
}

// NewOneShotLoader returns a loader for a process that decides once (a
// hook host's event): it does not watch the files for changes.
func NewOneShotLoader() *Loader {
	return &Loader{files: map[string]cached{}, good: map[string]*File{}, goodSum: map[string]string{}}
}

// NewLoader returns an empty loader.
func NewLoader() *Loader {
	return &Loader{files: map[string]cached{}, good: map[string]*File{}, goodSum: map[string]string{}, watch: newChangeWatch()}
}

// Policy returns the current policy for loc, reading what changed.
func (l *Loader) Policy(loc Locations) *Policy {
	l.mu.Lock()
	defer l.mu.Unlock()
	sameLoc := l.last != nil && l.hasLoc && l.lastLoc.Equal(loc)
	if sameLoc && !l.rearm && l.quiet() {
		return l.last
	}
	l.armedOK = false
	if sameLoc {
		// Armed before reading: a change made while the files are read
		// is an event of the next call.
		l.watch.arm(l.lastPaths)
	} else {
		// The watch's events are not read on this call: a new
		// generation, so that nothing learnt under the last one is
		// trusted while events of it may wait unread.
		l.watch.bump()
	}
	l.seen = l.seen[:0]
	p := l.compose(loc)
	l.rearm = !sameLoc || !slices.Equal(l.seen, l.lastPaths)
	l.lastLoc, l.hasLoc = loc, true
	l.lastLoc.ConfigFiles = slices.Clone(loc.ConfigFiles)
	l.lastPaths = append(l.lastPaths[:0], l.seen...)
	return p
}

// WatchedAncestor is the deepest of dir and the directories above it that
// the policy files' watch sees every change of, with all the directories
// above it too (so creating, replacing or removing any of its entries is an
// event), under the watch's generation; ok is false for none.
func (l *Loader) WatchedAncestor(dir string) (gen uint64, x string, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.watch == nil || l.rearm {
		return 0, "", false
	}
	x = l.watch.deepestWatched(dir)
	return l.watch.generation(), x, x != ""
}

// Vouch reports whether the policy files' watch sees, from now on, every
// change that could alter what an lstat, or a readlink, of an entry of dir
// answers (its type, permissions, identity, link target; not its content)
// or what a listing of dir answers, arming it for dir if need be: each such
// change is an event, and the next call's generation is another. dev is
// dir's device (0 when dir does not exist): an entry on another device is
// a mount point, the root of a file system whose changes may not be events.
// False when it cannot: no watch, the policy's own files not watched yet,
// a symbolic link or a directory that cannot be looked at on the way, a
// file system whose changes inotify may miss, no notification of mounts,
// or the watch's bounds reached.
func (l *Loader) Vouch(dir string) (dev uint64, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.watch == nil || l.rearm || l.last == nil {
		return 0, false // l.last: no call read the watch yet
	}
	return l.watch.vouch(dir)
}

// Generation is the watch's generation now (see Watched).
func (l *Loader) Generation() uint64 {
	return l.watch.generation() // l.watch is set once (NewLoader); its gen is atomic
}

// quiet is l.watch.quiet(l.lastPaths). Whether every path is armed is
// asked again only when the watch's generation moved since it said so:
// what is armed changes only when the watch arms (a new generation) or
// loses its descriptor (an event, so not quiet, and a new generation),
// and lastPaths only in a pass that is not quiet (Policy clears armedOK).
// Its plain twin is the one-shot loader (NewOneShotLoader), which stats
// every file on every call; TestWatchedLoaderIsOneShot keeps them equal.
func (l *Loader) quiet() bool {
	if l.armedOK && l.watch.generation() == l.armedGen {
		return l.watch.quiet(nil)
	}
	if !l.watch.quiet(l.lastPaths) {
		return false
	}
	l.armedOK, l.armedGen = true, l.watch.generation()
	return true
}

// Equal reports whether l and o are the same locations, field for field.
func (l Locations) Equal(o Locations) bool {
	return l.AgentDir == o.AgentDir && l.Home == o.Home && l.ConfigHome == o.ConfigHome && l.Cwd == o.Cwd &&
		slices.Equal(l.ConfigFiles, o.ConfigFiles) && l.ProjectTrusted == o.ProjectTrusted && l.AgentName == o.AgentName &&
		l.ManagedDir == o.ManagedDir && l.NamedConfigs == o.NamedConfigs
}

// compose reads what changed and composes the policy for loc.
func (l *Loader) compose(loc Locations) *Policy {
	// The managed file comes first: it is evaluated on its own, and its
	// knobs are final.
	var scopes []ScopeFile
	managedDir, managedWarn := managedDirOf(loc.ManagedDir)
	managed := l.read(ScopeManaged, ManagedPath(managedDir), true, false, parseFileOwned)
	managed.Note = managedWarn
	if managedDir != loc.ManagedDir && loc.ManagedDir != "" {
		// The folder named but not honoured (missing, writable by others)
		// is watched too: made honourable (created, its mode fixed), it is
		// an event, and the next call reads the managed file from it.
		l.seen = append(l.seen, ManagedPath(loc.ManagedDir))
	}
	// Listed found or not, as toolgate's own files are (PROTOCOL:
	// sources lists every policy file looked for).
	scopes = append(scopes, managed)
	// Legacy files (the original extension's pi-permissions.jsonc) come
	// before the new file of their scope, which then wins.
	if legacy := l.read(ScopeGlobal, LegacyGlobalPath(loc.AgentDir), true, false, parseFileOwned); legacy.Exists {
		scopes = append(scopes, legacy)
	}
	scopes = append(scopes, l.read(ScopeGlobal, GlobalPath(loc.AgentDir), true, false, parseFileOwned))
	// toolgate's own files, listed found or not; the legacy
	// files only when they exist.
	if loc.Home != "" || loc.ConfigHome != "" {
		scopes = append(scopes, l.read(ScopeGlobal, ToolgateGlobalPath(loc.ConfigHome, loc.Home), true, false, parseFileOwned))
	}
	if legacy := l.project(ScopeProject, LegacyProjectPath(loc.Cwd), loc.ProjectTrusted, parseFileOwned); legacy.Exists {
		scopes = append(scopes, legacy)
	}
	scopes = append(scopes, l.project(ScopeProject, ProjectPath(loc.Cwd), loc.ProjectTrusted, parseFileOwned))
	scopes = append(scopes, l.project(ScopeProject, ToolgateProjectPath(loc.Cwd), loc.ProjectTrusted, parseFileOwned))
	for _, c := range loc.ConfigFiles {
		sf := l.read(ScopeGlobal, c, true, true, parseFileOwned)
		sf.named = loc.NamedConfigs
		scopes = append(scopes, sf)
	}
	if loc.AgentName != "" {
		if !ValidAgentName(loc.AgentName) {
			bad := fmt.Sprintf("agent name %q cannot name an agent file", loc.AgentName)
			scopes = append(scopes, ScopeFile{Scope: ScopeAgent, Path: filepath.Join(loc.AgentDir, "agents"), Trusted: true,
				File: &File{Errors: []Warning{{Path: filepath.Join(loc.AgentDir, "agents"), Message: bad}}}})
		} else {
			scopes = append(scopes,
				l.read(ScopeAgent, AgentPath(filepath.Join(loc.AgentDir, "agents"), loc.AgentName), true, false, ParseAgentFile),
				l.project(ScopeProjectAgent, AgentPath(filepath.Join(loc.Cwd, ".pi", "agents"), loc.AgentName), loc.ProjectTrusted, ParseAgentFile))
		}
	}
	// mcp.json names MCP servers: not a policy file, but what is missing
	// from it can let an mcp call miss a rule, so it is read and checked
	// like one.
	scopes = append(scopes, l.read(scopeMCPFile, MCPPath(loc.AgentDir), false, false, ParseMCPFile))
	store := TrustStorePath(loc.ConfigHome, loc.Home)
	l.readTrust(store)
	l.keyBuf = l.key(l.keyBuf[:0], loc, scopes)
	l.keyBuf = appendStamp(append(l.keyBuf, 0), store, l.trustStamp)
	if l.last != nil && string(l.keyBuf) == l.lastKey {
		return l.last
	}
	scopes = l.judge(loc, scopes, store)
	l.lastScopes = scopes
	l.last, l.lastKey = ComposeSides(scopes, loc.Home), string(l.keyBuf)
	return l.last
}

var errNoProject = errors.New("the working directory is no project")

// isProjectRoot reports whether dir (a real path) can be a project: not
// "/", not home and not a folder above it.
func isProjectRoot(dir, home string) bool {
	if dir == "/" {
		return false
	}
	if h, err := filepath.EvalSymlinks(home); err == nil && home != "" {
		if h == dir || strings.HasPrefix(h, dir+string(filepath.Separator)) {
			return false
		}
	}
	return true
}

// DefaultManagedDir is where an administrator installs the managed file.
const DefaultManagedDir = "/etc/toolgate"

// ManagedPath is the managed file in dir.
func ManagedPath(dir string) string { return filepath.Join(dir, "managed.json") }

// managedDirOf is the managed folder for $TOOLGATE_MANAGED_DIR (env): env
// when it is a folder owned by root and writable by no one else, else
// DefaultManagedDir, with a warning saying why env was not honoured.
func managedDirOf(env string) (dir, warn string) {
	if env == "" {
		return DefaultManagedDir, ""
	}
	if why := managedDirProblem(env); why != "" {
		return DefaultManagedDir, fmt.Sprintf("TOOLGATE_MANAGED_DIR=%s is not honoured (%s); the managed file is looked for in %s", env, why, DefaultManagedDir)
	}
	return env, ""
}

// readTrust reads the trust store at path when it changed.
func (l *Loader) readTrust(path string) {
	l.seen = append(l.seen, path)
	st := statFile(path)
	if l.trustRead && st == l.trustStamp {
		return
	}
	l.trustRead, l.trustStamp = true, st
	l.trust, l.trustErr = nil, nil
	if !st.exists {
		return
	}
	l.trust, l.trustErr = LoadTrustStore(path)
}

// judge says of each file whose trust matters what it is: a
// project file is trusted only for the exact content the person trusted
// (and never while the host distrusts the project); a global, managed or
// trust-store location whose real path lies inside the working directory
// (where the agent may write) is not honoured as such, and a --config file
// there is project scope.
func (l *Loader) judge(loc Locations, scopes []ScopeFile, store string) []ScopeFile {
	cwdReal, cwdErr := filepath.EvalSymlinks(loc.Cwd)
	if cwdErr == nil && !isProjectRoot(cwdReal, loc.Home) {
		// "/", $HOME and the folders above it are no project:
		// toolgate's own files live there by design.
		cwdErr = errNoProject
	}
	inside := func(path string) bool {
		if cwdErr != nil {
			return false
		}
		real, err := filepath.EvalSymlinks(path)
		if err != nil {
			// A file not there yet: its folder decides.
			if real, err = filepath.EvalSymlinks(filepath.Dir(path)); err != nil {
				return false
			}
			real = filepath.Join(real, filepath.Base(path))
		}
		return real == cwdReal || strings.HasPrefix(real, cwdReal+string(filepath.Separator))
	}
	trust := l.trust
	if cwdErr == nil && inside(store) {
		trust = nil
		scopes = append(scopes, ScopeFile{Scope: scopeNote, Path: store,
			Note: "the trust store lies inside the working directory, where the agent may write: it is not read, so no project file is trusted"})
	} else if l.trustErr != nil {
		scopes = append(scopes, ScopeFile{Scope: scopeNote, Path: store,
			Note: l.trustErr.Error() + "; no project file is trusted until it is fixed (toolgate trust writes it anew)"})
	}
	for i := range scopes {
		sf := &scopes[i]
		switch {
		case sf.Scope == ScopeProject || sf.Scope == ScopeProjectAgent:
			sf.Project, sf.Root = true, loc.Cwd
			if !sf.Exists {
				continue
			}
			sf.Untrusted = true
			// The content judged is the version in use: a file broken by
			// an edit keeps its last good version, and that version's
			// trust.
			sum := l.files[sf.Path].sum
			if len(sf.Stale) > 0 {
				sum = l.goodSum[sf.Path]
			}
			switch root, rel, real, ok := ProjectFileIdentity(loc.Cwd, sf.Path); {
			case !loc.ProjectTrusted:
				sf.UntrustedWhy = "the host says this project is not trusted"
			case !ok:
				sf.UntrustedWhy = "it is a symbolic link or lies outside the project, so it cannot be trusted"
			case trust.Trusts(root, rel, real, sum):
				sf.Untrusted = false
			default:
				sf.UntrustedWhy = "its content is not trusted"
			}
		case sf.Exists && !sf.named && (sf.Scope == ScopeGlobal || sf.Scope == ScopeManaged || sf.Scope == ScopeAgent) && inside(sf.Path):
			// Where the agent may write, a file is the project's, whatever
			// its name: it tightens, never loosens (a file ignored outright
			// would drop its denies).
			sf.Note = fmt.Sprintf("this %s file lies inside the working directory, where the agent may write: it is read as an untrusted project file (it may tighten, never loosen)", sf.Scope)
			sf.Scope, sf.Trusted, sf.Project, sf.Untrusted, sf.Root = ScopeProject, false, true, true, loc.Cwd
			sf.UntrustedWhy = "it lies inside the working directory"
		}
	}
	return scopes
}

// Reload forgets every cached file and composes the policy afresh.
func (l *Loader) Reload(loc Locations) *Policy {
	l.mu.Lock()
	l.files = map[string]cached{}
	l.last = nil
	l.rearm = true
	l.mu.Unlock()
	return l.Policy(loc)
}

// project reads a project-scope file, or lists it as skipped when the
// project is not trusted.
func (l *Loader) project(scope, path string, _ bool, parse func(string, []byte) *File) ScopeFile {
	return l.read(scope, path, false, false, parse)
}

// key appends to b what identifies the inputs of a composition: the
// locations and every file's stamp. It is built on every check, so it
// avoids fmt and reuses the Loader's buffer.
func (l *Loader) key(b []byte, loc Locations, scopes []ScopeFile) []byte {
	b = append(b, loc.Home...)
	b = append(b, 0)
	b = append(b, loc.Cwd...)
	b = append(b, 0)
	b = strconv.AppendBool(b, loc.ProjectTrusted)
	b = append(b, 0)
	b = append(b, loc.AgentName...)
	for _, s := range scopes {
		b = appendStamp(append(b, 0), s.Path, l.files[s.Path].stamp)
	}
	return b
}

// appendStamp appends path and its stamp to b.
func appendStamp(b []byte, path string, st stamp) []byte {
	b = append(b, path...)
	b = append(b, '=')
	b = strconv.AppendBool(b, st.exists)
	b = strconv.AppendInt(append(b, '/'), st.mtime.UnixNano(), 10)
	b = strconv.AppendInt(append(b, '/'), st.size, 10)
	b = strconv.AppendUint(append(b, '/'), st.ino, 10)
	b = strconv.AppendUint(append(b, '/'), uint64(st.mode), 10)
	return b
}

// read stats path and parses it again when it changed. required files
// (--config) that are missing count as broken: their rules were expected.
// A file broken by an edit keeps its last good version from this process
// the ScopeFile then carries that version and, in Stale, what
// is wrong with the file as it is now.
func (l *Loader) read(scope, path string, trusted, required bool, parse func(string, []byte) *File) ScopeFile {
	sf := ScopeFile{Scope: scope, Path: path, Trusted: trusted}
	l.seen = append(l.seen, path)
	st := statFile(path)
	c, ok := l.files[path]
	if !ok || c.stamp != st {
		c = cached{stamp: st}
		c.file, c.sum = readAndParse(path, st, required, scope == ScopeProject || scope == ScopeProjectAgent, parse)
		l.files[path] = c
		switch {
		case !st.exists:
			// A deleted file is no longer "the file": what was good
			// before it is forgotten.
			delete(l.good, path)
			delete(l.goodSum, path)
		case c.file != nil && len(c.file.Errors) == 0:
			l.good[path] = c.file
			l.goodSum[path] = c.sum
		}
	}
	sf.Exists, sf.File = st.exists, c.file
	if c.file != nil && len(c.file.Errors) > 0 {
		if g := l.good[path]; g != nil {
			sf.File, sf.Stale = g, c.file.Errors
		}
	}
	return sf
}

// readAndParse reads path through ReadFile (never blocking, never whole
// first) and parses it.
func readAndParse(path string, st stamp, required, hash bool, parse func(string, []byte) *File) (*File, string) {
	if !st.exists {
		if required {
			return &File{Path: path, Errors: []Warning{{Path: path, Message: "the policy file named by --config does not exist"}}}, ""
		}
		return nil, ""
	}
	data, err := ReadFile(path)
	if err != nil {
		return &File{Path: path, Errors: []Warning{{Path: path, Message: "cannot read this file: " + err.Error()}}}, ""
	}
	sum := ""
	if hash {
		// Of the bytes parsed, in the one read.
		sum = ContentHash(data)
	}
	return parse(path, data), sum
}

func statFile(path string) stamp {
	info, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return stamp{}
		}
		// Unreadable metadata: treat as existing so that reading reports it.
		return stamp{exists: true, mtime: time.Unix(0, -1)}
	}
	return stamp{exists: true, mtime: info.ModTime(), size: info.Size(), ino: inode(info), mode: info.Mode()}
}
