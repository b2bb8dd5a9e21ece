package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

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
}

// validate parses policy files and lints the policy they make: errors with
// file:line:col (exit 1), then advice (exit 0). Without FILE arguments it
// checks the files a session in the current directory would read.
func validate(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print a JSON report")
	agent := fs.String("agent", "", "also check this agent's files (without FILE arguments)")
	cwd := fs.String("cwd", "", "working directory (without FILE arguments)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	home, agentDir := environment()
	var scopes []policy.ScopeFile
	if fs.NArg() == 0 {
		dir := *cwd
		if dir == "" {
			dir, _ = os.Getwd()
		}
		dir, _ = filepath.Abs(dir)
		p := policy.NewLoader().Policy(policy.Locations{AgentDir: agentDir, Home: home, ConfigHome: configHome(home), Cwd: dir, ProjectTrusted: true, AgentName: *agent})
		for _, src := range p.Sources {
			if src.Exists {
				scopes = append(scopes, readScope(src.Scope, src.Path, src.Scope == policy.ScopeGlobal || src.Scope == policy.ScopeAgent))
			}
		}
	} else {
		for _, f := range fs.Args() {
			abs, _ := filepath.Abs(f)
			scopes = append(scopes, readScope(policy.ScopeGlobal, abs, true))
		}
	}
	rep := validateReport{OK: true, Files: []fileReport{}, Lints: []policy.Lint{}}
	for _, sf := range scopes {
		fr := fileReport{Path: sf.Path, Scope: sf.Scope, OK: true, Errors: []policy.Warning{}}
		if sf.File != nil {
			fr.Errors = append(fr.Errors, sf.File.Errors...)
			fr.Notes = sf.File.Notes
		}
		fr.OK = len(fr.Errors) == 0
		rep.OK = rep.OK && fr.OK
		rep.Files = append(rep.Files, fr)
	}
	if lints := policy.LintPolicy(policy.Compose(scopes, home)); lints != nil {
		rep.Lints = lints
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(rep)
	} else {
		printValidate(stdout, rep)
	}
	if !rep.OK {
		return 1
	}
	return 0
}

func readScope(scope, path string, trusted bool) policy.ScopeFile {
	sf := policy.ScopeFile{Scope: scope, Path: path, Trusted: trusted, Exists: true}
	data, err := os.ReadFile(path)
	if err != nil {
		sf.File = &policy.File{Path: path, Errors: []policy.Warning{{Path: path, Message: err.Error()}}}
		return sf
	}
	if strings.HasSuffix(path, ".md") {
		sf.File = policy.ParseAgentFile(path, data)
	} else {
		sf.File = policy.ParseFile(path, data)
	}
	return sf
}

func printValidate(w io.Writer, rep validateReport) {
	if len(rep.Files) == 0 {
		fmt.Fprintln(w, "no policy files found (everything falls to the built-in \"*\": \"ask\")")
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
