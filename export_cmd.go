package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/rs/zerolog"

	"github.com/toolgate/toolgate/export"
	"github.com/toolgate/toolgate/hook"
)

// exportCmd is `toolgate export --drain`: send what the audit log holds
// past the export cursor, then exit, within --max-time. A hook process
// starts it detached after its answer; a person may run it too.
func exportCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	drain := fs.Bool("drain", false, "")
	auditLog := fs.String("audit-log", "", "")
	cwd := fs.String("cwd", "", "")
	maxTime := fs.Duration("max-time", 30*time.Second, "")
	var configs multiFlag
	fs.Var(&configs, "config", "")
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	if !*drain || fs.NArg() > 0 {
		fmt.Fprint(stderr, usages["export"])
		return 2
	}
	if *maxTime <= 0 {
		fmt.Fprintf(stderr, "toolgate export: --max-time must be positive, not %s\n", *maxTime)
		return 2
	}
	dir := *cwd
	if dir == "" {
		dir, _ = os.Getwd()
	}
	dir, _ = filepath.Abs(dir)
	home, agentDir := environment()
	for i, c := range configs {
		configs[i], _ = filepath.Abs(c)
	}
	if *auditLog != "" {
		*auditLog, _ = filepath.Abs(*auditLog)
	}
	logger := zerolog.New(zerolog.ConsoleWriter{Out: stderr, NoColor: true}).Level(zerolog.WarnLevel).With().Timestamp().Logger()
	o, ok := hook.ExportOf(hook.Options{Cwd: dir, ConfigFiles: configs, AuditLog: *auditLog, Home: home, AgentDir: agentDir,
		ConfigHome: configHome(home), Log: logger})
	if !ok {
		fmt.Fprintf(stdout, "toolgate export: the policy exports nothing (no \"export\" knob in the global configuration)\n")
		return 0
	}
	ctx, cancel := context.WithTimeout(context.Background(), *maxTime)
	defer cancel()
	res, err := export.New(o).Drain(ctx)
	switch {
	case errors.Is(err, export.ErrBusy):
		fmt.Fprintf(stdout, "toolgate export: another sender is sending %s\n", o.Log)
		return 0
	case err != nil:
		fmt.Fprintf(stderr, "toolgate export: %s: %d records sent, the rest waits in the log: %v\n", o.Log, res.Sent, err)
		return 1
	}
	fmt.Fprintf(stdout, "toolgate export: %s: %d records sent (%d rejected by the collector)\n", o.Log, res.Sent, res.Rejected)
	return 0
}
