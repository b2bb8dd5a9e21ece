package shell

import (
	"path/filepath"
	"sync"
)

// Cache remembers analyses of commands a session sees again and again (git
// status, the same test command). An analysis is a function of the command,
// its options and the answers the file system gave it (whether a word
// names an existing file, what a glob's directory lists, where a cd
// leads); the cache keeps those answers with it and, before it gives an
// analysis again, asks the file system the same questions: any other
// answer analyzes the command afresh. So a hit decides exactly what
// Analyze decides now, without the parse. The zero Cache is ready; it is
// safe for concurrent use and holds at most maxCached commands.
type Cache struct {
	// Known, when set, answers for a path what an lstat would, when it
	// knows without asking (the session's directory cache, under its
	// policy watch): exists and isDir, and known true only when the path
	// is its own real path (no link on the way), so that stat answers as
	// lstat does. It spares re-asking the file system on a hit.
	Known func(p string) (exists, isDir, known bool)
	// Peek, when set, is Known for an analysis made afresh: it answers
	// only what it already holds (it asks the file system nothing), so a
	// word of a new command that an earlier call looked up is not asked
	// again. Its answers are recorded like the file system's, and a hit
	// re-validates them as any other.
	Peek func(p string) (exists, isDir, known bool)

	mu  sync.Mutex
	m   map[cacheKey]*cached
	seq uint64 // the last stamp given
}

type cacheKey struct {
	command, cwd, home string
	maxDepth           int
}

type cached struct {
	a     Analysis
	reads []fsRead
	stamp uint64
}

// maxCached bounds the commands a Cache holds; past it the cache starts
// over (a session's working set of commands is small).
const maxCached = 256

// maxCachedBytes: longer commands are analyzed every time (their analysis
// is not kept).
const maxCachedBytes = 2048

// Analyze is Analyze(command, opt), from the cache when the file system
// still answers the analysis's questions as it did.
func (c *Cache) Analyze(command string, opt Options) Analysis {
	a, _ := c.AnalyzeStamped(command, opt)
	return a
}

// AnalyzeStamped is Analyze, with a stamp that identifies the analysis:
// two calls that get the same non-zero stamp from one Cache got the same
// analysis (the one made when the stamp was given, whose file system
// answers were the same again); an analysis the cache does not keep gets
// 0. Stamps are never given twice by one Cache.
func (c *Cache) AnalyzeStamped(command string, opt Options) (Analysis, uint64) {
	if c == nil || len(command) > maxCachedBytes {
		return Analyze(command, opt), 0
	}
	key := cacheKey{command, opt.Cwd, opt.Home, opt.MaxDepth}
	c.mu.Lock()
	e := c.m[key]
	c.mu.Unlock()
	if e != nil && c.stillAnswers(e.reads) {
		return e.a, e.stamp
	}
	var reads []fsRead
	a := analyzeWith(command, opt, &reads, c.Peek)
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxCached {
		c.m = make(map[cacheKey]*cached)
	}
	c.seq++
	stamp := c.seq
	c.m[key] = &cached{a: a, reads: reads, stamp: stamp}
	c.mu.Unlock()
	return a, stamp
}

// stillAnswers reports whether the file system answers every recorded
// question as it did.
func (c *Cache) stillAnswers(reads []fsRead) bool {
	for _, r := range reads {
		now, ok := c.knownAnswer(r)
		if !ok {
			now = r.ask()
		}
		if !now.same(r) {
			return false
		}
	}
	return true
}

// knownAnswer answers r from Known, when it can: whether a path exists,
// is a directory (stat and lstat agree on a path with no link on the
// way), and where a directory is (itself).
func (c *Cache) knownAnswer(r fsRead) (fsRead, bool) {
	if c.Known == nil || (r.op != opExists && r.op != opIsDir && r.op != opRealDir && r.op != opNames) {
		return fsRead{}, false
	}
	exists, isDir, known := c.Known(r.path)
	if !known {
		return fsRead{}, false
	}
	out := fsRead{op: r.op, path: r.path}
	switch r.op {
	case opExists:
		out.found = exists
	case opIsDir:
		out.found = exists && isDir
	case opRealDir:
		out.real = filepath.Clean(r.path) // no link on the way: EvalSymlinks is the cleaned path, or it fails
	case opNames:
		// fsNames's stat is answered; a directory is still listed.
		out.found = true
		if exists && isDir {
			out.names, out.found = fsListing(r.path)
		}
	}
	return out, true
}
