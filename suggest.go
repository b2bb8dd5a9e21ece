package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/toolgate/toolgate/author"
	"github.com/toolgate/toolgate/internal/textdiff"
	"github.com/toolgate/toolgate/policy"
)

// suggest prints the allow rules that would have spared the prompts a
// person answered "allow" again and again, as an edit to a policy file,
// and with --apply makes it.
func suggest(args []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("suggest", flag.ContinueOnError)
	minimum := fset.Int("min", 2, "approvals needed before a rule is suggested")
	file := fset.String("file", "", "the policy file to edit (default: the global config)")
	apply := fset.Bool("apply", false, "write the edit")
	asJSON := fset.Bool("json", false, "print the suggestions as JSON")
	var configs multiFlag
	fset.Var(&configs, "config", "extra policy file of the sessions (repeatable)")
	if code, ok := parseFlags(fset, args, stdout, stderr); !ok {
		return code
	}
	if fset.NArg() > 1 {
		fmt.Fprintf(stderr, "toolgate suggest: unexpected argument %q (one AUDITLOG)\n%s", fset.Arg(1), usages["suggest"])
		return 2
	}
	if *minimum < 1 {
		fmt.Fprintf(stderr, "toolgate suggest: --min must be at least 1, not %d\n", *minimum)
		return 2
	}
	opts, err := commandOptions("", configs)
	if err != nil {
		fmt.Fprintf(stderr, "toolgate suggest: %v\n", err)
		return 2
	}
	target := *file
	if target == "" {
		target = policy.GlobalPath(opts.AgentDir)
	}
	if target, err = filepath.Abs(target); err != nil {
		fmt.Fprintf(stderr, "toolgate suggest: --file: %v\n", err)
		return 2
	}
	log := fset.Arg(0)
	if log == "" {
		log = author.DefaultAuditLog(opts)
	}
	recs, ok := readAuditLog("suggest", log, stderr)
	if !ok {
		return 2
	}
	so := author.SuggestOptions{Min: *minimum, Project: author.ProjectRoot(target)}
	rep, err := author.Suggest(opts, recs, so)
	if err != nil {
		fmt.Fprintf(stderr, "toolgate suggest: %v\n", err)
		return 1
	}
	edit, err := author.EditFor(target, rep)
	if err != nil {
		fmt.Fprintf(stderr, "toolgate suggest: %v\n", err)
		if errors.Is(err, author.ErrAgentFile) {
			return 2
		}
		return 1
	}
	old, edited, adds := edit.Old, edit.New, edit.Adds
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(rep)
	} else {
		printSuggestions(stdout, log, *minimum, rep)
		if adds > 0 {
			fmt.Fprintf(stdout, "\nThe edit to %s:\n\n%s", target, textdiff.Unified(string(old), string(edited), target, target+" (suggested)"))
		}
	}
	if adds == 0 {
		return 0
	}
	if !author.UsedBySessions(opts, target) {
		fmt.Fprintf(stderr, "toolgate suggest: note: %s is not a file sessions here read; pass it with --config, or choose another --file\n", target)
	}
	if !*apply {
		if !*asJSON {
			fmt.Fprintf(stdout, "\nRun again with --apply to write it.\n")
		}
		return 0
	}
	if err := author.WriteFileAtomic(target, edited); err != nil {
		fmt.Fprintf(stderr, "toolgate suggest: %v\n", err)
		return 1
	}
	if !*asJSON {
		fmt.Fprintf(stdout, "\nWritten: %s (check it with: toolgate validate %s)\n", target, target)
		if root, ok := author.ProjectOf(target, opts.Cwd); ok {
			// The edit untrusted the file: its new allows wait for the
			// person.
			fmt.Fprintf(stdout, "It is a project file, and an edit untrusts it: its rules loosen nothing until you trust it again:\n  toolgate trust %s\n", root)
		}
	}
	return 0
}

func printSuggestions(w io.Writer, log string, minimum int, rep author.SuggestReport) {
	fmt.Fprintf(w, "%s: %d calls with a prompt answered \"allow\"\n", log, rep.Approved)
	if len(rep.Suggestions) == 0 {
		fmt.Fprintf(w, "No rule to suggest (a rule needs %d approvals; --min changes that).\n", minimum)
	} else {
		rules := "rules"
		if len(rep.Suggestions) == 1 {
			rules = "rule"
		}
		fmt.Fprintf(w, "%d %s would have spared %d of them:\n", len(rep.Suggestions), rules, rep.Spared)
		for _, s := range rep.Suggestions {
			fmt.Fprintf(w, "  %s %q: \"allow\"   approved in %d calls (%s)\n", s.Surface, s.Pattern, s.Calls, joinQuoted(s.Examples))
		}
	}
	if len(rep.NotSuggested) > 0 {
		fmt.Fprintln(w, "Approved, but no rule suggested:")
		for _, n := range rep.NotSuggested {
			fmt.Fprintf(w, "  %s %q (%d): %s\n", n.Surface, n.Value, n.Calls, n.Why)
		}
	}
}

func joinQuoted(ss []string) string {
	out := ""
	for i, s := range ss {
		if i > 0 {
			out += ", "
		}
		out += fmt.Sprintf("%q", s)
	}
	return out
}
