package hosts

import (
	"fmt"
	"io"

	"github.com/toolgate/toolgate/protocol"
)

// A hook host runs toolgate as a command once per event: it writes the
// event on stdin and reads the answer on stdout. Hook is such a host's
// adapter. Package hook's driver reads the event whole, has the adapter
// read it (Event), opens the audit log, decides what the event says is
// to decide, and writes the answer the event makes of the decision; the
// adapter's Run says how that answer reaches the host.
type Hook interface {
	// Profile is the host's profile; its name is the host the audit log
	// records.
	Profile() Profile
	// Event reads one event, already read whole and checked to be
	// unambiguous JSON. An error blocks the event before the audit log is
	// opened.
	Event(data []byte) (Event, error)
	// Run answers one event on out with answer, the driver's part: as it
	// is, or bounded the way the host needs it (Copilot CLI's deadline).
	Run(answer func(out io.Writer) error, out io.Writer) error
}

// atOnce is the Run of a host that reads the answer as the driver writes
// it.
type atOnce struct{}

func (atOnce) Run(answer func(io.Writer) error, out io.Writer) error { return answer(out) }

// allowRuleHint ends the note of an ask a host cannot put to a person:
// where an allow rule goes, and the explain command that shows which rule
// decides a call of host.
func allowRuleHint(host string) string {
	return " add an allow rule to your toolgate policy (~/.config/toolgate/config.json or" +
		" <project>/.toolgate/config.json; `toolgate explain --host " + host + "` shows which rule decides))"
}

// Kind is what an event asks toolgate to decide.
type Kind int

const (
	// ToolUse is a tool call the host is about to run: its Calls decide
	// it. The zero Kind: an event with no calls is blocked.
	ToolUse Kind = iota
	// SkillPrompt is a prompt the person submitted: a skill it loads is
	// decided on the skill surface.
	SkillPrompt
	// Ignored is an event that gates nothing: it is not answered, and the
	// audit log is not opened.
	Ignored
	// IgnoredOnceOpen is an event that gates nothing once the audit log is
	// open: it is not answered, but an audit log that cannot be written
	// blocks it.
	IgnoredOnceOpen
)

// Event is one hook event as its host's adapter read it: what the driver
// decides, and how the decision becomes the host's answer.
type Event struct {
	Kind Kind
	// Cwd ("" for the process's) and SessionID are the event's working
	// directory and session.
	Cwd, SessionID string
	// ID is the tool call's id in the audit log ("": the host's name).
	ID string
	// Calls are the engine calls that decide a ToolUse event: the most
	// restrictive decision answers.
	Calls []Call
	// Err is why a ToolUse event cannot be decided, which blocks it once
	// the audit log is open (an adapter that blocks before returns the
	// error from Event instead).
	Err error
	// Prompt is the text of a SkillPrompt event.
	Prompt string
	// SandboxAutoAllow makes a shell command's ask an allow where the
	// policy's sandbox autoAllow holds (Claude Code's Bash).
	SandboxAutoAllow bool
	// Drain starts the export of the audit log in the background once the
	// event is answered.
	Drain bool
	// Action is the host's action and reason for toolgate's state and
	// reason, for each call of a ToolUse event: what the audit log records
	// and the answer says.
	Action func(state, reason string) (action, why string)
	// Answer is the host's answer to the decision, nil for none (the
	// host's own flow goes on). A SkillPrompt event's decision is
	// toolgate's state and reason as they are.
	Answer func(Decision) ([]byte, error)
}

// Decision is what a host's answer is made of: the action and reason
// (Event.Action's), the input of the call that decided, and the command
// line that runs a shell command confined ("" for none) with the note
// that ends the reason of an ask whose host shows the rewritten input
// (the command as written).
type Decision struct {
	Action, Reason    string
	Input             map[string]any
	Confined, Written string
}

// readEvent reads a hook event into ev, a host's event type, refusing a
// key that nearly names one of its fields (protocol.Unmarshal).
func readEvent(data []byte, ev any) error {
	if err := protocol.Unmarshal(data, ev, ""); err != nil {
		return fmt.Errorf("the hook event cannot be read: %w", err)
	}
	return nil
}
