package gates

import (
	"testing"

	"github.com/toolgate/toolgate/policy"
)

// A tool with no pi counterpart is decided on the value its host's adapter
// gave it (Claude Code's WebFetch: its URL), else on "*".
func TestExtensionToolValue(t *testing.T) {
	r := compose(t, "/home/u", `{"permission": {"WebFetch": {"*": "ask", "https://docs.example/*": "allow", "https://evil.example/*": "deny"}}}`)
	for _, c := range []struct {
		value string
		want  policy.Action
		shown string
	}{
		{"https://docs.example/a", policy.Allow, "https://docs.example/a"},
		{"https://evil.example/x", policy.Deny, "https://evil.example/x"},
		{"https://other.example/", policy.Ask, "https://other.example/"},
		{"", policy.Ask, "WebFetch"}, // no value: "*", as for any extension tool
	} {
		c0 := &Call{ToolName: "WebFetch", Input: map[string]any{"url": "ignored"}, Cwd: "/work", Home: "/home/u", Value: c.value}
		o := Tool(c0, r)
		if o.D.State != c.want || o.D.Value != c.shown || o.D.Surface != "WebFetch" {
			t.Errorf("value %q: %v on %s %q, want %v on %q", c.value, o.D.State, o.D.Surface, o.D.Value, c.want, c.shown)
		}
		if len(o.D.SessionPatterns) != 1 || (c.value != "" && (!o.D.SessionPatterns[0].Exact || o.D.SessionPatterns[0].Pattern != c.value)) {
			t.Errorf("value %q: session patterns %+v", c.value, o.D.SessionPatterns)
		}
	}
}
