package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestValidateExamples(t *testing.T) {
	files, err := filepath.Glob("examples/*.jsonc")
	if err != nil || len(files) == 0 {
		t.Fatalf("no example policies: %v", err)
	}
	for _, f := range files {
		var out, errOut bytes.Buffer
		if code := run([]string{"validate", f}, nil, &out, &errOut); code != 0 {
			t.Errorf("validate %s = %d\n%s%s", f, code, out.String(), errOut.String())
		}
	}
}

func TestValidateNamesTheLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "broken.json")
	text := "{\n  \"permission\": {\n    \"bash\": {\"git *\": \"alow\"}\n  }\n}\n"
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if code := run([]string{"validate", path}, nil, &out, &out); code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, out.String())
	}
	if !strings.Contains(out.String(), path+":3:") || !strings.Contains(out.String(), "alow") {
		t.Fatalf("output does not name line 3 and the bad state:\n%s", out.String())
	}
	out.Reset()
	if code := run([]string{"validate", "--json", path}, nil, &out, &out); code != 1 || !strings.Contains(out.String(), `"line": 3`) {
		t.Fatalf("--json: exit %d\n%s", code, out.String())
	}
}

func TestUnknownCommand(t *testing.T) {
	var out bytes.Buffer
	if code := run([]string{"frobnicate"}, nil, &out, &out); code != 2 {
		t.Fatalf("exit %d, want 2", code)
	}
}
