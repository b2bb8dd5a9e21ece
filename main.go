// Command toolgate is the permission system for AI coding agents: a host
// spawns it and asks, before every tool call, "may this run?" (see
// docs/protocol.md). main holds flags and subcommands only.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/toolgate/toolgate/hook"
	"github.com/toolgate/toolgate/hook/audit"
	"github.com/toolgate/toolgate/hook/hosts"
	"github.com/toolgate/toolgate/internal/runtimecfg"
	"github.com/toolgate/toolgate/policy"
	"github.com/toolgate/toolgate/protocol"
)

const usage = `usage: toolgate [serve] [flags]          the JSON-RPC plugin on stdin/stdout
       toolgate explain --tool T --input JSON [--cwd D] [--agent A] [--host H] [--json]
       toolgate validate [FILE…]          check policy files (the effective ones without FILE)
       toolgate test [CASES…]             run policy tests (toolgate-tests.jsonl beside the policy without CASES)
       toolgate suggest [--apply] [AUDITLOG]  rules that would have spared repeated prompts
       toolgate replay [--config F] AUDITLOG  re-decide recorded calls with today's policy; list changes
       toolgate audit verify AUDITLOG     check the audit log's hash chain
       toolgate trust [--yes] [DIR]       list what a project's policy files would loosen; trust their content
       toolgate doctor                    the policy files found and their state, the audit log, confinement
       toolgate claude-hook               a Claude Code PreToolUse / UserPromptSubmit command hook
       toolgate gemini-hook [--ask]       a Gemini CLI BeforeTool command hook (--ask: interactive sessions only)
       toolgate sandbox [--cwd D] [--config F] -- CMD ARG…  run CMD confined by the policy
       toolgate export --drain            send what the audit log holds past the export cursor, then exit
       toolgate codex-hook                a Codex CLI PreToolUse / PermissionRequest command hook
       toolgate copilot-hook [--deadline D]  a GitHub Copilot CLI preToolUse command hook
       toolgate qwen-hook [--no-ask]      a Qwen Code PreToolUse command hook
       toolgate version

serve flags:
  --cwd DIR          working directory before initialize (default: the process's)
  --config FILE      extra policy file, merged after the project file (repeatable)
  --audit-log FILE   audit log (default: the policy's auditLog, else under the agent dir)
  --log-level LEVEL  stderr diagnostics: debug, info, warn (default), error
  --framing MODE     newline (default) or content-length
`

func main() {
	runtimecfg.Apply()
	exe, _ := os.Executable() // a hook's export drain is this binary (none when unknown)
	os.Exit(runAs(exe, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is the command line without a binary to start: no hook starts an
// export drain (tests call it in a test binary, which must not be run as
// toolgate).
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runAs("", args, stdin, stdout, stderr)
}

// runAs is the command line; exe is toolgate's own binary, which a hook
// starts as `export --drain` after its answer.
func runAs(exe string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd := "serve"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return serve(args, stdin, stdout, stderr)
	case "version":
		if wantsHelp(args) {
			fmt.Fprint(stdout, usages["version"])
			return 0
		}
		if !noArguments("version", args, stderr) {
			return 2
		}
		fmt.Fprintf(stdout, "toolgate %s\n", hook.Version)
		return 0
	case "audit":
		return auditCmd(args, stdout, stderr)
	case "replay":
		return replay(args, stdout, stderr)
	case "explain":
		return explain(args, stdout, stderr)
	case "claude-hook", "gemini-hook", "codex-hook", "copilot-hook", "qwen-hook":
		return hostHook(cmd, exe, args, stdin, stdout, stderr)
	case "validate":
		return validate(args, stdout, stderr)
	case "test":
		return testCmd(args, stdout, stderr)
	case "suggest":
		return suggest(args, stdout, stderr)
	case "trust":
		return trustCmd(args, stdin, stdout, stderr)
	case "doctor":
		return doctor(args, stdout, stderr)
	case "sandbox":
		return sandboxCmd(args, stdin, stdout, stderr)
	case "export":
		return exportCmd(args, stdout, stderr)
	case "help", "-h", "-help", "--help":
		if len(args) > 0 {
			if u, ok := usages[args[0]]; ok {
				fmt.Fprint(stdout, u)
				return 0
			}
		}
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "toolgate: unknown command %q%s\n%s", cmd, policy.DidYouMean(cmd, commandNames()), usage)
	return 2
}

// commandNames are the subcommands (each has a usage text).
func commandNames() []string {
	names := []string{"help"}
	for name := range usages {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// noArguments reports, on stderr, the first argument of a command that
// takes none (exit 2): an argument is never silently ignored.
func noArguments(cmd string, args []string, stderr io.Writer) bool {
	if len(args) == 0 {
		return true
	}
	fmt.Fprintf(stderr, "toolgate %s: unexpected argument %q (it takes none)\n%s", cmd, args[0], usages[cmd])
	return false
}

// checkDir says what is wrong with dir, given as flag: it must be a
// directory that exists (a mistyped --cwd would decide every call in the
// wrong place).
func checkDir(flag, dir string) error {
	info, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("%s %s: %w", flag, dir, errors.Unwrap(err))
	}
	if !info.IsDir() {
		return fmt.Errorf("%s %s: not a directory", flag, dir)
	}
	return nil
}

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// environment returns the home and agent directories.
func environment() (home, agentDir string) {
	home = os.Getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	agentDir = os.Getenv("PI_CODING_AGENT_DIR")
	if agentDir == "" {
		agentDir = filepath.Join(home, ".pi", "agent")
	}
	return home, agentDir
}

// parseFlags parses a subcommand's flags, before and after its other
// arguments ("suggest LOG --apply"; after "--" everything is an argument).
// --help prints the subcommand's usage on stdout (exit 0); an unknown or
// bad flag is named on stderr (exit 2). ok is false when the caller must
// return code.
func parseFlags(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (code int, ok bool) {
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	var positional []string
	for {
		err := fs.Parse(args)
		switch {
		case errors.Is(err, flag.ErrHelp):
			fmt.Fprint(stdout, usages[fs.Name()])
			return 0, false
		case err != nil:
			fmt.Fprintf(stderr, "toolgate %s: %v%s\n%s", fs.Name(), err, flagHint(fs, err), usages[fs.Name()])
			return 2, false
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			positional = append(positional, rest...)
			break
		}
		positional, args = append(positional, rest[0]), rest[1:]
	}
	_ = fs.Parse(append([]string{"--"}, positional...))
	return 0, true
}

// flagHint is " (did you mean "--x"?)" for a flag fs does not define that
// is near one it does, else "".
func flagHint(fs *flag.FlagSet, err error) string {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: ")
	if !ok {
		return ""
	}
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, "--"+f.Name) })
	return policy.DidYouMean("--"+strings.TrimLeft(name, "-"), names)
}

// wantsHelp reports whether args ask for help (for subcommands without a
// flag set).
func wantsHelp(args []string) bool {
	return len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help")
}

// configHome is $XDG_CONFIG_HOME, else ~/.config: the folder of toolgate's
// own policy file.
func configHome(home string) string {
	if d := os.Getenv("XDG_CONFIG_HOME"); filepath.IsAbs(d) {
		return d
	}
	return filepath.Join(home, ".config")
}

func serve(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	var configs multiFlag
	cwd := fs.String("cwd", "", "")
	auditLog := fs.String("audit-log", "", "")
	level := fs.String("log-level", "warn", "")
	framing := fs.String("framing", "newline", "")
	fs.Var(&configs, "config", "")
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	if !noArguments("serve", fs.Args(), stderr) {
		return 2
	}
	fr, err := protocol.ParseFraming(*framing)
	if err != nil {
		fmt.Fprintf(stderr, "toolgate: --framing: %v\n", err)
		return 2
	}
	lvl, err := zerolog.ParseLevel(*level)
	if err != nil || *level == "" {
		fmt.Fprintf(stderr, "toolgate: --log-level: unknown level %q\n", *level)
		return 2
	}
	logger := zerolog.New(zerolog.ConsoleWriter{Out: stderr, NoColor: true}).Level(lvl).With().Timestamp().Logger()
	dir := *cwd
	if dir == "" {
		if dir, err = os.Getwd(); err != nil {
			fmt.Fprintf(stderr, "toolgate: cannot read the working directory: %v\n", err)
			return 1
		}
	} else if err := checkDir("--cwd", dir); err != nil {
		fmt.Fprintf(stderr, "toolgate: %v\n", err)
		return 2
	}
	if dir, err = filepath.Abs(dir); err != nil {
		fmt.Fprintf(stderr, "toolgate: --cwd: %v\n", err)
		return 2
	}
	home, agentDir := environment()
	for i, c := range configs {
		if abs, err := filepath.Abs(c); err == nil {
			configs[i] = abs
		}
	}
	auditPath := *auditLog
	if auditPath != "" {
		if abs, err := filepath.Abs(auditPath); err == nil {
			auditPath = abs
		}
	}
	srv := hook.New(hook.Options{Cwd: dir, ConfigFiles: configs, AuditLog: auditPath, Home: home,
		AgentDir: agentDir, ConfigHome: configHome(home), ManagedDir: os.Getenv("TOOLGATE_MANAGED_DIR"), Framing: fr, Log: logger})
	stopProfile := startProfile()
	defer stopProfile()
	if err := srv.Serve(stdin, stdout); err != nil {
		logger.Error().Err(err).Msg("serve")
		return 1
	}
	return 0
}

func auditCmd(args []string, stdout, stderr io.Writer) int {
	if wantsHelp(args) || len(args) == 2 && args[0] == "verify" && wantsHelp(args[1:]) {
		fmt.Fprint(stdout, usages["audit"])
		return 0
	}
	switch {
	case len(args) == 0 || args[0] != "verify":
		what := ""
		if len(args) > 0 {
			what = fmt.Sprintf("toolgate audit: unknown command %q%s\n", args[0], policy.DidYouMean(args[0], []string{"verify"}))
		}
		fmt.Fprint(stderr, what+usages["audit"])
		return 2
	case len(args) > 2:
		fmt.Fprintf(stderr, "toolgate audit verify: unexpected argument %q (one AUDITLOG)\n%s", args[2], usages["audit"])
		return 2
	case len(args) != 2:
		fmt.Fprint(stderr, usages["audit"])
		return 2
	}
	r, err := audit.VerifyFile(args[1])
	if err != nil {
		fmt.Fprintf(stderr, "toolgate: %v\n", err)
		return 1
	}
	if r.Problem != nil {
		fmt.Fprintf(stdout, "%s:%d: chain broken: %s (%d records before it verified)\n", args[1], r.Problem.Line, r.Problem.Message, r.Records)
		return 1
	}
	if r.HeadProblem != "" {
		fmt.Fprintf(stdout, "%s: %d records chained, but %s\n", args[1], r.Records, r.HeadProblem)
		return 1
	}
	switch {
	case r.HeadNote != "":
		fmt.Fprintf(stdout, "%s: %d records, chain intact; note: %s\n", args[1], r.Records, r.HeadNote)
	case r.Head == nil:
		fmt.Fprintf(stdout, "%s: %d records, chain intact (no head file: a cut-off tail cannot be told)\n", args[1], r.Records)
	default:
		fmt.Fprintf(stdout, "%s: %d records, chain intact, the head file agrees\n", args[1], r.Records)
	}
	return 0
}

// copilotDeadline is copilot-hook's default --deadline: well inside the
// documented timeoutSec (30), and the `timeout` that bounds the command.
const copilotDeadline = 10 * time.Second

// hostHook answers one hook event of a hook host; any failure exits 2,
// which every one of them treats as a block, but copilot-hook's, which is
// a printed deny.
func hostHook(cmd, exe string, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(stderr, "toolgate: internal error, blocked (fail-closed): %v\n", p)
			code = 2
		}
	}()
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	var configs multiFlag
	fs.Var(&configs, "config", "extra policy file (repeatable)")
	auditLog := fs.String("audit-log", "", "audit log")
	ask := false
	if cmd == "gemini-hook" {
		fs.BoolVar(&ask, "ask", false, "answer toolgate's ask with Gemini's own (interactive sessions only)")
	}
	noAsk := false
	if cmd == "qwen-hook" {
		fs.BoolVar(&noAsk, "no-ask", false, "answer toolgate's ask with a deny (sessions driven over stream-json)")
	}
	deadline := copilotDeadline
	if cmd == "copilot-hook" {
		fs.DurationVar(&deadline, "deadline", copilotDeadline, "deny the call when no decision is made within this time")
	}
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		if code == 0 {
			return 0
		}
		return 2
	}
	if !noArguments(cmd, fs.Args(), stderr) {
		return 2
	}
	home, agentDir := environment()
	cwd, _ := os.Getwd()
	for i, c := range configs {
		configs[i], _ = filepath.Abs(c)
	}
	if *auditLog != "" {
		*auditLog, _ = filepath.Abs(*auditLog)
	}
	opts := hook.Options{Cwd: cwd, ConfigFiles: configs, AuditLog: *auditLog, Home: home, AgentDir: agentDir,
		ConfigHome: configHome(home), ManagedDir: os.Getenv("TOOLGATE_MANAGED_DIR"), Executable: exe, Log: zerolog.New(zerolog.ConsoleWriter{Out: stderr, NoColor: true}).Level(zerolog.ErrorLevel)}
	var h hosts.Hook
	switch cmd {
	case "gemini-hook":
		h = hosts.GeminiHook{Ask: ask}
	case "codex-hook":
		h = hosts.CodexHook{}
	case "copilot-hook":
		h = hosts.CopilotHook{Deadline: deadline}
	case "qwen-hook":
		h = hosts.QwenHook{NoAsk: noAsk}
	default:
		h = hosts.ClaudeHook{}
	}
	if err := hook.RunHook(opts, h, stdin, stdout); err != nil {
		fmt.Fprintf(stderr, "toolgate: blocked (fail-closed): %v\n", err)
		if cmd == "copilot-hook" {
			return 0 // the deny is printed, with its reason, for Copilot to read
		}
		return 2
	}
	return 0
}
