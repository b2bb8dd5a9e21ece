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

	"github.com/toolgate/toolgate/export"
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
	// ManagedDir is $TOOLGATE_MANAGED_DIR (empty: /etc/toolgate), where
	// the managed policy file is.
	ManagedDir string
	// NamedConfigs: the ConfigFiles are the files a policy author's tool
	// (test, validate) was asked about, global wherever they lie; a
	// session's --config file inside the working directory is project
	// scope.
	NamedConfigs bool
	// Executable is toolgate's own binary, which a hook process starts as
	// `export --drain` after its answer when the policy exports; empty:
	// none is started (tests).
	Executable string
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
	// confines: the host runs a bash call's confine.command (initialize).
	confines bool
}

// Server is one toolgate session on one connection.
type Server struct {
	opts   Options
	loader *policy.Loader
	log    zerolog.Logger
	// machine is what this machine gives confinement, probed once.
	machine machineProbe

	mu    sync.RWMutex
	st    state
	audit *audit.Log
	// auditProblem is a warning about the audit log, shown in initialize.
	auditProblem *policy.Warning

	approvals approvals
	// dirs knows the real paths of the directories every call checks.
	dirs *dirCache
	// shells remembers the analyses of commands seen before, with the
	// file system answers they were made from (shell.Cache).
	shells shell.Cache
	// memo keeps the gates' pure work across calls (gates.Memo).
	memo gates.Memo
	// evals remembers whole evaluations of calls that need no prompt,
	// re-used only for provably the same question (gates.Evals).
	evals gates.Evals
	// current is the last Current function of a request (callRequest).
	current atomic.Pointer[currentFn]
	// noEvals (tests only) turns evals off, so that a session with it and
	// one without can be compared.
	noEvals bool
	// initializedOnce is set by the first initialize.
	initializedOnce atomic.Bool
	stream          *protocol.Stream
	conn            *jsonrpc2.Conn
	prompter        *prompt.Prompter

	// Shutdown: calls in flight are counted when they are read, so that
	// shutdown and end of input can answer every one first.
	inflight *pending
	out      *outbox
	closing  atomic.Bool
	ctx      context.Context
	cancel   context.CancelFunc
	// uncancelled is ctx without its cancellation (decideCtx).
	uncancelled context.Context
	drainOnce   sync.Once
	doneOnce    sync.Once
	ready       chan struct{}
	done        chan struct{}
	inputSeq    atomic.Uint64
	// reported is the last policy whose warnings were reported.
	reported *policy.Policy
	// slowWire (tests only) turns the fast path off: every message goes
	// through jsonrpc2 and answers are encoded by reflection, as before
	// the fast path, so that the two can be compared.
	slowWire bool
	// fastCalls counts the calls the fast path answered (for tests).
	fastCalls atomic.Uint64
	// keptCalls counts those answered from what was kept with their
	// remembered evaluation (kept.go; for tests).
	keptCalls atomic.Uint64
	// noKept (tests) encodes every answer afresh.
	noKept bool
	// fastHook runs at each step of the fast path: in tests, so that
	// one can make a step panic; in a -tags profile build, to time the
	// steps (phaseClock). Nil otherwise.
	fastHook func(step string)
	// frames are answer buffers, taken back by the outbox once written.
	frames chan []byte
	// fastRun is the fast path's callRun (decideCallTraced), with the
	// buffer of a call's encoded trace; fastOutcomes and fastTraces its
	// buffers of the gates' outcomes and of the trace (gates.Request).
	fastRun      *callRun
	fastOutcomes []gates.Outcome
	fastTraces   []protocol.TraceEntry
	fastGC       *gatesCall // the decoded call the fast path uses again (decodeFast)
	// protected is the last protectedFor result.
	protected atomic.Pointer[protectedPaths]
	// serving is set by Serve: only a long-lived server runs a sender.
	serving  atomic.Bool
	exportMu sync.Mutex
	exporter *exportRun
}

// protectedPaths are a call's protected files for one working directory
// and audit log path (all else they depend on is fixed by Options).
type protectedPaths struct {
	cwd, logPath string
	paths        []string
}

// protectedFor is the files no call may change unasked: the --config
// files, the audit log, its head, its export's cursor and lock (a call
// that moved the cursor would keep records from the collector), and the
// host's own files (hostProtected). The last result is kept for the next call of the same
// directory and log; each call gets its own copy. Its plain twin is the
// list built afresh; TestProtectedForKeepsNothingStale keeps them equal.
func (s *Server) protectedFor(cwd, logPath string) []string {
	if p := s.protected.Load(); p != nil && p.cwd == cwd && p.logPath == logPath {
		return append([]string(nil), p.paths...)
	}
	// Also the managed file, the export cursor and lock beside the log,
	// toolgate's folder of confinement profiles and kept walks (a file
	// written there would be the next confined command's profile, or the
	// walk that says what it hides), and (in the folder of toolgate's own
	// global file, hostProtected) the trust store (protected paths).
	managed := policy.DefaultManagedDir
	if s.opts.ManagedDir != "" {
		managed = s.opts.ManagedDir
	}
	paths := append(append([]string(nil), s.opts.ConfigFiles...), logPath, audit.HeadPath(logPath), export.CursorPath(logPath), export.LockPath(logPath),
		policy.ManagedPath(managed), sandboxDirFor(logPath))
	paths = append(paths, s.hostProtected(cwd)...)
	s.protected.Store(&protectedPaths{cwd: cwd, logPath: logPath, paths: paths})
	return append([]string(nil), paths...)
}

// New returns a server; Serve runs it.
func New(opts Options) *Server {
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{opts: opts, loader: policy.NewLoader(), log: opts.Log, ctx: ctx, cancel: cancel, done: make(chan struct{}), ready: make(chan struct{}), inflight: newPending()}
	s.uncancelled = context.WithoutCancel(ctx)
	if phaseClock != nil {
		s.fastHook = phaseClock()
	}
	s.st = state{cwd: opts.Cwd, projectTrusted: true, host: protocol.HostInfo{Name: opts.Host}}
	s.approvals.home = opts.Home
	s.frames = make(chan []byte, keptFrames)
	s.fastOutcomes = make([]gates.Outcome, 0, len(gates.ToolGates))
	s.fastRun = &callRun{}
	s.fastTraces = make([]protocol.TraceEntry, 0, len(gates.ToolGates))
	s.dirs = newDirCache(s.loader)
	s.shells.Known = s.dirs.Entry
	s.shells.Peek = s.dirs.Peek
	s.shells.Vouch, s.shells.Generation = s.dirs.Vouch, s.dirs.Generation
	return s
}

// Serve speaks the protocol on in/out until shutdown or end of input.
func (s *Server) Serve(in io.Reader, out io.Writer) error {
	s.serving.Store(true)
	s.openAuditExport(s.currentPolicy())
	s.stream = protocol.NewStream(in, out, nil, s.opts.Framing, s.drain)
	s.stream.LimitInFlight(maxInFlight)
	s.out = newOutbox(s.stream, func(err error) { s.log.Debug().Err(err).Msg("writing answers") })
	s.out.recycle = s.putFrame
	if !s.slowWire {
		s.stream.SetFastPath(s.fastToolCall)
	}
	// The connection gets its own context: cancelling s.ctx at shutdown
	// must not close it before the pending answers are written.
	pool := newWorkers()
	defer pool.Stop()
	s.conn = jsonrpc2.NewConn(context.Background(), s.stream, orderedAsync{serverHandler{s}, pool, s},
		jsonrpc2.SetLogger(zerologPrinter{s.log}),
		jsonrpc2.OnRecv(func(req *jsonrpc2.Request, resp *jsonrpc2.Response) {
			// A response comes with toolgate's own request (a prompt).
			if req != nil && resp == nil && !req.Notif && counted(req.Method) {
				s.inflight.add()
			}
		}))
	s.prompter = prompt.New(s.conn)
	close(s.ready)
	select {
	case <-s.conn.DisconnectNotify():
	case <-s.done:
	}
	s.drain()
	s.out.close() // every answer decided is written before the process ends
	s.stopExport()
	s.mu.Lock()
	if s.audit != nil {
		_ = s.audit.Close()
	}
	s.mu.Unlock()
	return nil
}

// counted methods are answered before shutdown completes: every request
// but initialize and shutdown, which are handled in order on the reading
// goroutine (a policy/reload read before the end of input is answered too).
func counted(method string) bool {
	return method != protocol.MethodInitialize && method != protocol.MethodShutdown
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
		// A slow host only delays this; a call that makes no progress
		// for 10 s is given up.
		if !s.inflight.wait(10 * time.Second) {
			s.log.Error().Msg("calls still in flight after 10 s without progress at shutdown")
		}
	})
}

type zerologPrinter struct{ l zerolog.Logger }

func (z zerologPrinter) Printf(format string, v ...any) { z.l.Debug().Msgf(format, v...) }

// orderedAsync handles each request apart from the read loop, like
// jsonrpc2.AsyncHandler (a prompt sent back to the host while a call waits
// would otherwise deadlock the read loop), except initialize and shutdown.
// initialize changes the session every later request depends on, so it is
// handled in order, before the next message is read; it never calls the
// host. shutdown is handled in order too, so that exactly the calls read
// before it are decided as usual (docs/protocol.md, end of session) and those
// read after it are refused, whatever the goroutines' timing.
type orderedAsync struct {
	h    jsonrpc2.Handler
	pool *workers
	s    *Server
}

// lateKey marks a request read after shutdown or the end of input began.
type lateKey struct{}

func (a orderedAsync) Handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	if a.s.closing.Load() {
		ctx = context.WithValue(ctx, lateKey{}, true)
	}
	switch {
	case req.Method == protocol.MethodInitialize || req.Method == protocol.MethodShutdown || req.Method == protocol.MethodCheck:
		a.h.Handle(ctx, conn, req)
		return
	case req.Method == protocol.MethodToolCall && !req.Notif:
		// A call that needs nobody is decided right here, on the reading
		// goroutine: no hand-off, and its answer is written before the next
		// request is read. Only a call that will prompt goes to a worker,
		// so the host's answer to that prompt can still be read.
		pre := a.s.precheck(ctx, req)
		ctx = context.WithValue(ctx, precheckKey{}, pre)
		if !pre.needsPrompt {
			a.h.Handle(ctx, conn, req)
			return
		}
	}
	a.pool.Go(func() { a.h.Handle(ctx, conn, req) })
}

// precheckKey carries a tool_call's prechecked work from the reading
// goroutine to its handler.
type precheckKey struct{}

// prechecked is a tool_call decoded and its gates evaluated, before it is
// known where it is decided.
type prechecked struct {
	raw         []byte
	perr        error
	needsPrompt bool
	gc          *gatesCall // nil unless the call decoded
	id          string
	err         error
	req         gates.Request
}

// precheck reads a tool_call's params, decodes it and evaluates its gates
// (pure: no prompt, no record). Anything unexpected leaves the rest to the
// handler, which answers it under its own recovery, as a worker would.
func (s *Server) precheck(ctx context.Context, req *jsonrpc2.Request) (pre *prechecked) {
	pre = &prechecked{}
	pre.raw, pre.perr = s.stream.Params(req.Meta)
	if pre.perr != nil || isLate(ctx) {
		return pre
	}
	defer func() {
		if p := recover(); p != nil {
			pre.gc, pre.err, pre.needsPrompt = nil, nil, true
		}
	}()
	gc, id, err := s.decodeCall(pre.raw)
	if err != nil {
		pre.id, pre.err = id, err
		return pre
	}
	r := s.callRequest(gc)
	outcomes, _, gerr := s.evaluate(r)
	if gerr == nil {
		r.Evaluated = outcomes
	}
	pre.gc, pre.req = gc, r
	pre.needsPrompt = gerr == nil && gates.NeedsPrompt(r, outcomes)
	return pre
}

// evaluate is gates.Evaluate of a call read from the host, from the
// session's memo of evaluations when it is provably the same question.
// Its plain twin is gates.Evaluate (noEvals); TestEvalsSessionAnswersAsWithout
// keeps them equal.
func (s *Server) evaluate(r gates.Request) ([]gates.Outcome, *gates.Outcome, error) {
	if s.noEvals {
		return gates.Evaluate(r)
	}
	return s.evals.Evaluate(r)
}

// Identity implements gates.IdentifiedResolver: a resolver answers from
// its policy and the session approvals of its snapshot (never changed in
// place), nothing else.
func (r resolver) Identity() (*policy.Policy, []*policy.Rule) { return r.p, r.session }

// Generation is the generation the cache keeps its answers under (the
// policy watch's): gates.Evals keys what it remembers by it.
func (d *dirCache) Generation() uint64 { return d.loader.Generation() }

func isLate(ctx context.Context) bool { late, _ := ctx.Value(lateKey{}).(bool); return late }

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
	var frame []byte
	defer func() {
		// A panic after handle's own recovery must neither crash the
		// process nor leave the request unanswered; a host treats an error
		// to tool_call as a block.
		if p := recover(); p != nil {
			s.log.Error().Str("method", req.Method).Msgf("panic answering: %v", p)
			frame = s.stream.ErrorFrame(req.ID, protocol.CodeInternalError, "internal error; treat as a block")
		}
		// The answer goes to the outbox as bytes: it is written in order
		// and frees the request's slot then (flow control).
		s.out.send(frame)
		if counted(req.Method) {
			s.inflight.done()
		}
		if req.Method == protocol.MethodShutdown {
			s.doneOnce.Do(func() { close(s.done) })
		}
	}()
	result, err := s.handle(ctx, conn, req)
	// Answers are framed here (one encoder pass), each call's notifications
	// before its answer in one write; the connection only needs to track
	// our own requests.
	var ferr error
	switch a, ok := result.(answer); {
	case err != nil:
		e, isRPC := err.(*jsonrpc2.Error)
		if !isRPC {
			e = &jsonrpc2.Error{Code: protocol.CodeInternalError, Message: err.Error()}
		}
		frame = s.stream.ErrorFrame(req.ID, int(e.Code), e.Message)
	case ok && s.slowWire:
		msgs := make([]any, 0, len(a.notes)+1)
		for _, d := range a.notes {
			msgs = append(msgs, protocol.Notification(protocol.MethodDecision, d))
		}
		frame, ferr = s.stream.Frame(append(msgs, protocol.Result(req.ID, a.result))...)
	case ok:
		var id []byte
		if id, ferr = json.Marshal(req.ID); ferr == nil {
			frame = s.stream.AppendToolCallAnswer(s.getFrame(), id, a.notes, &a.result)
		}
	default:
		frame, ferr = s.stream.Frame(protocol.Result(req.ID, result))
	}
	if ferr != nil {
		s.log.Error().Err(ferr).Str("method", req.Method).Msg("encoding the answer")
		frame = s.stream.ErrorFrame(req.ID, protocol.CodeInternalError, "internal error encoding the answer; treat as a block")
	}
}

// handle dispatches one request. It runs in its own goroutine.
func (s *Server) handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) (result any, err error) {
	pre, _ := ctx.Value(precheckKey{}).(*prechecked)
	var raw []byte
	var perr error
	if pre != nil {
		raw, perr = pre.raw, pre.perr // the params were read by precheck
	} else {
		raw, perr = s.stream.Params(req.Meta)
	}
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
	if perr != nil {
		// The params were refused before they were read (too long, too
		// deep); the request is still answered by its id.
		switch req.Method {
		case protocol.MethodToolCall:
			return s.invalid(protocol.GateTool, "", perr), nil
		case protocol.MethodInput:
			return s.invalid(protocol.GateSkillInput, fmt.Sprintf("input-%d", s.inputSeq.Add(1)), perr), nil
		case protocol.MethodInitialize, protocol.MethodCheck, protocol.MethodSessionApprovals, protocol.MethodPolicyReload, protocol.MethodShutdown:
			return nil, &jsonrpc2.Error{Code: protocol.CodeInvalidParams, Message: "invalid params: " + perr.Error()}
		}
	}
	switch req.Method {
	case protocol.MethodInitialize:
		return s.initialize(raw)
	case protocol.MethodToolCall:
		if pre != nil && (pre.gc != nil || pre.err != nil) {
			return s.decideCall(ctx, pre.gc, pre.id, pre.err, pre.req), nil
		}
		return s.toolCall(ctx, raw), nil
	case protocol.MethodInput:
		return s.input(ctx, raw), nil
	case protocol.MethodCheck:
		return s.check(raw)
	case protocol.MethodSessionApprovals:
		return protocol.SessionApprovalsResult{Rules: s.approvals.list()}, nil
	case protocol.MethodPolicyReload:
		p := s.loader.Reload(s.locations(s.snapshot()))
		s.openAuditExport(p)
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
	return protocol.ToolCallResult{Action: protocol.ActionBlock, Reason: gates.VisibleText(reason), Trace: trace,
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
		ConfigFiles: s.opts.ConfigFiles, ProjectTrusted: st.projectTrusted, AgentName: st.agentName, ManagedDir: s.opts.ManagedDir,
		NamedConfigs: s.opts.NamedConfigs}
}

func (s *Server) currentPolicy() *policy.Policy { return s.loader.Policy(s.locations(s.snapshot())) }

// initialize replaces the session's settings and reloads the policy.
func (s *Server) initialize(raw []byte) (any, error) {
	var p protocol.InitializeParams
	if len(raw) > 0 {
		// Exact keys: {"HasUI": true} is not hasUI, and it is an
		// error rather than ignored.
		if err := protocol.Unmarshal(raw, &p, ""); err != nil {
			return nil, &jsonrpc2.Error{Code: protocol.CodeInvalidParams, Message: "invalid initialize params: " + err.Error()}
		}
	}
	if p.Cwd != "" && !filepath.IsAbs(p.Cwd) {
		return nil, &jsonrpc2.Error{Code: protocol.CodeInvalidParams, Message: fmt.Sprintf("invalid initialize params: cwd %q is not absolute", p.Cwd)}
	}
	s.mu.Lock()
	old := s.st
	// A repeated initialize replaces the fields it carries and keeps the
	// others (docs/protocol.md: "its fields replace the earlier ones").
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
	if p.Confines != nil {
		st.confines = *p.Confines
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
	// The first initialize follows the start's own read of the policy
	// files by moments: only what changed since is read again (a 10,000-rule
	// file is not parsed twice before the first answer). A later one
	// re-reads every file.
	var pol *policy.Policy
	if s.initializedOnce.Swap(true) {
		pol = s.loader.Reload(s.locations(st))
	} else {
		pol = s.loader.Policy(s.locations(st))
	}
	s.openAuditExport(pol)
	info := s.policyInfo(pol)
	s.reportWarnings(pol, true)
	return protocol.InitializeResult{ProtocolVersion: protocol.Version,
		ServerInfo: protocol.ServerInfo{Name: "toolgate", Version: Version}, Policy: info}, nil
}

// reportWarnings writes a policy's warnings to stderr and the audit log
// when the policy is new: at initialize, and when an edited
// file was re-read before a call.
func (s *Server) reportWarnings(p *policy.Policy, always bool) {
	if !always {
		s.mu.RLock()
		seen := p == s.reported
		s.mu.RUnlock()
		if seen {
			return // the common case: a call under the policy of the last
		}
	}
	s.mu.Lock()
	if p == s.reported && !always {
		s.mu.Unlock()
		return
	}
	s.reported = p
	sessionID := s.st.sessionID
	s.mu.Unlock()
	s.syncExport(p) // an edited global file may start, change or stop the export
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
		ps := protocol.Source{Scope: src.Scope, Path: src.Path, Exists: src.Exists, Loaded: src.Loaded}
		if src.Project {
			t := src.Trusted
			ps.Trusted = &t
		}
		info.Sources = append(info.Sources, ps)
	}
	// A warning is for a person (hosts show it, explain prints it): its
	// path (the project's directory) and message are shown escaped.
	for _, w := range p.Warnings {
		info.Warnings = append(info.Warnings, protocol.Warning{Path: gates.Visible(w.Path), Line: w.Line, Column: w.Column, Message: gates.Visible(w.Message)})
	}
	if p.ManagedAuditLog && s.opts.AuditLog != "" && s.opts.AuditLog != s.auditPath(p) {
		info.Warnings = append(info.Warnings, protocol.Warning{Path: gates.Visible(s.opts.AuditLog),
			Message: "--audit-log is refused: the managed policy sets auditLog, and its settings are final; the audit log is " + gates.Visible(s.auditPath(p))})
	}
	s.mu.RLock()
	if s.auditProblem != nil {
		w := s.auditProblem
		info.Warnings = append(info.Warnings, protocol.Warning{Path: gates.Visible(w.Path), Message: gates.Visible(w.Message)})
	}
	cwd := s.st.cwd
	s.mu.RUnlock()
	info.Confinement = s.confinement(p, cwd)
	return info
}

// auditPath is where the audit log goes: --audit-log, else the global
// auditLog knob, else the default under the agent directory.
func (s *Server) auditPath(p *policy.Policy) string {
	switch {
	case p.ManagedAuditLog:
		// The managed file's knobs are final: --audit-log is refused
		// (policyInfo says so).
		return filepath.Clean(policy.ExpandHome(p.AuditLog, s.opts.Home))
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

// openAuditExport is openAudit, then the export of that log as p says.
func (s *Server) openAuditExport(p *policy.Policy) {
	s.openAudit(p)
	s.syncExport(p)
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

// maxAuditInput bounds the input kept in an audit record.
const maxAuditInput = 4096

// answer is a result written together with the decision notifications
// before it.
type answer struct {
	result protocol.ToolCallResult
	notes  []protocol.DecisionParams
	// trace is result's trace as its audit record wrote it (nil when
	// unknown): the answer copies it (encodedTrace).
	trace []byte
}

func (s *Server) runner(pol *policy.Policy, notes *[]protocol.DecisionParams) *gates.Runner {
	return &gates.Runner{Prompter: quietPrompter{s}, Session: &s.approvals, Reporter: reporter{s: s, notes: notes},
		PromptTimeoutMs: pol.PromptTimeout.Milliseconds()}
}

// toolCall decides one call; it never answers with an error.
func (s *Server) toolCall(ctx context.Context, raw []byte) any {
	gc, id, err := s.decodeCall(raw)
	var req gates.Request
	if err == nil {
		req = s.callRequest(gc)
	}
	return s.decideCall(ctx, gc, id, err, req)
}

// callRequest is the gates' request for a decoded call.
func (s *Server) callRequest(gc *gatesCall) gates.Request {
	req := gates.Request{Call: gc.call, Gates: gates.ToolGates, HasUI: gc.hasUI, Input: gc.input,
		Current: s.currentResolver(gc.locs)}
	r := resolver{p: gc.policy, session: s.approvals.snapshot()}
	if gc.resUsed {
		req.Resolver = r
		return req
	}
	// The first request of gc holds its resolver in gc (a request's
	// resolver is never changed once made).
	gc.res, gc.resUsed = r, true
	req.Resolver = &gc.res
	return req
}

// currentResolver is the Current of a request of a call whose policy
// files are at locs: the resolver of the policy and approvals of the
// moment it is called. The function of the last locations is kept, so
// that each call does not make its own.
func (s *Server) currentResolver(locs policy.Locations) func() gates.Resolver {
	if c := s.current.Load(); c != nil && c.locs.Equal(locs) {
		return c.fn
	}
	return s.newCurrentResolver(locs)
}

// newCurrentResolver is currentResolver when the locations changed: on
// its own, so that only then are they kept on the heap for the closure.
func (s *Server) newCurrentResolver(locs policy.Locations) func() gates.Resolver {
	c := &currentFn{locs: locs, fn: func() gates.Resolver {
		return resolver{p: s.loader.Policy(locs), session: s.approvals.snapshot()}
	}}
	s.current.Store(c)
	return c.fn
}

// currentFn is a Current function and the locations it reads.
type currentFn struct {
	locs policy.Locations
	fn   func() gates.Resolver
}

// decideCall runs a decoded call (or answers why it could not be decoded).
func (s *Server) decideCall(ctx context.Context, gc *gatesCall, id string, err error, req gates.Request) answer {
	return s.decideCallTraced(ctx, gc, id, err, req, false)
}

// decideCallTraced is decideCall with the answer's trace as its record
// wrote it; on the fast path (fast) with the fast path's one callRun, its
// notes and trace buffer used again call after call (its calls are
// decided one at a time, each answer framed before the next call is read).
func (s *Server) decideCallTraced(ctx context.Context, gc *gatesCall, id string, err error, req gates.Request, fast bool) answer {
	if err != nil {
		return answer{result: s.invalid(protocol.GateTool, id, err)}
	}
	if isLate(ctx) {
		return answer{result: s.refuseShuttingDown(gc)}
	}
	if gc.call.Shell != nil && gc.policy.Sandbox.Mode != policy.SandboxOff {
		return s.decideConfined(gc, req)
	}
	var run *callRun
	if fast && s.fastRun != nil {
		run, s.fastRun = s.fastRun, nil
		run.init(s, gc.policy)
	} else {
		run = newCallRun(s, gc.policy)
		if !fast {
			run.rep.trace = nil // only the fast path's answer copies the record's trace
		}
	}
	res := run.rn.Run(s.decideCtx(), req)
	a := answer{result: res, notes: run.notes, trace: run.trace.of(res.Trace)}
	if fast {
		if cap(run.trace.b) > maxKeptFrame {
			run.trace.b = nil
		}
		s.fastRun = run // the next call's, once this answer is framed
	}
	return a
}

// callRun is what deciding one call needs besides the call: its runner,
// the runner's reporter and the call's notifications (the first held
// without an allocation of its own), in one object.
type callRun struct {
	rn    gates.Runner
	rep   reporter
	notes []protocol.DecisionParams
	first [1]protocol.DecisionParams
	trace encodedTrace
}

// newCallRun is s.runner(pol, &notes) and its notes, allocated together.
func newCallRun(s *Server, pol *policy.Policy) *callRun {
	run := &callRun{}
	run.init(s, pol)
	return run
}

// init makes run newCallRun's, its trace buffer kept.
func (run *callRun) init(s *Server, pol *policy.Policy) {
	b := run.trace.b[:0]
	*run = callRun{}
	run.trace.b = b
	run.notes = run.first[:0]
	run.rep = reporter{s: s, notes: &run.notes, trace: &run.trace}
	run.rn = gates.Runner{Prompter: quietPrompter{s}, Session: &s.approvals, Reporter: &run.rep,
		PromptTimeoutMs: pol.PromptTimeout.Milliseconds()}
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
	res := gates.Check(req)
	if gc.call.Shell != nil && gc.policy.Sandbox.Mode == policy.SandboxRequired {
		r := s.unconfinedResult(gc)
		res.State, res.Reason, res.Decision = "deny", r.Reason, r.Decision
	}
	return res, nil
}

// decideCtx is the context a call read before shutdown is decided in: it is
// not cancelled by shutdown, so such a call is decided as usual; only a
// prompt is refused then (quietPrompter, and the prompter's Close).
func (s *Server) decideCtx() context.Context { return s.uncancelled }

// quietPrompter sends a prompt only once the reader has taken everything
// the host wrote so far (protocol.Stream.WaitQuiet): a shutdown or end of
// input written right behind a call that needs a person is seen before the
// person is asked, and the call is blocked as shutting down without a
// prompt, the same on every run.
type quietPrompter struct{ s *Server }

// promptQuiet is how long the input must stay idle before a prompt is sent;
// a prompt waits at most promptQuietMax for that.
const (
	promptQuiet    = 100 * time.Millisecond
	promptQuietMax = time.Second
)

func (q quietPrompter) Ask(ctx context.Context, pp protocol.PromptParams) gates.Answer {
	if !q.s.stream.WaitQuiet(promptQuiet, promptQuietMax, q.s.ctx.Done()) || q.s.closing.Load() {
		return gates.Answer{Failed: "toolgate is shutting down", NotAsked: true}
	}
	return q.s.prompter.Ask(ctx, pp)
}
