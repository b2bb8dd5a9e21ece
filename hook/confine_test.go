package hook

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/hook/hosts"
	"github.com/toolgate/toolgate/sandbox"
)

// TestHookRecordsUnconfined: with "sandbox": "on" a bash-surface call the
// host runs as it is (Claude Code's Monitor) is allowed and its decision
// record says unconfined; a Bash call, rewritten to run confined, is not
// marked.
func TestHookRecordsUnconfined(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", filepath.Join(t.TempDir(), "run"))
	e := newHookEnv(t, `{"sandbox": "on", "permission": {"*": "allow"}}`)
	s := New(e.opts)
	enforced := s.machine.get().ProtectedEnforced()
	for _, ev := range []map[string]any{
		{"hook_event_name": "PreToolUse", "tool_name": "Monitor", "tool_use_id": "m1", "tool_input": map[string]any{"command": "tail -f log"}},
		{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_use_id": "b1", "tool_input": map[string]any{"command": "ls"}},
	} {
		answer := e.claudeAnswer(ev)
		_, rewritten := answer.Out["updatedInput"]
		if want := ev["tool_name"] == "Bash" && enforced; rewritten != want {
			t.Errorf("%s: rewritten %v, want %v: %v", ev["tool_name"], rewritten, want, answer.Out)
		}
	}
	marks := map[string]any{}
	for _, rec := range e.auditRecords() {
		marks[rec["toolCallId"].(string)] = rec["unconfined"]
	}
	if marks["m1"] != true {
		t.Errorf("the Monitor call is not recorded unconfined: %v", marks)
	}
	if want := any(nil); enforced && marks["b1"] != want {
		t.Errorf("the confined Bash call is recorded unconfined: %v", marks)
	} else if !enforced && marks["b1"] != true {
		t.Errorf("the Bash call on a machine that cannot confine is not recorded unconfined: %v", marks)
	}
}

// TestDoctorConfinement: doctor says how each host runs bash confined,
// and lists the socket folders a confined command is kept from, as open
// when there are no namespaces to hide them.
func TestDoctorConfinement(t *testing.T) {
	run := filepath.Join(t.TempDir(), "run")
	if err := os.MkdirAll(run, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_RUNTIME_DIR", run)
	e := newHookEnv(t, `{"sandbox": "on"}`)
	for _, tc := range []struct{ pretend, want string }{
		{"", "sockets hidden from a confined command"},
		{"no-userns", "sockets OPEN to a confined command"},
	} {
		t.Setenv("TOOLGATE_SANDBOX_PRETEND", tc.pretend)
		if tc.pretend == "" && !sandbox.Probe().Has("mount") {
			continue // this machine has no namespaces: only the second case applies
		}
		d := NewDryRun(e.opts)
		p := d.PolicyAt(e.opts.Cwd, "")
		text := strings.Join(d.DoctorConfinement(p, e.opts.Cwd, d.Confinement(p, e.opts.Cwd)), "\n")
		for _, h := range HostNames {
			if !strings.Contains(text, "host "+h+": runs ") {
				t.Errorf("doctor does not say how %s runs bash:\n%s", h, text)
			}
		}
		if !strings.Contains(text, tc.want) || !strings.Contains(text, run) {
			t.Errorf("pretend %q: doctor does not say %q of %s:\n%s", tc.pretend, tc.want, run, text)
		}
		if strings.Contains(text, "this host does not run bash commands") {
			t.Errorf("doctor, with no host, says the host does not confine:\n%s", text)
		}
	}
}

// TestSweepProfiles: a profile whose command never ran does not stay for
// good: one older than profileTTL goes when the next is written, and a
// kept walk older than walkTTL; fresh ones, and other files, stay.
func TestSweepProfiles(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	old := filepath.Join(dir, "profile-old.json")
	fresh := filepath.Join(dir, "profile-fresh.json")
	other := filepath.Join(dir, "notes.json")
	walkDay := filepath.Join(dir, "walk-day.json")
	walkOld := filepath.Join(dir, "walk-old.json")
	for _, p := range []string{old, fresh, other, walkDay, walkOld} {
		if err := os.WriteFile(p, []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	long := now.Add(-profileTTL - time.Minute)
	os.Chtimes(old, long, long)
	os.Chtimes(other, long, long)
	os.Chtimes(walkDay, now.Add(-24*time.Hour), now.Add(-24*time.Hour))
	os.Chtimes(walkOld, now.Add(-walkTTL-time.Hour), now.Add(-walkTTL-time.Hour))
	sweepProfiles(dir, now)
	for p, want := range map[string]bool{old: false, fresh: true, other: true, walkDay: true, walkOld: false} {
		if _, err := os.Stat(p); (err == nil) != want {
			t.Errorf("%s there: %v, want %v", filepath.Base(p), err == nil, want)
		}
	}
}

// TestSandboxFolderIsOwn: toolgate's folder of profiles and kept walks is
// read-only to a confined command even where it lies inside a write root
// (an XDG_RUNTIME_DIR in the project): a command that wrote there would
// write the next command's profile, or the walk that says what it hides.
func TestSandboxFolderIsOwn(t *testing.T) {
	e := newHookEnv(t, `{"sandbox": "on", "permission": {"path": {"*.pem": "deny"}}}`)
	run := filepath.Join(e.proj, "run")
	t.Setenv("XDG_RUNTIME_DIR", run)
	dir := filepath.Join(run, "toolgate")
	// Not there yet, it is read-only as the first folder on its way that
	// is missing; there, as itself.
	for _, want := range []string{run, dir} {
		prof, _, _, err := SandboxProfile(e.opts, os.Getenv)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, ro := range prof.ReadOnly {
			found = found || ro.Path == want
		}
		if !found {
			t.Errorf("%s is not read-only in the profile: %+v", want, prof.ReadOnly)
		}
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "walk-*.json")); len(files) != 1 {
		t.Errorf("kept walks in %s: %v", dir, files)
	}
}

// TestSandboxFolderAsked: a tool call that writes into toolgate's folder
// of profiles and kept walks is asked whatever the policy allows: a walk
// written there would leave the next confined command's denied files
// readable.
func TestSandboxFolderAsked(t *testing.T) {
	e := newHookEnv(t, `{"sandbox": "on", "permission": {"*": "allow"}}`)
	run := filepath.Join(e.dir, "run")
	t.Setenv("XDG_RUNTIME_DIR", run)
	for _, ev := range []map[string]any{
		{"hook_event_name": "PreToolUse", "tool_name": "Write", "tool_use_id": "w1",
			"tool_input": map[string]any{"file_path": filepath.Join(run, "toolgate", "walk-0123.json"), "content": "{}"}},
		{"hook_event_name": "PreToolUse", "tool_name": "Write", "tool_use_id": "w2",
			"tool_input": map[string]any{"file_path": filepath.Join(e.proj, "ordinary.txt"), "content": "x"}},
	} {
		answer := e.claudeAnswer(ev)
		want := "allow"
		if ev["tool_use_id"] == "w1" {
			want = "ask"
		}
		if got := answer.Out["permissionDecision"]; got != want {
			t.Errorf("%s: %v, want %s: %v", ev["tool_use_id"], got, want, answer.Out)
		}
	}
}

// claudeAnswer runs one Claude Code hook event and reads its answer.
func (e *hookEnv) claudeAnswer(ev map[string]any) (answer struct {
	Out map[string]any `json:"hookSpecificOutput"`
}) {
	e.t.Helper()
	var out bytes.Buffer
	if err := RunHook(e.opts, hosts.ClaudeHook{}, strings.NewReader(e.event(ev)), &out); err != nil {
		e.t.Fatal(err)
	}
	if err := json.Unmarshal(out.Bytes(), &answer); err != nil {
		e.t.Fatalf("%v: %s", err, out.Bytes())
	}
	return answer
}
