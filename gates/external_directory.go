package gates

import (
	"fmt"
	"path"
	"strings"

	"github.com/toolgate/toolgate/gates/paths"
	"github.com/toolgate/toolgate/policy"
	"github.com/toolgate/toolgate/verdict"
)

// readOnlyTools may read the host's own directories without the external
// directory check.
var readOnlyTools = map[string]bool{"read": true, "grep": true, "find": true, "ls": true}

// ExternalDirectory checks a non-bash tool whose path lies outside the
// working directory (spelled outside, or really outside once symlinks are
// followed) on the external_directory surface.
func ExternalDirectory(c *Call, r Resolver) Outcome {
	o := externalToolPath(c, r)
	glob, _ := toolGlob(c)
	return withGlob(c, r, o, verdict.GateExternalDirectory, func(p paths.Path) (Outcome, bool) {
		if !p.Outside(c.Cwd) || readOnlyTools[c.ToolName] && infrastructure(c, p) {
			return Outcome{}, false
		}
		return externalOutcome(c, r, p, func() string {
			return globWhat(c, glob, p) + " outside the working directory " + quote(c.Cwd)
		}), true
	})
}

// externalToolPath checks the tool's own path (input.path).
func externalToolPath(c *Call, r Resolver) Outcome {
	if c.Shell != nil {
		return Outcome{Gate: verdict.GateExternalDirectory}
	}
	p, ok := toolPath(c)
	if !ok {
		return Outcome{Gate: verdict.GateExternalDirectory}
	}
	if !p.Outside(c.Cwd) {
		return Outcome{Gate: verdict.GateExternalDirectory, Note: "inside the working directory"}
	}
	if readOnlyTools[c.ToolName] && infrastructure(c, p) {
		return Outcome{Gate: verdict.GateExternalDirectory, Kind: Bypass, Note: "read-only access to the host's own files",
			D: Descriptor{Surface: c.ToolName, Value: p.Input, State: policy.Allow,
				Resolution: verdict.ResInfrastructureAutoAllow, Forms: allForms(p)}}
	}
	return externalOutcome(c, r, p, func() string {
		return fmt.Sprintf("tool %s on path %s%s outside the working directory %s", quote(c.ToolName), quote(p.Input), resolvesTo(p), quote(c.Cwd))
	})
}

// externalOutcome decides one path outside the working directory on the
// external_directory surface; what describes the access, for the texts of
// an ask or a deny (an allow has none, so what is not called).
func externalOutcome(c *Call, r Resolver, p paths.Path, what func() string) Outcome {
	res, _ := resolvePath(r, "external_directory", p)
	o := checked(verdict.GateExternalDirectory, "external_directory", p.Input, res)
	o.D.Forms = allForms(p)
	if o.D.State != policy.Allow { // an allow offers no session option, and no text
		o.D.SessionPatterns = pathSessionPatterns("external_directory", p, c.Home)
		fillTexts(&o.D, c.AgentName, what(), "", "Allow this access outside the project?")
	}
	return o
}

// infrastructure reports whether both identities of p lie in one of the
// host's read-only directories, and p is not a credential or another
// session's data there (those are always checked). Both sides are
// compared resolved: the path's real form must lie in the directory's real
// form. A directory only counts when it is the host's own: neither of its
// identities is the project, lies in it or contains it, nor contains the
// home directory (a project that ships .pi/npm as a symlink to / exempts
// nothing).
func infrastructure(c *Call, p paths.Path) bool {
	if h, ok := p.Host(); ok && !infrastructure(c, h) {
		return false
	}
	if !p.RealKnown || p.Abs == "" || p.Real == "" || credential(p.Abs) || credential(p.Real) {
		return false
	}
	for _, dir := range infraDirs(c) {
		if strings.ContainsAny(dir, "*?") {
			pat := policy.CompilePattern(dir, c.Home)
			if pat.Match(p.Abs, true) && pat.Match(p.Real, true) && !projectControlled(c, p.Real) {
				return true
			}
			continue
		}
		dir = policy.ExpandHome(dir, c.Home)
		real, ok := c.canonicalDir(dir)
		if !ok || !hostDir(c, dir) || !hostDir(c, real) {
			continue
		}
		if (paths.Within(p.Abs, dir) || paths.Within(p.Abs, real)) && paths.Within(p.Real, real) {
			return true
		}
	}
	return false
}

// hostDir reports whether d can be one of the host's own directories: an
// absolute directory that is not "/", not the project, not inside it and
// not above it, and not the home directory or above it.
func hostDir(c *Call, d string) bool {
	if !path.IsAbs(d) || path.Clean(d) == "/" || projectControlled(c, d) {
		return false
	}
	for _, above := range []string{c.Cwd, c.Home} {
		if above == "" {
			continue
		}
		if paths.Within(above, d) {
			return false
		}
		if real, ok := c.canonicalDir(above); ok && paths.Within(real, d) {
			return false
		}
	}
	return true
}

// projectControlled reports whether d lies in the project (either identity
// of the working directory).
func projectControlled(c *Call, d string) bool {
	if c.Cwd == "" {
		return false
	}
	if paths.Within(d, c.Cwd) {
		return true
	}
	real, ok := c.canonicalDir(c.Cwd)
	return ok && paths.Within(d, real)
}

func infraDirs(c *Call) []string {
	dirs := []string{}
	if c.AgentDir != "" {
		dirs = append(dirs, c.AgentDir)
	}
	// <cwd>/.pi/npm and <cwd>/.pi/git are the project's own:
	// never infrastructure (issue 12.8).
	return append(dirs, c.InfraDirs...)
}

// credential reports paths that the infrastructure bypass never covers:
// credentials and other sessions' data.
func credential(abs string) bool {
	base := path.Base(abs)
	if base == "auth.json" || strings.HasSuffix(base, ".key") || strings.HasSuffix(base, ".pem") {
		return true
	}
	for rest := abs; rest != ""; {
		var part string
		part, rest, _ = strings.Cut(rest, "/")
		if part == "sessions" {
			return true
		}
	}
	return false
}
