package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/toolgate/toolgate/author"
	"github.com/toolgate/toolgate/gates"
)

// validate parses policy files and lints the policy they make
// (author.Validate): errors with file:line:col (exit 1), then advice (exit
// 0). Without FILE arguments it checks the files a session in the current
// directory would read. The cases of a toolgate-tests.jsonl beside a
// checked file run too: without FILE against the session's policy, with
// FILE against it plus the FILEs (as --config files).
func validate(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print a JSON report")
	agent := fs.String("agent", "", "also check this agent's files (without FILE arguments)")
	cwd := fs.String("cwd", "", "working directory (without FILE arguments)")
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	opts, err := commandOptions(*cwd, fs.Args())
	if err != nil {
		fmt.Fprintf(stderr, "toolgate validate: %v\n", err)
		return 2
	}
	rep := author.Validate(opts, *agent)
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(rep)
	} else {
		printValidate(stdout, rep)
		printTests(stdout, rep.Tests)
	}
	if !rep.OK {
		return 1
	}
	return 0
}

func printValidate(out io.Writer, rep author.ValidateReport) {
	// For a person: control, bidi and invisible characters in a path (a
	// project directory's name) or a message are shown escaped.
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

// printTests says how the cases of each tests file went.
func printTests(w io.Writer, tests []author.TestsReport) {
	for _, tr := range tests {
		if tr.Err != nil {
			fmt.Fprintf(w, "%s: error: %v\n", tr.File, tr.Err)
			continue
		}
		for _, res := range tr.Failures {
			fmt.Fprintf(w, "%s: test failed: %s\n", res.Case.Where(), res.Reason)
			if d := res.Got.Decision; d != nil {
				fmt.Fprintf(w, "  decided by the %s gate on surface %q, value %q%s\n", d.Gate, d.Surface, d.Value, ruleWords(d.MatchedPattern, d.Origin))
			}
		}
		if len(tr.Failures) == 0 {
			fmt.Fprintf(w, "%s: %d cases pass\n", tr.File, tr.Cases)
		}
	}
}
