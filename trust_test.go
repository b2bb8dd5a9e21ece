package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// toolgate trust lists what a project file would loosen (file:line),
// trusts nothing without confirmation, records the content with --yes,
// notices an edit in --list, and forgets with --revoke.
func TestTrustCommand(t *testing.T) {
	home := isolatedHome(t)
	proj := filepath.Join(home, "proj")
	global := filepath.Join(home, "agent", "extensions", "pi-permission-system", "config.json")
	cfg := filepath.Join(proj, ".toolgate", "config.json")
	for path, text := range map[string]string{
		global: `{"permission": {"bash": {"*": "ask", "rm *": "deny"}}}`,
		cfg:    "{\"permission\": {\"bash\": {\n  \"npm *\": \"allow\",\n  \"curl *\": \"deny\"}}}",
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	explain := func() int {
		var out bytes.Buffer
		return run([]string{"explain", "--tool", "bash", "--input", `{"command":"npm install"}`, "--cwd", proj}, nil, &out, &out)
	}
	if code := explain(); code != 3 {
		t.Fatalf("untrusted: explain npm install exits %d, want 3 (ask)", code)
	}
	var out bytes.Buffer
	code := run([]string{"trust", proj}, strings.NewReader("n\n"), &out, &out)
	if code != 1 || !strings.Contains(out.String(), cfg+":2: bash \"npm *\": allow") || !strings.Contains(out.String(), "nothing trusted") {
		t.Fatalf("trust, answered no: exit %d\n%s", code, out.String())
	}
	if strings.Contains(out.String(), "curl") {
		t.Errorf("a deny is listed as loosening:\n%s", out.String())
	}
	if code := explain(); code != 3 {
		t.Fatalf("answered no: explain exits %d", code)
	}
	out.Reset()
	if code := run([]string{"trust", "--yes", proj}, nil, &out, &out); code != 0 {
		t.Fatalf("trust --yes: exit %d\n%s", code, out.String())
	}
	if code := explain(); code != 0 {
		t.Fatalf("trusted: explain exits %d, want 0 (allow)", code)
	}
	out.Reset()
	if code := run([]string{"trust", "--list"}, nil, &out, &out); code != 0 || !strings.Contains(out.String(), "as trusted") {
		t.Fatalf("--list: exit %d\n%s", code, out.String())
	}
	if err := os.WriteFile(cfg, []byte(`{"permission": {"bash": {"npm *": "allow", "*": "allow"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if code := explain(); code != 3 {
		t.Fatalf("edited: explain exits %d, want 3", code)
	}
	out.Reset()
	if run([]string{"trust", "--list"}, nil, &out, &out); !strings.Contains(out.String(), "changed since") {
		t.Errorf("--list after an edit:\n%s", out.String())
	}
	out.Reset()
	if code := run([]string{"trust", "--revoke", proj}, nil, &out, &out); code != 0 || !strings.Contains(out.String(), "1 project file") {
		t.Errorf("--revoke: exit %d\n%s", code, out.String())
	}
	out.Reset()
	if code := run([]string{"trust", "--yes", filepath.Join(home, "missing")}, nil, &out, &out); code != 2 {
		t.Errorf("a missing folder: exit %d\n%s", code, out.String())
	}
}

// doctor lists the files and their state, and exits 1 when one is broken.
func TestDoctor(t *testing.T) {
	home := isolatedHome(t)
	proj := filepath.Join(home, "proj")
	global := filepath.Join(home, "agent", "extensions", "pi-permission-system", "config.json")
	cfg := filepath.Join(proj, ".pi", "extensions", "pi-permission-system", "config.json")
	for path, text := range map[string]string{global: `{"permission": {"bash": {"*": "ask"}}}`, cfg: `{"permission": {"bash": {"ls": "allow"}}}`} {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	code := run([]string{"doctor", "--cwd", proj}, nil, &out, &out)
	if code != 0 || !strings.Contains(out.String(), cfg+": loaded, NOT trusted") || !strings.Contains(out.String(), "toolgate trust "+proj) {
		t.Fatalf("doctor: exit %d\n%s", code, out.String())
	}
	if err := os.WriteFile(global, []byte(`{"permision": {}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if code := run([]string{"doctor", "--cwd", proj}, nil, &out, &out); code != 1 || !strings.Contains(out.String(), global+": BROKEN") {
		t.Fatalf("doctor with a broken global file: exit %d\n%s", code, out.String())
	}
}
