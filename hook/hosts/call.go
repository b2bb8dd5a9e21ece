// Package hosts holds the pure parts of the host adapters, a file per
// host: what a host's tool call is in engine calls (its tool map and the
// reading of its event), and what toolgate's decision is in the host's
// answer. It knows no session: package hook reads the event, decides the
// calls and writes the answer.
package hosts

// Call is one call in toolgate's own terms, as a host adapter made
// it from the host's event: a tool name and input the gates know (a tool
// with no pi counterpart gets its value from the host's profile).
type Call struct {
	Tool  string
	Input map[string]any
	// Workdir is a shell tool's own working directory (Gemini's dir_path):
	// the command is analyzed as if it started with `cd Workdir`.
	Workdir string
	// Rewrite is set for a host's shell tool whose input's "command" the
	// host runs with bash and takes back rewritten from the hook: the
	// call that runs confined. A bash-surface call without it
	// (a watched command, foreign code, a command Codex applies a patch
	// from) runs as it is.
	Rewrite bool
}
