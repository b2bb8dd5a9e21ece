package hook

import (
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
	real string
	ok   bool
}

func newDirCache(l *policy.Loader) *dirCache {
	return &dirCache{loader: l, known: map[string]dirReal{}}
}

// Canonical implements gates.DirCache.
func (d *dirCache) Canonical(dir string) (string, bool, bool) {
	gen, watched := d.loader.Watched(dir)
	d.mu.Lock()
	defer d.mu.Unlock()
	if gen != d.gen {
		clear(d.known)
		d.gen = gen
	}
	if r, hit := d.known[dir]; hit {
		return r.real, r.ok, true
	}
	if !watched {
		return "", false, false
	}
	if len(d.known) >= 256 {
		clear(d.known) // many working directories: keep it small
	}
	real, ok := paths.Canonical(dir)
	// Resolved after the generation was read: a change made since is an
	// event, and the next call's generation forgets this.
	d.known[dir] = dirReal{real, ok}
	return real, ok, true
}
