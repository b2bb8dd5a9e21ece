package sandbox

import "io"

// StageArg is the internal argument with which toolgate re-executes itself
// as the confining stage (main dispatches it to StageMain).
const StageArg = "__toolgate-sandbox-stage"

// Command is what Run runs.
type Command struct {
	Argv   []string
	Env    []string // nil: the current environment
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
}

// stageConfig is what the outer process hands the stage over a pipe.
type stageConfig struct {
	Profile    *Profile `json:"profile"`
	Argv       []string `json:"argv"`
	Namespaces bool     `json:"namespaces"` // the stage runs in new user and mount namespaces
	PID        bool     `json:"pid"`        // … and a new PID namespace
	NetNS      bool     `json:"netns"`      // … and a new network namespace
	LandlockV  int      `json:"landlockABI"`
	// NoProc makes the stage act as where /proc cannot be mounted (tests).
	NoProc bool `json:"noProc,omitempty"`
}

// options are Run's switches for tests of a machine without namespaces.
type options struct{ noNamespaces, noProc bool }
