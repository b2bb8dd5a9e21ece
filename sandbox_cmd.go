package main

import (
	"encoding/base64"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/toolgate/toolgate/hook"
	"github.com/toolgate/toolgate/sandbox"
)

// sandboxCmd runs a command confined: `-- CMD ARG…` by the
// policy that applies in --cwd, or, for hosts, the model's bash text
// (--command-b64) by a profile the decision wrote (--profile). It exits
// with the command's status; 126 when the command could not be run
// confined, 2 for a usage error.
func sandboxCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("sandbox", flag.ContinueOnError)
	cwd := fs.String("cwd", "", "")
	profile := fs.String("profile", "", "")
	commandB64 := fs.String("command-b64", "", "")
	var configs multiFlag
	fs.Var(&configs, "config", "")
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	var prof *sandbox.Profile
	var argv []string
	switch {
	case *profile != "" || *commandB64 != "":
		if *profile == "" || *commandB64 == "" || fs.NArg() > 0 || *cwd != "" || len(configs) > 0 {
			fmt.Fprintf(stderr, "toolgate sandbox: --profile and --command-b64 go together, alone\n%s", usages["sandbox"])
			return 2
		}
		text, err := base64.StdEncoding.DecodeString(*commandB64)
		if err != nil {
			fmt.Fprintf(stderr, "toolgate sandbox: --command-b64: %v\n", err)
			return 2
		}
		if prof, err = sandbox.ReadProfile(*profile); err != nil {
			fmt.Fprintf(stderr, "toolgate sandbox: %v; the command did not run\n", err)
			return 126
		}
		// A decision writes one profile per command; it is spent now.
		os.Remove(*profile)
		argv = []string{"bash", "-c", string(text)}
	default:
		if fs.NArg() == 0 {
			fmt.Fprintf(stderr, "toolgate sandbox: no command (toolgate sandbox -- CMD ARG…)\n%s", usages["sandbox"])
			return 2
		}
		argv = fs.Args()
		opts := oneShotOptions(*cwd, configs)
		var notes []string
		var err error
		if prof, _, notes, err = hook.SandboxProfile(opts, os.Getenv); err != nil {
			fmt.Fprintf(stderr, "toolgate sandbox: %v; the command did not run\n", err)
			return 126
		}
		for _, n := range notes {
			fmt.Fprintf(stderr, "toolgate sandbox: %s\n", n)
		}
	}
	code, err := sandbox.Run(prof, sandbox.Command{Argv: argv, Stdin: stdin, Stdout: stdout, Stderr: stderr})
	if err != nil {
		fmt.Fprintf(stderr, "toolgate sandbox: %v; the command did not run\n", err)
		return 126
	}
	return code
}
