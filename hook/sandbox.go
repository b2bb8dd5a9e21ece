package hook

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/toolgate/toolgate/gates"
	"github.com/toolgate/toolgate/policy"
	"github.com/toolgate/toolgate/protocol"
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

// machineProbe is sandbox.Probe, run once per server (the kernel's answer
// does not change while it runs).
type machineProbe struct {
	once sync.Once
	rep  sandbox.Report
}

func (m *machineProbe) get() sandbox.Report {
	m.once.Do(func() { m.rep = sandbox.Probe() })
	return m.rep
}

// confinement is policy.confinement for the policy p in cwd.
func (s *Server) confinement(p *policy.Policy, cwd string) *protocol.Confinement {
	rep := s.machine.get()
	c := &protocol.Confinement{Mode: p.Sandbox.Mode, Available: rep.ProtectedEnforced(), LandlockABI: rep.LandlockABI,
		Namespaces: rep.Has("user") && rep.Has("mount"), Missing: append([]string{}, rep.Missing...)}
	if !c.Available {
		c.Missing = append(c.Missing, sandbox.NotEnforced)
	}
	if msg := noProjectRoot(cwd, s.opts.Home); msg != "" {
		c.Missing = append(c.Missing, msg)
	}
	if p.Sandbox.Mode != policy.SandboxOff {
		c.Missing = append(c.Missing, "this host's bash commands are not run confined by toolgate yet (no input rewrite); \"required\" blocks them")
	}
	return c
}

// noProjectRoot says why the working directory gives no project write
// root (/, $HOME or above it), "" when it gives one.
func noProjectRoot(cwd, home string) string {
	if cwd == "" {
		return ""
	}
	real, err := filepath.EvalSymlinks(cwd)
	if err != nil {
		real = cwd
	}
	if h, err := filepath.EvalSymlinks(home); err == nil {
		home = h
	}
	if real == "/" || home != "" && (home == real || strings.HasPrefix(home, real+"/")) {
		return fmt.Sprintf("no project write root: the working directory %s is /, $HOME or above it", real)
	}
	return ""
}

// refuseUnconfined blocks a bash call the policy requires to run confined
// ("sandbox": "required") where it cannot be: the machine does not
// enforce protected paths, or the host does not run the command through
// toolgate sandbox. The block is recorded before it is answered.
func (s *Server) refuseUnconfined(gc *gatesCall) protocol.ToolCallResult {
	res := s.unconfinedResult(gc)
	if err := (reporter{s: s}).Audit(gates.AuditRecord{Event: "decision", ToolCallID: gc.call.ToolCallID, ToolName: gc.call.ToolName,
		Action: res.Action, Reason: res.Reason, Resolution: res.Decision.Resolution, Gate: protocol.GateTool, State: "deny"}); err != nil {
		s.log.Error().Err(err).Msg("audit")
	}
	return res
}

// unconfinedResult is refuseUnconfined's answer, unrecorded (explain).
func (s *Server) unconfinedResult(gc *gatesCall) protocol.ToolCallResult {
	rep := s.machine.get()
	from := gc.policy.Sandbox.ModeFrom
	var why string
	if !rep.ProtectedEnforced() {
		why = fmt.Sprintf("this machine cannot confine it: %s (%s)", sandbox.NotEnforced, strings.Join(rep.Missing, "; "))
	} else {
		why = "this host does not run bash commands through toolgate sandbox, so it would run unconfined"
	}
	reason := fmt.Sprintf("toolgate: \"sandbox\": \"required\" (%s) and %s; the bash call is blocked", from, why)
	return blockResult(protocol.GateTool, "bash", protocol.ResSandboxUnavailable, reason)
}
