package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/rs/zerolog"

	"github.com/toolgate/toolgate/author"
	"github.com/toolgate/toolgate/gates"
	"github.com/toolgate/toolgate/hook"
)

// doctor says what this machine and host give toolgate: the
// policy files found and their state, the audit log, and what else a
// session needs; it exits 1 when something needed is missing or broken.
func doctor(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	cwd := fs.String("cwd", "", "working directory")
	agent := fs.String("agent", "", "agent name")
	var configs multiFlag
	fs.Var(&configs, "config", "extra policy file (repeatable)")
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "toolgate doctor: unexpected argument %q\n%s", fs.Arg(0), usages["doctor"])
		return 2
	}
	dir := *cwd
	if dir == "" {
		dir, _ = os.Getwd()
	}
	dir, _ = filepath.Abs(dir)
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		fmt.Fprintf(stderr, "toolgate doctor: --cwd %s: not a folder\n", dir)
		return 2
	}
	home, agentDir := environment()
	for i, c := range configs {
		configs[i], _ = filepath.Abs(c)
	}
	opts := hook.Options{Cwd: dir, ConfigFiles: configs, Home: home, AgentDir: agentDir, ConfigHome: configHome(home),
		ManagedDir: os.Getenv("TOOLGATE_MANAGED_DIR"), Log: zerolog.Nop()}
	rep := author.Doctor(opts, *agent)
	bad := false
	fmt.Fprintln(stdout, "Policy files (in the order they are read):")
	for _, f := range rep.Files {
		state := f.State
		if f.Bad {
			bad = true
		}
		fmt.Fprintf(stdout, "  %-13s %s: %s\n", f.Scope, gates.Visible(f.Path), state)
	}
	if len(rep.Warnings) > 0 {
		fmt.Fprintln(stdout, "Warnings:")
		for _, w := range rep.Warnings {
			fmt.Fprintf(stdout, "  %s\n", gates.Visible(w))
		}
	}
	fmt.Fprintln(stdout, "Trust store:")
	fmt.Fprintf(stdout, "  %s\n", gates.Visible(rep.TrustStore))
	if rep.TrustCommand != "" {
		fmt.Fprintf(stdout, "  untrusted project files wait for: %s\n", gates.Visible(rep.TrustCommand))
	}
	fmt.Fprintln(stdout, "Audit log:")
	switch st, err := author.AuditLogState(rep.AuditLog); {
	case err != nil:
		bad = true
		fmt.Fprintf(stdout, "  %s: %v\n", gates.Visible(rep.AuditLog), err)
	default:
		fmt.Fprintf(stdout, "  %s: %s\n", gates.Visible(rep.AuditLog), st)
	}
	for _, line := range rep.More {
		fmt.Fprintln(stdout, gates.Visible(line))
	}
	bad = bad || rep.MoreBad
	if bad {
		fmt.Fprintln(stdout, "Something toolgate needs is missing or broken (see above).")
		return 1
	}
	fmt.Fprintln(stdout, "Everything toolgate needs is in place.")
	return 0
}
