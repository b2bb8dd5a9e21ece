package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolgate/toolgate/author"
	"github.com/toolgate/toolgate/gates"
	"github.com/toolgate/toolgate/policy"
)

type fileReport struct {
	Path   string           `json:"path"`
	Scope  string           `json:"scope,omitempty"`
	OK     bool             `json:"ok"`
	Errors []policy.Warning `json:"errors"`
	Notes  []policy.Warning `json:"notes,omitempty"`
}

type validateReport struct {
	OK    bool          `json:"ok"`
	Files []fileReport  `json:"files"`
	Lints []policy.Lint `json:"lints"`
	// Warnings are the composed policy's own warnings (a knob a project
	// may not set, a broken file's consequence) beyond the files' errors.
	Warnings []policy.Warning `json:"warnings"`
	// LookedFor lists the files a session would read, when none exists.
	LookedFor []string `json:"lookedFor,omitempty"`
	// Tests are the toolgate-tests.jsonl files beside the checked files.
	Tests []testsReport `json:"tests"`
}

type testsReport struct {
	File   string   `json:"file"`
	Cases  int      `json:"cases"`
	Failed []string `json:"failed"`
}

// validate parses policy files and lints the policy they make: errors with
// file:line:col (exit 1), then advice (exit 0). Without FILE arguments it
// checks the files a session in the current directory would read. The
// cases of a toolgate-tests.jsonl beside a checked file run too: without
// FILE against the session's policy, with FILE against it plus the FILEs
// (as --config files).
func validate(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print a JSON report")
	agent := fs.String("agent", "", "also check this agent's files (without FILE arguments)")
	cwd := fs.String("cwd", "", "working directory (without FILE arguments)")
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	home, agentDir := environment()
	var scopes []policy.ScopeFile
	rep := validateReport{OK: true, Files: []fileReport{}, Lints: []policy.Lint{}, Tests: []testsReport{}}
	opts, err := commandOptions(*cwd, fs.Args())
	if err != nil {
		fmt.Fprintf(stderr, "toolgate validate: %v\n", err)
		return 2
	}
	var untrusted []policy.Warning
	if fs.NArg() == 0 {
		p := policy.NewLoader().Policy(policy.Locations{AgentDir: agentDir, Home: home, ConfigHome: configHome(home), ManagedDir: os.Getenv("TOOLGATE_MANAGED_DIR"), Cwd: opts.Cwd, ProjectTrusted: true, AgentName: *agent})
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
					rep.LookedFor = append(rep.LookedFor, policy.ToolgateGlobalPath(configHome(home), home))
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
		fr := fileReport{Path: sf.Path, Scope: sf.Scope, OK: true, Errors: []policy.Warning{}}
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
	var testOut strings.Builder
	for _, tf := range testsBeside(scopes) {
		tr := testsReport{File: tf, Failed: []string{}}
		cases, err := author.ReadCasesFile(tf)
		if err != nil {
			fmt.Fprintf(&testOut, "%s: error: %v\n", tf, err)
			tr.Failed = append(tr.Failed, err.Error())
		} else {
			tr.Cases = len(cases)
			cr := author.NewCaseRunner(opts)
			for _, c := range cases {
				if c.Agent == "" {
					c.Agent = *agent
				}
				if res := cr.Run(c); !res.Pass {
					fmt.Fprintf(&testOut, "%s: test failed: %s\n", c.Where(), res.Reason)
					if d := res.Got.Decision; d != nil {
						fmt.Fprintf(&testOut, "  decided by the %s gate on surface %q, value %q%s\n", d.Gate, d.Surface, d.Value, ruleWords(d.MatchedPattern, d.Origin))
					}
					tr.Failed = append(tr.Failed, c.Where()+": "+res.Reason)
				}
			}
			if len(tr.Failed) == 0 {
				fmt.Fprintf(&testOut, "%s: %d cases pass\n", tf, tr.Cases)
			}
		}
		rep.OK = rep.OK && len(tr.Failed) == 0
		rep.Tests = append(rep.Tests, tr)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(rep)
	} else {
		printValidate(stdout, rep)
		fmt.Fprint(stdout, testOut.String())
	}
	if !rep.OK {
		return 1
	}
	return 0
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

func printValidate(out io.Writer, rep validateReport) {
	// For a person: control, bidi and invisible characters in a path (a
	// project directory's name) or a message are shown escaped (SPEC §5).
	var text strings.Builder
	defer func() { _, _ = io.WriteString(out, gates.VisibleText(text.String())) }()
	w := &text
	if len(rep.Files) == 0 {
		fmt.Fprintln(w, "no policy files found (everything falls to the built-in \"*\": \"ask\"); looked for:")
		for _, p := range rep.LookedFor {
			fmt.Fprintf(w, "  %s\n", p)
		}
	}
	for _, f := range rep.Files {
		if f.OK {
			fmt.Fprintf(w, "%s: ok\n", f.Path)
		}
		for _, e := range f.Errors {
			fmt.Fprintf(w, "%s: error: %s\n", position(e.Path, e.Line, e.Column), e.Message)
		}
		for _, n := range f.Notes {
			fmt.Fprintf(w, "%s: note: %s\n", position(n.Path, n.Line, n.Column), n.Message)
		}
	}
	for _, pw := range rep.Warnings {
		fmt.Fprintf(w, "%s: warning: %s\n", position(pw.Path, pw.Line, pw.Column), pw.Message)
	}
	for _, l := range rep.Lints {
		fmt.Fprintf(w, "%s: warning (%s): %s\n", position(l.Path, l.Line, 0), l.Kind, l.Message)
	}
}

func position(path string, line, col int) string {
	switch {
	case line > 0 && col > 0:
		return fmt.Sprintf("%s:%d:%d", path, line, col)
	case line > 0:
		return fmt.Sprintf("%s:%d", path, line)
	}
	return path
}

// testsBeside are the toolgate-tests.jsonl files in the folders of the
// checked policy files, each once.
func testsBeside(scopes []policy.ScopeFile) []string {
	var out []string
	seen := map[string]bool{}
	for _, sf := range scopes {
		p := filepath.Join(filepath.Dir(sf.Path), author.TestsFileName)
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
func policyWarnings(p *policy.Policy, files []fileReport, lints []policy.Lint) []policy.Warning {
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
