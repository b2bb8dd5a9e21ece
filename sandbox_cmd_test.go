package main

import (
	"archive/tar"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/toolgate/toolgate/sandbox"
)

// sandboxWorld is a throwaway home whose global policy denies reading
// keys, with a project (a git repository) in it, and the toolgate binary.
type sandboxWorld struct {
	bin, home, proj string
	env             []string
}

func newSandboxWorld(t testing.TB) *sandboxWorld {
	t.Helper()
	if !sandbox.Probe().ProtectedEnforced() {
		t.Fatalf("this test needs Landlock ABI 2+ and user and mount namespaces: %v", sandbox.Probe().Missing)
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := &sandboxWorld{bin: filepath.Join(dir, "toolgate"), home: filepath.Join(dir, "home")}
	w.proj = filepath.Join(w.home, "proj")
	build := exec.Command("go", "build", "-o", w.bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0") // static, as the README builds it
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	files := map[string]string{
		".config/toolgate/config.json": `{"sandbox": "on", "permission": {"path": {"*.pem": "deny"}, "read": {"~/.ssh/id_*": "deny"}}}`,
		".ssh/id_ed25519":              "SECRET-KEY\n",
		".bashrc":                      "original\n",
		"proj/certs/server.pem":        "SECRET-PEM\n",
		"proj/certs/notes.txt":         "nothing secret\n",
	}
	for name, text := range files {
		p := filepath.Join(w.home, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w.env = []string{"HOME=" + w.home, "PATH=" + os.Getenv("PATH"), "LC_ALL=C", "PI_CODING_AGENT_DIR=" + filepath.Join(w.home, ".pi/agent"),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.invalid"}
	cmd := exec.Command("git", "init", "-q", w.proj)
	cmd.Env = w.env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	return w
}

func (w *sandboxWorld) run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(w.bin, args...)
	cmd.Env, cmd.Dir = w.env, w.proj
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String(), errb.String()
}

// TestSandboxCommandStopsWhatThePolicyDenies runs payloads through the
// real binary: the profile comes from the policy in the project.
func TestSandboxCommandStopsWhatThePolicyDenies(t *testing.T) {
	w := newSandboxWorld(t)
	cases := []struct {
		name, script, why string
		held              func() bool
	}{
		{"project policy file", `mkdir -p .toolgate && echo '{"permission":{"*":"allow"}}' > .toolgate/config.json`, ".toolgate being read-only",
			func() bool { _, err := os.Stat(filepath.Join(w.proj, ".toolgate")); return os.IsNotExist(err) }},
		{"git hook", `echo 'touch marker' > .git/hooks/pre-commit`, ".git/hooks being read-only",
			func() bool {
				_, err := os.Stat(filepath.Join(w.proj, ".git/hooks/pre-commit"))
				return os.IsNotExist(err)
			}},
		{"start-up file", `echo pwned >> ~/.bashrc`, "refused by the kernel",
			func() bool { b, _ := os.ReadFile(filepath.Join(w.home, ".bashrc")); return string(b) == "original\n" }},
		{"denied key", `cat ~/.ssh/id_ed25519`, `read deny "~/.ssh/id_*"`, func() bool { return true }},
		{"grep -r over a denied file", `grep -r SECRET certs`, `path deny "*.pem"`, func() bool { return true }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := w.run(t, "sandbox", "--", "sh", "-c", tc.script)
			if code == 0 || strings.Contains(stdout, "SECRET") || !tc.held() {
				t.Errorf("exit %d, stdout %q: the payload took effect", code, stdout)
			}
			if !strings.Contains(stderr, tc.why) {
				t.Errorf("stderr does not say %q:\n%s", tc.why, stderr)
			}
		})
	}
	// explain says what confinement would give a bash call here.
	if _, stdout, _ := w.run(t, "explain", "--tool", "bash", "--input", `{"command":"grep -r x certs"}`); !strings.Contains(stdout, "writes: "+w.proj+" (the project)") ||
		!strings.Contains(stdout, "2 hidden") {
		t.Errorf("explain:\n%s", stdout)
	}
	// Everyday work in the same project.
	code, stdout, stderr := w.run(t, "sandbox", "--cwd", w.proj, "--", "sh", "-c",
		"mkdir -p src/a && echo hi > src/a/f && git add src && git commit -q -m one && git log --oneline | wc -l && grep -r hi src")
	if code != 0 || !strings.Contains(stdout, "src/a/f:hi") {
		t.Errorf("everyday work: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
}

// TestSandboxHostForm: a host runs the model's text under a profile file.
func TestSandboxHostForm(t *testing.T) {
	w := newSandboxWorld(t)
	prof := &sandbox.Profile{Version: sandbox.ProfileVersion, Mode: "on", Cwd: w.proj,
		Write:    []sandbox.Entry{{Path: w.proj, Why: "the project"}},
		ReadOnly: []sandbox.Entry{{Path: filepath.Join(w.proj, ".git/config"), Why: "git configuration"}}}
	file := filepath.Join(w.home, "profile.json")
	if err := prof.WriteFile(file); err != nil {
		t.Fatal(err)
	}
	if info, _ := os.Stat(file); info.Mode().Perm() != 0o600 {
		t.Errorf("profile mode %v, want 0600", info.Mode().Perm())
	}
	text := "echo 'it''s' \"$((6*7))\" > out.txt; cat out.txt; git config user.name evil"
	code, stdout, stderr := w.run(t, "sandbox", "--profile="+file, "--command-b64="+base64.StdEncoding.EncodeToString([]byte(text)))
	if code == 0 || stdout != "its 42\n" || !strings.Contains(stderr, ".git/config being read-only") {
		t.Errorf("exit %d\nstdout %q\nstderr %s", code, stdout, stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(w.proj, ".git/config")); strings.Contains(string(b), "evil") {
		t.Error(".git/config changed")
	}
	if _, err := os.Stat(file); err == nil {
		t.Error("the spent profile was left behind")
	}
	if err := prof.WriteFile(file); err != nil {
		t.Fatal(err)
	}
	// A profile others may write is refused, and the command does not run.
	os.Chmod(file, 0o666)
	code, _, stderr = w.run(t, "sandbox", "--profile="+file, "--command-b64="+base64.StdEncoding.EncodeToString([]byte("touch ran")))
	if _, err := os.Stat(filepath.Join(w.proj, "ran")); code != 126 || err == nil || !strings.Contains(stderr, "writable by others") {
		t.Errorf("a loose profile: exit %d, stderr %s", code, stderr)
	}
}

// TestClaudeHookRunsBashConfined: with "sandbox": "on" the Claude Code
// hook answers an allowed Bash call with the command rewritten to run
// under toolgate sandbox; run as Claude Code would, it does the
// everyday part and not the forbidden one. "required" on a host that
// cannot confine (Gemini CLI's hook) denies.
func TestClaudeHookRunsBashConfined(t *testing.T) {
	w := newSandboxWorld(t)
	runtime := filepath.Join(w.home, "run")
	if err := os.MkdirAll(runtime, 0o700); err != nil {
		t.Fatal(err)
	}
	w.env = append(w.env, "XDG_RUNTIME_DIR="+runtime)
	cfg := filepath.Join(w.home, ".config/toolgate/config.json")
	if err := os.WriteFile(cfg, []byte(`{"sandbox": "on", "permission": {"*": "ask", "bash": {"*": "allow"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	// An archive that carries a git hook: the analysis lists it and asks
	// (naming the hook); approved, the kernel still keeps the hook out.
	var tarball bytes.Buffer
	tw := tar.NewWriter(&tarball)
	body := "#!/bin/sh\ntouch marker\n"
	tw.WriteHeader(&tar.Header{Name: ".git/hooks/pre-commit", Mode: 0o755, Size: int64(len(body))})
	tw.Write([]byte(body))
	tw.Close()
	if err := os.WriteFile(filepath.Join(w.proj, "update.tar"), tarball.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	script := "echo hi > out.txt; tar -xf update.tar"
	decision, input, out := w.claudeBash(t, map[string]any{"command": script, "description": "write"})
	rewritten, _ := input["command"].(string)
	if decision != "ask" || !strings.Contains(string(out), ".git/hooks/pre-commit") || !strings.Contains(rewritten, " sandbox --profile=") || input["description"] != "write" {
		t.Fatalf("answer: %s", out)
	}
	run := exec.Command("bash", "-c", rewritten)
	run.Env, run.Dir = w.env, w.proj
	stderr, _ := run.CombinedOutput()
	if b, _ := os.ReadFile(filepath.Join(w.proj, "out.txt")); string(b) != "hi\n" {
		t.Errorf("the everyday part did not run: %s", stderr)
	}
	if _, err := os.Stat(filepath.Join(w.proj, ".git/hooks/pre-commit")); err == nil || !strings.Contains(string(stderr), ".git/hooks being read-only") {
		t.Errorf("the hook was written or not said: %s", stderr)
	}

	if err := os.WriteFile(cfg, []byte(`{"sandbox": "required", "permission": {"*": "ask", "bash": {"*": "allow"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	// Claude Code's Monitor runs its watched command itself: toolgate
	// cannot rewrite it, so "required" blocks it.
	monitor, _ := json.Marshal(map[string]any{"hook_event_name": "PreToolUse", "cwd": w.proj, "tool_name": "Monitor",
		"tool_input": map[string]any{"command": "tail -f log"}})
	cmd := exec.Command(w.bin, "claude-hook")
	cmd.Env, cmd.Dir, cmd.Stdin = w.env, w.proj, bytes.NewReader(monitor)
	out, _ = cmd.Output()
	if !strings.Contains(string(out), "deny") || !strings.Contains(string(out), "does not run this tool's command through toolgate sandbox") {
		t.Errorf("Monitor with required: %s", out)
	}
}

// TestHookHostsRunBashConfined: with "sandbox": "on" every hook host's
// answer to an allowed shell call carries the command rewritten to run
// under toolgate sandbox, in the field that host runs (Codex's and Qwen's
// updatedInput, Copilot's modifiedArgs, Gemini's hookSpecificOutput.
// tool_input); run as the host would, the everyday part runs and the
// write to .git/config does not. With the sandbox off nothing is
// rewritten.
func TestHookHostsRunBashConfined(t *testing.T) {
	w := newSandboxWorld(t)
	w.env = append(w.env, "XDG_RUNTIME_DIR="+filepath.Join(w.home, "run"))
	cfg := filepath.Join(w.home, ".config/toolgate/config.json")
	// A project script the analysis cannot see into writes .git/config.
	if err := os.WriteFile(filepath.Join(w.proj, "setup.sh"), []byte("#!/bin/sh\necho '[alias] x = !touch marker' >> .git/config\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	script := "echo hi > out.txt; ./setup.sh"
	type host struct {
		name, sub string
		event     map[string]any
		// command digs the rewritten command out of the answer.
		command func(answer map[string]any) string
	}
	dig := func(a map[string]any, keys ...string) string {
		var v any = a
		for _, k := range keys {
			m, _ := v.(map[string]any)
			v = m[k]
		}
		s, _ := v.(string)
		return s
	}
	hosts := []host{
		{"codex", "codex-hook", map[string]any{"hook_event_name": "PreToolUse", "cwd": w.proj, "tool_name": "Bash", "tool_input": map[string]any{"command": script}},
			func(a map[string]any) string { return dig(a, "hookSpecificOutput", "updatedInput", "command") }},
		{"copilot", "copilot-hook", map[string]any{"cwd": w.proj, "toolName": "bash", "toolArgs": map[string]any{"command": script, "description": "d"}},
			func(a map[string]any) string { return dig(a, "modifiedArgs", "command") }},
		{"qwen", "qwen-hook", map[string]any{"hook_event_name": "PreToolUse", "cwd": w.proj, "tool_name": "run_shell_command", "tool_input": map[string]any{"command": script}},
			func(a map[string]any) string { return dig(a, "hookSpecificOutput", "updatedInput", "command") }},
		{"gemini", "gemini-hook", map[string]any{"hook_event_name": "BeforeTool", "cwd": w.proj, "tool_name": "run_shell_command", "tool_input": map[string]any{"command": script}},
			func(a map[string]any) string { return dig(a, "hookSpecificOutput", "tool_input", "command") }},
	}
	for _, mode := range []string{"on", "off"} {
		if err := os.WriteFile(cfg, []byte(`{"sandbox": "`+mode+`", "permission": {"*": "ask", "bash": {"*": "allow"}}}`), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, h := range hosts {
			event, _ := json.Marshal(h.event)
			cmd := exec.Command(w.bin, h.sub)
			cmd.Env, cmd.Dir, cmd.Stdin = w.env, w.proj, bytes.NewReader(event)
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%s: %v: %s", h.sub, err, out)
			}
			var answer map[string]any
			if len(out) == 0 && h.name == "codex" {
				// Codex: no answer is how an allow without a rewrite is said.
			} else if err := json.Unmarshal(out, &answer); err != nil {
				t.Fatalf("%s: %v: %s", h.sub, err, out)
			}
			rewritten := h.command(answer)
			if mode == "off" {
				if rewritten != "" {
					t.Errorf("%s with the sandbox off rewrote the command: %s", h.name, out)
				}
				if h.name == "codex" {
					// Unconfined, the script does change .git/config.
					gitConfig := filepath.Join(w.proj, ".git/config")
					before, _ := os.ReadFile(gitConfig)
					plain := exec.Command("bash", "-c", script)
					plain.Env, plain.Dir = w.env, w.proj
					plain.Run()
					if after, _ := os.ReadFile(gitConfig); bytes.Equal(before, after) {
						t.Errorf("the payload did not change .git/config unconfined")
					}
				}
				continue
			}
			if !strings.Contains(rewritten, " sandbox --profile=") || strings.Contains(string(out), "deny") {
				t.Errorf("%s: no confined command: %s", h.name, out)
				continue
			}
			os.Remove(filepath.Join(w.proj, "out.txt"))
			before, _ := os.ReadFile(filepath.Join(w.proj, ".git/config"))
			run := exec.Command("bash", "-c", rewritten)
			run.Env, run.Dir = w.env, w.proj
			stderr, _ := run.CombinedOutput()
			if b, _ := os.ReadFile(filepath.Join(w.proj, "out.txt")); string(b) != "hi\n" {
				t.Errorf("%s: the everyday part did not run: %s", h.name, stderr)
			}
			if after, _ := os.ReadFile(filepath.Join(w.proj, ".git/config")); !bytes.Equal(before, after) {
				t.Errorf("%s: .git/config was changed: %s", h.name, stderr)
			}
		}
	}
}

// TestGitConfigWriteAskedAndWritable: with the sandbox on, a git unit that
// writes .git/config by design is asked, naming the file, and the command
// the person approves runs with that file writable (the remote is added);
// with the sandbox off it is decided as before, unasked.
func TestGitConfigWriteAskedAndWritable(t *testing.T) {
	w := newSandboxWorld(t)
	w.env = append(w.env, "XDG_RUNTIME_DIR="+filepath.Join(w.home, "run"))
	cfg := filepath.Join(w.home, ".config/toolgate/config.json")
	const add = "git remote add origin https://example.invalid/x.git"
	if err := os.WriteFile(cfg, []byte(`{"sandbox": "on", "permission": {"*": "ask", "bash": {"*": "allow"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	decision, input, out := w.claudeBash(t, map[string]any{"command": add})
	rewritten, _ := input["command"].(string)
	if decision != "ask" || !strings.Contains(string(out), ".git/config") || !strings.Contains(rewritten, " sandbox --profile=") {
		t.Fatalf("answer: %s", out)
	}
	run := exec.Command("bash", "-c", rewritten)
	run.Env, run.Dir = w.env, w.proj
	if stderr, err := run.CombinedOutput(); err != nil {
		t.Fatalf("the approved git remote add failed: %v: %s", err, stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(w.proj, ".git/config")); !strings.Contains(string(b), "example.invalid/x.git") {
		t.Errorf("the remote was not added:\n%s", b)
	}
	// Confined without that approval, the same write is refused.
	if code, _, _ := w.run(t, "sandbox", "--", "git", "remote", "add", "z", "https://example.invalid/z.git"); code == 0 {
		t.Errorf("an unapproved git remote add ran with .git/config writable")
	}
	if b, _ := os.ReadFile(filepath.Join(w.proj, ".git/config")); strings.Contains(string(b), "example.invalid/z.git") {
		t.Errorf("an unapproved remote was added:\n%s", b)
	}
	if err := os.WriteFile(cfg, []byte(`{"permission": {"*": "ask", "bash": {"*": "allow"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if decision, _, out := w.claudeBash(t, map[string]any{"command": "git remote add other https://example.invalid/y.git"}); decision != "allow" {
		t.Errorf("with the sandbox off: %s", out)
	}
}

// TestSandboxAutoAllow: a bash call only the fallback asks about runs
// without a prompt, confined; an explicit ask rule and a path outside the
// project still ask, and without the network off the knob does nothing.
func TestSandboxAutoAllow(t *testing.T) {
	w := newSandboxWorld(t)
	if !sandbox.Probe().Full() {
		t.Fatalf("this test needs every part of confinement: %v", sandbox.Probe().Missing)
	}
	cfg := filepath.Join(w.home, ".config/toolgate/config.json")
	hook := func(policy, command string) (decision string, confined bool) {
		t.Helper()
		if err := os.WriteFile(cfg, []byte(policy), 0o644); err != nil {
			t.Fatal(err)
		}
		d, input, _ := w.claudeBash(t, map[string]any{"command": command})
		return d, input != nil
	}
	on := `{"sandbox": "on", "sandboxNetwork": "off", "sandboxAutoAllow": true, "permission": {"*": "ask", "bash": {"rm *": "ask"}}}`
	for _, tc := range []struct {
		policy, command, decision string
		confined                  bool
	}{
		{on, "make build", "allow", true},
		{on, "rm build.log", "ask", true},
		{on, "cat /etc/hostname", "ask", true},
		{strings.Replace(on, `"sandboxNetwork": "off", `, "", 1), "make build", "ask", true},
	} {
		if d, c := hook(tc.policy, tc.command); d != tc.decision || c != tc.confined {
			t.Errorf("%s with %s: %s (confined %v), want %s (%v)", tc.command, tc.policy, d, c, tc.decision, tc.confined)
		}
	}
	log, _ := os.ReadFile(filepath.Join(w.home, ".pi/agent/extensions/pi-permission-system/logs/toolgate-audit.jsonl"))
	if strings.Count(string(log), `"resolution":"sandbox_auto_allowed"`) != 1 {
		t.Errorf("the audit log does not record the one auto-allowed call:\n%s", log)
	}
}

// claudeBash runs the claude-hook for a Bash call in the project and
// returns its decision and updatedInput (nil without one).
func (w *sandboxWorld) claudeBash(t *testing.T, toolInput map[string]any) (decision string, input map[string]any, out []byte) {
	t.Helper()
	event, _ := json.Marshal(map[string]any{"hook_event_name": "PreToolUse", "cwd": w.proj, "tool_name": "Bash", "tool_input": toolInput})
	cmd := exec.Command(w.bin, "claude-hook")
	cmd.Env, cmd.Dir, cmd.Stdin = w.env, w.proj, bytes.NewReader(event)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("claude-hook: %v", err)
	}
	var answer struct {
		Out struct {
			Decision string         `json:"permissionDecision"`
			Input    map[string]any `json:"updatedInput"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(out, &answer); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return answer.Out.Decision, answer.Out.Input, out
}

// TestSandboxAsAnotherUser: confinement as a user without privileges, as
// most people run it: the child maps that user to itself in its new user
// namespace (it writes the maps itself), writes only in the project, and
// is refused elsewhere. Run as root, the test drops to nobody; run as
// anyone else, it is that user already.
func TestSandboxAsAnotherUser(t *testing.T) {
	w := newSandboxWorld(t)
	uid, gid := os.Getuid(), os.Getgid()
	base := filepath.Dir(w.home)
	if uid == 0 {
		uid, gid = 65534, 65534
		// The world's folders are root's: give a project of its own to nobody.
		for _, d := range []string{base, filepath.Dir(base)} {
			if err := os.Chmod(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	proj := filepath.Join(base, "nobody-proj")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(proj, uid, gid); err != nil && os.Getuid() == 0 {
		t.Fatal(err)
	}
	os.Chmod(w.bin, 0o755)
	cmd := exec.Command(w.bin, "sandbox", "--", "sh", "-c", "echo ok > inside; cat /proc/self/uid_map; echo x > "+filepath.Join(base, "outside")+" || echo refused")
	cmd.Dir = proj
	cmd.Env = []string{"HOME=" + filepath.Join(proj, ".home"), "PATH=" + os.Getenv("PATH"), "LC_ALL=C"}
	if os.Getuid() == 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	want := fmt.Sprintf("%d %d 1", uid, uid)
	if b, _ := os.ReadFile(filepath.Join(proj, "inside")); string(b) != "ok\n" || !strings.Contains(strings.Join(strings.Fields(string(out)), " "), want) ||
		!strings.Contains(string(out), "refused") {
		t.Errorf("inside %q; want the map %q and a refusal outside:\n%s", b, want, out)
	}
}
