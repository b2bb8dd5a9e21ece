package hook

import (
	"os"

	"github.com/toolgate/toolgate/gates"
	"github.com/toolgate/toolgate/policy"
	"github.com/toolgate/toolgate/sandbox"
)

// SandboxProfile derives the confinement profile for a command run in
// opts.Cwd by the policy that applies there (toolgate sandbox): toolgate's
// own files are every policy file location the session reads, its own
// folders, the --config files and the audit log with its head. notes say
// what the person should know (no project write root, a walk cut short).
func SandboxProfile(opts Options, getenv func(string) string) (*sandbox.Profile, *policy.Policy, []string, error) {
	s := New(opts)
	st := s.snapshot()
	pol := s.currentPolicy()
	own := s.protectedFor(st.cwd, s.auditPath(pol))
	for _, src := range pol.Sources {
		own = append(own, src.Path)
	}
	own = gates.OwnFiles(own, opts.AgentDir, st.cwd)
	prof, notes, err := sandbox.Derive(sandbox.Input{Cwd: st.cwd, Home: opts.Home, TempDir: os.TempDir(),
		Getenv: getenv, Policy: pol, Own: own})
	return prof, pol, notes, err
}
