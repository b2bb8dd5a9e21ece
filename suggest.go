package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolgate/toolgate/author"
	"github.com/toolgate/toolgate/hook"
	"github.com/toolgate/toolgate/internal/textdiff"
	"github.com/toolgate/toolgate/policy"
)

// suggest prints the allow rules that would have spared the prompts a
// person answered "allow" again and again, as an edit to a policy file,
// and with --apply makes it (SPEC §6).
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
	so := author.SuggestOptions{Min: *minimum, Project: projectRoot(target)}
	rep, err := author.Suggest(opts, recs, so)
	if err != nil {
		fmt.Fprintf(stderr, "toolgate suggest: %v\n", err)
		return 1
	}
	old, err := os.ReadFile(target)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(stderr, "toolgate suggest: %v\n", err)
		return 1
	}
	if strings.HasSuffix(target, ".md") {
		fmt.Fprintf(stderr, "toolgate suggest: %s is an agent file; choose a JSON policy file with --file\n", target)
		return 2
	}
	if len(old) > 0 {
		if pf := policy.ParseFile(target, old); len(pf.Errors) > 0 {
			fmt.Fprintf(stderr, "toolgate suggest: %s has errors; fix them first (toolgate validate %s): %s\n", target, target, pf.Errors[0])
			return 1
		}
	}
	var adds []policy.Addition
	for _, s := range rep.Suggestions {
		adds = append(adds, policy.Addition{Surface: s.Surface, Pattern: s.Pattern, Action: policy.Allow})
	}
	edited := old
	if len(adds) > 0 {
		if edited, err = policy.AddRules(old, adds); err != nil {
			fmt.Fprintf(stderr, "toolgate suggest: %s: %v\n", target, err)
			return 1
		}
		if pf := policy.ParseFile(target, edited); len(pf.Errors) > 0 {
			// Cannot happen for a file that parsed; never write one that does not.
			fmt.Fprintf(stderr, "toolgate suggest: the edited %s would not be valid: %s\n", target, pf.Errors[0])
			return 1
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(rep)
	} else {
		printSuggestions(stdout, log, *minimum, rep)
		if len(adds) > 0 {
			fmt.Fprintf(stdout, "\nThe edit to %s:\n\n%s", target, textdiff.Unified(string(old), string(edited), target, target+" (suggested)"))
		}
	}
	if len(adds) == 0 {
		return 0
	}
	if !usedBySessions(opts, target) {
		fmt.Fprintf(stderr, "toolgate suggest: note: %s is not a file sessions here read; pass it with --config, or choose another --file\n", target)
	}
	if !*apply {
		if !*asJSON {
			fmt.Fprintf(stdout, "\nRun again with --apply to write it.\n")
		}
		return 0
	}
	if err := writeFileAtomic(target, edited); err != nil {
		fmt.Fprintf(stderr, "toolgate suggest: %v\n", err)
		return 1
	}
	if !*asJSON {
		fmt.Fprintf(stdout, "\nWritten: %s (check it with: toolgate validate %s)\n", target, target)
		if root, ok := projectOf(target, opts.Cwd); ok {
			// The edit untrusted the file: its new allows wait for the
			// person (SPEC §1.1).
			fmt.Fprintf(stdout, "It is a project file, and an edit untrusts it: its rules loosen nothing until you trust it again:\n  toolgate trust %s\n", root)
		}
	}
	return 0
}

// projectOf reports whether target is one of the project-scope policy
// files of the project at cwd, and that project's folder.
func projectOf(target, cwd string) (string, bool) {
	for _, p := range []string{policy.ProjectPath(cwd), policy.ToolgateProjectPath(cwd), policy.LegacyProjectPath(cwd)} {
		if filepath.Clean(target) == p {
			return cwd, true
		}
	}
	if filepath.Dir(filepath.Clean(target)) == filepath.Join(cwd, ".pi", "agents") {
		return cwd, true
	}
	return "", false
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

// projectRoot is the root of the project whose policy file path is (the
// folder holding its .toolgate or .pi folder), "" when path is no
// project's policy file. A project's file is shared with the project, so
// it must hold no absolute path.
func projectRoot(path string) string {
	for _, tail := range []string{
		filepath.Join(".toolgate", "config.json"),
		filepath.Join(".pi", "extensions", "pi-permission-system", "config.json"),
	} {
		if strings.HasSuffix(path, string(filepath.Separator)+tail) {
			return strings.TrimSuffix(path, string(filepath.Separator)+tail)
		}
	}
	return ""
}

// usedBySessions reports whether path is one of the policy files a session
// in the current directory reads.
func usedBySessions(opts hook.Options, path string) bool {
	for _, s := range author.PolicySources(opts).Sources {
		if s.Path == path {
			return true
		}
	}
	return false
}

// writeFileAtomic replaces path with data through a temporary file in the
// same folder (a reader never sees half a policy), keeping its mode.
func writeFileAtomic(path string, data []byte) error {
	mode := fs.FileMode(0o600)
	if info, err := os.Stat(path); err == nil {
		mode = info.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".toolgate-suggest-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
