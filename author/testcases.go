package author

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolgate/toolgate/hook"
	"github.com/toolgate/toolgate/protocol"
)

// TestsFileName is the file of policy tests that runs by default: the one
// beside a policy file (toolgate test).
const TestsFileName = "toolgate-tests.jsonl"

// TestCase is one policy test: a call and the decision it must get.
type TestCase struct {
	Name  string          `json:"name,omitempty"`
	Tool  string          `json:"tool"`
	Input json.RawMessage `json:"input"`
	// Cwd is the working directory; a relative one is relative to the
	// folder of the cases file. Empty: the runner's default.
	Cwd   string `json:"cwd,omitempty"`
	Agent string `json:"agent,omitempty"`
	// Host, when set, decides the call as that host's adapter does
	// ("claude-code", "gemini-cli": their tool names, values and built-in
	// allows; "opencode": its tools' values), so a recorded Claude Code
	// call is a case like a pi call.
	Host string `json:"host,omitempty"`
	// Expect is allow, ask or deny.
	Expect string `json:"expect"`
	// Gate and Pattern, when set, must be the deciding gate and matched
	// pattern too ("" for Pattern: the fallback or a gate without rule).
	Gate    string  `json:"gate,omitempty"`
	Pattern *string `json:"pattern,omitempty"`

	File string `json:"-"`
	Line int    `json:"-"`
	// Problem says why the line is not a case that can run; such a case
	// fails.
	Problem string `json:"-"`
}

// Where names the case: its name, else file:line.
func (c TestCase) Where() string {
	at := fmt.Sprintf("%s:%d", c.File, c.Line)
	if c.Name != "" {
		return fmt.Sprintf("%q (%s)", c.Name, at)
	}
	return at
}

// CaseResult is the outcome of one case.
type CaseResult struct {
	Case   TestCase             `json:"-"`
	Pass   bool                 `json:"pass"`
	Got    protocol.CheckResult `json:"got"`
	Reason string               `json:"reason,omitempty"` // why it failed
}

// ReadCases reads JSONL cases; blank lines and lines starting with // or #
// are skipped. A line that is not a valid case comes back with Problem set
// (it fails when run), never dropped.
func ReadCases(r io.Reader, file string) ([]TestCase, error) {
	var out []TestCase
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for line := 1; sc.Scan(); line++ {
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 || bytes.HasPrefix(text, []byte("//")) || text[0] == '#' {
			continue
		}
		c := TestCase{File: file, Line: line}
		dec := json.NewDecoder(bytes.NewReader(text))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil {
			c = TestCase{File: file, Line: line, Problem: "not a test case: " + err.Error()}
		} else {
			c.File, c.Line = file, line
			c.Problem = caseProblem(c)
		}
		out = append(out, c)
	}
	return out, sc.Err()
}

func caseProblem(c TestCase) string {
	switch {
	case c.Tool == "":
		return `the case has no "tool"`
	case c.Expect != "allow" && c.Expect != "ask" && c.Expect != "deny":
		return fmt.Sprintf(`"expect" must be allow, ask or deny, not %q`, c.Expect)
	}
	if len(c.Input) == 0 {
		return ""
	}
	if err := hook.CheckInputJSON(c.Input); err != nil {
		return `"input" ` + err.Error()
	}
	if c.Host != "" && !hook.KnownHost(c.Host) {
		return fmt.Sprintf(`"host" %q is not a host toolgate knows (%s)`, c.Host, strings.Join(hook.HostNames, ", "))
	}
	return ""
}

// ReadCasesFile reads the cases of one file.
func ReadCasesFile(path string) ([]TestCase, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadCases(f, path)
}

// CaseRunner decides cases against the composed policy, like explain: no
// prompt, no session, no audit record.
type CaseRunner struct {
	opts hook.Options
	dr   *hook.DryRun
	// hosts are the runners of cases that name a hook host.
	hosts map[string]*hook.DryRun
}

// NewCaseRunner decides with opts; opts.Cwd is the working directory of
// cases that name none.
func NewCaseRunner(opts hook.Options) *CaseRunner {
	return &CaseRunner{opts: opts, dr: hook.NewDryRun(opts)}
}

// Decide decides one call (what explain prints).
func (cr *CaseRunner) Decide(tool string, input json.RawMessage, cwd, agent string) (Explanation, error) {
	return cr.DecideAs("", tool, input, cwd, agent)
}

// DecideAs decides one call as the hook host names it ("" for none).
func (cr *CaseRunner) DecideAs(host, tool string, input json.RawMessage, cwd, agent string) (Explanation, error) {
	dr := cr.dr
	if host != "" && host != cr.opts.Host {
		if dr = cr.hosts[host]; dr == nil {
			opts := cr.opts
			opts.Host = host
			dr = hook.NewDryRun(opts)
			if cr.hosts == nil {
				cr.hosts = map[string]*hook.DryRun{}
			}
			cr.hosts[host] = dr
		}
	}
	return explain(dr, tool, input, cwd, agent)
}

// RunCase decides one case and compares.
func (cr *CaseRunner) RunCase(c TestCase) CaseResult {
	res := CaseResult{Case: c}
	if c.Problem != "" {
		res.Reason = c.Problem
		return res
	}
	input := c.Input
	if len(input) == 0 {
		input = json.RawMessage(`{}`)
	}
	cwd := c.Cwd
	if cwd != "" && !filepath.IsAbs(cwd) {
		cwd = filepath.Join(filepath.Dir(c.File), cwd)
	}
	if cwd != "" {
		if abs, err := filepath.Abs(cwd); err == nil {
			cwd = abs
		}
	}
	ex, err := cr.DecideAs(c.Host, c.Tool, input, cwd, c.Agent)
	if err != nil {
		res.Reason = err.Error()
		return res
	}
	res.Got = ex.CheckResult
	var wrong []string
	if res.Got.State != c.Expect {
		wrong = append(wrong, fmt.Sprintf("expected %s, got %s", c.Expect, res.Got.State))
	}
	d := res.Got.Decision
	if c.Gate != "" && (d == nil || d.Gate != c.Gate) {
		got := ""
		if d != nil {
			got = d.Gate
		}
		wrong = append(wrong, fmt.Sprintf("expected the %s gate to decide, got %q", c.Gate, got))
	}
	if c.Pattern != nil {
		got := ""
		if d != nil && d.MatchedPattern != nil {
			got = *d.MatchedPattern
		}
		if got != *c.Pattern {
			wrong = append(wrong, fmt.Sprintf("expected pattern %q to decide, got %q", *c.Pattern, got))
		}
	}
	res.Pass = len(wrong) == 0
	res.Reason = strings.Join(wrong, "; ")
	return res
}

// DefaultCaseFiles are the toolgate-tests.jsonl files beside the policy
// files a session with opts reads (those that exist), and the folders
// looked in.
func DefaultCaseFiles(opts hook.Options, agent string) (files, looked []string) {
	seen := map[string]bool{}
	for _, src := range hook.NewDryRun(opts).PolicyAt("", agent).Sources {
		dir := filepath.Dir(src.Path)
		if seen[dir] {
			continue
		}
		seen[dir] = true
		looked = append(looked, dir)
		p := filepath.Join(dir, TestsFileName)
		if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() {
			files = append(files, p)
		}
	}
	return files, looked
}

// DefaultAuditLog is the audit log a session with opts writes when no
// --audit-log is given: the policy's auditLog, else the default.
func DefaultAuditLog(opts hook.Options) string {
	dr := hook.NewDryRun(opts)
	return dr.AuditLog(dr.PolicyAt("", ""))
}

// RunCases decides every case against the policy of opts, each case
// without an agent as agent, and says how each went, in order.
func RunCases(opts hook.Options, agent string, cases []TestCase) []CaseResult {
	cr := NewCaseRunner(opts)
	out := make([]CaseResult, 0, len(cases))
	for _, c := range cases {
		if c.Agent == "" {
			c.Agent = agent
		}
		out = append(out, cr.RunCase(c))
	}
	return out
}

// CasesFromAudit is today's decision of every recorded call of recs (read
// from the audit log named log) as a case, to pin behavior before an edit;
// skipped counts the calls that cannot be decided again.
func CasesFromAudit(opts hook.Options, recs []Recorded, log string) (cases []TestCase, skipped int) {
	cr := NewCaseRunner(opts)
	for _, r := range recs {
		if !r.Decidable {
			skipped++
			continue
		}
		ex, err := cr.DecideAs(r.Host, r.ToolName, r.Input, r.Cwd, r.AgentName)
		if err != nil {
			skipped++
			continue
		}
		cases = append(cases, TestCase{Name: fmt.Sprintf("%s line %d (%s)", filepath.Base(log), r.Line, r.ToolCallID), Tool: r.ToolName,
			Input: r.Input, Cwd: r.Cwd, Agent: r.AgentName, Host: r.Host, Expect: ex.State})
	}
	return cases, skipped
}
