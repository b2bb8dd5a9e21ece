package gates

import (
	"os"
	"path"
	"strings"

	"github.com/toolgate/toolgate/gates/paths"
)

// The plain forms of the guard, as they were before the fast paths: each
// file checked against each protected path, cleaning and resolving as it
// goes. The differential tests (fast_test.go) hold the fast forms to them.

func protectedPlain(c *Call, p paths.Path) bool {
	if h, ok := p.Host(); ok && protectedPlain(c, h) {
		return true
	}
	for _, dir := range protectedPaths(c) {
		if (p.Abs != "" && withinPlain(p.Abs, dir)) || (p.Real != "" && withinPlain(p.Real, dir)) {
			return true
		}
		if real, ok := paths.Canonical(dir); ok && real != dir && p.Real != "" && withinPlain(p.Real, real) {
			return true
		}
	}
	return false
}

func withinPlain(p, dir string) bool {
	if p == "" || dir == "" {
		return false
	}
	p, dir = path.Clean(p), path.Clean(dir)
	if p == dir {
		return true
	}
	switch dir {
	case "/":
		return p[0] == '/'
	case ".":
		return p[0] != '/' && p != ".." && !strings.HasPrefix(p, "../")
	}
	return strings.HasPrefix(p, dir+"/")
}

func guardPlain(c *Call, p paths.Path) string {
	switch {
	case protectedPlain(c, p):
		return SentinelProtected
	case armingPlain(p):
		return SentinelArming
	}
	return ""
}

func armingPlain(p paths.Path) bool {
	if h, ok := p.Host(); ok && armingPlain(h) {
		return true
	}
	dir := func() bool {
		if p.Real == "" {
			return false
		}
		info, err := os.Stat(p.Real)
		return err == nil && info.IsDir()
	}
	for _, s := range []string{p.Abs, p.Real, p.Literal} {
		if s != "" && armingPathPlain(s, dir) {
			return true
		}
	}
	return false
}

func armingPathPlain(s string, isDir func() bool) bool {
	s = strings.ToLower(path.Clean(s))
	comps := strings.Split(s, "/")
	base := comps[len(comps)-1]
	if armingNames[base] && !((base == "config" || base == "config.worktree") && isDir()) ||
		s == "/etc/profile" || s == "/etc/environment" {
		return true
	}
	inGit := false
	for i, part := range comps {
		switch part {
		case ".git":
			inGit = true
			if i == len(comps)-1 || comps[i+1] == "hooks" || comps[i+1] == "commondir" {
				return true
			}
		case ".husky", "hooks":
			if part == ".husky" || inGit || (i > 0 && strings.HasSuffix(comps[i-1], ".git")) {
				return true
			}
		}
	}
	for _, d := range armingDirs {
		if systemDir(d) && withinPlain(s, d) || !systemDir(d) && strings.Contains(s+"/", d+"/") {
			return true
		}
	}
	return false
}
