package gates

import (
	"fmt"
	"path"
	"strings"

	"github.com/toolgate/toolgate/gates/paths"
	"github.com/toolgate/toolgate/policy"
	"github.com/toolgate/toolgate/protocol"
)

// readOnlyTools may read the host's own directories without the external
// directory check.
var readOnlyTools = map[string]bool{"read": true, "grep": true, "find": true, "ls": true}

// ExternalDirectory checks a non-bash tool whose path lies outside the
// working directory (spelled outside, or really outside once symlinks are
// followed) on the external_directory surface (SPEC §3 gate 2).
func ExternalDirectory(c *Call, r Resolver) Outcome {
	o := externalToolPath(c, r)
	glob, _ := toolGlob(c)
	return withGlob(c, r, o, protocol.GateExternalDirectory, func(p paths.Path) (Outcome, bool) {
		if !p.Outside(c.Cwd) || readOnlyTools[c.ToolName] && infrastructure(c, p) {
			return Outcome{}, false
		}
		return externalOutcome(c, r, p, globWhat(c, glob, p)+" outside the working directory "+quote(c.Cwd)), true
	})
}

// externalToolPath checks the tool's own path (input.path).
func externalToolPath(c *Call, r Resolver) Outcome {
	if c.Shell != nil {
		return Outcome{Gate: protocol.GateExternalDirectory}
	}
	p, ok := toolPath(c)
	if !ok {
		return Outcome{Gate: protocol.GateExternalDirectory}
	}
	if !p.Outside(c.Cwd) {
		return Outcome{Gate: protocol.GateExternalDirectory, Note: "inside the working directory"}
	}
	if readOnlyTools[c.ToolName] && infrastructure(c, p) {
		return Outcome{Gate: protocol.GateExternalDirectory, Kind: Bypass, Note: "read-only access to the host's own files",
			D: Descriptor{Surface: c.ToolName, Value: p.Input, State: policy.Allow,
				Resolution: protocol.ResInfrastructureAutoAllow, Forms: allForms(p)}}
	}
	what := fmt.Sprintf("tool %s on path %s%s outside the working directory %s", quote(c.ToolName), quote(p.Input), resolvesTo(p), quote(c.Cwd))
	return externalOutcome(c, r, p, what)
}

// externalOutcome decides one path outside the working directory on the
// external_directory surface.
func externalOutcome(c *Call, r Resolver, p paths.Path, what string) Outcome {
	res, _ := resolvePath(r, "external_directory", p)
	o := checked(protocol.GateExternalDirectory, "external_directory", p.Input, res)
	o.D.Forms = allForms(p)
	o.D.SessionPatterns = pathSessionPatterns("external_directory", p, c.Home)
	fillTexts(&o.D, c.AgentName, what, "", "Allow this access outside the project?")
	return o
}

// infrastructure reports whether both identities of p lie in one of the
// host's read-only directories, and p is not a credential or another
// session's data there (those are always checked).
func infrastructure(c *Call, p paths.Path) bool {
	if h, ok := p.Host(); ok && !infrastructure(c, h) {
		return false
	}
	if !p.RealKnown || p.Abs == "" || credential(p.Abs) || credential(p.Real) {
		return false
	}
	inInfra := func(abs string) bool {
		for _, dir := range infraDirs(c) {
			if strings.ContainsAny(dir, "*?") {
				pat := policy.CompilePattern(dir, c.Home)
				if pat.Match(abs, true) {
					return true
				}
				continue
			}
			dir = policy.ExpandHome(dir, c.Home)
			if paths.Within(abs, dir) {
				return true
			}
			if real, ok := c.fs.Canonical(dir); ok && paths.Within(abs, real) {
				return true
			}
		}
		return false
	}
	return inInfra(p.Abs) && inInfra(p.Real)
}

func infraDirs(c *Call) []string {
	dirs := []string{}
	if c.AgentDir != "" {
		dirs = append(dirs, c.AgentDir)
	}
	dirs = append(dirs, c.InfraDirs...)
	if c.Cwd != "" {
		dirs = append(dirs, path.Join(c.Cwd, ".pi", "npm"), path.Join(c.Cwd, ".pi", "git"))
	}
	return dirs
}

// credential reports paths that the infrastructure bypass never covers:
// credentials and other sessions' data.
func credential(abs string) bool {
	base := path.Base(abs)
	if base == "auth.json" || strings.HasSuffix(base, ".key") || strings.HasSuffix(base, ".pem") {
		return true
	}
	for _, part := range strings.Split(abs, "/") {
		if part == "sessions" {
			return true
		}
	}
	return false
}
