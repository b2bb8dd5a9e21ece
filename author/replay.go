package author

import (
	"github.com/toolgate/toolgate/hook"
	"github.com/toolgate/toolgate/protocol"
)

// ReplayReport is what toolgate replay found: the recorded calls decided
// again with today's policy, and those whose decision would change.
type ReplayReport struct {
	// Seen counts the calls decided again; Skipped those that could not
	// be (no input, cwd or state recorded).
	Seen, Skipped int
	Changes       []ReplayChange
}

// ReplayChange is a recorded call decided otherwise today, or that cannot
// be decided again (Err).
type ReplayChange struct {
	Recorded
	// Was is the state recorded; a call a session approval allowed was an
	// ask of the policy files (an approval never overrides a deny), and
	// is compared as the ask it was (SessionApproved).
	Was             string
	SessionApproved bool
	Now             protocol.CheckResult
	Err             error
}

// Replay decides every decidable call of recs again, each in its recorded
// cwd and as its recorded host, with base's policy files and folders.
func Replay(base hook.Options, recs []Recorded) ReplayReport {
	var rep ReplayReport
	for _, rec := range recs {
		if !rec.Decidable || rec.Cwd == "" || rec.State == "" {
			rep.Skipped++
			continue
		}
		rep.Seen++
		ch := ReplayChange{Recorded: rec, Was: rec.State}
		if rec.Resolution == protocol.ResSessionApproved {
			ch.Was, ch.SessionApproved = "ask", true
		}
		opts := base
		opts.Cwd, opts.Host = rec.Cwd, rec.Host
		ch.Now, ch.Err = Explain(opts, rec.ToolName, rec.Input, rec.AgentName)
		if ch.Err != nil || ch.Now.State != ch.Was {
			rep.Changes = append(rep.Changes, ch)
		}
	}
	return rep
}
