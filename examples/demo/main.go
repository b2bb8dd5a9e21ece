// Command demo builds toolgate, feeds it the example session
// (examples/session.jsonl) with the example policy (examples/policy.jsonc)
// and prints each answer: the first thing a newcomer runs.
//
//	go run ./examples/demo
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

func run() error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "toolgate-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "toolgate")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir, build.Stdout, build.Stderr = root, os.Stderr, os.Stderr
	build.Env = append(os.Environ(), "CGO_ENABLED=0") // static, as the README builds it
	if err := build.Run(); err != nil {
		return fmt.Errorf("go build: %w", err)
	}
	requests, err := readSession(filepath.Join(root, "examples", "session.jsonl"))
	if err != nil {
		return err
	}
	audit := filepath.Join(tmp, "audit.jsonl")
	cmd := exec.Command(bin, "--cwd", root, "--config", filepath.Join(root, "examples", "policy.jsonc"), "--audit-log", audit)
	// An empty agent directory: the demo shows the example policy alone,
	// whatever the machine's own pi configuration says.
	cmd.Env = append(os.Environ(), "PI_CODING_AGENT_DIR="+filepath.Join(tmp, "agent"))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	fmt.Printf("toolgate with examples/policy.jsonc, answering examples/session.jsonl:\n\n")
	answers := bufio.NewReader(stdout)
	// Like a host, send each request and wait for its answer.
	for _, req := range requests {
		if _, err := stdin.Write(append(req.line, '\n')); err != nil {
			return err
		}
		for {
			line, err := answers.ReadBytes('\n')
			if err != nil {
				return fmt.Errorf("toolgate stopped answering: %w", err)
			}
			var id struct {
				ID json.RawMessage `json:"id"`
			}
			if json.Unmarshal(line, &id) == nil && string(id.ID) == string(req.ID) {
				printAnswer(string(line), req)
				break
			}
		}
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("toolgate: %w", err)
	}
	fmt.Printf("\nEvery decision is in the audit log; check its hash chain with: toolgate audit verify FILE\n")
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

func printAnswer(line string, req request) {
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
	fmt.Printf("%-38s → %s", what, strings.ToUpper(msg.Result.Action))
	if d := msg.Result.Decision; d != nil {
		fmt.Printf(" (%s", d.Resolution)
		if d.MatchedPattern != nil {
			fmt.Printf(", rule %q", *d.MatchedPattern)
		}
		fmt.Print(")")
	}
	fmt.Println()
	if msg.Result.Reason != "" {
		fmt.Printf("    %s\n", msg.Result.Reason)
	}
}

func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("run this from inside the toolgate checkout")
		}
		dir = parent
	}
}
