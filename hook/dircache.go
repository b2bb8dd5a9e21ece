package hook

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/toolgate/toolgate/gates/paths"
	"github.com/toolgate/toolgate/policy"
)

// dirCache remembers the real paths of the directories every call checks
// (toolgate's own files, the host's directories, the working directory)
// while the policy files' watch says nothing can have changed them: a
// directory is kept only when its parent and every directory above are
// watched, and everything is forgotten when the watch sees any change (a
// new generation). Resolving them afresh was most of a call's system calls.
type dirCache struct {
	loader *policy.Loader
	mu     sync.Mutex
	gen    uint64
	known  map[string]dirReal
}

type dirReal struct {
	real  string
	ok    bool
	isDir bool // it exists, as a directory (its real path is itself)
}

func newDirCache(l *policy.Loader) *dirCache {
	return &dirCache{loader: l, known: map[string]dirReal{}}
}

// Canonical implements gates.DirCache. A directory is remembered when its
// real path is itself (no link on the way) and it cannot change unseen:
// it, or its parent, is watched with every directory above; or the
// deepest watched directory above it has no entry on the way to it, whose
// creation would be an event.
func (d *dirCache) Canonical(dir string) (string, bool, bool) {
	gen := d.loader.Generation()
	d.mu.Lock()
	defer d.mu.Unlock()
	if gen != d.gen {
		clear(d.known)
		d.gen = gen
	}
	if r, hit := d.known[dir]; hit {
		return r.real, r.ok, true
	}
	wgen, x, watched := d.loader.WatchedAncestor(dir)
	if !watched || wgen != gen {
		return "", false, false
	}
	clean := filepath.Clean(dir)
	real, ok := paths.Canonical(clean)
	if !ok || real != clean {
		return real, ok, true // resolved, not remembered
	}
	if x != clean && filepath.Dir(clean) != x {
		// The entry of x on the way to dir must not exist.
		next := clean
		for filepath.Dir(next) != x {
			next = filepath.Dir(next)
		}
		if _, err := os.Lstat(next); !errors.Is(err, fs.ErrNotExist) {
			return real, ok, true
		}
	}
	if len(d.known) >= 256 {
		clear(d.known) // many working directories: keep it small
	}
	// Resolved after the generation was read: a change made since is an
	// event, and the next call's generation forgets this. Whether it is a
	// directory is as watched as its real path: its entry is in a watched
	// directory, or the missing entry on the way to it would be.
	info, err := os.Lstat(clean)
	d.known[dir] = dirReal{real: real, ok: ok, isDir: err == nil && info.IsDir()}
	return real, ok, true
}

// IsDir implements paths.DirExistence: whether a directory Canonical keeps
// exists as a directory, under the same generation.
func (d *dirCache) IsDir(dir string) (bool, bool) {
	gen := d.loader.Generation()
	d.mu.Lock()
	defer d.mu.Unlock()
	if gen != d.gen {
		clear(d.known)
		d.gen = gen
		return false, false
	}
	r, hit := d.known[dir]
	return r.isDir, hit
}
