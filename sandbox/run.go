package sandbox

import "io"

// Command is what Run runs.
type Command struct {
	Argv   []string
	Env    []string // nil: the current environment
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
}

// spawnConfig is how Run starts a command: the profile and which of the
// machine's parts it uses.
type spawnConfig struct {
	Profile    *Profile
	Namespaces bool // new user and mount namespaces
	PID        bool // … and a new PID namespace
	NetNS      bool // … and a new network namespace
	LandlockV  int
	// NoProc acts as where /proc cannot be mounted (tests).
	NoProc bool
}

// options are Run's switches for tests of a machine without namespaces.
type options struct{ noNamespaces, noProc bool }
