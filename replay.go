package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/rs/zerolog"

	"github.com/toolgate/toolgate/author"
	"github.com/toolgate/toolgate/hook"
)

// replay re-decides every recorded tool call of an audit log with today's
// policy (author.Replay) and lists the decisions that would change. Like
// git diff --exit-code it exits 1 when one would, 0 when none would, and 2
// on a usage error or a file that is not an audit log whose chain holds.
func replay(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	var configs multiFlag
	fs.Var(&configs, "config", "extra policy file (repeatable)")
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() != 1 {
		what := "no AUDITLOG given"
		if fs.NArg() > 1 {
			what = fmt.Sprintf("unexpected argument %q (one AUDITLOG)", fs.Arg(1))
		}
		fmt.Fprintf(stderr, "toolgate replay: %s\n%s", what, usages["replay"])
		return 2
	}
	recs, ok := readAuditLog("replay", fs.Arg(0), stderr)
	if !ok {
		return 2
	}
	home, agentDir := environment()
	for i, c := range configs {
		configs[i], _ = filepath.Abs(c)
	}
	base := hook.Options{ConfigFiles: configs, Home: home, AgentDir: agentDir, ConfigHome: configHome(home), ManagedDir: os.Getenv("TOOLGATE_MANAGED_DIR"), Log: zerolog.Nop()}
	rep := author.Replay(base, recs)
	for _, ch := range rep.Changes {
		if ch.Err != nil {
			fmt.Fprintf(stdout, "line %d (%s %s): cannot be decided again: %v\n", ch.Line, ch.ToolCallID, ch.ToolName, ch.Err)
			continue
		}
		how := ""
		if ch.SessionApproved {
			how = " (allowed by a session approval)"
		}
		fmt.Fprintf(stdout, "line %d (%s %s %s): was %s%s, now %s", ch.Line, ch.ToolCallID, ch.ToolName, compactJSON(ch.Input), ch.Was, how, ch.Now.State)
		if d := ch.Now.Decision; d != nil {
			fmt.Fprintf(stdout, " (%s gate, %s %q%s)", d.Gate, d.Surface, d.Value, ruleWords(d.MatchedPattern, d.Origin))
		}
		fmt.Fprintln(stdout)
	}
	seen, changed, skipped := rep.Seen, len(rep.Changes), rep.Skipped
	fmt.Fprintf(stdout, "%d calls decided again, %d would change, %d skipped (no input, cwd or state recorded)\n", seen, changed, skipped)
	if changed > 0 {
		return 1
	}
	return 0
}
