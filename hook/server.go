// Package hook is the session: JSON-RPC dispatch, the session's state (cwd,
// agent, skills, session approvals), and the wiring of policy, gates,
// prompts and the audit log. Handlers are thin: each method decodes its
// params and calls into the domain.
package hook

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
	"github.com/sourcegraph/jsonrpc2"

	"github.com/toolgate/toolgate/gates"
	"github.com/toolgate/toolgate/gates/shell"
	"github.com/toolgate/toolgate/hook/audit"
	"github.com/toolgate/toolgate/policy"
	"github.com/toolgate/toolgate/prompt"
	"github.com/toolgate/toolgate/protocol"
)

// Version is toolgate's version.
const Version = "0.1.0"

// Options configure a server.
type Options struct {
	Cwd         string   // start directory (process cwd by default)
	ConfigFiles []string // --config files
	AuditLog    string   // --audit-log; empty: policy knob, then default
	Home        string
	AgentDir    string
	Framing     protocol.Framing
	Log         zerolog.Logger // stderr diagnostics
	// Host names a hook host (claude-code, gemini-cli) for its built-in
	// tool values and defaults and the audit log; empty for the protocol.
	Host string
	// ConfigHome is $XDG_CONFIG_HOME (default ~/.config), where toolgate's
	// own global policy file is.
	ConfigHome string
}

// state is what initialize (and per-call overrides) set.
type state struct {
	cwd            string
	hasUI          bool
	agentName      string
	sessionID      string
	skills         []protocol.Skill
	mcpServers     []string
	infraDirs      []string
	projectTrusted bool
	host           protocol.HostInfo
}

// Server is one toolgate session on one connection.
type Server struct {
	opts   Options
	loader *policy.Loader
	log    zerolog.Logger

	mu    sync.RWMutex
	st    state
	audit *audit.Log
	// auditProblem is a warning about the audit log, shown in initialize.
	auditProblem *policy.Warning

	approvals approvals
	stream    *protocol.Stream
	conn      *jsonrpc2.Conn
	prompter  *prompt.Prompter

	// Shutdown: calls in flight are counted when they are read, so that
	// shutdown and end of input can answer every one first.
	inflight  sync.WaitGroup
	closing   atomic.Bool
	ctx       context.Context
	cancel    context.CancelFunc
	drainOnce sync.Once
	doneOnce  sync.Once
	ready     chan struct{}
	done      chan struct{}
	inputSeq  atomic.Uint64
	mcp       mcpNames
	// reported is the last policy whose warnings were reported.
	reported *policy.Policy
}

// New returns a server; Serve runs it.
func New(opts Options) *Server {
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{opts: opts, loader: policy.NewLoader(), log: opts.Log, ctx: ctx, cancel: cancel, done: make(chan struct{}), ready: make(chan struct{})}
	s.st = state{cwd: opts.Cwd, projectTrusted: true, host: protocol.HostInfo{Name: opts.Host}}
	s.approvals.home = opts.Home
	return s
}

// Serve speaks the protocol on in/out until shutdown or end of input.
func (s *Server) Serve(in io.Reader, out io.Writer) error {
	s.openAudit(s.currentPolicy())
	s.stream = protocol.NewStream(in, out, nil, s.opts.Framing, s.drain)
	// The connection gets its own context: cancelling s.ctx at shutdown
	// must not close it before the pending answers are written.
	pool := newWorkers()
	defer pool.Stop()
	s.conn = jsonrpc2.NewConn(context.Background(), s.stream, orderedAsync{serverHandler{s}, pool},
		jsonrpc2.SetLogger(zerologPrinter{s.log}),
		jsonrpc2.OnRecv(func(req *jsonrpc2.Request, _ *jsonrpc2.Response) {
			if req != nil && !req.Notif && counted(req.Method) {
				s.inflight.Add(1)
			}
		}))
	s.prompter = prompt.New(s.conn)
	close(s.ready)
	select {
	case <-s.conn.DisconnectNotify():
	case <-s.done:
	}
	s.drain()
	s.mu.Lock()
	if s.audit != nil {
		_ = s.audit.Close()
	}
	s.mu.Unlock()
	return nil
}

// counted methods are answered before shutdown completes.
func counted(method string) bool {
	switch method {
	case protocol.MethodToolCall, protocol.MethodInput, protocol.MethodCheck:
		return true
	}
	return false
}

// drain ends the session: open prompts fail, calls in flight are answered
// (with block, "shutting down"), and no new call is decided.
func (s *Server) drain() {
	s.drainOnce.Do(func() {
		s.closing.Store(true)
		s.cancel()
		if s.prompter != nil {
			s.prompter.Close("toolgate is shutting down")
		}
		waited := make(chan struct{})
		go func() { s.inflight.Wait(); close(waited) }()
		select {
		case <-waited:
		case <-time.After(10 * time.Second):
			s.log.Error().Msg("calls still in flight after 10 s at shutdown")
		}
	})
}

type zerologPrinter struct{ l zerolog.Logger }

func (z zerologPrinter) Printf(format string, v ...any) { z.l.Debug().Msgf(format, v...) }

// orderedAsync handles each request apart from the read loop, like
// jsonrpc2.AsyncHandler (a prompt sent back to the host while a call waits
// would otherwise deadlock the read loop), except initialize: it changes
// the session every later request depends on, so it is handled in order,
// before the next message is read. initialize never calls the host.
type orderedAsync struct {
	h    jsonrpc2.Handler
	pool *workers
}

func (a orderedAsync) Handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	if req.Method == protocol.MethodInitialize {
		a.h.Handle(ctx, conn, req)
		return
	}
	a.pool.Go(func() { a.h.Handle(ctx, conn, req) })
}

// serverHandler replies to each request itself, so that a call counts as
// answered only once its answer is written, and shutdown answers last.
type serverHandler struct{ s *Server }

func (h serverHandler) Handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	s := h.s
	<-s.ready // the prompter exists only once NewConn has returned
	if req.Notif {
		s.handle(ctx, conn, req) // frees the raw params; never answered
		return
	}
	defer func() {
		if counted(req.Method) {
			s.inflight.Done()
		}
		if req.Method == protocol.MethodShutdown {
			s.doneOnce.Do(func() { close(s.done) })
		}
	}()
	written := false
	defer func() {
		// A panic after handle's own recovery must neither crash the
		// process nor leave the request unanswered; a host treats an error
		// to tool_call as a block.
		if p := recover(); p != nil {
			s.log.Error().Str("method", req.Method).Msgf("panic answering: %v", p)
			if !written {
				_ = s.stream.WriteError(req.ID, protocol.CodeInternalError, "internal error; treat as a block")
			}
		}
	}()
	result, err := s.handle(ctx, conn, req)
	// Answers are written straight to the stream (one encoder pass); the
	// stream's lock keeps each call's notifications before its answer, and
	// the connection only needs to track our own requests.
	var rerr error
	switch a, ok := result.(answer); {
	case err != nil:
		e, isRPC := err.(*jsonrpc2.Error)
		if !isRPC {
			e = &jsonrpc2.Error{Code: protocol.CodeInternalError, Message: err.Error()}
		}
		rerr = s.stream.WriteError(req.ID, int(e.Code), e.Message)
	case ok:
		rerr = s.stream.WriteAll(append(a.notes, protocol.Result(req.ID, a.result))...)
	default:
		rerr = s.stream.WriteResult(req.ID, result)
	}
	written = true
	if rerr != nil {
		s.log.Debug().Err(rerr).Str("method", req.Method).Msg("reply")
	}
}

// handle dispatches one request. It runs in its own goroutine.
func (s *Server) handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) (result any, err error) {
	raw := s.stream.RawParams(req.Meta)
	if req.Notif {
		return nil, nil // notifications toolgate does not know are ignored
	}
	defer func() {
		if p := recover(); p != nil {
			s.log.Error().Str("method", req.Method).Msgf("panic: %v\n%s", p, debug.Stack())
			if req.Method == protocol.MethodToolCall || req.Method == protocol.MethodInput {
				gate := protocol.GateTool
				if req.Method == protocol.MethodInput {
					gate = protocol.GateSkillInput
				}
				result, err = blockResult(gate, "", protocol.ResGateError, fmt.Sprintf("toolgate: internal error, the request is blocked (fail-closed): %v", p)), nil
				return
			}
			result, err = nil, &jsonrpc2.Error{Code: protocol.CodeInternalError, Message: fmt.Sprintf("internal error: %v", p)}
		}
	}()
	switch req.Method {
	case protocol.MethodInitialize:
		return s.initialize(raw)
	case protocol.MethodToolCall:
		return s.toolCall(raw), nil
	case protocol.MethodInput:
		return s.input(raw), nil
	case protocol.MethodCheck:
		return s.check(raw)
	case protocol.MethodSessionApprovals:
		return protocol.SessionApprovalsResult{Rules: s.approvals.list()}, nil
	case protocol.MethodPolicyReload:
		p := s.loader.Reload(s.locations(s.snapshot()))
		s.openAudit(p)
		return s.policyInfo(p), nil
	case protocol.MethodShutdown:
		s.drain()
		return nil, nil
	}
	return nil, &jsonrpc2.Error{Code: protocol.CodeMethodNotFound, Message: fmt.Sprintf("method not found: %s", req.Method)}
}

// blockResult is a block decided before any gate ran (bad params, shutdown,
// an internal error); the trace lists every gate as not run.
func blockResult(gate, surface, resolution, reason string) protocol.ToolCallResult {
	gs := gates.ToolGates
	if gate == protocol.GateSkillInput {
		gs = gates.InputGates
	}
	trace := make([]protocol.TraceEntry, 0, len(gs))
	for _, g := range gs {
		trace = append(trace, protocol.TraceEntry{Gate: g.ID, Note: "not run: " + resolution})
	}
	return protocol.ToolCallResult{Action: protocol.ActionBlock, Reason: reason, Trace: trace,
		Decision: &protocol.Decision{Gate: gate, Surface: surface, State: "deny", Resolution: resolution}}
}

func (s *Server) snapshot() state {
	s.mu.RLock()
	defer s.mu.RUnlock()
	st := s.st
	return st
}

func (s *Server) locations(st state) policy.Locations {
	return policy.Locations{AgentDir: s.opts.AgentDir, Home: s.opts.Home, ConfigHome: s.opts.ConfigHome, Cwd: st.cwd,
		ConfigFiles: s.opts.ConfigFiles, ProjectTrusted: st.projectTrusted, AgentName: st.agentName}
}

func (s *Server) currentPolicy() *policy.Policy { return s.loader.Policy(s.locations(s.snapshot())) }

// initialize replaces the session's settings and reloads the policy.
func (s *Server) initialize(raw []byte) (any, error) {
	var p protocol.InitializeParams
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, &jsonrpc2.Error{Code: protocol.CodeInvalidParams, Message: "invalid initialize params: " + err.Error()}
		}
	}
	if p.Cwd != "" && !filepath.IsAbs(p.Cwd) {
		return nil, &jsonrpc2.Error{Code: protocol.CodeInvalidParams, Message: fmt.Sprintf("invalid initialize params: cwd %q is not absolute", p.Cwd)}
	}
	s.mu.Lock()
	old := s.st
	// A repeated initialize replaces the fields it carries and keeps the
	// others (PROTOCOL.md: "its fields replace the earlier ones").
	st := old
	if p.Cwd != "" {
		st.cwd = filepath.Clean(p.Cwd)
	}
	if p.HasUI != nil {
		st.hasUI = *p.HasUI
	}
	if p.AgentName != nil {
		st.agentName = *p.AgentName
	}
	if p.SessionID != nil {
		st.sessionID = *p.SessionID
	}
	if p.ProjectTrusted != nil {
		st.projectTrusted = *p.ProjectTrusted
	}
	if p.Host != nil {
		st.host = *p.Host
	}
	if p.Skills != nil {
		st.skills = p.Skills
	}
	if p.MCPServers != nil {
		st.mcpServers = p.MCPServers
	}
	if p.InfrastructureDirs != nil {
		st.infraDirs = p.InfrastructureDirs
	}
	s.st = st
	s.mu.Unlock()
	if st.cwd != old.cwd {
		s.approvals.reset(s.opts.Home)
	}
	pol := s.loader.Reload(s.locations(st))
	s.openAudit(pol)
	info := s.policyInfo(pol)
	s.reportWarnings(pol, true)
	return protocol.InitializeResult{ProtocolVersion: protocol.Version,
		ServerInfo: protocol.ServerInfo{Name: "toolgate", Version: Version}, Policy: info}, nil
}

// reportWarnings writes a policy's warnings to stderr and the audit log
// (SPEC §1.3) when the policy is new: at initialize, and when an edited
// file was re-read before a call.
func (s *Server) reportWarnings(p *policy.Policy, always bool) {
	s.mu.Lock()
	if p == s.reported && !always {
		s.mu.Unlock()
		return
	}
	s.reported = p
	sessionID := s.st.sessionID
	s.mu.Unlock()
	for _, w := range s.policyInfo(p).Warnings {
		s.log.Warn().Str("path", w.Path).Int("line", w.Line).Int("column", w.Column).Msg(w.Message)
		_ = s.appendAudit("policy_warning", func(e *zerolog.Event) {
			e.Str("sessionId", sessionID).Str("path", w.Path).Int("line", w.Line).Int("column", w.Column).Str("message", w.Message)
		})
	}
}

func (s *Server) policyInfo(p *policy.Policy) protocol.PolicyInfo {
	info := protocol.PolicyInfo{Sources: []protocol.Source{}, Warnings: []protocol.Warning{}}
	for _, src := range p.Sources {
		info.Sources = append(info.Sources, protocol.Source{Scope: src.Scope, Path: src.Path, Exists: src.Exists, Loaded: src.Loaded})
	}
	for _, w := range p.Warnings {
		info.Warnings = append(info.Warnings, protocol.Warning{Path: w.Path, Line: w.Line, Column: w.Column, Message: w.Message})
	}
	s.mu.RLock()
	if s.auditProblem != nil {
		w := s.auditProblem
		info.Warnings = append(info.Warnings, protocol.Warning{Path: w.Path, Message: w.Message})
	}
	s.mu.RUnlock()
	return info
}

// auditPath is where the audit log goes: --audit-log, else the global
// auditLog knob, else the default under the agent directory.
func (s *Server) auditPath(p *policy.Policy) string {
	switch {
	case s.opts.AuditLog != "":
		return s.opts.AuditLog
	case p.AuditLog != "":
		return filepath.Clean(policy.ExpandHome(p.AuditLog, s.opts.Home))
	}
	return filepath.Join(s.opts.AgentDir, "extensions", "pi-permission-system", "logs", "toolgate-audit.jsonl")
}

// openAudit opens the audit log when its path changed. A log that cannot be
// opened is kept in its failed state: every call then blocks.
func (s *Server) openAudit(p *policy.Policy) {
	path := s.auditPath(p)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.audit != nil && s.audit.Path() == path {
		return
	}
	if s.audit != nil {
		_ = s.audit.Close()
	}
	l, err := audit.Open(path)
	s.audit, s.auditProblem = l, nil
	if err != nil {
		s.auditProblem = &policy.Warning{Path: path, Message: "the audit log cannot be written, so every call is blocked: " + err.Error()}
		s.log.Error().Err(err).Msg("audit log")
	}
}

func (s *Server) appendAudit(event string, fill audit.Fields) error {
	s.mu.RLock()
	l := s.audit
	s.mu.RUnlock()
	if l == nil {
		return fmt.Errorf("no audit log is open")
	}
	return l.Append(event, fill)
}

// shellFor returns the shell command a call carries: bash's command, or the
// command argument of a configured shellTools alias.
func shellFor(toolName string, input object, p *policy.Policy) (cmd, workdir string, isShell bool, err error) {
	field, wd := "command", ""
	if toolName != "bash" {
		st, ok := p.ShellTools[toolName]
		if !ok {
			return "", "", false, nil
		}
		field, wd = st.CommandArgument, st.WorkdirArgument
	}
	cmd, present, err := input.str(field, "input.")
	if err != nil {
		return "", "", true, err
	}
	if !present && toolName != "bash" {
		// The configured command argument is not there: the command the
		// tool would run is somewhere toolgate does not look.
		return "", "", true, fmt.Errorf("input.%s (the shellTools command argument of %s) is missing", field, toolName)
	}
	if wd != "" {
		workdir, _, err = input.str(wd, "input.")
	}
	return cmd, workdir, true, err
}

// gatesCall is the decoded call and the policy it is decided with.
type gatesCall struct {
	call   *gates.Call
	hasUI  bool
	policy *policy.Policy
	input  any
}

// decodeCall reads tool_call/check params strictly (SPEC §3: a call toolgate
// cannot read unambiguously is invalid).
func (s *Server) decodeCall(raw []byte) (*gatesCall, string, error) {
	inputRaw, err := checkUnambiguous(raw)
	if err != nil {
		return nil, "", err
	}
	params, err := decodeObject(raw)
	if err != nil {
		return nil, "", err
	}
	id, _, err := params.str("toolCallId", "")
	if err != nil {
		return nil, "", err
	}
	name, _, err := params.str("toolName", "")
	if err != nil {
		return nil, id, err
	}
	if id == "" {
		return nil, id, fmt.Errorf("toolCallId is missing")
	}
	if name == "" {
		return nil, id, fmt.Errorf("toolName is missing")
	}
	input, hasInput, err := params.obj("input", "")
	if err != nil {
		return nil, id, err
	}
	if !hasInput {
		return nil, id, fmt.Errorf("input is missing")
	}
	st := s.snapshot()
	if agent, ok, err := params.str("agentName", ""); err != nil {
		return nil, id, err
	} else if ok {
		st.agentName = agent
	}
	if cwd, ok, err := params.str("cwd", ""); err != nil {
		return nil, id, err
	} else if ok {
		if !filepath.IsAbs(cwd) {
			return nil, id, fmt.Errorf("cwd %q is not an absolute path", cwd)
		}
		st.cwd = filepath.Clean(cwd)
	}
	hasUI, err := params.boolean("hasUI", "")
	if err != nil {
		return nil, id, err
	}
	if hasUI != nil {
		st.hasUI = *hasUI
	}
	pol := s.loader.Policy(s.locations(st))
	s.reportWarnings(pol, false)
	if err := checkToolFields(name, input); err != nil {
		return nil, id, err
	}
	c := &gates.Call{ToolCallID: id, ToolName: name, Input: input, Cwd: st.cwd, Home: s.opts.Home,
		AgentDir: s.opts.AgentDir, AgentName: st.agentName, Skills: st.skills, MCPServers: st.mcpServers,
		InfraDirs: append(append([]string(nil), st.infraDirs...), pol.InfraReadPaths...)}
	if name == "mcp" {
		c.MCPServers = mergeNames(st.mcpServers, s.mcp.get(s.opts.AgentDir))
	}
	c.Protected = append(append([]string(nil), s.opts.ConfigFiles...), s.auditPath(pol))
	c.Protected = append(c.Protected, s.hostProtected(st.cwd)...)
	cmd, workdir, isShell, err := shellFor(name, input, pol)
	if err != nil {
		return nil, id, err
	}
	if isShell {
		c.Shell = analyzeShell(cmd, workdir, st.cwd, s.opts.Home)
	}
	return &gatesCall{call: c, hasUI: st.hasUI, policy: pol, input: boundedInput(inputRaw)}, id, nil
}

// analyzeShell parses a shell command once. A workdir argument acts as if
// the command started with `cd workdir`; the workdir is itself a path word.
func analyzeShell(cmd, workdir, cwd, home string) *gates.ShellCommand {
	dir := cwd
	var extra []shell.PathWord
	if workdir != "" {
		if filepath.IsAbs(workdir) {
			dir = filepath.Clean(workdir)
		} else {
			dir = filepath.Join(cwd, workdir)
		}
		extra = append(extra, shell.PathWord{Raw: workdir, Value: dir, Known: true, Dir: cwd})
	}
	a := shell.Analyze(cmd, shell.Options{Cwd: dir, Home: home})
	a.Paths = append(extra, a.Paths...)
	return &gates.ShellCommand{Command: cmd, Workdir: workdir, Analysis: a}
}

// checkToolFields rejects a field toolgate reads that has the wrong type.
func checkToolFields(tool string, input object) error {
	switch tool {
	case "mcp":
		for _, f := range []string{"tool", "server", "connect", "describe", "search"} {
			if _, _, err := input.str(f, "input."); err != nil {
				return err
			}
		}
		args, ok, err := input.obj("arguments", "input.")
		if err != nil {
			if input["arguments"] == nil {
				return nil
			}
			return err
		}
		if ok {
			if _, _, err := args.str("path", "input.arguments."); err != nil {
				return err
			}
		}
	case "skill":
		_, _, err := input.str("name", "input.")
		return err
	case "bash":
		_, _, err := input.str("command", "input.")
		return err
	default:
		_, _, err := input.str("path", "input.")
		return err
	}
	return nil
}

// maxAuditInput bounds the input kept in an audit record.
const maxAuditInput = 4096

func boundedInput(input []byte) any {
	if len(input) == 0 {
		return nil
	}
	if len(input) <= maxAuditInput {
		return json.RawMessage(input)
	}
	return map[string]any{"truncated": true, "bytes": len(input), "head": string(input[:maxAuditInput])}
}

// answer is a result written together with the notifications before it.
type answer struct {
	result any
	notes  []any
}

func (s *Server) runner(pol *policy.Policy, notes *[]any) *gates.Runner {
	return &gates.Runner{Prompter: s.prompter, Session: &s.approvals, Reporter: reporter{s: s, notes: notes},
		PromptTimeoutMs: pol.PromptTimeout.Milliseconds()}
}

// toolCall decides one call; it never answers with an error.
func (s *Server) toolCall(raw []byte) any {
	gc, id, err := s.decodeCall(raw)
	if err != nil {
		return s.invalid(protocol.GateTool, id, err)
	}
	if s.closing.Load() {
		return s.refuseShuttingDown(gc)
	}
	req := gates.Request{Call: gc.call, Gates: gates.ToolGates, HasUI: gc.hasUI, Input: gc.input,
		Resolver: resolver{p: gc.policy, session: s.approvals.snapshot()}}
	var notes []any
	res := s.runner(gc.policy, &notes).Run(s.ctx, req)
	return answer{result: res, notes: notes}
}

func (s *Server) refuseShuttingDown(gc *gatesCall) protocol.ToolCallResult {
	res := blockResult(protocol.GateTool, gc.call.ToolName, protocol.ResGateError, "toolgate: the session is shutting down, so the call is blocked")
	_ = reporter{s: s}.Audit(gates.AuditRecord{Event: "decision", ToolCallID: gc.call.ToolCallID, ToolName: gc.call.ToolName,
		Action: res.Action, Reason: res.Reason, Resolution: res.Decision.Resolution, Gate: protocol.GateTool, State: "deny"})
	return res
}

// invalid answers a request toolgate cannot read: block, invalid_request.
func (s *Server) invalid(gate, id string, err error) protocol.ToolCallResult {
	res := blockResult(gate, "", protocol.ResInvalidRequest, "toolgate: blocked because the params cannot be read unambiguously: "+err.Error())
	if aerr := (reporter{s: s}).Audit(gates.AuditRecord{Event: "decision", ToolCallID: id, Action: res.Action, Reason: res.Reason,
		Resolution: res.Decision.Resolution, Gate: gate, State: "deny"}); aerr != nil {
		s.log.Error().Err(aerr).Msg("audit")
	}
	return res
}

// check is the dry run of a tool_call.
func (s *Server) check(raw []byte) (any, error) {
	gc, _, err := s.decodeCall(raw)
	if err != nil {
		return nil, &jsonrpc2.Error{Code: protocol.CodeInvalidParams, Message: "invalid check params: " + err.Error()}
	}
	req := gates.Request{Call: gc.call, Gates: gates.ToolGates, HasUI: gc.hasUI,
		Resolver: resolver{p: gc.policy, session: s.approvals.snapshot()}}
	return gates.Check(req), nil
}
