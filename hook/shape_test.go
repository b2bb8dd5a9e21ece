package hook

import (
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/jsonobj"
	"github.com/toolgate/toolgate/policy"
)

// TestInputShape: a call without the field its tool acts on, or with it
// of the wrong type, is refused naming the field; a host's alias of path
// is read as path, and an alias beside the field is refused.
func TestInputShape(t *testing.T) {
	cases := []struct {
		tool, input string
		err         string // "" when read; else a part of the error
		path        string // the path read, when read
	}{
		{"read", `{}`, "input.path is missing", ""},
		{"write", `{"content":"x"}`, "input.path is missing", ""},
		{"edit", `{"oldText":"a","newText":"b"}`, "input.path is missing", ""},
		{"read", `{"path":7}`, "input.path must be a string", ""},
		{"read", `{"path":" "}`, "input.path is empty", ""},
		{"bash", `{"cmd":"rm -rf /"}`, "input.command is missing", ""},
		{"bash", `{}`, "input.command is missing", ""},
		{"bash", `{"command":["ls"]}`, "input.command must be a string", ""},
		{"read", `{"file_path":"a.txt"}`, "", "a.txt"},
		{"edit", `{"filePath":"src/x.go","oldText":"a","newText":"b"}`, "", "src/x.go"},
		{"read", `{"path":"a.txt","file_path":"/etc/passwd"}`, "both path and file_path", ""},
		{"read", `{"file_path":"a.txt","filePath":"/etc/passwd"}`, "both file_path and filePath", ""},
		{"read", `{"file_path":5}`, "input.path must be a string", ""},
		{"grep", `{"pattern":"TODO"}`, "", ""},
		{"find", `{"pattern":"*.go"}`, "", ""},
		{"ls", `{}`, "", ""},
		{"mcp", `{}`, "", ""},
		{"my_tool", `{"file_path":"a.txt"}`, "", "a.txt"},
	}
	for _, tc := range cases {
		t.Run(tc.tool+" "+tc.input, func(t *testing.T) {
			input, err := jsonobj.Decode([]byte(tc.input))
			if err != nil {
				t.Fatal(err)
			}
			in, err := readInput(tc.tool, input, []byte(tc.input), &policy.Policy{}, "")
			switch {
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("error %v, want one containing %q", err, tc.err)
			case tc.err == "" && err != nil:
				t.Fatalf("error %v, want the input read", err)
			case tc.err == "" && tc.path != "":
				if got, _ := in.input["path"].(string); got != tc.path {
					t.Fatalf("path %q, want %q", got, tc.path)
				}
			}
		})
	}
}
