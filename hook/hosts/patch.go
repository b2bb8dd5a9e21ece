package hosts

import (
	"fmt"
	"strings"
)

// A patch tool (Codex's apply_patch, OpenCode's apply_patch and patch)
// changes files named inside its text: each is decided on the surface of
// what the patch does to it, and the most restrictive decision answers.
// The text is Codex's patch format:
//
//	*** Begin Patch
//	*** Add File: PATH       (then "+" lines: a new file)
//	*** Delete File: PATH
//	*** Update File: PATH    (then hunks: the file is changed)
//	*** Move to: PATH        (after Update: the file is renamed)
//	*** End Patch
//
// Codex reads its markers with the surrounding blanks trimmed and may find
// the patch inside a heredoc; every line that reads as a marker once
// trimmed is taken as one here, so a path can be checked that the patch
// does not touch, never the other way round.

// patchMarkers are the markers that name a file, and the tool toolgate
// decides the file with: a file the patch creates is a write, one it
// changes, deletes or moves away is an edit, one it moves to is a write.
var patchMarkers = []struct{ marker, tool string }{
	{"*** Add File:", "write"},
	{"*** Delete File:", "edit"},
	{"*** Update File:", "edit"},
	{"*** Move to:", "write"},
}

// PatchCalls are the engine calls of a patch's text: one per file it
// names. A text that is not a patch, or names no file, is an error (the
// call is blocked): toolgate cannot tell what it would change.
func PatchCalls(tool, text string) ([]Call, error) {
	if !strings.Contains(text, "*** Begin Patch") {
		return nil, fmt.Errorf("the %s call's patch has no \"*** Begin Patch\" line, so toolgate cannot tell which files it changes", tool)
	}
	var calls []Call
	seen := map[string]bool{}
	for i, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		for _, m := range patchMarkers {
			rest, ok := strings.CutPrefix(t, m.marker)
			if !ok {
				continue
			}
			path := strings.TrimSpace(rest)
			if path == "" {
				return nil, fmt.Errorf("line %d of the %s call's patch names no file: %q", i+1, tool, t)
			}
			if key := m.tool + "\x00" + path; !seen[key] {
				seen[key] = true
				calls = append(calls, Call{Tool: m.tool, Input: map[string]any{"path": path}})
			}
		}
	}
	if len(calls) == 0 {
		return nil, fmt.Errorf("the %s call's patch names no file to add, update, delete or move", tool)
	}
	return calls, nil
}

// PatchText is the patch of a patch tool's input: the one string field of
// fields present (two that differ are ambiguous).
func PatchText(tool string, input map[string]any, fields ...string) (string, error) {
	text, from := "", ""
	for _, f := range fields {
		v, ok := input[f]
		if !ok {
			continue
		}
		s, isStr := v.(string)
		if !isStr {
			return "", fmt.Errorf("tool_input.%s of %s is not a string", f, tool)
		}
		if from != "" && s != text {
			return "", fmt.Errorf("tool_input of %s has both %s and %s", tool, from, f)
		}
		text, from = s, f
	}
	if from == "" {
		return "", fmt.Errorf("tool_input of %s has no patch (%s)", tool, strings.Join(fields, ", "))
	}
	return text, nil
}
