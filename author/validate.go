package author

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolgate/toolgate/hook"
	"github.com/toolgate/toolgate/policy"
)

// FileReport is one checked policy file: its errors (with file:line:col)
// and notes.
type FileReport struct {
	Path   string           `json:"path"`
	Scope  string           `json:"scope,omitempty"`
	OK     bool             `json:"ok"`
	Errors []policy.Warning `json:"errors"`
	Notes  []policy.Warning `json:"notes,omitempty"`
}

// ValidateReport is what toolgate validate found.
type ValidateReport struct {
	OK    bool          `json:"ok"`
	Files []FileReport  `json:"files"`
	Lints []policy.Lint `json:"lints"`
	// Warnings are the composed policy's own warnings (a knob a project
	// may not set, a broken file's consequence) beyond the files' errors.
	Warnings []policy.Warning `json:"warnings"`
	// LookedFor lists the files a session would read, when none exists.
	LookedFor []string `json:"lookedFor,omitempty"`
	// Tests are the toolgate-tests.jsonl files beside the checked files.
	Tests []TestsReport `json:"tests"`
}

// TestsReport is the run of one toolgate-tests.jsonl file.
type TestsReport struct {
	File   string   `json:"file"`
	Cases  int      `json:"cases"`
	Failed []string `json:"failed"`
	// Err is why the file could not be read; Failures are the cases
	// that failed, in order.
	Err      error        `json:"-"`
	Failures []CaseResult `json:"-"`
}

// Validate parses policy files and lints the policy they make. Without
// opts.ConfigFiles it checks the files a session in opts.Cwd (as agent)
// would read; with them, those files, as global ones. The cases of a
// toolgate-tests.jsonl beside a checked file run too, against the policy
// of opts (each case without an agent as agent).
func Validate(opts hook.Options, agent string) ValidateReport {
	home, agentDir := opts.Home, opts.AgentDir
	var scopes []policy.ScopeFile
	rep := ValidateReport{OK: true, Files: []FileReport{}, Lints: []policy.Lint{}, Tests: []TestsReport{}}
	var untrusted []policy.Warning
	if len(opts.ConfigFiles) == 0 {
		p := policy.NewLoader().Policy(policy.Locations{AgentDir: agentDir, Home: home, ConfigHome: opts.ConfigHome, ManagedDir: opts.ManagedDir, Cwd: opts.Cwd, ProjectTrusted: true, AgentName: agent})
		untrusted = p.Untrusted
		for _, src := range p.Sources {
			if src.Exists {
				scopes = append(scopes, readScope(src.Scope, src.Path, src.Scope == policy.ScopeGlobal || src.Scope == policy.ScopeAgent))
			}
		}
		if len(scopes) == 0 {
			// The sources list toolgate's own files only when they exist;
			// they were looked for all the same.
			for _, src := range p.Sources {
				rep.LookedFor = append(rep.LookedFor, src.Path)
				switch src.Path {
				case policy.GlobalPath(agentDir):
					rep.LookedFor = append(rep.LookedFor, policy.ToolgateGlobalPath(opts.ConfigHome, home))
				case policy.ProjectPath(opts.Cwd):
					rep.LookedFor = append(rep.LookedFor, policy.ToolgateProjectPath(opts.Cwd))
				}
			}
		}
	} else {
		for _, abs := range opts.ConfigFiles {
			scopes = append(scopes, readScope(policy.ScopeGlobal, abs, true))
		}
	}
	for _, sf := range scopes {
		fr := FileReport{Path: sf.Path, Scope: sf.Scope, OK: true, Errors: []policy.Warning{}}
		if sf.File != nil {
			// A bad entry is a deny now, but still an error to fix.
			for _, e := range append(append([]policy.Warning(nil), sf.File.Errors...), sf.File.Problems...) {
				e.Message = policy.HintTypo(e.Message)
				fr.Errors = append(fr.Errors, e)
			}
			fr.Notes = sf.File.Notes
		}
		fr.OK = len(fr.Errors) == 0
		rep.OK = rep.OK && fr.OK
		rep.Files = append(rep.Files, fr)
	}
	composed := policy.Compose(scopes, home)
	if lints := policy.LintPolicy(composed); lints != nil {
		rep.Lints = lints
	}
	rep.Warnings = append(policyWarnings(composed, rep.Files, rep.Lints), untrusted...)
	for _, tf := range testsBeside(scopes) {
		tr := TestsReport{File: tf, Failed: []string{}}
		if cases, err := ReadCasesFile(tf); err != nil {
			tr.Err = err
			tr.Failed = append(tr.Failed, err.Error())
		} else {
			tr.Cases = len(cases)
			for _, res := range RunCases(opts, agent, cases) {
				if !res.Pass {
					tr.Failures = append(tr.Failures, res)
					tr.Failed = append(tr.Failed, res.Case.Where()+": "+res.Reason)
				}
			}
		}
		rep.OK = rep.OK && len(tr.Failed) == 0
		rep.Tests = append(rep.Tests, tr)
	}
	return rep
}

func readScope(scope, path string, trusted bool) policy.ScopeFile {
	sf := policy.ScopeFile{Scope: scope, Path: path, Trusted: trusted, Exists: true}
	data, err := policy.ReadFile(path)
	if err != nil {
		sf.File = &policy.File{Path: path, Errors: []policy.Warning{{Path: path, Message: "cannot read this file: " + err.Error()}}}
		return sf
	}
	if strings.HasSuffix(path, ".md") {
		sf.File = policy.ParseAgentFile(path, data)
	} else {
		sf.File = policy.ParseFile(path, data)
	}
	return sf
}

// testsBeside are the toolgate-tests.jsonl files in the folders of the
// checked policy files, each once.
func testsBeside(scopes []policy.ScopeFile) []string {
	var out []string
	seen := map[string]bool{}
	for _, sf := range scopes {
		p := filepath.Join(filepath.Dir(sf.Path), TestsFileName)
		if seen[p] {
			continue
		}
		seen[p] = true
		if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() {
			out = append(out, p)
		}
	}
	return out
}

// policyWarnings are the composed policy's warnings that no file error,
// note or lint already says.
func policyWarnings(p *policy.Policy, files []FileReport, lints []policy.Lint) []policy.Warning {
	said := map[string]bool{}
	key := func(path string, line int, msg string) string { return fmt.Sprintf("%s\x00%d\x00%s", path, line, msg) }
	for _, f := range files {
		for _, e := range append(append([]policy.Warning(nil), f.Errors...), f.Notes...) {
			said[key(e.Path, e.Line, e.Message)] = true
			said[key(e.Path, e.Line, policy.HintTypo(e.Message))] = true
		}
	}
	for _, l := range lints {
		said[key(l.Path, l.Line, l.Message)] = true
	}
	out := []policy.Warning{}
	for _, w := range p.Warnings {
		if !said[key(w.Path, w.Line, w.Message)] && !said[key(w.Path, w.Line, policy.HintTypo(w.Message))] {
			out = append(out, w)
		}
	}
	return out
}
