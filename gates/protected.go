package gates

import (
	"path/filepath"
	"strings"

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
// policy merely asks for.
func protectedPaths(c *Call) []string {
	if c.protectedDirs != nil {
		return c.protectedDirs
	}
	out := make([]string, 0, len(c.Protected)+7)
	out = append(out, c.Protected...)
	if c.AgentDir != "" {
		out = append(out,
			joinClean(c.AgentDir, "extensions/pi-permission-system"),
			joinClean(c.AgentDir, "agents"),
			joinClean(c.AgentDir, "pi-permissions.jsonc"),
			joinClean(c.AgentDir, "mcp.json"))
	}
	if c.Cwd != "" {
		out = append(out,
			joinClean(c.Cwd, ".pi/extensions/pi-permission-system"),
			joinClean(c.Cwd, ".pi/agents"),
			joinClean(c.Cwd, ".pi/agent/pi-permissions.jsonc"))
	}
	c.protectedDirs = out
	return out
}

// joinClean is filepath.Join(dir, rel) for a clean relative rel, without
// the cleaning pass when dir is clean already.
func joinClean(dir, rel string) string {
	if dir != "/" && dir != "." && paths.IsClean(dir) {
		return dir + "/" + rel
	}
	return filepath.Join(dir, rel)
}

// guardSet is protectedPaths cleaned, with the real paths of those that
// resolve elsewhere, worked out once per evaluation rather than per path.
type guardSet struct {
	dirs  []string // protectedPaths, cleaned
	reals []string // their real paths where those differ
}

func guards(c *Call) *guardSet {
	if c.memo != nil && c.memo.guards != nil {
		return c.memo.guards
	}
	dirs := protectedPaths(c)
	g := &guardSet{dirs: make([]string, 0, len(dirs))}
	for i, dir := range dirs {
		if i >= len(c.Protected) && dir != "" {
			g.dirs = append(g.dirs, dir) // joinClean's, clean
		} else if dir != "" {
			g.dirs = append(g.dirs, paths.Clean(dir))
		}
		if real, ok := c.canonicalDir(dir); ok && real != dir && real != "" {
			g.reals = append(g.reals, paths.Clean(real))
		}
	}
	if c.memo != nil {
		c.memo.guards = g
	}
	return g
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
	for _, dir := range g.dirs {
		if paths.WithinClean(abs, dir) || paths.WithinClean(real, dir) {
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
// run code, "" for none.
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
	for _, s := range [...]string{p.Abs, p.Real, p.Literal} {
		if s != "" && armingClean(s, dir) { // New made them clean
			return true
		}
	}
	return false
}

// armingNames are file names that arm wherever they are: a file named
// "config" is git's own (.git/config, a bare repository's config,
// ~/.config/git/config) as well as ssh's, aws's and kubectl's, which run
// programs too; .envrc is run by direnv; .npmrc sets the shell and node
// options of every npm script.
var armingNames = map[string]bool{
	".bashrc": true, ".bash_profile": true, ".bash_login": true, ".bash_logout": true,
	".bash_aliases": true, ".profile": true, ".zshrc": true, ".zprofile": true, ".zshenv": true,
	".zlogin": true, ".zlogout": true, ".kshrc": true, ".mkshrc": true, ".cshrc": true,
	".tcshrc": true, ".login": true, ".logout": true, ".xprofile": true, ".xinitrc": true,
	".xsession": true, ".envrc": true, ".gitconfig": true, "gitconfig": true, ".npmrc": true,
	"config": true, "config.worktree": true, "config.fish": true,
	"bash.bashrc": true, "bashrc": true, "zshrc": true, "zshenv": true, "zprofile": true,
}

// armingDirs are directories every file in which arms: git hooks (and
// husky's), shell start-up directories, and the directories on a usual
// PATH (a file written there, ~/.local/bin/git, runs for the next allowed
// git). Those starting with "/" and a system directory are matched from
// the root, the others anywhere.
var armingDirs = []string{"/etc/profile.d", "/etc/zsh", "/.config/fish", "/.local/bin",
	"/usr/local/bin", "/usr/local/sbin", "/usr/bin", "/usr/sbin", "/bin", "/sbin"}

func systemDir(d string) bool {
	for _, root := range []string{"/etc/", "/usr/", "/bin", "/sbin"} {
		if strings.HasPrefix(d, root) {
			return true
		}
	}
	return false
}

// armingPath matches without regard to letter case: on a case-insensitive
// file system (macOS) .GIT/CONFIG is .git/config.
func armingPath(s string, isDir func() bool) bool { return armingClean(paths.Clean(s), isDir) }

// armingClean is armingPath of a clean s.
func armingClean(s string, isDir func() bool) bool {
	s = strings.ToLower(s) // no copy when s is lower case already
	base := s[strings.LastIndexByte(s, '/')+1:]
	if armingNames[base] && !((base == "config" || base == "config.worktree") && isDir()) ||
		s == "/etc/profile" || s == "/etc/environment" {
		return true
	}
	inGit := false // below a .git directory (its modules and worktrees too)
	prev := ""
	for rest := s; ; {
		part, next, more := strings.Cut(rest, "/")
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
	for _, d := range armingDirTable {
		if d.system && paths.WithinClean(s, d.dir) || !d.system && containsDir(s, d.dir) {
			return true
		}
	}
	return false
}

// armingDirTable is armingDirs with whether each is a system directory.
var armingDirTable = func() []struct {
	dir    string
	system bool
} {
	out := make([]struct {
		dir    string
		system bool
	}, len(armingDirs))
	for i, d := range armingDirs {
		out[i].dir, out[i].system = d, systemDir(d)
	}
	return out
}()

// containsDir reports whether d (which starts with "/") stands in s as
// whole components: strings.Contains(s+"/", d+"/").
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
