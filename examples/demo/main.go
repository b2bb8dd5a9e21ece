// Command demo builds toolgate, feeds it the example session
// (examples/session.jsonl) with the example policy (examples/policy.jsonc)
// and prints each answer: the first thing a newcomer runs. It leaves the
// binary and the session's audit log in a folder it names, checks the log's
// hash chain with `toolgate audit verify` and runs the example policy's
// tests, printing the commands so they can be run again.
//
//	go run ./examples/demo
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/toolgate/toolgate/internal/modroot"
)

func main() {
	if _, err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

func run(w io.Writer) (tmp string, err error) {
	root, err := modroot.Find()
	if err != nil {
		return tmp, err
	}
	// Kept after the demo: the audit log is something to look at.
	tmp, err = os.MkdirTemp("", "toolgate-demo-")
	if err != nil {
		return tmp, err
	}
	bin := filepath.Join(tmp, "toolgate")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir, build.Stdout, build.Stderr = root, os.Stderr, os.Stderr
	build.Env = append(os.Environ(), "CGO_ENABLED=0") // static, as the README builds it
	if err := build.Run(); err != nil {
		return tmp, fmt.Errorf("go build: %w", err)
	}
	requests, err := readSession(filepath.Join(root, "examples", "session.jsonl"))
	if err != nil {
		return tmp, err
	}
	audit := filepath.Join(tmp, "audit.jsonl")
	// The example policy stands for the person's own file, outside the
	// project: a --config file inside the working directory would be the
	// project's, loosening nothing until trusted. Its tests go beside it.
	policy := filepath.Join(tmp, "policy.jsonc")
	for _, f := range [][2]string{{"policy.jsonc", policy}, {"toolgate-tests.jsonl", filepath.Join(tmp, "toolgate-tests.jsonl")}} {
		data, err := os.ReadFile(filepath.Join(root, "examples", f[0]))
		if err != nil {
			return tmp, err
		}
		if err := os.WriteFile(f[1], data, 0o600); err != nil {
			return tmp, err
		}
	}
	cmd := exec.Command(bin, "--cwd", root, "--config", policy, "--audit-log", audit)
	// An empty agent directory: the demo shows the example policy alone,
	// whatever the machine's own pi configuration says.
	cmd.Env = append(os.Environ(), "PI_CODING_AGENT_DIR="+filepath.Join(tmp, "agent"))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return tmp, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return tmp, err
	}
	if err := cmd.Start(); err != nil {
		return tmp, err
	}
	fmt.Fprintf(w, "toolgate with examples/policy.jsonc (copied to %s as your own policy), answering examples/session.jsonl:\n\n", policy)
	answers := bufio.NewReader(stdout)
	// Like a host, send each request and wait for its answer.
	for _, req := range requests {
		if _, err := stdin.Write(append(req.line, '\n')); err != nil {
			return tmp, err
		}
		for {
			line, err := answers.ReadBytes('\n')
			if err != nil {
				return tmp, fmt.Errorf("toolgate stopped answering: %w", err)
			}
			var id struct {
				ID json.RawMessage `json:"id"`
			}
			if json.Unmarshal(line, &id) == nil && string(id.ID) == string(req.ID) {
				printAnswer(w, string(line), req)
				break
			}
		}
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		return tmp, fmt.Errorf("toolgate: %w", err)
	}
	fmt.Fprintf(w, "\nEvery decision is in the audit log %s. Its hash chain, checked:\n\n", audit)
	if err := show(w, bin, "audit", "verify", audit); err != nil {
		return tmp, err
	}
	fmt.Fprintf(w, "\nThe example policy's own tests (examples/toolgate-tests.jsonl, copied beside it):\n\n")
	if err := show(w, bin, "test", "--config", policy); err != nil {
		return tmp, err
	}
	fmt.Fprintf(w, "\nTry next:\n  %s explain --config %s --tool bash --input '{\"command\":\"git status && rm -rf build\"}'\n  %s replay --config %s %s\n",
		bin, policy, bin, policy, audit)
	return tmp, nil
}

// show prints a toolgate command and runs it with its output shown.
func show(w io.Writer, bin string, args ...string) error {
	fmt.Fprintf(w, "$ %s %s\n", bin, strings.Join(args, " "))
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "PI_CODING_AGENT_DIR="+filepath.Join(filepath.Dir(bin), "agent"))
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("toolgate %s: %w", args[0], err)
	}
	return nil
}

type request struct {
	line   []byte
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		ToolName string         `json:"toolName"`
		Input    map[string]any `json:"input"`
	} `json:"params"`
}

func readSession(path string) ([]request, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var reqs []request
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r request
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.ID != nil {
			r.line = append([]byte(nil), sc.Bytes()...)
			reqs = append(reqs, r)
		}
	}
	return reqs, sc.Err()
}

func printAnswer(w io.Writer, line string, req request) {
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Result *struct {
			Action   string `json:"action"`
			Reason   string `json:"reason"`
			Decision *struct {
				Resolution     string  `json:"resolution"`
				MatchedPattern *string `json:"matchedPattern"`
			} `json:"decision"`
		} `json:"result"`
	}
	if json.Unmarshal([]byte(line), &msg) != nil || msg.Method != "" || msg.Result == nil || msg.Result.Action == "" {
		return // notifications and non-tool answers
	}
	what := req.Params.ToolName
	if c, ok := req.Params.Input["command"].(string); ok {
		what += " " + c
	} else if p, ok := req.Params.Input["path"].(string); ok {
		what += " " + p
	}
	fmt.Fprintf(w, "%-38s → %s", what, strings.ToUpper(msg.Result.Action))
	if d := msg.Result.Decision; d != nil {
		fmt.Fprintf(w, " (%s", d.Resolution)
		if d.MatchedPattern != nil {
			fmt.Fprintf(w, ", rule %q", *d.MatchedPattern)
		}
		fmt.Fprint(w, ")")
	}
	fmt.Fprintln(w)
	if msg.Result.Reason != "" {
		fmt.Fprintf(w, "    %s\n", msg.Result.Reason)
	}
}
