package hook

import (
	"io"

	"github.com/toolgate/toolgate/hook/hosts"
)

// CodexHook answers one Codex hook event (PreToolUse or PermissionRequest)
// read from in. Any error is returned, and the caller exits 2 with the
// reason on stderr, which Codex treats as a deny.
func CodexHook(opts Options, in io.Reader, out io.Writer) error {
	return RunHook(opts, hosts.CodexHook{}, in, out)
}
