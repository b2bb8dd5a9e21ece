package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/rs/zerolog"

	"github.com/toolgate/toolgate/hook"
)

// commandOptions are the hook options of a command-line check in dir
// (default: the current directory) with extra --config files.
func commandOptions(dir string, configs []string) (hook.Options, error) {
	if dir == "" {
		var err error
		if dir, err = os.Getwd(); err != nil {
			return hook.Options{}, fmt.Errorf("cannot read the working directory: %w", err)
		}
	} else if err := checkDir("--cwd", dir); err != nil {
		return hook.Options{}, err
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return hook.Options{}, fmt.Errorf("--cwd: %w", err)
	}
	home, agentDir := environment()
	abs := make([]string, len(configs))
	for i, c := range configs {
		abs[i], _ = filepath.Abs(c)
	}
	// The files named on the command line are the ones under test: they
	// are taken as global even inside the working directory.
	return hook.Options{Cwd: dir, ConfigFiles: abs, NamedConfigs: true, Home: home, AgentDir: agentDir, ConfigHome: configHome(home),
		ManagedDir: os.Getenv("TOOLGATE_MANAGED_DIR"), Log: zerolog.Nop()}, nil
}

// oneShotOptions are the options of a one-shot command (explain, sandbox)
// run in cwd (default: the current folder) with the --config files.
func oneShotOptions(cwd string, configs []string) hook.Options {
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	cwd, _ = filepath.Abs(cwd)
	home, agentDir := environment()
	abs := make([]string, len(configs))
	for i, c := range configs {
		abs[i], _ = filepath.Abs(c)
	}
	return hook.Options{Cwd: cwd, ConfigFiles: abs, Home: home, AgentDir: agentDir, ConfigHome: configHome(home),
		ManagedDir: os.Getenv("TOOLGATE_MANAGED_DIR"), Log: zerolog.Nop()}
}
