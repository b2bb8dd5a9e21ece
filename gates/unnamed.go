package gates

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolgate/toolgate/gates/paths"
)

// Writes the command line does not name: a path word with Into
// set is a directory below which a command writes files it does not name
// (an archive extracted there, a tree checked out or copied into it). It
// is judged by what could lie below it, with the one table of protected
// paths (guard): toolgate's own files below it, or a place that could hold
// a protected path — the project root, a folder holding .git, a .git
// folder or anything below it, $HOME, a folder on PATH, or a folder that
// holds one of those — asks as a write to that protected path would,
// naming it. Anywhere else it is an ordinary write.

// intoCandidates are the protected paths named below a destination, per
// kind of destination, in the order they are named.
var (
	intoRepo = []string{".git/hooks", ".git/config", ".envrc", ".npmrc"}
	intoGit  = []string{"hooks", "config"}
	intoHome = []string{".bashrc", ".profile", ".gitconfig", ".ssh/config", ".config/git/config", ".git/hooks"}
)

// intoGuard returns the floor a write of unnamed files below the
// directory b gets, and the protected paths it could write, the one the
// decision names first (none: no floor). At most maxNamed are named.
func intoGuard(c *Call, b bashPath) (sentinel string, named []string) {
	if !b.known {
		// Where it lands is only known when it runs: it could be any of them.
		return SentinelArming, []string{b.word.Raw}
	}
	dir := b.path
	inGit := belowGit(dir.Abs) || belowGit(dir.Real)
	// A .git folder is arming as an entry; what is named is what lands
	// in it (hooks, config). Any other protected destination is named.
	gitDir := belowGit(filepath.Base(dir.Abs))
	if g := guard(c, dir); g != "" && !(gitDir && g == SentinelArming) {
		return g, []string{dir.Abs} // the destination is itself protected (.git/hooks, .pi/agents/x)
	}
	own := 0 // toolgate's own files named: at most half, so that arming ones are named too
	add := func(g, p string) {
		if g == SentinelProtected || sentinel == "" {
			sentinel = g // toolgate's own files decide over arming ones
		}
		if len(named) >= maxNamed || slices.Contains(named, p) || g == SentinelProtected && own >= maxNamed/2 {
			return
		}
		if g == SentinelProtected {
			own++
		}
		named = append(named, p)
	}
	for _, forms := range [...]string{dir.Abs, dir.Real} {
		if forms == "" {
			continue
		}
		for _, p := range guards(c).dirs {
			if paths.WithinClean(p, forms) {
				add(SentinelProtected, p) // toolgate's own files below it
			}
		}
	}
	var candidates []string
	base := dir.Abs
	switch {
	case inGit:
		candidates = intoGit
	case sameDir(c, dir, c.Cwd):
		candidates = intoRepo
	case sameDir(c, dir, c.Home):
		candidates = intoHome
	case holds(dir, c.Cwd):
		candidates, base = intoRepo, paths.Clean(c.Cwd) // the project is below it
	case holds(dir, c.Home):
		candidates, base = intoHome, paths.Clean(c.Home)
	case exists(c, joinClean(dir.Real, ".git")):
		candidates = intoRepo
	default:
		// A folder every file in which arms (a folder on PATH, .husky)
		// or is toolgate's: any name written there is protected.
		if any := c.fs.New(joinClean(dir.Abs, "x"), "", c.Cwd, c.Home); guard(c, any) != "" {
			add(guard(c, any), dir.Abs)
		}
		return sentinel, named
	}
	for _, rel := range candidates {
		p := c.fs.New(joinClean(base, rel), "", c.Cwd, c.Home)
		if g := guard(c, p); g != "" {
			add(g, p.Abs)
		}
	}
	if sentinel == "" {
		// Inside .git/hooks or a deeper folder every name arms; a place
		// that could hold a protected path and names none is still one.
		g := guard(c, dir)
		if g == "" {
			g = SentinelArming
		}
		add(g, dir.Abs)
	}
	return sentinel, named
}

// maxNamed is how many protected paths a prompt names for one directory.
const maxNamed = 4

func exists(c *Call, p string) bool {
	_, err := c.fs.Lstat(p)
	return err == nil
}

// belowGit reports whether a clean absolute path is a .git folder (or a
// bare repository's NAME.git) or lies below one.
func belowGit(p string) bool {
	for part := range strings.SplitSeq(p, "/") {
		if part == ".git" || strings.HasSuffix(strings.ToLower(part), ".git") {
			return true
		}
	}
	return false
}

// sameDir reports whether dir is d, spelled or really.
func sameDir(c *Call, dir paths.Path, d string) bool {
	if d == "" {
		return false
	}
	d = paths.Clean(d)
	if dir.Abs == d || dir.Real == d {
		return true
	}
	real, ok := c.canonicalDir(d)
	return ok && real != "" && (dir.Real == paths.Clean(real))
}

// holds reports whether dir is an ancestor of d (extracting into .. holds
// the project).
func holds(dir paths.Path, d string) bool {
	if d == "" {
		return false
	}
	d = paths.Clean(d)
	return d != dir.Abs && paths.WithinClean(d, dir.Abs)
}
