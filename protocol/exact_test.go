package protocol

import (
	"errors"
	"testing"
)

func TestNearKey(t *testing.T) {
	cases := []struct {
		key, want string
		near      bool
	}{
		{"choice", "choice", true},
		{"Choice", "choice", true},
		{"CHOICE", "choice", true},
		{"tool_name", "toolName", true},
		{"tool-name", "toolName", true},
		{"ToolName", "toolName", true},
		{"s\u017Fills", "skills", false}, // ſ is not k
		{"\u017Fkills", "skills", true},  // ſ folds to s
		{"s\u212Aills", "skills", true},  // the Kelvin sign folds to k
		{"toolNames", "toolName", false},
		{"tool", "toolName", false},
		{"", "toolName", false},
		{"_", "", true},
	}
	for _, tc := range cases {
		if got := NearKey(tc.key, tc.want); got != tc.near {
			t.Errorf("NearKey(%q, %q) = %v, want %v", tc.key, tc.want, got, tc.near)
		}
	}
}

func TestUnmarshalExact(t *testing.T) {
	cases := []struct {
		raw, key string // key "" = decoded
	}{
		{`{"protocolVersion":1,"cwd":"/w","skills":[{"name":"a","path":"/s/SKILL.md"}],"host":{"name":"pi"}}`, ""},
		{`{"protocolVersion":1,"unknownField":true}`, ""},
		{`{"HasUI":true}`, "HasUI"},
		{`{"has_ui":true}`, "has_ui"},
		{`{"skills":[{"name":"a","Path":"/s/SKILL.md"}]}`, "Path"},
		{`{"host":{"NAME":"pi"}}`, "NAME"},
		{`{"s\u212Aills":[]}`, "s\u212Aills"},
	}
	for _, tc := range cases {
		var p InitializeParams
		err := Unmarshal([]byte(tc.raw), &p, "params")
		var kerr *KeyError
		switch {
		case tc.key == "" && err != nil:
			t.Errorf("%s: %v", tc.raw, err)
		case tc.key != "" && (!errors.As(err, &kerr) || kerr.Key != tc.key):
			t.Errorf("%s: error %v, want one about key %q", tc.raw, err, tc.key)
		}
	}
}
