package hook

import (
	"io"

	"github.com/toolgate/toolgate/hook/hosts"
)

// QwenOptions are the qwen-hook's own settings.
type QwenOptions struct {
	// NoAsk answers toolgate's ask with a deny that says how to allow the
	// call (hosts.QwenHook).
	NoAsk bool
}

// QwenHook answers one Qwen Code PreToolUse event read from in. Any error
// is returned, and the caller exits 2, which Qwen treats as a block.
func QwenHook(opts Options, qopts QwenOptions, in io.Reader, out io.Writer) error {
	return RunHook(opts, hosts.QwenHook{NoAsk: qopts.NoAsk}, in, out)
}
