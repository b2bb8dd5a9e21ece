package hook

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/toolgate/toolgate/gates"
	"github.com/toolgate/toolgate/hook/hosts"
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
	pol := s.currentPolicy()
	prof, notes, err := s.deriveProfile(pol, s.snapshot().cwd, getenv, nil)
	return prof, pol, notes, err
}

// deriveProfile is the confinement profile of a bash command run in cwd
// under pol.
func (s *Server) deriveProfile(pol *policy.Policy, cwd string, getenv func(string) string, writes []string) (*sandbox.Profile, []string, error) {
	return s.deriveWith(pol, cwd, getenv, writes, nil)
}

// deriveWith is deriveProfile with the protected paths left writable.
func (s *Server) deriveWith(pol *policy.Policy, cwd string, getenv func(string) string, writes, writable []string) (*sandbox.Profile, []string, error) {
	own := s.protectedFor(cwd, s.auditPath(pol))
	for _, src := range pol.Sources {
		own = append(own, src.Path)
	}
	dir := s.sandboxDir(pol) // protected too (protectedFor)
	own = gates.OwnFiles(own, s.opts.AgentDir, cwd)
	return sandbox.Derive(sandbox.Input{Cwd: cwd, Home: s.opts.Home, TempDir: os.TempDir(),
		Getenv: getenv, Policy: pol, Own: own, Writes: writes, Writable: writable, CacheDir: dir})
}

// sandboxDir is toolgate's folder of confinement profiles and kept walks:
// $XDG_RUNTIME_DIR/toolgate/, else beside the audit log.
func (s *Server) sandboxDir(pol *policy.Policy) string { return sandboxDirFor(s.auditPath(pol)) }

// sandboxDirFor is sandboxDir for the audit log at logPath.
func sandboxDirFor(logPath string) string {
	if rt := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(rt) {
		return filepath.Join(rt, "toolgate")
	}
	return filepath.Join(filepath.Dir(logPath), "sandbox")
}

// repoConfigs are the repository configuration files (.git/config) among
// a call's write paths. The analysis names one where a git unit writes it
// by design (git remote add, git config user.email …), and toolgate's
// floor asks about every write of it, naming it: the profile of a call the
// person approved leaves that file writable.
func repoConfigs(writes []string) []string {
	var out []string
	for _, w := range writes {
		if filepath.Base(w) == "config" && filepath.Base(filepath.Dir(w)) == ".git" {
			out = append(out, w)
		}
	}
	return out
}

// shellWrites are the paths a bash call's words write (redirect targets,
// words of commands not known to only read), where the analysis knows
// them: the decision that lets the call run allowed or asked about each.
func shellWrites(gc *gatesCall) []string {
	if gc.call.Shell == nil {
		return nil
	}
	var out []string
	for _, pw := range gc.call.Shell.Analysis.Paths {
		if !pw.Write || !pw.Known || pw.Value == "" {
			continue
		}
		p := pw.Value
		if !filepath.IsAbs(p) {
			if pw.Dir == "" {
				continue
			}
			p = filepath.Join(pw.Dir, p)
		}
		out = append(out, filepath.Clean(p))
	}
	return out
}

// confinedCommand writes the profile of a bash command the decision lets
// run and returns the command line that runs it confined: toolgate
// sandbox with the profile and the model's text, base64-encoded (never
// re-quoted). The profile goes under $XDG_RUNTIME_DIR/toolgate/, else
// beside the audit log, readable by its owner only.
func (s *Server) confinedCommand(gc *gatesCall, text string, writable []string) (string, error) {
	cmd, _, err := s.writeConfined(gc, text, writable, "")
	return cmd, err
}

// writeConfined is confinedCommand, with the profile file's path; at is
// the path of a profile to write again ("" for a new one).
func (s *Server) writeConfined(gc *gatesCall, text string, writable []string, at string) (cmd, path string, err error) {
	prof, _, err := s.deriveWith(gc.policy, gc.call.Cwd, os.Getenv, shellWrites(gc), writable)
	if err != nil {
		return "", "", err
	}
	dir := s.sandboxDir(gc.policy)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", "", fmt.Errorf("profile folder: %w", err)
	}
	path = at
	if path == "" {
		sweepProfiles(dir, time.Now())
		f, err := os.CreateTemp(dir, "profile-*.json")
		if err != nil {
			return "", "", fmt.Errorf("profile: %w", err)
		}
		path = f.Name()
		f.Close()
	}
	os.Remove(path) // WriteFile creates it anew, exclusively, mode 0600
	if err := prof.WriteFile(path); err != nil {
		return "", "", err
	}
	exe, err := os.Executable()
	if err != nil {
		os.Remove(path)
		return "", "", fmt.Errorf("toolgate's own path: %w", err)
	}
	return fmt.Sprintf("%s sandbox --profile=%s --command-b64=%s", shellQuote(exe), shellQuote(path),
		base64.StdEncoding.EncodeToString([]byte(text))), path, nil
}

// profileTTL is how long an unused profile is kept. A profile is spent
// when its command runs; one whose command never ran (the person said no
// in the host's own prompt, the host was stopped) would stay.
const profileTTL = time.Hour

// walkTTL is how long a kept walk stays unwritten before it goes (a
// project not worked in for that long is walked again).
const walkTTL = 7 * 24 * time.Hour

// sweepProfiles removes the profiles in dir older than profileTTL, and
// the kept walks older than walkTTL. A command started later than that
// from a profile does not run (its profile is gone): it fails closed.
func sweepProfiles(dir string, now time.Time) {
	for pattern, ttl := range map[string]time.Duration{"profile-*.json": profileTTL, "walk-*.json": walkTTL} {
		matches, _ := filepath.Glob(filepath.Join(dir, pattern))
		for _, m := range matches {
			if info, err := os.Lstat(m); err == nil && info.Mode().IsRegular() && now.Sub(info.ModTime()) > ttl {
				os.Remove(m)
			}
		}
	}
}

// decideConfined decides a bash call of a protocol session whose policy's
// sandbox is on. Where the host runs confine.command (it said so at
// initialize) and the machine enforces protected paths, the profile is
// written before the decision and an allowed call is answered with the
// command that runs it confined; a denied one's profile is removed.
// Elsewhere "required" blocks the call, and "on" decides it as usual,
// its decision record marked unconfined.
func (s *Server) decideConfined(gc *gatesCall, req gates.Request) answer {
	if !s.snapshot().confines || !s.machine.get().ProtectedEnforced() {
		if gc.policy.Sandbox.Mode == policy.SandboxRequired {
			return answer{result: s.refuseUnconfined(gc)}
		}
		req.Unconfined = true
		run := newCallRun(s, gc.policy)
		return answer{result: run.rn.Run(s.decideCtx(), req), notes: run.notes}
	}
	cmd, path, err := s.writeConfined(gc, gc.call.Shell.Command, nil, "")
	if err != nil {
		res := blockResult(protocol.GateTool, "bash", protocol.ResGateError,
			"toolgate: the bash command cannot be run confined (\"sandbox\" is "+gc.policy.Sandbox.Mode+"), so it is blocked: "+err.Error())
		if aerr := (reporter{s: s}).Audit(gates.AuditRecord{Event: "decision", ToolCallID: gc.call.ToolCallID, ToolName: gc.call.ToolName,
			Action: res.Action, Reason: res.Reason, Resolution: res.Decision.Resolution, Gate: protocol.GateTool, State: "deny"}); aerr != nil {
			s.log.Error().Err(aerr).Msg("audit")
		}
		return answer{result: res}
	}
	run := newCallRun(s, gc.policy)
	res := run.rn.Run(s.decideCtx(), req)
	if res.Action != protocol.ActionAllow {
		os.Remove(path)
		return answer{result: res, notes: run.notes}
	}
	if w := repoConfigs(shellWrites(gc)); len(w) > 0 && personApproved(res.Trace) {
		// The person approved the prompt that named .git/config: the
		// profile is written again with it writable.
		if _, _, err := s.writeConfined(gc, gc.call.Shell.Command, w, path); err != nil {
			os.Remove(path)
			s.log.Error().Err(err).Msg("profile")
			return answer{result: blockResult(protocol.GateTool, "bash", protocol.ResGateError,
				"toolgate: the approved bash command cannot be run confined, so it is blocked: "+err.Error()), notes: run.notes}
		}
	}
	res.Confine = &protocol.Confine{Command: cmd}
	return answer{result: res, notes: run.notes}
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

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
	if sb := p.Sandbox; sb.AutoAllow && (sb.Mode == policy.SandboxOff || !sb.NetworkOff || !rep.Full()) {
		c.Missing = append(c.Missing, "\"sandboxAutoAllow\" is ignored: it needs \"sandbox\" on, \"sandboxNetwork\": \"off\" and every part of confinement on this machine")
	}
	// (doctor, with no host, lists each host's way instead)
	if p.Sandbox.Mode != policy.SandboxOff && (s.opts.Host != "" || s.initializedOnce.Load()) && !s.runsConfined() {
		c.Missing = append(c.Missing, "this host does not run bash commands through toolgate sandbox (a hook host without an input rewrite, or a protocol host that did not send \"confines\": true at initialize); \"required\" blocks them, \"on\" records them as unconfined")
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
		why = "this host does not run this tool's command through toolgate sandbox, so it would run unconfined"
	}
	reason := fmt.Sprintf("toolgate: \"sandbox\": \"required\" (%s) and %s; the bash call is blocked", from, why)
	return blockResult(protocol.GateTool, "bash", protocol.ResSandboxUnavailable, reason)
}

// sandboxAutoAllowed reports whether a bash call that only the fallback
// asks about runs without a prompt, confined ("sandboxAutoAllow"): the knob is set with the sandbox on and the network off, the
// machine gives every part of confinement, and no gate but the tool gate
// asks, and that one by the fallback (no explicit ask rule, no floor, no
// path outside the project, which the path gates ask about).
func (s *Server) sandboxAutoAllowed(d hostDecision) bool {
	sb := d.gc.policy.Sandbox
	if !sb.AutoAllow || sb.Mode == policy.SandboxOff || !sb.NetworkOff || d.gc.call.Shell == nil ||
		d.res.State != "ask" || d.res.Decision == nil || !s.machine.get().Full() {
		return false
	}
	for _, e := range d.res.Trace {
		if !e.Applied || e.State == "" || e.State == "allow" {
			continue
		}
		if e.Gate != protocol.GateTool || e.State != "ask" || e.MatchedPattern != nil {
			return false
		}
	}
	return true
}

// hostConfines reports whether the engine call ec of a hook host runs
// confined when the policy's sandbox is on: the host takes the rewritten
// input of its shell tool, and this machine enforces protected paths.
func (s *Server) hostConfines(prof hosts.Profile, ec hosts.Call) bool {
	return prof.Confines && ec.Rewrite && s.machine.get().ProtectedEnforced()
}

// confine prepares the bash decision d of a hook host, answered action,
// for running when the policy's sandbox is on (before it is audited): the
// command line that runs it confined (its profile written), or, where the
// host or machine cannot confine it, the mark that it runs unconfined. A
// profile that cannot be written turns the decision into a deny: a
// command the policy would have confined never runs unconfined.
func (s *Server) confine(prof hosts.Profile, d *hostDecision, action string) {
	if d.gc == nil || d.gc.call.Shell == nil || d.gc.policy.Sandbox.Mode == policy.SandboxOff ||
		action != "allow" && action != "ask" {
		return
	}
	if !s.hostConfines(prof, d.call) {
		d.unconfined = true
		return
	}
	text, ok := d.call.Input["command"].(string)
	var err error
	if !ok {
		err = fmt.Errorf("the %s input has no command", d.call.Tool)
	} else {
		var writable []string
		if action == "ask" {
			// The host asks the person, naming what the floor names: the
			// approved command may write the .git/config it names.
			writable = repoConfigs(shellWrites(d.gc))
		}
		d.confined, err = s.confinedCommand(d.gc, text, writable)
	}
	if err != nil {
		d.res.State = "deny"
		d.res.Reason = "toolgate: the bash command cannot be run confined (\"sandbox\" is " + d.gc.policy.Sandbox.Mode + "): " + err.Error()
	}
}

// confinedOf is the confined command line of the decisions of one host
// event ("" when none runs confined).
func confinedOf(ds []hostDecision) string {
	for _, d := range ds {
		if d.confined != "" {
			return d.confined
		}
	}
	return ""
}

// asWritten ends the reason of an ask whose host shows the rewritten
// input: the command as the model wrote it.
func asWritten(d hostDecision) string {
	text, _ := d.call.Input["command"].(string)
	return " (command as written: " + gates.VisibleText(text) + "; it runs confined by toolgate sandbox)"
}

// runsConfined reports whether this session's host runs its bash
// commands through toolgate sandbox: a hook host by its adapter, a
// protocol host by what it said at initialize.
func (s *Server) runsConfined() bool {
	if prof, ok := profileFor(s.opts.Host); ok && s.opts.Host != HostOpenCode {
		return prof.Confines // a hook process
	}
	return s.snapshot().confines
}

// hostConfinement says how each host runs its bash commands when the
// policy's sandbox is on (doctor).
var hostConfinement = []struct{ host, how string }{
	{"pi", "runs bash confined: the bridge runs the tool_call result's confine.command (it sends \"confines\": true)"},
	{HostClaudeCode, "runs Bash confined (the hook's updatedInput); Monitor's watched command and PowerShell run as they are (\"required\" blocks them)"},
	{HostGeminiCLI, "runs run_shell_command confined (BeforeTool's hookSpecificOutput.tool_input)"},
	{HostOpenCode, "runs bash confined: the plugin rewrites the call's arguments to the result's confine.command"},
	{HostCodex, "runs a shell command PreToolUse allows confined (updatedInput); one carrying apply_patch, which Codex applies itself, runs as it is (\"required\" blocks it)"},
	{HostCopilotCLI, "runs bash confined (preToolUse's modifiedArgs)"},
	{HostQwenCode, "runs run_shell_command confined (updatedInput); monitor and a shell command called through tool_call run as they are (\"required\" blocks them)"},
}

// doctorConfinement are doctor's lines on confinement beyond the machine's
// parts: how each host runs bash confined, and the ways out through other
// processes (sockets) that the sandbox hides, or leaves open where it
// cannot (no mount namespace).
func (s *Server) doctorConfinement(p *policy.Policy, cwd string, c *protocol.Confinement) []string {
	var out []string
	for _, h := range hostConfinement {
		out = append(out, fmt.Sprintf("  host %s: %s", h.host, h.how))
	}
	prof, _, err := s.deriveProfile(p, cwd, os.Getenv, nil)
	if err != nil {
		return append(out, "  sockets: cannot be listed: "+err.Error())
	}
	var socks []string
	for _, e := range prof.Sockets {
		socks = append(socks, e.Path)
	}
	switch {
	case len(socks) == 0:
		out = append(out, "  sockets: none found to hide (runtime folder, docker socket, tmux/screen and ssh-agent folders)")
	case !c.Namespaces:
		out = append(out, "  sockets OPEN to a confined command (no user and mount namespaces to hide them): "+strings.Join(socks, ", "))
	default:
		out = append(out, "  sockets hidden from a confined command (sandboxSockets keeps one open): "+strings.Join(socks, ", "))
	}
	return out
}

// personApproved reports whether the person said yes to a path gate's
// question of this call (the prompt that named the file), or a session
// approval they gave answered it.
func personApproved(trace []protocol.TraceEntry) bool {
	for _, e := range trace {
		if e.Gate != protocol.GateBashPath {
			continue
		}
		switch e.Resolution {
		case protocol.ResUserApproved, protocol.ResUserApprovedForSession, protocol.ResSessionApproved:
			return true
		}
	}
	return false
}
