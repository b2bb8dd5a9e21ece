package prompt

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/protocol"
)

var exactOffered = []protocol.PromptOption{{ID: protocol.ChoiceAllowOnce}, {ID: protocol.ChoiceDeny}, {ID: protocol.ChoiceDenyWithReason}}

// An answer is read with exact keys: a key that nearly names one toolgate
// reads fails the prompt (encoding/json alone would read {"Choice":
// "allow_once"} as an approval).
func TestAnswerKeysAreExact(t *testing.T) {
	cases := []struct {
		raw    string
		choice string // "" = the prompt fails
	}{
		{`{"choice":"allow_once"}`, "allow_once"},
		{`{"choice":"allow_once","note":"unknown keys are ignored"}`, "allow_once"},
		{`{"Choice":"allow_once"}`, ""},
		{`{"CHOICE":"allow_once"}`, ""},
		{`{"cho_ice":"allow_once"}`, ""},
		{`{"choice":"deny","Choice":"allow_once"}`, ""},
		{`{"choice":"deny_with_reason","Reason":"because"}`, ""},
		{`{"choice":"deny_with_reason","REASON":"because"}`, ""},
	}
	for _, tc := range cases {
		ans := parseAnswer(json.RawMessage(tc.raw), exactOffered)
		switch {
		case tc.choice == "" && ans.Failed == "":
			t.Errorf("%s: read as %+v, want the prompt to fail", tc.raw, ans)
		case tc.choice != "" && (ans.Failed != "" || ans.Choice != tc.choice):
			t.Errorf("%s: %+v, want choice %s", tc.raw, ans, tc.choice)
		}
	}
	// Every field of the answer's type, respelled, fails.
	for name := range protocol.JSONFields(reflect.TypeFor[protocol.PromptResult]()) {
		for _, alt := range []string{strings.ToUpper(name[:1]) + name[1:], strings.ToUpper(name)} {
			fields := map[string]any{"choice": "deny_with_reason", "reason": "r"}
			delete(fields, name)
			fields[alt] = map[string]string{"choice": "deny_with_reason", "reason": "r"}[name]
			raw, _ := json.Marshal(fields)
			if ans := parseAnswer(raw, exactOffered); ans.Failed == "" {
				t.Errorf("%s: read as %+v, want the prompt to fail", raw, ans)
			} else if !strings.Contains(ans.Failed, alt) {
				t.Errorf("%s: failure %q does not name the key %q", raw, ans.Failed, alt)
			}
		}
	}
}
