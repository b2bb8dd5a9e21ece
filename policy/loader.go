package policy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// MaxFileBytes bounds a policy file; a larger one is a broken file.
const MaxFileBytes = 8 << 20

// Locations say where the policy files of a session are.
type Locations struct {
	AgentDir string
	Home     string
	Cwd      string
	// ConfigFiles are --config files, merged after the project file with
	// the trust of the global scope.
	ConfigFiles []string
	// ProjectTrusted false skips the project files.
	ProjectTrusted bool
}

// GlobalPath is the global config file under agentDir.
func GlobalPath(agentDir string) string {
	return filepath.Join(agentDir, "extensions", "pi-permission-system", "config.json")
}

// ProjectPath is the project config file under cwd.
func ProjectPath(cwd string) string {
	return filepath.Join(cwd, ".pi", "extensions", "pi-permission-system", "config.json")
}

type stamp struct {
	exists bool
	mtime  time.Time
	size   int64
	ino    uint64
}

type cached struct {
	stamp stamp
	file  *File
}

// Loader reads policy files, re-reading a file only when its modification
// time (or size) changed, and recomposes the policy only when some file did.
// It is the only part of this package that touches the file system.
type Loader struct {
	mu      sync.Mutex
	files   map[string]cached
	lastKey string
	last    *Policy
}

// NewLoader returns an empty loader.
func NewLoader() *Loader { return &Loader{files: map[string]cached{}} }

// Policy returns the current policy for loc, reading what changed.
func (l *Loader) Policy(loc Locations) *Policy {
	l.mu.Lock()
	defer l.mu.Unlock()
	scopes := []ScopeFile{l.read(ScopeGlobal, GlobalPath(loc.AgentDir), true, false)}
	proj := ProjectPath(loc.Cwd)
	if loc.ProjectTrusted {
		scopes = append(scopes, l.read(ScopeProject, proj, false, false))
	} else {
		_, err := os.Stat(proj)
		scopes = append(scopes, ScopeFile{Scope: ScopeProject, Path: proj, Exists: err == nil, Skipped: true,
			SkipReason: "the host says this project is not trusted: its policy files are not loaded"})
	}
	for _, c := range loc.ConfigFiles {
		scopes = append(scopes, l.read(ScopeGlobal, c, true, true))
	}
	key := l.key(loc, scopes)
	if l.last != nil && key == l.lastKey {
		return l.last
	}
	l.last, l.lastKey = Compose(scopes, loc.Home), key
	return l.last
}

// Reload forgets every cached file and composes the policy afresh.
func (l *Loader) Reload(loc Locations) *Policy {
	l.mu.Lock()
	l.files = map[string]cached{}
	l.last = nil
	l.mu.Unlock()
	return l.Policy(loc)
}

func (l *Loader) key(loc Locations, scopes []ScopeFile) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\x00%s\x00%t", loc.Home, loc.Cwd, loc.ProjectTrusted)
	for _, s := range scopes {
		st := l.files[s.Path].stamp
		fmt.Fprintf(&b, "\x00%s=%t/%d/%d/%d", s.Path, st.exists, st.mtime.UnixNano(), st.size, st.ino)
	}
	return b.String()
}

// read stats path and parses it again when it changed. required files
// (--config) that are missing count as broken: their rules were expected.
func (l *Loader) read(scope, path string, trusted, required bool) ScopeFile {
	sf := ScopeFile{Scope: scope, Path: path, Trusted: trusted}
	st, info := statFile(path)
	if c, ok := l.files[path]; ok && c.stamp == st {
		sf.Exists, sf.File = st.exists, c.file
		return sf
	}
	var f *File
	switch {
	case !st.exists && required:
		f = &File{Path: path, Errors: []Warning{{Path: path, Message: "the policy file named by --config does not exist"}}}
	case !st.exists:
		f = nil
	case info != nil && info.IsDir():
		f = &File{Path: path, Errors: []Warning{{Path: path, Message: "the policy file is a directory"}}}
	case st.size > MaxFileBytes:
		f = &File{Path: path, Errors: []Warning{{Path: path, Message: fmt.Sprintf("the policy file is larger than %d bytes", MaxFileBytes)}}}
	default:
		data, err := os.ReadFile(path)
		if err != nil {
			f = &File{Path: path, Errors: []Warning{{Path: path, Message: "cannot read the policy file: " + err.Error()}}}
		} else {
			f = ParseFile(path, data)
		}
	}
	l.files[path] = cached{stamp: st, file: f}
	sf.Exists, sf.File = st.exists, f
	return sf
}

func statFile(path string) (stamp, fs.FileInfo) {
	info, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return stamp{}, nil
		}
		// Unreadable metadata: treat as existing so that reading reports it.
		return stamp{exists: true, mtime: time.Unix(0, -1)}, nil
	}
	return stamp{exists: true, mtime: info.ModTime(), size: info.Size(), ino: inode(info)}, info
}
