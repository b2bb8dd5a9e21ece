package shell

import (
	"encoding/binary"
	"errors"
	"io/fs"
	"path/filepath"
	"sync"

	"github.com/toolgate/toolgate/internal/cleanpath"
	"github.com/toolgate/toolgate/internal/onceseen"
)

// Cache remembers analyses of commands a session sees again and again (git
// status, the same test command). An analysis is a function of the command,
// its options and the answers the file system gave it (whether a word
// names an existing file, what a glob's directory lists, where a cd
// leads); the cache keeps those answers with it and, before it gives an
// analysis again, asks the file system the same questions: any other
// answer analyzes the command afresh. So a hit decides exactly what
// Analyze decides now, without the parse. A command is kept from its
// second sighting on: one seen once costs a hash (internal/onceseen) and
// gets stamp 0, as one the cache does not keep. The zero Cache is ready; it is
// safe for concurrent use and holds at most maxCached commands.
// TestCacheIsAnalyze and TestCacheSeesFileSystemChange keep it equal to
// Analyze.
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

	// Vouch and Generation, when both set, are a watch of the file system
	// (the session's policy watch; policy.Loader.Vouch): Vouch(dir) ok
	// when from now on every change that could alter an lstat of an entry
	// of dir, or a listing of dir, is an event, and Generation then
	// another; dev is dir's device. A question asked again (the same)
	// after its directory was vouched for is not asked again within the
	// generation.
	Vouch      func(dir string) (dev uint64, ok bool)
	Generation func() uint64

	mu   sync.Mutex
	m    map[cacheKey]*cached
	seq  uint64         // the last stamp given
	seen onceseen.Table // commands analyzed once, not kept
}

type cacheKey struct {
	command, cwd, home string
	maxDepth           int
}

type cached struct {
	a     Analysis
	stamp uint64

	mu    sync.Mutex // reads' kept flags and gen
	reads []fsRead
	// kept[i]: reads[i] was answered the same under generation gen after
	// the watch vouched for it.
	kept []bool
	gen  uint64
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
	if e != nil && c.stillAnswers(e) {
		return e.a, e.stamp
	}
	if e == nil && !c.seenBefore(key) {
		// Seen once: analyzed, not kept (most commands of a session come
		// once; keeping each would fill the heap with analyses that
		// never come back). Its second sighting keeps it.
		return analyzeWith(command, opt, nil, c.Peek), 0
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

// seenBefore reports whether key was seen before (onceseen.Table).
func (c *Cache) seenBefore(k cacheKey) bool {
	h := onceseen.NewHash()
	h.WriteString(k.command)
	h.WriteByte(0)
	h.WriteString(k.cwd)
	h.WriteByte(0)
	h.WriteString(k.home)
	h.WriteByte(0)
	var depth [8]byte
	binary.LittleEndian.PutUint64(depth[:], uint64(k.maxDepth))
	h.Write(depth[:])
	sum := h.Sum64()
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.seen.AgainHash(sum)
}

// stillAnswers reports whether the file system answers every question
// recorded with e as it did; those kept under the watch's generation are
// not asked again.
func (c *Cache) stillAnswers(e *cached) bool {
	watching := c.Vouch != nil && c.Generation != nil
	e.mu.Lock()
	defer e.mu.Unlock()
	if watching {
		// Read before anything is vouched for or asked.
		if gen := c.Generation(); gen != e.gen || e.kept == nil {
			e.gen = gen
			e.kept = make([]bool, len(e.reads))
		}
	}
	for i, r := range e.reads {
		if watching && e.kept[i] {
			continue
		}
		var dev uint64
		vouched := false
		if watching {
			dev, vouched = vouchFor(c.Vouch, r)
		}
		now, ok := c.knownAnswer(r)
		if !ok {
			now = r.ask()
		}
		if !now.same(r) {
			return false
		}
		if vouched && watchedRead(r, dev) {
			e.kept[i] = true
		}
	}
	return true
}

// vouchFor asks the watch to vouch for the directory r's answer depends
// on: the one listed, or the one whose entry r.path is.
func vouchFor(vouch func(string) (uint64, bool), r fsRead) (uint64, bool) {
	if !filepath.IsAbs(r.path) || !cleanpath.IsClean(r.path) || r.path == "/" {
		return 0, false
	}
	if r.op == opNames {
		return vouch(r.path)
	}
	return vouch(cleanpath.Dir(r.path))
}

// watchedRead reports whether r's answer, the same as asked again after the
// watch vouched for its directory (of device dev), stays the same until an
// event: whether an entry exists; or what a stat or a real path says of an
// entry that is no symbolic link (else it answers for the link's target,
// anywhere) nor a mount point (the root of another file system); a listing.
func watchedRead(r fsRead, dev uint64) bool {
	switch r.op {
	case opExists, opNames:
		return true
	case opIsDir, opEnterable, opRealDir:
		link, entryDev, err := fsEntry(r.path)
		if err != nil {
			return errors.Is(err, fs.ErrNotExist) // missing, and so are the answers' targets
		}
		return !link && entryDev == dev
	}
	return false
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
