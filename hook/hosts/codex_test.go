package hosts

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCodexCallMapping(t *testing.T) {
	cases := []mappingCase{
		{"Bash", `{"command":"ls -l"}`, []Call{{Tool: "bash", Input: map[string]any{"command": "ls -l"}, Rewrite: true}}},
		{"Bash", `{"command":"make","workdir":"sub"}`, []Call{{Tool: "bash", Input: map[string]any{"command": "make", "workdir": "sub"}, Workdir: "sub", Rewrite: true}}},
		{"exec_command", `{"cmd":"ls"}`, []Call{{Tool: "bash", Input: map[string]any{"command": "ls"}, Rewrite: true}}},
		{"apply_patch", `{"command":"*** Begin Patch\n*** Add File: new.txt\n+hi\n*** Update File: a.go\n*** Move to: b.go\n@@\n-x\n+y\n*** Delete File: old.txt\n*** End Patch\n"}`,
			[]Call{
				{Tool: "write", Input: map[string]any{"path": "new.txt"}},
				{Tool: "edit", Input: map[string]any{"path": "a.go"}},
				{Tool: "write", Input: map[string]any{"path": "b.go"}},
				{Tool: "edit", Input: map[string]any{"path": "old.txt"}},
			}},
		{"mcp__github__delete_repo", `{"repo":"r"}`, []Call{{Tool: "mcp", Input: map[string]any{"tool": "github:delete_repo", "arguments": map[string]any{"repo": "r"}}}}},
		{"view_image", `{"path":"/p/a.png"}`, []Call{{Tool: "read", Input: map[string]any{"path": "/p/a.png"}}}},
		{"update_plan", `{"plan":[]}`, []Call{{Tool: "update_plan", Input: map[string]any{"plan": []any{}}}}},
	}
	checkMapping(t, CodexCalls, cases)
	checkMappingErrors(t, CodexCalls, [][2]string{
		{"apply_patch", `{"command":"rm -rf /"}`},                                // not a patch
		{"apply_patch", `{"command":"*** Begin Patch\n*** End Patch"}`},          // no file
		{"apply_patch", `{"command":"*** Begin Patch\n*** Add File:   \n+x\n"}`}, // a marker without a path
		{"apply_patch", `{"command":"*** Begin Patch\n*** Add File: a\n","input":"*** Begin Patch\n*** Add File: b\n"}`},
		{"apply_patch", `{}`},
		{"Bash", `{"command":"ls","cmd":"rm x"}`},
		{"Bash", `"ls"`},
		{"", `{}`},
	})
}

// A patch handed to apply_patch in a shell command (which Codex applies
// itself, and reports as Bash) is decided with the files it names.
func TestCodexShellPatches(t *testing.T) {
	patch := "*** Begin Patch\n*** Delete File: vendor/lib.go\n*** Add File: a.txt\n+say \\\"hi\\\"\\n\n*** End Patch\n"
	cases := []struct {
		cmd   string
		paths []string // of the patch calls after the bash call
	}{
		{"apply_patch <<'EOF'\n" + patch + "EOF", []string{"vendor/lib.go", "a.txt"}},
		{"cd sub && apply_patch <<\"EOF\"\n" + patch + "EOF", []string{"sub/vendor/lib.go", "sub/a.txt"}},
		{"applypatch '" + strings.ReplaceAll(patch, "\\", "") + "'", []string{"vendor/lib.go", "a.txt"}},
		{"ls -l", nil},
		{"echo apply_patch", nil},
	}
	for _, c := range cases {
		in, _ := json.Marshal(map[string]any{"command": c.cmd})
		calls, err := CodexCalls("Bash", in)
		if err != nil {
			t.Errorf("%q: %v", c.cmd, err)
			continue
		}
		if len(calls) != 1+len(c.paths) || calls[0].Tool != "bash" {
			t.Errorf("%q: %d calls %v, want bash and %v", c.cmd, len(calls), calls, c.paths)
			continue
		}
		for i, p := range c.paths {
			if got := calls[i+1].Input["path"]; got != p {
				t.Errorf("%q: call %d path %v, want %s", c.cmd, i+1, got, p)
			}
		}
	}
	for _, bad := range []string{
		"apply_patch <<EOF\n*** Begin Patch\n*** Add File: $X\n+x\n*** End Patch\nEOF", // expands
		"cd \"$DIR\" && apply_patch <<'EOF'\n" + patch + "EOF",
		"apply_patch \"$PATCH\"",
		"apply_patch <<'EOF'\nnot a patch\nEOF",
	} {
		in, _ := json.Marshal(map[string]any{"command": bad})
		if _, err := CodexCalls("Bash", in); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
