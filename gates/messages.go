package gates

import (
	"fmt"
	"strings"

	"github.com/toolgate/toolgate/gates/shell"
	"github.com/toolgate/toolgate/policy"
)

// promptTitle is the one-line title of every prompt.
const promptTitle = "Permission required"

// maxShown bounds a command or value quoted in a message.
const maxShown = 400

func subject(agent string) string {
	if agent != "" {
		return fmt.Sprintf("Agent '%s'", agent)
	}
	return "The agent"
}

// shorten keeps a quoted value readable; the full value is in the trace.
func shorten(s string) string {
	if len(s) <= maxShown {
		return s
	}
	return s[:maxShown] + "…"
}

// ruleRef says which rule decided, in words: its pattern and where it is
// written, or the floor that applied.
func ruleRef(d *Descriptor) string {
	switch {
	case d.Sentinel != "":
		return fmt.Sprintf("the safety floor %s", sentinelMeaning(d.Sentinel))
	case d.Rule == nil:
		return "no rule"
	case d.Session:
		return fmt.Sprintf("the session approval '%s'", d.Rule.Pattern)
	}
	o := d.Rule.Origin
	where := o.Scope
	if o.Path != "" {
		where = fmt.Sprintf("%s config %s:%d", o.Scope, o.Path, o.Line)
	}
	if d.Rule.IsFallback() {
		return fmt.Sprintf("the fallback \"*\": \"%s\" (%s)", d.Rule.Action, where)
	}
	return fmt.Sprintf("rule '%s' on %s (%s)", d.Rule.Pattern, d.Rule.Surface, where)
}

func sentinelMeaning(s string) string {
	switch s {
	case shell.SentinelOpaque:
		return s + " (code run from a string, a pipe or a sourced file cannot be checked, so it is asked)"
	case shell.SentinelIndirection:
		return s + " (a command that runs another command is always asked)"
	case shell.SentinelDynamic:
		return s + " (the command name is only known when it runs)"
	case shell.SentinelUnparseable:
		return s + " (the command could not be parsed)"
	case SentinelArming:
		return s + " (a change that makes later commands run code, such as git configuration and hooks or shell start-up files, is never made unasked)"
	case SentinelProtected:
		return s + " (toolgate's own policy files and audit log are never changed unasked)"
	}
	return s
}

// denyReason appends a deny rule's reason.
func denyReason(d *Descriptor) string {
	if d.Rule != nil && d.Rule.Reason != "" && d.Rule.Action == policy.Deny {
		return " Reason: " + strings.TrimRight(d.Rule.Reason, ".") + "."
	}
	return ""
}

// fillTexts writes the standard prompt and block texts. what names the
// thing ("bash command 'rm x'", "tool 'write' for path 'a.txt'"); detail
// adds context to the prompt only.
func fillTexts(d *Descriptor, agent, what, detail, question string) {
	if d.State == policy.Allow {
		return // only asks and denies are ever shown to anyone
	}
	d.Prompt = PromptText{
		Title:   promptTitle,
		Message: fmt.Sprintf("%s wants to use %s%s. It is asked by %s. %s", subject(agent), what, detail, ruleRef(d), question),
	}
	d.Text = Texts{
		Deny:        fmt.Sprintf("toolgate: %s is denied by %s.%s", what, ruleRef(d), denyReason(d)),
		Unavailable: fmt.Sprintf("toolgate: %s needs approval (%s), but no one can be asked: the host has no interactive UI.", what, ruleRef(d)),
		UserDenied:  fmt.Sprintf("toolgate: the user denied %s.", what),
	}
}
