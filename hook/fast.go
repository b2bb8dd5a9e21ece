package hook

import (
	"encoding/json"
	"fmt"
	"runtime/debug"

	"github.com/toolgate/toolgate/gates"
	"github.com/toolgate/toolgate/protocol"
)

// fastToolCall is the stream's fast path (protocol.Stream.SetFastPath): a
// plain tool_call request that needs nobody is read in one pass, decided
// and answered right here, on the reading goroutine, without jsonrpc2. It
// is the same decision as on the general path (orderedAsync.Handle →
// precheck → serverHandler), by the same code: decodeParams, the gates'
// Evaluate and Run (which writes the audit record before the answer is
// framed), the outbox (which writes the answer and then frees the
// request's slot). It returns false, having decided and written nothing
// (what it read is pure, but for the policy's warnings, which are reported
// once either way), for anything else, which jsonrpc2 then reads as before: a message that is not a plain
// tool_call (protocol.DecodeToolCall), a call read once shutdown or the
// end of input began (it is refused there), a call that needs a prompt (a
// worker must ask while the host's answer is read), and a call whose
// decoding or evaluation panicked.
//
// Guarded by TestFastPathAnswersAsBefore (every answer, notification and
// audit record the same as the general path's), TestAnswerIDAsBefore and
// TestFastPathPanics.
func (s *Server) fastToolCall(msg []byte) bool {
	if s.closing.Load() {
		return false
	}
	s.fastStep("read")
	fc, ok := protocol.DecodeToolCall(msg)
	if !ok {
		return false
	}
	<-s.ready
	pre, ok := s.fastPrecheck(fc)
	if !ok {
		return false
	}
	s.inflight.add()
	s.fastCalls.Add(1)
	frame := s.fastAnswer(fc.ID, pre)
	s.out.send(frame)
	s.fastStep("sent")
	s.inflight.done()
	if pre.gc != nil {
		s.fastGC = pre.gc // answered: nothing holds it now (decodeFast)
	}
	return true
}

// fastPrecheck is precheck of a call read by DecodeToolCall; false when it
// needs a prompt or panicked. Its plain twin is precheck;
// TestFastPathAnswersAsBefore keeps them equal.
func (s *Server) fastPrecheck(fc protocol.FastCall) (pre *prechecked, ok bool) {
	defer func() {
		if p := recover(); p != nil {
			pre, ok = nil, false
		}
	}()
	s.fastStep("precheck")
	gc, id, err := s.decodeFast(&fc)
	if err != nil {
		return &prechecked{id: id, err: err}, true
	}
	r := s.callRequest(gc)
	// The fast path decides one call at a time, each answered before the
	// next is read: one buffer holds every call's outcomes in turn.
	r.Outcomes, r.Traces = s.fastOutcomes[:0], s.fastTraces[:0]
	outcomes, _, gerr := s.evaluate(r)
	if gerr == nil {
		r.Evaluated = outcomes
		if gates.NeedsPrompt(r, outcomes) {
			return nil, false
		}
	}
	gc.pre = prechecked{gc: gc, id: id, req: r}
	return &gc.pre, true
}

// fastAnswer decides a prechecked call and frames its answer to the
// request whose id (as JSON) is id, recovering panics as serverHandler and
// handle do.
func (s *Server) fastAnswer(id []byte, pre *prechecked) (frame []byte) {
	defer func() {
		if p := recover(); p != nil {
			s.log.Error().Str("method", protocol.MethodToolCall).Msgf("panic answering: %v", p)
			frame = s.stream.ErrorFrame(json.RawMessage(id), protocol.CodeInternalError, "internal error; treat as a block")
		}
	}()
	a, k := s.fastDecide(pre)
	s.fastStep("frame")
	if k != nil {
		return s.stream.AppendKeptAnswer(s.getFrame(), id, pre.gc.call.ToolCallID, k.notes, k.result)
	}
	return s.stream.AppendToolCallAnswerTraced(s.getFrame(), id, a.notes, &a.result, a.trace)
}

// maxKeptFrame is the largest answer buffer kept for the next answer;
// keptFrames are kept at most.
const (
	maxKeptFrame = 64 << 10
	keptFrames   = 8
)

func (s *Server) getFrame() []byte {
	select {
	case b := <-s.frames:
		return b[:0]
	default:
		return make([]byte, 0, 4096)
	}
}

// putFrame takes back a written answer's buffer (the outbox's recycle).
func (s *Server) putFrame(b []byte) {
	if cap(b) == 0 || cap(b) > maxKeptFrame {
		return
	}
	select {
	case s.frames <- b[:0]:
	default:
	}
}

// fastDecide decides pre: its answer, or (k set) the answer kept with its
// remembered evaluation (decideKept).
func (s *Server) fastDecide(pre *prechecked) (a answer, k *keptAnswer) {
	defer func() {
		if p := recover(); p != nil {
			s.log.Error().Str("method", protocol.MethodToolCall).Msgf("panic: %v\n%s", p, debug.Stack())
			a = answer{result: blockResult(protocol.GateTool, "", protocol.ResGateError, fmt.Sprintf("toolgate: internal error, the request is blocked (fail-closed): %v", p))}
			k = nil
		}
	}()
	s.fastStep("decide")
	if kept := s.keptOf(pre); kept != nil {
		return s.decideKept(pre, kept)
	}
	return s.decideCallTraced(s.ctx, pre.gc, pre.id, pre.err, pre.req, true), nil
}

func (s *Server) fastStep(step string) {
	if s.fastHook != nil {
		s.fastHook(step)
	}
}
