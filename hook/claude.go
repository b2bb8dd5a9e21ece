package hook

import (
	"io"

	"github.com/toolgate/toolgate/hook/hosts"
)

// ClaudeHook answers one Claude Code hook event (PreToolUse or
// UserPromptSubmit) read from in, with the same engine as serve. Any error
// is returned, and the caller exits 2, which Claude Code treats as a block.
func ClaudeHook(opts Options, in io.Reader, out io.Writer) error {
	return RunHook(opts, hosts.ClaudeHook{}, in, out)
}
