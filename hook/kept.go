package hook

import (
	"bytes"
	"context"

	"github.com/toolgate/toolgate/gates"
	"github.com/toolgate/toolgate/hook/audit"
	"github.com/toolgate/toolgate/policy"
	"github.com/toolgate/toolgate/protocol"
)

// A call whose evaluation is remembered (gates.Evals) is decided by Run
// from the same outcomes every time, so Run makes the same answer, the
// same notifications and the same audit record of it every time, but for
// what is the call's own: the request id and the tool call id (and, in
// the record, the session id and what the audit log adds: time, seq,
// prev, hash). The fast path keeps those bytes with the remembered
// evaluation (gates.Kept) the first time, from what Run made and was
// written, and from then on only encodes the call's own parts and copies
// the rest. What is kept is dropped with the evaluation (a policy edit, a
// session approval, a file-system change evaluate afresh), and it is used
// only for a call of the same tool name, agent name, cwd, input and host
// it was made for (all of them in the memo's key too; the record names
// them).

// keptAnswer is what Run makes of one remembered evaluation, encoded.
// TestKeptAnswersAsFresh and TestKeptAuditFailureAsFresh keep a kept
// answer (and its audit record) byte for byte what a fresh Run writes.
type keptAnswer struct {
	// What it was made for besides the outcomes.
	toolName, agentName, cwd, host string
	input                          []byte
	// event and fields are the audit record's event and its fields after
	// the tool call id (appendAuditRest).
	event  string
	fields []byte
	// notes and result are the answer's parts (AppendKeptAnswer).
	notes  [][]byte
	result []byte
}

// maxKept bounds what is kept with one evaluation: a typical call keeps
// 2–4 KB (about half of what gates.Evals counts for its entry, within its
// bound of memory), one with a large input is not kept.
const maxKept = 8 << 10

// fits reports whether k was made for a call like c, of this host.
func (k *keptAnswer) fits(c *gates.Call, host string) bool {
	return k.toolName == c.ToolName && k.agentName == c.AgentName && k.cwd == c.Cwd && k.host == host &&
		bytes.Equal(k.input, c.RawInput)
}

// keptRun is what a fast-path Run's reporter saw (or is to replay).
type keptRun struct {
	// audits counts the records attempted, err is the last one's error.
	audits int
	err    error
	// event, host and fields are the last record's (appendAuditRest's
	// bytes), when it was written.
	event, host string
	fields      []byte
	// failWith, when set, is what the next Audit returns, writing nothing.
	failWith error
}

// saw notes one attempted record; r may be nil.
func (r *keptRun) saw(err error) {
	if r != nil {
		r.audits++
		r.err = err
	}
}

// keptOf is the slot of pre's remembered evaluation, nil when pre is not
// decided by Run from one.
func (s *Server) keptOf(pre *prechecked) *gates.Kept {
	if s.noKept || pre.err != nil || pre.gc == nil || isLate(s.ctx) {
		return nil
	}
	if pre.gc.call.Shell != nil && pre.gc.policy.Sandbox.Mode != policy.SandboxOff {
		return nil // decideConfined: each call its own profile (or refusal)
	}
	return pre.req.Kept()
}

// decideKept decides pre, whose evaluation is remembered (kept is its
// slot): from what is kept when it fits (the record is written here; k is
// returned and the answer is k's), else by Run, keeping what Run makes of
// it when that is the answer of every such call. Its plain twin is
// runKept (a fresh Run); TestKeptAnswersAsFresh and
// TestKeptAuditFailureAsFresh keep them equal.
func (s *Server) decideKept(pre *prechecked, kept *gates.Kept) (a answer, k *keptAnswer) {
	ctx := s.decideCtx()
	c := pre.gc.call
	if k, _ = kept.Load().(*keptAnswer); k != nil && ctx.Err() == nil {
		s.mu.RLock()
		sessionID, host, l := s.st.sessionID, s.st.host.Name, s.audit
		s.mu.RUnlock()
		if l != nil && k.fits(c, host) {
			err := l.AppendEnc(k.event, func(e *audit.Enc) {
				e.Str("sessionId", sessionID).Str("toolCallId", c.ToolCallID)
				e.SetBuf(append(e.Buf(), k.fields...))
			})
			if err == nil {
				s.keptCalls.Add(1)
				return answer{}, k
			}
			// Decided as Run decides a record that cannot be written (a
			// block, one failed write), with this record's failure and
			// the context it was attempted in.
			return s.runKept(pre, &keptRun{failWith: err}, context.WithoutCancel(ctx)), nil
		}
	}
	run := &keptRun{}
	a = s.runKept(pre, run, ctx)
	if run.audits == 1 && run.err == nil && ctx.Err() == nil {
		s.keep(kept, c, run, &a)
	}
	return a, nil
}

// runKept is decideCall of pre (decoded, not late) with run seeing its
// records.
func (s *Server) runKept(pre *prechecked, run *keptRun, ctx context.Context) answer {
	r := newCallRun(s, pre.gc.policy)
	r.rep.run = run
	res := r.rn.Run(ctx, pre.req)
	return answer{result: res, notes: r.notes}
}

// keep keeps what Run made of c (a, and the record run saw written) in
// kept, once it frames exactly as a does.
func (s *Server) keep(kept *gates.Kept, c *gates.Call, run *keptRun, a *answer) {
	k := &keptAnswer{toolName: c.ToolName, agentName: c.AgentName, cwd: c.Cwd, host: run.host,
		input: bytes.Clone(c.RawInput), event: run.event, fields: bytes.Clone(run.fields)}
	for i := range a.notes {
		if a.notes[i].ToolCallID != c.ToolCallID {
			return
		}
		n := protocol.AppendDecisionParamsAfterID(nil, &a.notes[i])
		k.notes = append(k.notes, append(n, '}'))
	}
	k.result = append(protocol.AppendToolCallResult(append([]byte(nil), `,"result":`...), &a.result), '}')
	size := len(k.input) + len(k.fields) + len(k.result)
	for _, n := range k.notes {
		size += len(n)
	}
	if size > maxKept {
		return
	}
	id := []byte(`"kept"`)
	want := s.stream.AppendToolCallAnswer(nil, id, a.notes, &a.result)
	if got := s.stream.AppendKeptAnswer(nil, id, c.ToolCallID, k.notes, k.result); !bytes.Equal(got, want) {
		return
	}
	kept.Store(k)
}
