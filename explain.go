package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/toolgate/toolgate/author"
	"github.com/toolgate/toolgate/gates"
	"github.com/toolgate/toolgate/hook"
	"github.com/toolgate/toolgate/policy"
	"github.com/toolgate/toolgate/sandbox"
)

// explain prints the decision and full trace of one call, in words. It
// exits 0 for allow, 1 for deny, 3 for ask and 2 for a usage error.
func explain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("explain", flag.ContinueOnError)
	tool := fs.String("tool", "", "tool name")
	input := fs.String("input", "{}", "tool input as JSON")
	cwd := fs.String("cwd", "", "working directory")
	agent := fs.String("agent", "", "agent name")
	asJSON := fs.Bool("json", false, "print the check result as JSON")
	host := fs.String("host", "", "decide as this host does ("+strings.Join(hook.HostNames, ", ")+"): its tool names, values and built-in allows")
	var configs multiFlag
	fs.Var(&configs, "config", "extra policy file (repeatable)")
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "toolgate explain: unexpected argument %q (the input goes in --input)\n%s", fs.Arg(0), usages["explain"])
		return 2
	}
	if *tool == "" {
		fmt.Fprintf(stderr, "toolgate explain: --tool is required\n%s", usages["explain"])
		return 2
	}
	if err := hook.CheckInputJSON([]byte(*input)); err != nil {
		fmt.Fprintf(stderr, "toolgate explain: --input: %v\n", err)
		return 2
	}
	if *host != "" && !hook.KnownHost(*host) {
		fmt.Fprintf(stderr, "toolgate explain: --host %q: not one of %s\n", *host, strings.Join(hook.HostNames, ", "))
		return 2
	}
	if *cwd != "" {
		if err := checkDir("--cwd", *cwd); err != nil {
			fmt.Fprintf(stderr, "toolgate explain: %v\n", err)
			return 2
		}
	}
	opts := oneShotOptions(*cwd, configs)
	opts.Host = *host
	ex, err := author.ExplainAll(opts, *tool, json.RawMessage(*input), *agent)
	res := ex.CheckResult
	if err != nil {
		fmt.Fprintf(stderr, "toolgate explain: %v\n", err)
		return 2
	}
	code := stateExit(res.State)
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(ex)
		return code
	}
	// The words are for a person: control, bidi and invisible characters
	// in any value are shown escaped.
	var text strings.Builder
	defer func(w io.Writer) { _, _ = io.WriteString(w, gates.VisibleText(text.String())) }(stdout)
	stdout = &text
	// The policy's warnings first: a broken file is the first
	// thing to know about a decision.
	for _, w := range ex.Warnings {
		fmt.Fprintf(stdout, "policy warning: %s\n", warningText(w.Path, w.Line, w.Column, policy.HintTypo(w.Message)))
	}
	if len(ex.Warnings) > 0 {
		fmt.Fprintln(stdout)
	}
	if c := ex.Confinement; c != nil {
		fmt.Fprintf(stdout, "confinement: sandbox %q; kernel confinement %s (Landlock ABI %d, namespaces %v)\n", c.Mode,
			map[bool]string{true: "available", false: "not available: " + sandbox.NotEnforced}[c.Available], c.LandlockABI, c.Namespaces)
		for _, m := range c.Missing {
			fmt.Fprintf(stdout, "  missing: %s\n", m)
		}
		if p := ex.Profile; p != nil {
			fmt.Fprintf(stdout, "  confined: writes in %d folders, %d paths read-only inside them, %d hidden, network %s\n",
				len(p.Write), len(p.ReadOnly), len(p.Hidden)+len(p.Sockets), map[bool]string{true: "off", false: "unchanged"}[p.NetworkOff])
			for _, w := range p.Write {
				fmt.Fprintf(stdout, "    writes: %s (%s)\n", w.Path, w.Why)
			}
			for _, u := range p.Unenforced {
				fmt.Fprintf(stdout, "    not kernel-enforced: %s\n", u)
			}
		}
		fmt.Fprintln(stdout)
	}
	fmt.Fprintf(stdout, "%s %s → %s\n", *tool, *input, strings.ToUpper(res.State))
	if d := res.Decision; d != nil {
		fmt.Fprintf(stdout, "decided by the %s gate on surface %q, value %q%s\n\n", d.Gate, d.Surface, d.Value, ruleWords(d.MatchedPattern, d.Origin))
	}
	for _, e := range res.Trace {
		if !e.Applied {
			note := e.Note
			if note == "" {
				note = "does not apply"
			}
			fmt.Fprintf(stdout, "  %-24s —  %s\n", e.Gate, note)
			continue
		}
		fmt.Fprintf(stdout, "  %-24s %-5s %s %q%s\n", e.Gate, e.State, e.Surface, e.Value, ruleWords(e.MatchedPattern, e.Origin))
		if len(e.Forms) > 0 {
			fmt.Fprintf(stdout, "  %-24s       forms matched: %s\n", "", strings.Join(e.Forms, ", "))
		}
		if e.Note != "" {
			fmt.Fprintf(stdout, "  %-24s       %s\n", "", e.Note)
		}
	}
	for _, gm := range ex.Matches {
		fmt.Fprintf(stdout, "\n%s: rules on %s matching %s, in order (the last match wins; ← marks the rule that decided):\n", gm.Gate, gm.Surface, strings.Join(quoteAll(gm.Values), ", "))
		for _, m := range gm.Rules {
			win := ""
			if m.Wins {
				win = "  ← wins"
			}
			fmt.Fprintf(stdout, "  %-5s %-30s %s%s\n", m.Action, m.Pattern, strings.TrimPrefix(originWords(m.Origin), ", "), win)
			if m.MatchedAs != "" {
				fmt.Fprintf(stdout, "  %-5s %-30s matched as %s (the options' canonical spelling)\n", "", "", "'"+gates.Visible(m.MatchedAs)+"'")
			}
		}
	}
	fmt.Fprintln(stdout, "\nA trust-floor deny, a session approval or a safety floor (sentinels like <indirection-bash-wrapper>) can decide over the last match; the decision line above is final.")
	return code
}

// stateExit is explain's exit status for a state: 0 allow, 1 deny, 3 ask
// (anything else, which cannot happen, is a deny).
func stateExit(state string) int {
	switch state {
	case "allow":
		return 0
	case "ask":
		return 3
	}
	return 1
}
