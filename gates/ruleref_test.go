package gates

import (
	"fmt"
	"testing"

	"github.com/toolgate/toolgate/gates/shell"
	"github.com/toolgate/toolgate/policy"
)

// ruleRefFormatted is ruleRef as it was written with fmt: its plain twin.
func ruleRefFormatted(d *Descriptor) string {
	switch {
	case d.Sentinel != "":
		return fmt.Sprintf("the safety floor %s", sentinelMeaning(d.Sentinel))
	case d.Rule == nil:
		return "no rule"
	case d.Session:
		return fmt.Sprintf("the session approval %s", quote(d.Rule.Pattern))
	}
	o := d.Rule.Origin
	where := o.Scope
	if o.Path != "" {
		where = fmt.Sprintf("%s config %s:%d", o.Scope, Visible(o.Path), o.Line)
	}
	if d.Rule.IsFallback() {
		return fmt.Sprintf("the fallback \"*\": \"%s\" (%s)", d.Rule.Action, where)
	}
	ref := fmt.Sprintf("rule %s on %s (%s)", quote(d.Rule.Pattern), Visible(d.Rule.Surface), where)
	if d.MatchedAs != "" {
		ref += ", matched as " + quote(d.MatchedAs)
	}
	return ref
}

// TestRuleRefIsFormatted: ruleRef, joined rather than formatted, writes
// what fmt wrote, for every kind of rule reference.
func TestRuleRefIsFormatted(t *testing.T) {
	rule := func(surface, pattern string, a policy.Action, layer policy.Layer, o policy.Origin) *policy.Rule {
		r := policy.NewRule(surface, pattern, a, layer, o, "/home/u")
		return &r
	}
	global := policy.Origin{Scope: "global", Path: "/home/u/.pi/agent/extensions/pi-permission-system/config.json", Line: 12}
	cases := []Descriptor{
		{Sentinel: SentinelProtected},
		{Sentinel: shell.SentinelOpaque},
		{Sentinel: "<something-new>"},
		{},
		{Session: true, Rule: rule("bash", "git push *", policy.Allow, policy.LayerSession, policy.Origin{Scope: "session"})},
		{Rule: rule("bash", "rm *", policy.Deny, policy.LayerConfig, global)},
		{Rule: rule("bash", "rm *", policy.Deny, policy.LayerConfig, global), MatchedAs: "rm -r -f x"},
		{Rule: rule("read", "*.env", policy.Ask, policy.LayerConfig, policy.Origin{Scope: "project", Path: "/w/it's \x1b[31mred\x1b[0m.json", Line: 0})},
		{Rule: rule("*", "*", policy.Ask, policy.LayerFallback, policy.Origin{Scope: "builtin"})},
		{Rule: rule("*", "*", policy.Deny, policy.LayerFallback, global)},
		{Rule: rule("mcp", "server:*", policy.Allow, policy.LayerConfig, policy.Origin{Scope: "managed", Path: "/etc/toolgate/managed.json", Line: -1})},
	}
	for i := range cases {
		if got, want := ruleRef(&cases[i]), ruleRefFormatted(&cases[i]); got != want {
			t.Errorf("case %d: %q, want %q", i, got, want)
		}
	}
}
