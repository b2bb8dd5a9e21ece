package hosts

import (
	"encoding/json"
	"reflect"
	"testing"
)

// mappingCase is a host's tool call, by tool name and input, and the
// engine calls it maps to.
type mappingCase struct {
	name, input string
	want        []Call
}

// checkMapping wants calls to map the tool call of each case to its
// engine calls.
func checkMapping(t *testing.T, calls func(string, json.RawMessage) ([]Call, error), cases []mappingCase) {
	t.Helper()
	for _, c := range cases {
		got, err := calls(c.name, json.RawMessage(c.input))
		if err != nil {
			t.Errorf("%s %s: %v", c.name, c.input, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s %s:\n got %#v\nwant %#v", c.name, c.input, got, c.want)
		}
	}
}

// checkMappingErrors wants calls to refuse each tool call of bad (tool
// name, input).
func checkMappingErrors(t *testing.T, calls func(string, json.RawMessage) ([]Call, error), bad [][2]string) {
	t.Helper()
	for _, c := range bad {
		if _, err := calls(c[0], json.RawMessage(c[1])); err == nil {
			t.Errorf("%s %s: no error", c[0], c[1])
		}
	}
}
