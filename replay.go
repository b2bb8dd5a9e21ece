package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/rs/zerolog"

	"github.com/toolgate/toolgate/hook"
)

// replay re-decides every recorded tool call of an audit log with today's
// policy and lists the decisions that would change.
func replay(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	var configs multiFlag
	fs.Var(&configs, "config", "extra policy file (repeatable)")
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprint(stderr, usages["replay"])
		return 2
	}
	f, err := os.Open(fs.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "toolgate replay: %v\n", err)
		return 1
	}
	defer f.Close()
	home, agentDir := environment()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	seen, changed, skipped := 0, 0, 0
	for line := 1; sc.Scan(); line++ {
		var rec struct {
			Event      string          `json:"event"`
			ToolCallID string          `json:"toolCallId"`
			ToolName   string          `json:"toolName"`
			AgentName  string          `json:"agentName"`
			State      string          `json:"state"`
			Action     string          `json:"action"`
			Cwd        string          `json:"cwd"`
			Host       string          `json:"host"`
			Input      json.RawMessage `json:"input"`
		}
		if json.Unmarshal(sc.Bytes(), &rec) != nil || rec.Event != "decision" || rec.ToolName == "" {
			continue
		}
		var probe map[string]any
		if rec.Cwd == "" || rec.State == "" || json.Unmarshal(rec.Input, &probe) != nil || probe["truncated"] == true {
			skipped++
			continue
		}
		seen++
		opts := hook.Options{Cwd: rec.Cwd, ConfigFiles: configs, Home: home, AgentDir: agentDir, ConfigHome: configHome(home), ManagedDir: os.Getenv("TOOLGATE_MANAGED_DIR"), Host: rec.Host, Log: zerolog.Nop()}
		res, err := hook.Explain(opts, rec.ToolName, rec.Input, rec.AgentName)
		if err != nil {
			fmt.Fprintf(stdout, "line %d (%s %s): cannot be decided again: %v\n", line, rec.ToolCallID, rec.ToolName, err)
			changed++
			continue
		}
		if res.State != rec.State {
			changed++
			fmt.Fprintf(stdout, "line %d (%s %s %s): was %s, now %s", line, rec.ToolCallID, rec.ToolName, rec.Input, rec.State, res.State)
			if d := res.Decision; d != nil {
				fmt.Fprintf(stdout, " (%s gate, %s %q%s)", d.Gate, d.Surface, d.Value, ruleWords(d.MatchedPattern, d.Origin))
			}
			fmt.Fprintln(stdout)
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintf(stderr, "toolgate replay: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "%d calls decided again, %d would change, %d skipped (no input, cwd or state recorded)\n", seen, changed, skipped)
	return 0
}
