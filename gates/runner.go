package gates

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/toolgate/toolgate/gates/paths"
	"github.com/toolgate/toolgate/policy"
	"github.com/toolgate/toolgate/verdict"
)

// Prompter asks the person. It never fails with an error: a prompt that
// could not be answered comes back with Failed set.
type Prompter interface {
	Ask(ctx context.Context, p verdict.PromptParams) Answer
}

// Answer is the person's answer to a prompt.
type Answer struct {
	Choice string
	Reason string
	// Failed says why no valid answer came (error reply, unknown choice,
	// timeout, closed connection, shutdown); empty when answered.
	Failed string
	// NotAsked: the prompt was never shown (the session was shutting down
	// before it was sent); the call is blocked as gate_error, not
	// prompt_failed (docs/protocol.md, end of session).
	NotAsked bool
}

// SessionRecorder records "allow for this session" approvals.
type SessionRecorder interface {
	Record(patterns []verdict.SessionPattern)
}

// Reporter writes the runner's side effects to the outside.
type Reporter interface {
	// Notify sends a decision notification.
	Notify(d verdict.DecisionParams)
	// Audit appends one audit record and flushes it; an error blocks the call.
	Audit(r AuditRecord) error
}

// AuditRecord is one audit log entry of the runner.
type AuditRecord struct {
	Event          string // decision, prompt, prompt_answer
	ToolCallID     string
	ToolName       string
	AgentName      string
	Action         string
	Reason         string
	Resolution     string
	Gate           string
	Surface        string
	Value          string
	State          string
	MatchedPattern *string
	Origin         *verdict.Origin
	Trace          []verdict.TraceEntry
	Input          any
	Choice         string
	Cwd            string
	// Unconfined marks a bash call that runs although the policy's
	// sandbox is on and it cannot run confined here.
	Unconfined bool
}

// Runner turns gate outcomes into allow or block. It is the only place with
// side effects: prompts, session approvals, notifications, the audit log.
type Runner struct {
	Prompter Prompter
	Session  SessionRecorder
	Reporter Reporter
	// PromptTimeoutMs is offered to the host with every prompt.
	PromptTimeoutMs int64
}

// Request is one call to decide.
type Request struct {
	Call     *Call
	Gates    []Gate
	Resolver Resolver
	HasUI    bool
	// Input is what the audit log records of the call's input.
	Input any
	// Unconfined is set for a bash call that would run unconfined although
	// the policy's sandbox is on: the decision record says so when it is
	// allowed.
	Unconfined bool
	// AllowAction is the answer's action when allowed ("allow" if empty;
	// "continue" for an input event).
	AllowAction string
	// Noun names what is decided in reasons ("call" if empty).
	Noun string
	// Current returns the resolver of this moment (the policy as reloaded
	// since, and the session approvals recorded since). When set, a call
	// that was asked about is decided again with it once the answers are
	// in, so a deny added while a prompt was open still wins.
	Current func() Resolver
	// Evaluated, when set, are the gates' outcomes of this request already
	// evaluated (by Evaluate, with nothing in between): Run starts from
	// them instead of evaluating again.
	Evaluated []Outcome
	// Outcomes, when its capacity holds an outcome for every gate, is
	// where a fresh evaluation writes its outcomes: a caller's buffer,
	// used again once the call it was lent for is answered (else they are
	// allocated, two kilobytes a call for the collector).
	Outcomes []Outcome
	// Traces is the same for Run's trace: the answer's, so lent only by a
	// caller done with the answer before the buffer is lent again.
	Traces []verdict.TraceEntry
}

// NeedsPrompt reports whether running req with these outcomes (Evaluate's)
// may ask a person: no gate denies, the host can show a prompt, and some
// gate asks something that can be shown. A call that needs none is decided
// without waiting for anyone, so a host may have it decided on the
// goroutine that read it.
func NeedsPrompt(req Request, outcomes []Outcome) bool {
	if !req.HasUI {
		return false
	}
	asks := false
	for _, o := range outcomes {
		if o.Kind != Checked {
			continue
		}
		switch {
		case o.D.State == policy.Deny:
			return false // deny first: nobody is asked
		case o.D.State == policy.Ask && o.D.Unshowable == "":
			asks = true
		}
	}
	return asks
}

func (r Request) allowAction() string {
	if r.AllowAction != "" {
		return r.AllowAction
	}
	return verdict.ActionAllow
}

func (r Request) noun() string {
	if r.Noun != "" {
		return r.Noun
	}
	return "call"
}

// Evaluate runs every gate of req, recovering a panic in any of them as a
// gate error. It has no side effects. Its gates share one file system view
// and one memo (and the call's directory cache); its plain twin is every
// gate run without them (evaluatePlain in the test), and
// TestFastEvaluationIsPlain and TestFastSeesFileSystemChange keep them
// equal.
func Evaluate(req Request) (outcomes []Outcome, failed *Outcome, err error) {
	return evaluate(req, nil)
}

// evaluate is Evaluate, recording in asked (when set) every question the
// evaluation puts to the file system and to the directory cache.
func evaluate(req Request, asked *paths.Questions) (outcomes []Outcome, failed *Outcome, err error) {
	if cap(req.Outcomes) >= len(req.Gates) {
		outcomes = req.Outcomes[:0]
	} else {
		outcomes = make([]Outcome, 0, len(req.Gates))
	}
	req.Call.view.Reset() // what the file system says now, once per question
	req.Call.fs = &req.Call.view
	if req.Call.Dirs != nil {
		req.Call.fs.Dirs = req.Call.Dirs
	}
	if asked != nil {
		req.Call.fs.Record(asked)
	}
	req.Call.memoStore = evalMemo{}
	req.Call.memo = &req.Call.memoStore
	for _, g := range req.Gates {
		o, perr := runGate(g, req)
		if perr != nil {
			bad := Outcome{Gate: g.ID, Kind: Checked, D: Descriptor{State: policy.Deny}}
			return outcomes, &bad, perr
		}
		o.Gate = g.ID
		outcomes = append(outcomes, o)
	}
	return outcomes, nil, nil
}

func runGate(g Gate, req Request) (o Outcome, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("gate %s panicked: %v\n%s", g.ID, p, debug.Stack())
		}
	}()
	o = g.Check(req.Call, req.Resolver)
	noteBroken(&o, req.Resolver)
	if s, ok := req.Resolver.(Sided); ok {
		if w := s.Without(); w != nil {
			// The gate's whole state on the side without the untrusted
			// project files; the more restrictive side decides (on a tie,
			// the side with them is reported).
			ow := g.Check(req.Call, w)
			noteBroken(&ow, w)
			if strictness(ow) > strictness(o) {
				noteUntrusted(&ow, o, s.TrustCommand())
				o = ow
			}
		}
	}
	if o.Kind == Checked && policy.IsManaged(o.D.Rule) {
		// A session approval cannot outvote the managed file: its asks
		// offer no session option.
		o.D.SessionPatterns = nil
	}
	return o, nil
}

// Sided is a Resolver of a policy with untrusted project files
// Without resolves on the policy composed without them (nil when
// every project file is trusted), and TrustCommand is what trusts them.
type Sided interface {
	Without() Resolver
	TrustCommand() string
}

// strictness orders outcomes for the two sides of a policy: a gate that
// does not apply or bypasses lets the call through, like an allow.
func strictness(o Outcome) policy.Action {
	if o.Kind != Checked {
		return policy.Allow
	}
	return o.D.State
}

// decided is one gate outcome with how it was resolved.
type decided struct {
	o          Outcome
	resolution string
	allowed    bool
	reason     string
	// prompted is true when a person approved it.
	prompted bool
}

// Run decides req: any deny blocks at once without prompting; otherwise
// every ask is worked through in gate order (session hit, prompt or
// confirmation_unavailable, session recording); then the audit record is
// written and the decisions notified, before the answer is returned.
func (rn *Runner) Run(ctx context.Context, req Request) verdict.ToolCallResult {
	outcomes, failed, err := req.Evaluated, (*Outcome)(nil), error(nil)
	if outcomes == nil {
		outcomes, failed, err = Evaluate(req)
	}
	trace := traceInto(req.Traces, outcomes, req.Gates)
	if err != nil {
		reason := "toolgate: a permission gate failed, so the " + req.noun() + " is blocked (fail-closed): " + firstLine(err.Error())
		return rn.finish(ctx, req, trace, []decided{{o: *failed, resolution: verdict.ResGateError, reason: reason}}, false, err.Error())
	}
	// Deny first: nobody is asked a question whose answer cannot matter.
	for _, o := range outcomes {
		if o.Kind == Checked && o.D.State == policy.Deny {
			d := decided{o: o, resolution: verdict.ResPolicyDeny, reason: o.D.Text.Deny}
			return rn.finish(ctx, req, trace, []decided{d}, false, "")
		}
	}
	var doneBuf [4]decided // a handful of gates apply to a call
	done := doneBuf[:0]
	var answered []string // the asks a person approved, by askKey
	for _, o := range outcomes {
		if o.Kind == NotApplied {
			continue
		}
		d := rn.resolve(ctx, req, o)
		if !d.allowed {
			return rn.finish(ctx, req, trace, []decided{d}, false, "")
		}
		if d.prompted {
			answered = append(answered, askKey(o))
		}
		done = append(done, d)
	}
	if len(answered) > 0 && req.Current != nil {
		var blocked *decided
		done, blocked = rn.redecide(ctx, req, done, answered)
		if blocked != nil {
			return rn.finish(ctx, req, trace, []decided{*blocked}, false, "")
		}
	}
	if len(done) == 0 {
		// Every call has a tool gate; a list of gates that decided nothing
		// is a bug, and a bug blocks.
		bad := Outcome{Gate: verdict.GateTool, Kind: Checked, D: Descriptor{State: policy.Deny}}
		return rn.finish(ctx, req, trace, []decided{{o: bad, resolution: verdict.ResGateError,
			reason: "toolgate: no gate decided this " + req.noun() + ", so it is blocked (fail-closed)"}}, false, "")
	}
	return rn.finish(ctx, req, trace, done, true, "")
}

// maxRedecide bounds how often a call is decided again after its answers
// (each round may put a new ask to the person); past it the call blocks.
const maxRedecide = 4

// redecide checks the answers against the policy of the moment they
// arrived: the call's gates run again with the current resolver;
// a deny blocks (it wins over the person's yes); an ask the person already
// approved in this call stands; a new ask (a rule added or an allow removed
// while the prompt was open) is put to the person in turn.
func (rn *Runner) redecide(ctx context.Context, req Request, done []decided, answered []string) ([]decided, *decided) {
	for round := 0; round < maxRedecide; round++ {
		now := req
		now.Resolver = req.Current()
		outcomes, failed, err := Evaluate(now)
		if err != nil {
			return nil, &decided{o: *failed, resolution: verdict.ResGateError,
				reason: "toolgate: a permission gate failed, so the " + req.noun() + " is blocked (fail-closed): " + firstLine(err.Error())}
		}
		for _, o := range outcomes {
			if o.Kind == Checked && o.D.State == policy.Deny {
				return nil, &decided{o: o, resolution: verdict.ResPolicyDeny,
					reason: o.D.Text.Deny + " (The policy changed while the prompt was open; the answer is checked against the policy of now.)"}
			}
		}
		var fresh []Outcome
		for _, o := range outcomes {
			if o.Kind == Checked && o.D.State == policy.Ask && !o.D.Session && !slices.Contains(answered, askKey(o)) {
				fresh = append(fresh, o)
			}
		}
		if len(fresh) == 0 {
			return done, nil
		}
		for _, o := range fresh {
			d := rn.resolve(ctx, now, o)
			if !d.allowed {
				return nil, &d
			}
			answered = append(answered, askKey(o))
			done = replaceGate(done, d)
		}
	}
	bad := decided{o: Outcome{Gate: verdict.GateTool, Kind: Checked, D: Descriptor{State: policy.Deny}}, resolution: verdict.ResGateError,
		reason: "toolgate: the policy kept changing while the " + req.noun() + " was asked about, so it is blocked (fail-closed)"}
	return nil, &bad
}

// askKey identifies an ask for re-decision: the same gate, surface, value,
// command and session patterns is the same question to the person.
func askKey(o Outcome) string {
	var b strings.Builder
	b.WriteString(o.Gate + "\x00" + o.D.Surface + "\x00" + o.D.Value + "\x00" + o.D.Command)
	for _, p := range o.D.SessionPatterns {
		fmt.Fprintf(&b, "\x00%s\x00%s\x00%t", p.Surface, p.Pattern, p.Exact)
	}
	return b.String()
}

// replaceGate puts d in place of the decision of its gate, or adds it.
func replaceGate(done []decided, d decided) []decided {
	for i := range done {
		if done[i].o.Gate == d.o.Gate {
			done[i] = d
			return done
		}
	}
	return append(done, d)
}

// resolve works out one outcome, prompting when it asks.
func (rn *Runner) resolve(ctx context.Context, req Request, o Outcome) decided {
	d := decided{o: o, allowed: true}
	switch {
	case o.Kind == Bypass:
		d.resolution = o.D.Resolution
		return d
	case o.D.State == policy.Allow && o.D.Session:
		d.resolution = verdict.ResSessionApproved
		return d
	case o.D.State == policy.Allow && o.D.Rule != nil && o.D.Rule.Origin.Scope == policy.ScopeYolo:
		d.resolution = verdict.ResAutoApproved
		return d
	case o.D.State == policy.Allow:
		d.resolution = verdict.ResPolicyAllow
		return d
	}
	d.allowed = false
	if !req.HasUI {
		d.resolution, d.reason = verdict.ResConfirmationUnavailable, o.D.Text.Unavailable
		return d
	}
	if o.D.Unshowable != "" {
		// What cannot be shown cannot be allowed.
		d.resolution, d.reason = verdict.ResConfirmationUnavailable, o.D.Unshowable
		return d
	}
	params := rn.promptParams(req, o)
	if err := rn.Reporter.Audit(AuditRecord{Event: "prompt", ToolCallID: req.Call.ToolCallID, ToolName: req.Call.ToolName,
		AgentName: req.Call.AgentName, Gate: o.Gate, Surface: o.D.Surface, Value: o.D.Value, State: o.D.State.String(),
		MatchedPattern: o.D.MatchedPattern(), Origin: o.D.Origin()}); err != nil {
		d.resolution, d.reason = verdict.ResGateError, "toolgate: the audit log cannot be written, so the call is blocked: "+err.Error()
		return d
	}
	ans := rn.Prompter.Ask(ctx, params)
	auditErr := rn.Reporter.Audit(AuditRecord{Event: "prompt_answer", ToolCallID: req.Call.ToolCallID, ToolName: req.Call.ToolName,
		AgentName: req.Call.AgentName, Gate: o.Gate, Surface: o.D.Surface, Value: o.D.Value, Choice: ans.Choice,
		Reason: firstNonEmpty(ans.Failed, ans.Reason)})
	switch {
	case ans.NotAsked:
		d.resolution = verdict.ResGateError
		d.reason = fmt.Sprintf("toolgate: the session is shutting down (%s), so the %s that needs a prompt is blocked. It was about %s", ans.Failed, req.noun(), lowerFirst(strings.TrimPrefix(o.D.Text.UserDenied, "toolgate: the user denied ")))
	case ans.Failed != "":
		d.resolution = verdict.ResPromptFailed
		d.reason = VisibleText(fmt.Sprintf("toolgate: the prompt failed (%s), so the %s is blocked. It was about %s", ans.Failed, req.noun(), lowerFirst(strings.TrimPrefix(o.D.Text.UserDenied, "toolgate: the user denied "))))
	case auditErr != nil:
		d.resolution, d.reason = verdict.ResGateError, "toolgate: the audit log cannot be written, so the call is blocked: "+auditErr.Error()
	case ans.Choice == verdict.ChoiceAllowOnce:
		d.allowed, d.resolution, d.prompted = true, verdict.ResUserApproved, true
	case ans.Choice == verdict.ChoiceAllowSession && len(o.D.SessionPatterns) > 0:
		rn.Session.Record(o.D.SessionPatterns)
		d.allowed, d.resolution, d.prompted = true, verdict.ResUserApprovedForSession, true
	case ans.Choice == verdict.ChoiceAllowSession:
		d.allowed, d.resolution, d.prompted = true, verdict.ResUserApproved, true
	case ans.Choice == verdict.ChoiceDeny:
		d.resolution, d.reason = verdict.ResUserDenied, o.D.Text.UserDenied
	case ans.Choice == verdict.ChoiceDenyWithReason:
		d.resolution, d.reason = verdict.ResUserDenied, o.D.Text.UserDenied
		if r := strings.TrimSpace(ans.Reason); r != "" {
			d.reason += " Reason: " + VisibleText(r)
		}
	default:
		d.resolution = verdict.ResPromptFailed
		d.reason = fmt.Sprintf("toolgate: the prompt got an unknown choice %s, so the %s is blocked.", quote(ans.Choice), req.noun())
	}
	return d
}

func (rn *Runner) promptParams(req Request, o Outcome) verdict.PromptParams {
	opts := []verdict.PromptOption{{ID: verdict.ChoiceAllowOnce, Label: "Yes, once"}}
	if len(o.D.SessionPatterns) > 0 {
		opts = append(opts, verdict.PromptOption{ID: verdict.ChoiceAllowSession, Label: sessionLabel(o.D.SessionPatterns)})
	}
	opts = append(opts,
		verdict.PromptOption{ID: verdict.ChoiceDeny, Label: "No"},
		verdict.PromptOption{ID: verdict.ChoiceDenyWithReason, Label: "No, and tell the agent why"})
	return verdict.PromptParams{
		ToolCallID: req.Call.ToolCallID, Gate: o.Gate, Surface: o.D.Surface, Value: o.D.Value,
		Title: VisibleText(o.D.Prompt.Title), Message: VisibleText(o.D.Prompt.Message), Options: opts,
		SessionPatterns: o.D.SessionPatterns, TimeoutMs: rn.PromptTimeoutMs, Subject: subjectOf(req.Call),
	}
}

// subjectOf identifies the call a prompt is about beyond its text: two
// calls share a prompt only when they are the same call.
func subjectOf(c *Call) string {
	input := c.RawInput
	if input == nil {
		input, _ = json.Marshal(c.Input)
	}
	return c.ToolName + "\x00" + c.Cwd + "\x00" + c.AgentName + "\x00" + string(input)
}

// sessionLabel says exactly which rules "allow for this session" records.
func sessionLabel(ps []verdict.SessionPattern) string {
	var parts []string
	for _, p := range ps {
		switch {
		case p.Exact && p.Pattern == "*" && p.Surface != "bash" && !policy.IsPathSurface(p.Surface):
			parts = append(parts, fmt.Sprintf("every call of tool %s", quote(p.Surface)))
		case p.Exact:
			parts = append(parts, fmt.Sprintf("%s exactly %s", Visible(p.Surface), quote(p.Pattern)))
		default:
			parts = append(parts, fmt.Sprintf("%s matching %s", Visible(p.Surface), quote(p.Pattern)))
		}
	}
	return "Yes, and allow " + strings.Join(parts, ", ") + " for this session"
}

// finish writes the audit record, then the notifications, and returns the
// answer. A failed audit write turns any answer into a block.
func (rn *Runner) finish(ctx context.Context, req Request, trace []verdict.TraceEntry, ds []decided, allowed bool, detail string) verdict.ToolCallResult {
	if err := ctx.Err(); err != nil && (allowed || ds[len(ds)-1].resolution != verdict.ResPromptFailed) {
		last := ds[len(ds)-1]
		last.resolution, last.allowed = verdict.ResGateError, false
		last.reason = "toolgate: the session is shutting down, so the " + req.noun() + " is blocked"
		ds, allowed = []decided{last}, false
	}
	final := ds[len(ds)-1]
	markTrace(trace, ds)
	res := verdict.ToolCallResult{Action: req.allowAction(), Decision: decisionIn(final, trace), Trace: trace}
	if !allowed {
		res.Action, res.Reason = verdict.ActionBlock, VisibleText(final.reason)
	}
	rec := AuditRecord{Event: "decision", ToolCallID: req.Call.ToolCallID, ToolName: req.Call.ToolName, AgentName: req.Call.AgentName,
		Action: res.Action, Reason: firstNonEmpty(res.Reason, detail), Resolution: final.resolution, Gate: final.o.Gate,
		Surface: final.o.D.Surface, Value: final.o.D.Value, State: res.Decision.State,
		MatchedPattern: res.Decision.MatchedPattern, Origin: res.Decision.Origin, Trace: trace, Input: req.Input, Cwd: req.Call.Cwd,
		Unconfined: req.Unconfined && allowed}
	if err := rn.Reporter.Audit(rec); err != nil {
		final = decided{o: final.o, resolution: verdict.ResGateError,
			reason: "toolgate: the audit log cannot be written, so the call is blocked: " + err.Error()}
		ds, allowed = []decided{final}, false
		res = verdict.ToolCallResult{Action: verdict.ActionBlock, Reason: final.reason, Decision: decisionOf(final), Trace: trace}
	}
	if !allowed {
		ds = ds[len(ds)-1:]
	}
	for _, d := range ds {
		rn.Reporter.Notify(notificationIn(req.Call, d, trace))
	}
	return res
}

func decisionOf(d decided) *verdict.Decision { return decisionIn(d, nil) }

// decisionIn is decisionOf(d), its pattern and origin shared with trace's
// (sharedRefs).
func decisionIn(d decided, trace []verdict.TraceEntry) *verdict.Decision {
	pattern, origin := sharedRefs(&d.o, trace)
	dec := &verdict.Decision{
		Gate: d.o.Gate, Surface: d.o.D.Surface, Value: d.o.D.Value, State: stateString(d.o.D.State),
		Resolution: d.resolution, MatchedPattern: pattern, Origin: origin,
	}
	if d.o.D.Rule != nil && d.o.D.Rule.Action == policy.Deny {
		dec.Reason = VisibleText(d.o.D.Rule.Reason)
	}
	return dec
}

func stateString(a policy.Action) string {
	if a == 0 {
		return policy.Deny.String()
	}
	return a.String()
}

// notificationIn is the notification of d, its pattern and origin shared
// with trace's (sharedRefs).
func notificationIn(c *Call, d decided, trace []verdict.TraceEntry) verdict.DecisionParams {
	result := "deny"
	if d.allowed {
		result = "allow"
	}
	pattern, origin := sharedRefs(&d.o, trace)
	return verdict.DecisionParams{
		ToolCallID: c.ToolCallID, Gate: d.o.Gate, Surface: d.o.D.Surface, Value: d.o.D.Value, Result: result,
		State: stateString(d.o.D.State), Resolution: d.resolution, MatchedPattern: pattern,
		Origin: origin, AgentName: c.AgentName,
	}
}

// sharedRefs is o.D.MatchedPattern() and o.D.Origin(), but taken from
// the trace's entry of o's gate when it reports the same values (they are
// never changed once made): a decision and its notifications then take
// no copies of their own. Its plain twin is o.D.MatchedPattern() and
// o.D.Origin(); TestSharedRefsAreTheDescriptors keeps them equal.
func sharedRefs(o *Outcome, trace []verdict.TraceEntry) (*string, *verdict.Origin) {
	d := &o.D
	pattern, hasPattern := d.Sentinel, d.Sentinel != ""
	if !hasPattern && d.Rule != nil && !d.Rule.IsFallback() {
		pattern, hasPattern = d.Rule.Pattern, true
	}
	var origin verdict.Origin
	hasOrigin := d.Rule != nil || d.Sentinel != ""
	if d.Rule != nil {
		origin = verdict.Origin{Scope: d.Rule.Origin.Scope, Path: d.Rule.Origin.Path, Line: d.Rule.Origin.Line}
	} else if d.Sentinel != "" {
		origin = verdict.Origin{Scope: policy.ScopeBuiltin}
	}
	var p *string
	var or *verdict.Origin
	found := false
	for i := range trace {
		if t := &trace[i]; t.Gate == o.Gate && t.Applied {
			p, or, found = t.MatchedPattern, t.Origin, true
			break
		}
	}
	if !found || (p != nil) != hasPattern || p != nil && *p != pattern {
		p = d.MatchedPattern()
	}
	if !found || (or != nil) != hasOrigin || or != nil && *or != origin {
		or = d.Origin()
	}
	return p, or
}

// Trace lists every gate, applied or not, in gate order.
func Trace(outcomes []Outcome, gates []Gate) []verdict.TraceEntry {
	return traceInto(nil, outcomes, gates)
}

// traceInto is Trace, written into buf when it has room for every gate.
func traceInto(buf []verdict.TraceEntry, outcomes []Outcome, gates []Gate) []verdict.TraceEntry {
	trace := buf[:0]
	if cap(buf) < len(gates) {
		trace = make([]verdict.TraceEntry, 0, len(gates))
	}
	// The patterns and origins the entries point to, in one block for the
	// call rather than two objects an applied gate; each entry its own.
	applied := 0
	for i := range outcomes {
		if outcomes[i].Kind != NotApplied {
			applied++
		}
	}
	refs := make([]traceRefs, 0, applied)
	for _, g := range gates {
		o, ok := outcomeOf(outcomes, g.ID)
		e := verdict.TraceEntry{Gate: g.ID}
		if !ok {
			e.Note = "not run"
			trace = append(trace, e)
			continue
		}
		e.Note = o.Note
		if o.Kind != NotApplied {
			e.Applied = true
			e.Surface, e.Value, e.State = o.D.Surface, o.D.Value, stateString(o.D.State)
			if len(refs) < cap(refs) {
				refs = append(refs, traceRefs{})
				e.MatchedPattern, e.Origin = refs[len(refs)-1].of(&o.D)
			} else {
				e.MatchedPattern, e.Origin = o.D.MatchedPattern(), o.D.Origin()
			}
			e.Command, e.Forms = o.D.Command, o.D.Forms
			e.Resolution = o.D.Resolution
		}
		trace = append(trace, e)
	}
	return trace
}

// traceRefs holds what a trace entry's MatchedPattern and Origin point to.
type traceRefs struct {
	pattern string
	origin  verdict.Origin
}

// of is d.MatchedPattern() and d.Origin(), held in t.
func (t *traceRefs) of(d *Descriptor) (*string, *verdict.Origin) {
	var pattern *string
	if p := d.MatchedPattern(); p != nil {
		t.pattern, pattern = *p, &t.pattern
	}
	var origin *verdict.Origin
	if o := d.Origin(); o != nil {
		t.origin, origin = *o, &t.origin
	}
	return pattern, origin
}

// outcomeOf returns the last outcome of gate id (a handful of gates: a
// scan is cheaper than building a map).
func outcomeOf(outcomes []Outcome, id string) (*Outcome, bool) {
	for i := len(outcomes) - 1; i >= 0; i-- {
		if outcomes[i].Gate == id {
			return &outcomes[i], true
		}
	}
	return nil, false
}

func markTrace(trace []verdict.TraceEntry, ds []decided) {
	for _, d := range ds {
		for i := range trace {
			if trace[i].Gate == d.o.Gate {
				trace[i].Resolution = d.resolution
			}
		}
	}
}

// Check is the dry run: the most restrictive state across all gates and
// that gate's decision (the first in gate order on a tie). Nothing is
// prompted, recorded, notified or logged.
func Check(req Request) verdict.CheckResult {
	outcomes, failed, err := Evaluate(req)
	trace := traceInto(req.Traces, outcomes, req.Gates)
	if err != nil {
		d := decided{o: *failed, resolution: verdict.ResGateError}
		return verdict.CheckResult{State: "deny", Decision: decisionOf(d), Trace: trace}
	}
	var best *Outcome
	for i := range outcomes {
		o := &outcomes[i]
		if o.Kind == NotApplied {
			continue
		}
		if best == nil || moreRestrictive(o.D.State, best.D.State) {
			best = o
		}
	}
	if best == nil {
		return verdict.CheckResult{State: "deny", Decision: &verdict.Decision{Gate: verdict.GateTool, State: "deny", Resolution: verdict.ResGateError}, Trace: trace}
	}
	d := decided{o: *best}
	switch {
	case best.Kind == Bypass:
		d.resolution = best.D.Resolution
	case best.D.State == policy.Deny:
		d.resolution = verdict.ResPolicyDeny
	case best.D.State == policy.Allow && best.D.Session:
		d.resolution = verdict.ResSessionApproved
	case best.D.State == policy.Allow && best.D.Rule != nil && best.D.Rule.Origin.Scope == policy.ScopeYolo:
		d.resolution = verdict.ResAutoApproved
	case best.D.State == policy.Allow:
		d.resolution = verdict.ResPolicyAllow
	}
	res := verdict.CheckResult{State: stateString(best.D.State), Decision: decisionOf(d), Trace: trace}
	switch best.D.State {
	case policy.Deny:
		res.Reason = best.D.Text.Deny
	case policy.Ask:
		res.Reason = best.D.Prompt.Message
	}
	return res
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}
