package hook

import "time"

// phaseClock, when set, gives every new server a fastHook that times the
// steps of its fast path. Only a -tags profile build sets it
// (phases_on.go); a release build never times anything.
var phaseClock func() func(step string)

// phaseSteps are the steps fastStep marks on the fast path, in order:
// the message is in hand (read), its envelope decoded (precheck), its
// fields decoded, its shell command analysed and the gates evaluated
// (decide), decided and the audit record written (frame), the answer
// written to the host (sent). The phases are the spans between them.
var phaseSteps = [...]string{"read", "precheck", "decide", "frame", "sent"}

// phases is the duration of each phase of one call.
type phases [len(phaseSteps) - 1]time.Duration

// phaseTimer returns a fastHook that hands record the phases of every
// call that went through all the steps in order; a call that leaves the
// fast path (a prompt) or a step out of order is not recorded.
func phaseTimer(now func() time.Time, record func(phases)) func(step string) {
	var at [len(phaseSteps)]time.Time
	next := -1 // the index of the step expected next; -1: a read
	return func(step string) {
		i := -1
		for k, s := range phaseSteps {
			if s == step {
				i = k
			}
		}
		switch {
		case i == 0:
			next = 1
		case i < 0 || i != next:
			next = -1
			return
		default:
			next = i + 1
		}
		at[i] = now()
		if i == len(phaseSteps)-1 {
			var p phases
			for k := range p {
				p[k] = at[k+1].Sub(at[k])
			}
			record(p)
			next = -1
		}
	}
}
