package author

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/toolgate/toolgate/export"
	"github.com/toolgate/toolgate/hook"
	"github.com/toolgate/toolgate/hook/audit"
	"github.com/toolgate/toolgate/policy"
)

// DoctorReport is what `toolgate doctor` says of a session in a folder.
type DoctorReport struct {
	Files        []DoctorFile
	Warnings     []string
	TrustStore   string
	TrustCommand string
	AuditLog     string
	// More are further sections (lines to print); MoreBad is set when
	// something they report is needed and missing.
	More    []string
	MoreBad bool
}

// DoctorFile is one policy file looked for, and its state in words.
type DoctorFile struct {
	Scope, Path, State string
	// Bad is set for a file that is broken (its scope fails closed).
	Bad bool
}

// Doctor reports on the policy a session with opts (and agent) reads.
func Doctor(opts hook.Options, agent string) DoctorReport {
	dr := hook.NewDryRun(opts)
	p := dr.PolicyAt("", agent)
	rep := DoctorReport{TrustStore: policy.TrustStorePath(opts.ConfigHome, opts.Home), TrustCommand: p.TrustCommand(),
		AuditLog: dr.AuditLog(p)}
	for _, src := range p.Sources {
		f := DoctorFile{Scope: src.Scope, Path: src.Path}
		switch {
		case !src.Exists:
			f.State = "not found"
		case !src.Loaded:
			f.State, f.Bad = "BROKEN (see the warnings; its scope fails closed)", true
		case src.Project && src.Trusted:
			f.State = "loaded, trusted (its exact content)"
		case src.Project:
			f.State = "loaded, NOT trusted: it may tighten, never loosen (toolgate trust)"
		case src.Scope == policy.ScopeManaged:
			f.State = "loaded, managed: its deny and ask hold over every other file, its settings are final"
		default:
			f.State = "loaded"
		}
		rep.Files = append(rep.Files, f)
	}
	for _, w := range p.Warnings {
		rep.Warnings = append(rep.Warnings, w.String())
	}
	if p.Clamped {
		rep.Warnings = append(rep.Warnings, "a policy file is broken: every allow asks instead until it is fixed")
	}
	rep.More = append(rep.More, "Confinement (bash commands run by the kernel's rules):")
	c := dr.Confinement(p, opts.Cwd)
	rep.More = append(rep.More, fmt.Sprintf("  mode %s; available %t; Landlock ABI %d; user and mount namespaces %t", c.Mode, c.Available, c.LandlockABI, c.Namespaces))
	for _, m := range c.Missing {
		rep.More = append(rep.More, "  missing: "+m)
	}
	rep.More = append(rep.More, dr.DoctorConfinement(p, opts.Cwd, c)...)
	if c.Mode == policy.SandboxRequired && !c.Available {
		// Required and not there: every bash call blocks.
		rep.MoreBad = true
	}
	rep.More = append(rep.More, "Export:")
	if o, ok := export.FromPolicy(p, rep.AuditLog); ok {
		n, size, err := export.Behind(rep.AuditLog)
		switch {
		case err != nil:
			rep.More = append(rep.More, fmt.Sprintf("  to %s; the cursor cannot be read: %v", o.Endpoint, err))
		default:
			rep.More = append(rep.More, fmt.Sprintf("  to %s; %d records (%d bytes) not yet acknowledged by the collector", o.Endpoint, n, size))
		}
	} else {
		rep.More = append(rep.More, "  off (no export knob)")
	}
	for _, h := range repoHookFiles(opts.Cwd) {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf(
			"%s: this repository carries its own hook configuration for a host; a repository's hook command could run toolgate with a policy of its choosing (install toolgate's hooks at user level)", h))
	}
	return rep
}

// repoHookFiles are the host hook configurations a repository at dir
// carries (hooks are installed by the person, never by a
// repository).
func repoHookFiles(dir string) []string {
	var out []string
	for _, rel := range []string{".claude/settings.json", ".claude/settings.local.json", ".gemini/settings.json",
		".codex/hooks.json", ".codex/config.toml", ".qwen/settings.json"} {
		p := filepath.Join(dir, rel)
		if _, err := os.Lstat(p); err == nil {
			out = append(out, p)
		}
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".github", "hooks", "*.json")); len(m) > 0 {
		out = append(out, m...)
	}
	return out
}

// AuditLogState says what the audit log at path is now (toolgate doctor):
// not written yet, or its records and an intact chain; an error for a file
// that is no regular file or whose chain is broken.
func AuditLogState(path string) (string, error) {
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "not written yet (it is created, with its folders, at the first call)", nil
	case err != nil:
		return "", err
	case !info.Mode().IsRegular():
		return "", fmt.Errorf("not a regular file (%s): every call would be blocked", info.Mode().Type())
	}
	r, err := audit.VerifyFile(path)
	switch {
	case err != nil:
		return "", err
	case r.Problem != nil:
		return "", fmt.Errorf("chain broken at line %d: %s", r.Problem.Line, r.Problem.Message)
	}
	return fmt.Sprintf("%d records, chain intact", r.Records), nil
}
