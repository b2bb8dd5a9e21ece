package hook

import (
	"io"
	"time"

	"github.com/toolgate/toolgate/hook/hosts"
)

// CopilotOptions are the copilot-hook's own settings.
type CopilotOptions struct {
	// Deadline bounds the whole answer (hosts.CopilotHook).
	Deadline time.Duration
}

// CopilotHook answers one Copilot preToolUse event read from in with one
// JSON answer on out, within copts.Deadline. It never fails: any error is
// answered as a deny (fail-closed), and returned too, for stderr and the
// exit status.
func CopilotHook(opts Options, copts CopilotOptions, in io.Reader, out io.Writer) error {
	return RunHook(opts, hosts.CopilotHook{Deadline: copts.Deadline}, in, out)
}
