package hosts

import (
	"reflect"
	"strings"
	"testing"
)

// A patch is decided on each file it names, once per surface: a created
// or moved-to file is a write, a changed, deleted or moved-away one an
// edit; markers are read with their blanks trimmed.
func TestPatchCalls(t *testing.T) {
	patch := func(lines ...string) string {
		return strings.Join(append(append([]string{"*** Begin Patch"}, lines...), "*** End Patch"), "\n")
	}
	call := func(tool, path string) Call { return Call{Tool: tool, Input: map[string]any{"path": path}} }
	cases := []struct {
		text string
		want []Call
		err  string
	}{
		{patch("*** Add File: a.txt", "+x"), []Call{call("write", "a.txt")}, ""},
		{patch("*** Update File: b.go", "*** Move to: c.go", "@@", "-a", "+b"), []Call{call("edit", "b.go"), call("write", "c.go")}, ""},
		{patch("  *** Delete File:  d.go  ", "*** Delete File: d.go"), []Call{call("edit", "d.go")}, ""},
		{"*** Add File: a.txt", nil, `no "*** Begin Patch" line`},
		{patch("*** Add File:"), nil, "line 2 of the apply_patch call's patch names no file"},
		{patch("@@"), nil, "names no file to add, update, delete or move"},
	}
	for _, c := range cases {
		got, err := PatchCalls("apply_patch", c.text)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("PatchCalls(%q) error = %v, want one containing %q", c.text, err, c.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("PatchCalls(%q) = %v, %v; want %v", c.text, got, err, c.want)
		}
	}
}

// The patch of a patch tool is its one string field: two that differ,
// one that is not a string, or none, is an error.
func TestPatchText(t *testing.T) {
	cases := []struct {
		input map[string]any
		want  string
		err   string
	}{
		{map[string]any{"patchText": "p"}, "p", ""},
		{map[string]any{"patchText": "p", "patch": "p"}, "p", ""},
		{map[string]any{"patchText": "p", "patch": "q"}, "", "has both patchText and patch"},
		{map[string]any{"patch": 1}, "", "tool_input.patch of patch is not a string"},
		{map[string]any{}, "", "has no patch (patchText, patch)"},
	}
	for _, c := range cases {
		got, err := PatchText("patch", c.input, "patchText", "patch")
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("PatchText(%v) error = %v, want one containing %q", c.input, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("PatchText(%v) = %q, %v; want %q", c.input, got, err, c.want)
		}
	}
}
