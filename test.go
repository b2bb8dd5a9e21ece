package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/toolgate/toolgate/author"
	"github.com/toolgate/toolgate/hook"
	"github.com/toolgate/toolgate/policy"
)

// testCmd runs policy tests: exit 0 when every case passes, 1
// when one fails, 2 for a usage error.
func testCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	var configs multiFlag
	fs.Var(&configs, "config", "extra policy file (repeatable)")
	cwd := fs.String("cwd", "", "working directory of cases without cwd")
	agent := fs.String("agent", "", "agent of cases without agent")
	verbose := fs.Bool("v", false, "list passing cases too")
	fromAudit := fs.String("from-audit", "", "write the recorded calls of an audit log as cases")
	outFile := fs.String("o", "", "with --from-audit: the file to write")
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	opts, err := commandOptions(*cwd, configs)
	if err != nil {
		fmt.Fprintf(stderr, "toolgate test: %v\n", err)
		return 2
	}
	if *fromAudit != "" {
		if fs.NArg() > 0 {
			fmt.Fprintf(stderr, "toolgate test: --from-audit takes no CASES\n%s", usages["test"])
			return 2
		}
		return casesFromAudit(opts, *fromAudit, *outFile, stdout, stderr)
	}
	if *outFile != "" {
		fmt.Fprintf(stderr, "toolgate test: -o needs --from-audit\n%s", usages["test"])
		return 2
	}
	files := fs.Args()
	if len(files) == 0 {
		var looked []string
		files, looked = author.DefaultCaseFiles(opts, *agent)
		if len(files) == 0 {
			fmt.Fprintf(stderr, "toolgate test: no CASES given and no %s beside the policy files; looked in:\n", author.TestsFileName)
			for _, d := range looked {
				fmt.Fprintf(stderr, "  %s\n", d)
			}
			return 2
		}
	}
	var cases []author.TestCase
	for _, f := range files {
		cs, err := author.ReadCasesFile(f)
		if err != nil {
			fmt.Fprintf(stderr, "toolgate test: %v\n", err)
			return 2
		}
		cases = append(cases, cs...)
	}
	if len(cases) == 0 {
		fmt.Fprintf(stderr, "toolgate test: %s: no cases\n", strings.Join(files, ", "))
		return 2
	}
	if runCases(opts, *agent, cases, *verbose, stdout) {
		return 0
	}
	return 1
}

// runCases runs cases and prints each failure (and, verbose, each pass)
// and a summary; it reports whether all passed.
func runCases(opts hook.Options, agent string, cases []author.TestCase, verbose bool, w io.Writer) bool {
	for _, pw := range author.PolicySources(opts).Warnings {
		fmt.Fprintf(w, "policy warning: %s\n", warningText(pw.Path, pw.Line, pw.Column, policy.HintTypo(pw.Message)))
	}
	failed := 0
	for _, res := range author.RunCases(opts, agent, cases) {
		c := res.Case
		if res.Pass {
			if verbose {
				fmt.Fprintf(w, "ok   %s: %s %s → %s\n", c.Where(), c.Tool, compactJSON(c.Input), res.Got.State)
			}
			continue
		}
		failed++
		fmt.Fprintf(w, "FAIL %s: %s %s\n", c.Where(), c.Tool, compactJSON(c.Input))
		fmt.Fprintf(w, "     %s\n", res.Reason)
		if d := res.Got.Decision; d != nil {
			fmt.Fprintf(w, "     decided by the %s gate on surface %q, value %q%s\n", d.Gate, d.Surface, d.Value, ruleWords(d.MatchedPattern, d.Origin))
		}
	}
	fmt.Fprintf(w, "%d cases, %d passed, %d failed\n", len(cases), len(cases)-failed, failed)
	return failed == 0
}

// casesFromAudit writes today's decision of every recorded call of an
// audit log as a case (author.CasesFromAudit), to pin behavior before an
// edit.
func casesFromAudit(opts hook.Options, log, outFile string, stdout, stderr io.Writer) int {
	recs, ok := readAuditLog("test", log, stderr)
	if !ok {
		return 2
	}
	cases, skipped := author.CasesFromAudit(opts, recs, log)
	var out strings.Builder
	n := 0
	for _, c := range cases {
		line, err := json.Marshal(c)
		if err != nil {
			skipped++
			continue
		}
		out.Write(line)
		out.WriteByte('\n')
		n++
	}
	if outFile != "" {
		if err := os.WriteFile(outFile, []byte(out.String()), 0o600); err != nil {
			fmt.Fprintf(stderr, "toolgate test: %v\n", err)
			return 1
		}
	} else {
		fmt.Fprint(stdout, out.String())
	}
	fmt.Fprintf(stderr, "%d cases written, %d recorded calls skipped (no input recorded, or one cut short)\n", n, skipped)
	return 0
}
