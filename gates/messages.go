package gates

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toolgate/toolgate/gates/shell"
	"github.com/toolgate/toolgate/policy"
)

// promptTitle is the one-line title of every prompt.
const promptTitle = "Permission required"

// maxMessage bounds a prompt message. A message that would be longer
// (after long data is elided) cannot be shown whole, so its ask cannot be
// approved: the call is blocked instead.
const maxMessage = 16 * 1024

// maxReasonPart bounds what a block reason quotes of a value; a reason
// allows nothing, so cutting it hides nothing from an approval.
const maxReasonPart = 1000

func subject(agent string) string {
	if agent != "" {
		return fmt.Sprintf("Agent '%s'", Visible(agent))
	}
	return "The agent"
}

// quote is a value as a person reads it in a message: whole, escaped, in
// single quotes.
func quote(s string) string { return "'" + Visible(s) + "'" }

// clip bounds a text quoted in a block reason.
func clip(s string) string {
	if len(s) <= maxReasonPart {
		return s
	}
	cut := maxReasonPart
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (%d bytes more)", len(s)-cut)
}

// shownCommand is a full shell command for a prompt: long data elided with
// a visible marker, nothing else cut, every invisible character escaped.
// When the command runs code it is given (an interpreter, a shell, a
// floored unit), its strings and heredocs are that code: nothing is elided.
func shownCommand(m *Memo, cmd string, a *shell.Analysis) string {
	if runsCode(a) {
		return quote(cmd)
	}
	return quote(m.elideData(cmd))
}

// runsCode reports whether any unit of the analysis runs code given to it
// (so its quoted strings and heredoc bodies are code, not data).
func runsCode(a *shell.Analysis) bool {
	if a == nil || a.Unparseable {
		return true
	}
	for _, u := range a.Units {
		if u.Floor != "" || u.Context == shell.CtxPayload || shell.RunsCode(u.Text) {
			return true
		}
	}
	return false
}

// ruleRef says which rule decided, in words: its pattern and where it is
// written, or the floor that applied.
func ruleRef(d *Descriptor) string {
	switch {
	case d.Sentinel != "":
		return "the safety floor " + sentinelMeaning(d.Sentinel)
	case d.Rule == nil:
		return "no rule"
	case d.Session:
		return "the session approval " + quote(d.Rule.Pattern)
	}
	// Joined, not formatted: this is on every asked and denied call's way.
	o := d.Rule.Origin
	where := o.Scope
	if o.Path != "" {
		where = o.Scope + " config " + Visible(o.Path) + ":" + strconv.Itoa(o.Line)
	}
	if d.Rule.IsFallback() {
		return "the fallback \"*\": \"" + d.Rule.Action.String() + "\" (" + where + ")"
	}
	ref := "rule " + quote(d.Rule.Pattern) + " on " + Visible(d.Rule.Surface) + " (" + where + ")"
	if d.MatchedAs != "" {
		ref += ", matched as " + quote(d.MatchedAs)
	}
	return ref
}

func sentinelMeaning(s string) string {
	switch s {
	case shell.SentinelOpaque:
		return s + " (code run from a string, a pipe or a sourced file cannot be checked, so it is asked)"
	case shell.SentinelForeign:
		return s + " (code in another language, or a file this command wrote, cannot be checked, so it is asked; a rule naming the program with its code option, like \"python3 -c *\", decides it)"
	case shell.SentinelIndirection:
		return s + " (a command that runs another command is always asked)"
	case shell.SentinelDynamic:
		return s + " (part of it is only known when it runs: the command name, words that could be options a rule for this command names, or text bash runs as arithmetic)"
	case shell.SentinelUnparseable:
		return s + " (the command could not be parsed)"
	case SentinelGlobIncomplete:
		return s + " (the glob selects more files than toolgate lists, and a path rule could apply to one of them)"
	case SentinelArming:
		return s + " (a change that makes later commands run code, such as git configuration and hooks or shell start-up files, is never made unasked)"
	case shell.SentinelSelf:
		return s + " (a command that runs toolgate itself could trust a project or change toolgate's state for the person, so it is asked every time)"
	case SentinelProtected:
		return s + " (toolgate's own policy files and audit log are never changed unasked)"
	}
	return s
}

// denyReason appends a deny rule's reason.
func denyReason(d *Descriptor) string {
	if d.Rule != nil && d.Rule.Reason != "" && d.Rule.Action == policy.Deny {
		return " Reason: " + Visible(strings.TrimRight(d.Rule.Reason, ".")) + "."
	}
	return ""
}

// fillTexts writes the standard prompt and block texts. what names the
// thing ("bash command 'rm x'", "tool 'write' for path 'a.txt'"), with
// every value in it already passed through quote or Visible; detail adds
// lines to the prompt only. A prompt too long to show marks the descriptor
// Unshowable.
func fillTexts(d *Descriptor, agent, what, detail, question string) {
	if d.State == policy.Allow {
		return // only asks and denies are ever shown to anyone
	}
	ref := ruleRef(d)
	d.Prompt = PromptText{
		Title:   promptTitle,
		Message: VisibleText(subject(agent) + " wants to use " + what + ". It is asked by " + ref + "." + detail + "\n" + question),
	}
	short := VisibleText(clip(what))
	d.Text = Texts{
		Deny:        VisibleText("toolgate: " + short + " is denied by " + ref + "." + denyReason(d)),
		Unavailable: VisibleText("toolgate: " + short + " needs approval (" + ref + "), but no one can be asked: the host has no interactive UI."),
		UserDenied:  VisibleText("toolgate: the user denied " + short + "."),
	}
	checkShowable(d, short, ref)
}

// checkShowable marks a descriptor whose prompt is too long to be shown
// whole: what cannot be shown cannot be allowed.
func checkShowable(d *Descriptor, short, ref string) {
	if len(d.Prompt.Message) <= maxMessage {
		d.Unshowable = ""
		return
	}
	d.Unshowable = VisibleText(fmt.Sprintf("toolgate: %s needs approval (%s), but it is too long to show whole in a prompt (%d bytes, even with long data elided; at most %d), so it cannot be approved and is blocked.",
		short, ref, len(d.Prompt.Message), maxMessage))
}

// brokenNoter is a Resolver that can say which policy file is broken.
type brokenNoter interface{ BrokenNote() string }

// noteBroken appends to an outcome's prompt and block texts which policy
// file is broken while one is: a broken file could have decided any call
// . Allows are never shown, so they get nothing.
func noteBroken(o *Outcome, res Resolver) {
	bn, ok := res.(brokenNoter)
	if !ok || o.Kind != Checked || o.D.State == policy.Allow {
		return
	}
	note := Visible(bn.BrokenNote()) // a file's path (the project's directory) and problem, for a person
	if note == "" {
		return
	}
	o.D.Prompt.Message += note
	o.D.Text.Deny += note
	o.D.Text.Unavailable += note
}

// noteUntrusted tells, in every text a person or the model reads of o,
// that an untrusted project file would have answered the call otherwise
// (with, the gate's outcome on the side with the file), and how to trust
// it.
func noteUntrusted(o *Outcome, with Outcome, trust string) {
	what := "allow this"
	if strictness(with) == policy.Ask {
		what = "ask about this instead"
	}
	who := "an untrusted project file"
	if r := with.D.Rule; with.Kind == Checked && r != nil && (r.Origin.Scope == policy.ScopeProject || r.Origin.Scope == policy.ScopeProjectAgent) {
		who = fmt.Sprintf("the untrusted project rule %s on %s (%s:%d)", quote(r.Pattern), Visible(r.Surface), Visible(r.Origin.Path), r.Origin.Line)
	}
	note := fmt.Sprintf(" (note: %s would %s, but a project file loosens nothing until the person trusts it: `%s`)", who, what, Visible(trust))
	o.D.Prompt.Message += note
	o.D.Text.Deny += note
	o.D.Text.Unavailable += note
	o.D.Text.UserDenied += note
}
