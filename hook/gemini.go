package hook

import (
	"io"

	"github.com/toolgate/toolgate/hook/hosts"
)

// GeminiOptions are the gemini-hook's own settings.
type GeminiOptions struct {
	// Ask answers toolgate's ask with Gemini's own ask (hosts.GeminiHook).
	Ask bool
}

// GeminiHook answers one Gemini CLI BeforeTool hook event read from in.
// Any error is returned, and the caller exits 2, which Gemini CLI treats
// as a block.
func GeminiHook(opts Options, gopts GeminiOptions, in io.Reader, out io.Writer) error {
	return RunHook(opts, hosts.GeminiHook{Ask: gopts.Ask}, in, out)
}
