// Package hosts holds the host adapters, a file per host: what a host's
// tool call is in engine calls (its tool map), and for a hook host all
// else that is its own (Hook): which of its events gate and how one is
// read, its options, and what toolgate's decision is in its answer. It
// knows no session: package hook's one driver reads the event, decides
// the calls and writes the answer the adapter makes.
package hosts

import "encoding/json"

// Host names, as the audit log records them.
const (
	ClaudeCode = "claude-code"
	GeminiCLI  = "gemini-cli"
)

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

// Profile is what the engine needs to know of a host beyond the
// mapping of its events: the values of its own tools and the tools it
// never asks for.
type Profile struct {
	Name string
	// Values gives the value of a tool that keeps its host name, from its
	// input (empty: "*").
	Values map[string]func(in map[string]any) string
	// BuiltinAllow are the host's tools that it never asks a person about
	// (todo lists, plan mode, subagents): allowed unless a policy rule
	// names them.
	BuiltinAllow map[string]bool
	// Calls maps one of the host's tool Calls to the engine Calls that
	// decide it (the most restrictive answers), for the hook and for
	// explain and replay alike.
	Calls func(tool string, input json.RawMessage) ([]Call, error)
	// ProjectSettings (relative to the project) and UserSettings
	// (relative to the home) are where the host is told to run toolgate:
	// no call may change them unasked.
	ProjectSettings, UserSettings []string
	// Confines is set for a host whose adapter runs an allowed bash
	// command through toolgate sandbox.
	Confines bool
}
