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
	"github.com/toolgate/toolgate/protocol"
)

// replay re-decides every recorded tool call of an audit log with today's
// policy and lists the decisions that would change. Like git diff
// --exit-code it exits 1 when one would, 0 when none would, and 2 on a
// usage error or a file that is not an audit log whose chain holds.
//
// A call a session approval allowed was an ask of the policy files (an
// approval never overrides a deny): decided again, without the session,
// it is compared as the ask it was.
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
	seen, changed, skipped := 0, 0, 0
	for _, rec := range recs {
		if !rec.Decidable || rec.Cwd == "" || rec.State == "" {
			skipped++
			continue
		}
		seen++
		was, how := rec.State, ""
		if rec.Resolution == protocol.ResSessionApproved {
			was, how = "ask", " (allowed by a session approval)"
		}
		opts := hook.Options{Cwd: rec.Cwd, ConfigFiles: configs, Home: home, AgentDir: agentDir, ConfigHome: configHome(home), ManagedDir: os.Getenv("TOOLGATE_MANAGED_DIR"), Host: rec.Host, Log: zerolog.Nop()}
		res, err := author.Explain(opts, rec.ToolName, rec.Input, rec.AgentName)
		if err != nil {
			fmt.Fprintf(stdout, "line %d (%s %s): cannot be decided again: %v\n", rec.Line, rec.ToolCallID, rec.ToolName, err)
			changed++
			continue
		}
		if res.State != was {
			changed++
			fmt.Fprintf(stdout, "line %d (%s %s %s): was %s%s, now %s", rec.Line, rec.ToolCallID, rec.ToolName, compactJSON(rec.Input), was, how, res.State)
			if d := res.Decision; d != nil {
				fmt.Fprintf(stdout, " (%s gate, %s %q%s)", d.Gate, d.Surface, d.Value, ruleWords(d.MatchedPattern, d.Origin))
			}
			fmt.Fprintln(stdout)
		}
	}
	fmt.Fprintf(stdout, "%d calls decided again, %d would change, %d skipped (no input, cwd or state recorded)\n", seen, changed, skipped)
	if changed > 0 {
		return 1
	}
	return 0
}
