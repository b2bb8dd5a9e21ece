// Package opencodeplugin_test proves the toolgate plugin inside the real
// OpenCode CLI (the version pinned in package-lock.json), installed the way
// README.md says, driven by a scripted fake OpenAI-compatible model on
// 127.0.0.1, from `go test ./...`: `opencode run` for the calls a plugin
// decides alone, `opencode serve` and its HTTP API standing in for a person
// who answers OpenCode's permission dialog.
package opencodeplugin_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolgate/toolgate/examples/internal/fakemodel"
	"github.com/toolgate/toolgate/examples/internal/hoste2e"
)

// runTimeout bounds one OpenCode run or serve session (5-15 s here).
const runTimeout = 90 * time.Second

// pluginVersion is the @opencode-ai/plugin OpenCode 1.18.33 installs into
// every config directory when it finds a plugin.
const pluginVersion = "1.18.33"

type ocEnv struct {
	opencode  string // the native binary
	pluginDir string // this directory
	binDir    string // holds the toolgate under test
	sysPath   string // PATH without toolgate
}

func TestOpenCodeE2E(t *testing.T) {
	node, npm := hoste2e.RequireNode(t, 18, 0)
	root := hoste2e.ModuleRoot(t)
	hoste2e.RecordInputs(t, root)
	binDir := hoste2e.BuildToolgate(t, root)
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	native := nativeBinary()
	hoste2e.NPMInstallLocked(t, dir, npm, native)
	e := &ocEnv{opencode: filepath.Join(dir, native), pluginDir: dir, binDir: binDir, sysPath: hoste2e.SystemPath(node)}

	// The cases run in parallel: each OpenCode takes a few seconds to start.
	t.Run("run", func(t *testing.T) { t.Parallel(); e.testRun(t) })
	t.Run("mcp", func(t *testing.T) { t.Parallel(); e.testMCP(t) })
	t.Run("toolgate missing", func(t *testing.T) { t.Parallel(); e.testMissing(t) })
	t.Run("toolgate crashing", func(t *testing.T) { t.Parallel(); e.testBroken(t, "kill -9 $$") })
	t.Run("toolgate too slow", func(t *testing.T) {
		t.Parallel()
		e.testBroken(t, "exec cat >/dev/null", "TOOLGATE_TIMEOUT_MS=1500")
	})
	t.Run("serve", func(t *testing.T) { t.Parallel(); e.testServe(t) })
	t.Run("confine", func(t *testing.T) { t.Parallel(); e.testConfine(t) })
}

// nativeBinary is the platform package's OpenCode binary (npm ci runs no
// install scripts, so opencode-ai's own bin is a placeholder).
func nativeBinary() string {
	osName := runtime.GOOS
	if osName == "windows" {
		return filepath.Join("node_modules", "opencode-windows-x64", "bin", "opencode.exe")
	}
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	return filepath.Join("node_modules", "opencode-"+osName+"-"+arch, "bin", "opencode")
}

// project is one OpenCode project with its own home, fake model, policy
// and audit log.
type project struct {
	home, tmp, proj string
	audit, debug    string
	fake            *fakeOpenAI
	env             []string
}

// setup makes a project with the plugin installed as README.md says (a
// one-line file in .opencode/plugin/) and the policy in toolgate's own
// global file. OpenCode's npm install of @opencode-ai/plugin is made
// unnecessary the way OpenCode itself checks it (a package.json and lock
// naming the package, and a node_modules folder), so that no registry is
// asked: the plugin imports nothing at run time.
func (e *ocEnv) setup(t *testing.T, script []fakemodel.Step, permission string, toolgateBin string, env ...string) *project {
	t.Helper()
	home, tmp, proj := hoste2e.Dirs(t)
	p := &project{home: home, tmp: tmp, proj: proj, audit: filepath.Join(home, "toolgate-audit.jsonl"),
		debug: filepath.Join(tmp, "toolgate-plugin.log"), fake: startFakeOpenAI(t, script)}
	hoste2e.WriteFile(t, filepath.Join(proj, "opencode.json"), fmt.Sprintf(`{
  "$schema": "https://opencode.ai/config.json",
  "provider": {"fake": {"npm": "@ai-sdk/openai-compatible", "name": "Fake",
    "options": {"baseURL": %q, "apiKey": "fake-key"},
    "models": {"fake-model": {"name": "Fake Model", "tool_call": true}}}},
  "model": "fake/fake-model", "small_model": "fake/fake-model"
}`, p.fake.url))
	hoste2e.WriteFile(t, filepath.Join(proj, ".opencode", "plugin", "toolgate.ts"),
		fmt.Sprintf("export { ToolgatePlugin } from %q;\n", filepath.Join(e.pluginDir, "index.ts")))
	for _, d := range []string{filepath.Join(proj, ".opencode"), filepath.Join(home, ".config", "opencode")} {
		deps := fmt.Sprintf(`{"dependencies": {"@opencode-ai/plugin": %q}}`, pluginVersion)
		hoste2e.WriteFile(t, filepath.Join(d, "package.json"), deps+"\n")
		hoste2e.WriteFile(t, filepath.Join(d, "package-lock.json"),
			fmt.Sprintf(`{"lockfileVersion": 3, "requires": true, "packages": {"": %s}}`+"\n", deps))
		if err := os.MkdirAll(filepath.Join(d, "node_modules"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	hoste2e.WriteFile(t, filepath.Join(home, ".config", "toolgate", "config.json"),
		fmt.Sprintf(`{"auditLog": %q, "permission": %s}`, p.audit, permission))
	path := e.binDir + string(os.PathListSeparator) + e.sysPath
	extra := []string{"OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_LSP_DOWNLOAD=1",
		"npm_config_registry=http://127.0.0.1:9/", "TOOLGATE_DEBUG_LOG=" + p.debug}
	if toolgateBin != "" {
		path = e.sysPath
		extra = append(extra, "TOOLGATE_BIN="+toolgateBin)
	}
	p.env = hoste2e.Env(path, home, tmp, append(extra, env...)...)
	return p
}

// configure sets a key of the project's opencode.json.
func (p *project) configure(t *testing.T, key string, value any) {
	t.Helper()
	cfg := filepath.Join(p.proj, "opencode.json")
	data, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var c map[string]any
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	c[key] = value
	data, _ = json.Marshal(c)
	hoste2e.WriteFile(t, cfg, string(data))
}

// diagnostics is what a failure report shows of a run.
func (p *project) diagnostics(out []byte) string {
	debug, _ := os.ReadFile(p.debug)
	var logs []byte
	if files, _ := filepath.Glob(filepath.Join(p.home, ".local", "share", "opencode", "log", "*.log")); len(files) > 0 {
		logs, _ = os.ReadFile(files[len(files)-1])
		if len(logs) > 6000 {
			logs = logs[len(logs)-6000:]
		}
	}
	return fmt.Sprintf("--- output:\n%s\n--- plugin debug log:\n%s\n--- opencode log (tail):\n%s", out, debug, logs)
}

// run runs `opencode run --format json` in the project.
func (e *ocEnv) run(t *testing.T, p *project) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.opencode, "run", "--format", "json", "do it")
	cmd.Dir, cmd.Env, cmd.WaitDelay = p.proj, p.env, 5*time.Second
	start := time.Now()
	out, err := cmd.CombinedOutput()
	t.Logf("opencode run took %s", time.Since(start).Round(time.Millisecond))
	if err != nil {
		t.Fatalf("opencode run: %v\n%s", err, p.diagnostics(out))
	}
	return out
}

func bash(command string) fakemodel.Step {
	return fakemodel.Step{Tool: "bash", Args: map[string]any{"command": command, "description": "run it"}}
}

func (e *ocEnv) testRun(t *testing.T) {
	p := e.setup(t, nil, `{
    "*": "ask",
    "read": {"*": "allow", "*secret.txt": "deny"},
    "bash": {"*": "ask", "touch ran-allow.txt": "allow", "touch ran-deny.txt": "deny"},
    "webfetch": {"*": "ask", "https://evil.example/*": "deny"}
  }`, "")
	secret := filepath.Join(p.proj, "secret.txt")
	hoste2e.WriteFile(t, secret, "TOP-SECRET-CONTENT\n")
	p.fake.setScript([]fakemodel.Step{
		bash("touch ran-allow.txt"),
		bash("touch ran-deny.txt"),
		{Tool: "read", Args: map[string]any{"filePath": secret}},
		bash("touch ran-ask.txt"),
		{Tool: "webfetch", Args: map[string]any{"url": "https://evil.example/data", "format": "text"}},
		{Tool: "webfetch", Args: map[string]any{"url": "HTTPS://EVIL.EXAMPLE/data", "format": "text"}}, // as the fetcher normalizes it
		{Text: "done"},
	})
	out := e.run(t, p)
	fail := func(format string, args ...any) {
		t.Helper()
		t.Errorf(format+"\n%s", append(args, p.diagnostics(out))...)
	}

	if !hoste2e.Exists(filepath.Join(p.proj, "ran-allow.txt")) {
		fail("the allowed bash call did not run")
	}
	if hoste2e.Exists(filepath.Join(p.proj, "ran-deny.txt")) {
		fail("the denied bash call ran")
	}
	if got := p.fake.toolResult("call_1"); !strings.Contains(got, "toolgate: bash command 'touch ran-deny.txt' is denied by") {
		fail("the model was told %q about the denied bash call, want toolgate's reason", got)
	}
	if p.fake.anyRequestContains("TOP-SECRET-CONTENT") {
		fail("the denied read ran: the secret reached the model")
	}
	if got := p.fake.toolResult("call_2"); !strings.Contains(got, "is denied by") || !strings.Contains(got, "secret.txt") {
		fail("the model was told %q about the denied read, want toolgate's reason", got)
	}
	if hoste2e.Exists(filepath.Join(p.proj, "ran-ask.txt")) {
		fail("a call toolgate asks about ran in `opencode run`, where nobody can answer")
	}
	if got := p.fake.toolResult("call_3"); !strings.Contains(got, "no one can be asked") || !strings.Contains(got, "To allow it, add an allow rule") {
		fail("the model was told %q about the ask, want a block that says how to allow it", got)
	}
	for _, id := range []string{"call_4", "call_5"} {
		if got := p.fake.toolResult(id); !strings.Contains(got, "is denied by rule 'https://evil.example/*'") {
			fail("the model was told %q about webfetch %s, want toolgate's reason", got, id)
		}
	}
	checkAudit(t, p, map[string]string{"call_0": "policy_allow", "call_1": "policy_deny", "call_2": "policy_deny",
		"call_3": "confirmation_unavailable", "call_4": "policy_deny", "call_5#normalized": "policy_deny"})
}

// testConfine: with "sandbox": "on" the plugin runs an allowed bash call
// as the confined command toolgate's answer carries: a project script
// that writes .git/config does the everyday part and not that one.
func (e *ocEnv) testConfine(t *testing.T) {
	p := e.setup(t, nil, `{"*": "ask", "read": "allow", "bash": {"*": "allow"}}`, "")
	hoste2e.WriteFile(t, filepath.Join(p.home, ".config", "toolgate", "config.json"),
		fmt.Sprintf(`{"sandbox": "on", "auditLog": %q, "permission": {"*": "ask", "read": "allow", "bash": {"*": "allow"}}}`, p.audit))
	git := exec.Command("git", "init", "-q", p.proj)
	git.Env = p.env
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	if err := os.WriteFile(filepath.Join(p.proj, "setup.sh"), []byte("#!/bin/sh\necho '[alias] x = !touch marker' >> .git/config\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	gitConfig := filepath.Join(p.proj, ".git", "config")
	before, _ := os.ReadFile(gitConfig)
	p.fake.setScript([]fakemodel.Step{bash("echo hi > out.txt; ./setup.sh"), {Text: "done"}})
	out := e.run(t, p)
	if b, _ := os.ReadFile(filepath.Join(p.proj, "out.txt")); string(b) != "hi\n" {
		t.Errorf("the everyday part did not run\n%s", p.diagnostics(out))
	}
	if after, _ := os.ReadFile(gitConfig); !bytes.Equal(before, after) {
		t.Errorf(".git/config was changed: the call did not run confined\n%s", p.diagnostics(out))
	}
	checkAudit(t, p, map[string]string{"call_0": "policy_allow"})
}

func (e *ocEnv) testMissing(t *testing.T) {
	p := e.setup(t, []fakemodel.Step{bash("touch ran-missing.txt"), {Text: "done"}}, `{"*": "allow"}`, filepath.Join(os.TempDir(), "no-such-dir", "toolgate"))
	// The README's other install: a symlink to index.ts (its import of
	// ../toolgate-client resolves from the checkout).
	link := filepath.Join(p.proj, ".opencode", "plugin", "toolgate.ts")
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(e.pluginDir, "index.ts"), link); err != nil {
		t.Fatal(err)
	}
	out := e.run(t, p)
	if hoste2e.Exists(filepath.Join(p.proj, "ran-missing.txt")) {
		t.Errorf("the bash call ran without toolgate\n%s", p.diagnostics(out))
	}
	if got := p.fake.toolResult("call_0"); !strings.Contains(got, "toolgate is unavailable") || !strings.Contains(got, "fail-closed") {
		t.Errorf("the model was told %q, want the fail-closed block\n%s", got, p.diagnostics(out))
	}
}

// mcpServer is a stdio MCP server with the tools echo and danger; a call
// writes mcp-<tool>.txt into the directory it is started in.
const mcpServer = `import fs from "node:fs";
import readline from "node:readline";
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...m }) + "\n");
const tool = (name) => ({ name, description: name + " something", inputSchema: { type: "object", properties: { target: { type: "string" } } } });
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const m = JSON.parse(line);
  if (m.id === undefined) return;
  if (m.method === "initialize") send({ id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "demo", version: "1.0.0" } } });
  else if (m.method === "tools/list") send({ id: m.id, result: { tools: [tool("echo"), tool("danger")] } });
  else if (m.method === "tools/call") { fs.writeFileSync("mcp-" + m.params.name + ".txt", "called\n"); send({ id: m.id, result: { content: [{ type: "text", text: "called " + m.params.name } ] } }); }
  else send({ id: m.id, error: { code: -32601, message: "method not found" } });
});
`

// testMCP: OpenCode names an MCP tool server_tool; the plugin decides it
// as toolgate's MCP target server:tool (the server is in OpenCode's mcp
// config).
func (e *ocEnv) testMCP(t *testing.T) {
	p := e.setup(t, []fakemodel.Step{
		{Tool: "demo_echo", Args: map[string]any{"target": "x"}},
		{Tool: "demo_danger", Args: map[string]any{"target": "x"}},
		{Text: "done"},
	}, `{"*": "ask", "mcp": {"*": "ask", "demo:echo": "allow", "demo:danger": "deny"}}`, "")
	server := filepath.Join(p.tmp, "mcp-server.mjs")
	hoste2e.WriteFile(t, server, mcpServer)
	p.configure(t, "mcp", map[string]any{"demo": map[string]any{"type": "local", "command": []string{"node", server}, "enabled": true}})

	out := e.run(t, p)
	fail := func(format string, args ...any) {
		t.Helper()
		t.Errorf(format+"\n%s", append(args, p.diagnostics(out))...)
	}
	if !hoste2e.Exists(filepath.Join(p.proj, "mcp-echo.txt")) {
		fail("the allowed MCP tool did not run")
	}
	if hoste2e.Exists(filepath.Join(p.proj, "mcp-danger.txt")) {
		fail("the denied MCP tool ran")
	}
	if got := p.fake.toolResult("call_1"); !strings.Contains(got, "is denied by rule 'demo:danger'") {
		fail("the model was told %q about the denied MCP tool, want toolgate's reason", got)
	}
	checkAudit(t, p, map[string]string{"call_0": "policy_allow", "call_1": "policy_deny"})
}

// testBroken runs a toolgate that dies at every start (the plugin
// restarts it once) and one that never answers: the call is blocked.
func (e *ocEnv) testBroken(t *testing.T, script string, env ...string) {
	dir := filepath.Join(t.TempDir(), "broken-bin")
	hoste2e.WriteFile(t, filepath.Join(dir, "toolgate"), "#!/bin/sh\n"+script+"\n")
	if err := os.Chmod(filepath.Join(dir, "toolgate"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := e.setup(t, []fakemodel.Step{bash("touch ran-broken.txt"), {Text: "done"}}, `{"*": "allow"}`, filepath.Join(dir, "toolgate"), env...)
	out := e.run(t, p)
	if hoste2e.Exists(filepath.Join(p.proj, "ran-broken.txt")) {
		t.Errorf("the bash call ran with a broken toolgate\n%s", p.diagnostics(out))
	}
	if got := p.fake.toolResult("call_0"); !strings.Contains(got, "toolgate is unavailable") || !strings.Contains(got, "fail-closed") {
		t.Errorf("the model was told %q, want the fail-closed block\n%s", got, p.diagnostics(out))
	}
}

// testServe drives `opencode serve` like a client with a person at it: the
// driver answers OpenCode's permission questions about the commands it was
// told to, and must not be needed for the others.
func (e *ocEnv) testServe(t *testing.T) {
	dirA, dirB := "dir-a", "dir-b"
	p := e.setup(t, nil, `{"*": "ask", "read": "ask", "grep": "allow", "bash": {"*": "ask", "touch ran-allowed.txt": "allow", "touch ran-deny.txt": "deny"}}`, "")
	// OpenCode's own permission allows all of it: toolgate decides all the same.
	p.configure(t, "permission", map[string]any{"bash": map[string]any{"touch *": "allow"}, "read": "allow", "*": "allow"})
	fileA, fileB := filepath.Join(p.proj, dirA, "a.txt"), filepath.Join(p.proj, dirB, "b.txt")
	hoste2e.WriteFile(t, fileA, "CONTENT-OF-A\n")
	hoste2e.WriteFile(t, fileB, "CONTENT-OF-B\n")
	p.fake.setScript([]fakemodel.Step{
		bash("touch ran-once.txt"),    // ask → the person: once
		bash("touch ran-allowed.txt"), // allow: the plugin answers OpenCode itself
		bash("touch ran-always.txt"),  // ask → the person: always
		bash("touch ran-session.txt"), // toolgate's session approval: no question for the person
		bash("touch ran-deny.txt"),    // deny: blocked before OpenCode asks
		{Tool: "write", Args: map[string]any{"filePath": filepath.Join(p.proj, "ran-write.txt"), "content": "written\n"}}, // ask → the person: once
		{Tool: "grep", Args: map[string]any{"pattern": "CONTENT-OF", "path": p.proj, "include": "*.txt"}},                 // allow: the plugin answers
		{Tool: "read", Args: map[string]any{"filePath": fileA}},                                                           // ask → the person: always
		// toolgate's session approval covers dir-a only, OpenCode's "always"
		// for read would cover every read: the person must be asked again.
		{Tool: "read", Args: map[string]any{"filePath": fileB}}, // ask → the person: reject
		{Text: "done"},
	})
	// What the person answers, by a text in the question's patterns.
	person := []answer{{"touch ran-once.txt", "once"}, {"touch ran-always.txt", "always"}, {"ran-write.txt", "once"},
		{dirA + "/a.txt", "always"}, {dirB + "/b.txt", "reject"}}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	_ = ln.Close()
	ctx, cancel := context.WithTimeout(t.Context(), runTimeout)
	defer cancel()
	var out bytes.Buffer
	var outMu sync.Mutex
	cmd := exec.CommandContext(ctx, e.opencode, "serve", "--hostname", "127.0.0.1", "--port", fmt.Sprint(port))
	cmd.Dir, cmd.Env, cmd.WaitDelay = p.proj, p.env, 5*time.Second
	cmd.Stdout, cmd.Stderr = lockedWriter{&out, &outMu}, lockedWriter{&out, &outMu}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	output := func() []byte { outMu.Lock(); defer outMu.Unlock(); return append([]byte(nil), out.Bytes()...) }
	d := &driver{base: fmt.Sprintf("http://127.0.0.1:%d", port), dir: p.proj}
	start := time.Now()
	if err := d.waitReady(ctx); err != nil {
		t.Fatalf("opencode serve did not come up: %v\n%s", err, p.diagnostics(output()))
	}
	answered, err := d.session(ctx, person)
	t.Logf("opencode serve session took %s", time.Since(start).Round(time.Millisecond))
	if err != nil {
		t.Fatalf("driving opencode serve: %v\n%s", err, p.diagnostics(output()))
	}
	fail := func(format string, args ...any) {
		t.Helper()
		t.Errorf(format+"\n%s", append(args, p.diagnostics(output()))...)
	}
	var want []string
	for _, a := range person {
		want = append(want, a.match+"="+a.reply)
	}
	if strings.Join(answered, ",") != strings.Join(want, ",") {
		fail("the person answered %v, want exactly %v: the other calls are the plugin's to answer", answered, want)
	}
	for file, ran := range map[string]bool{"ran-once.txt": true, "ran-allowed.txt": true, "ran-always.txt": true,
		"ran-session.txt": true, "ran-deny.txt": false, "ran-write.txt": true} {
		if hoste2e.Exists(filepath.Join(p.proj, file)) != ran {
			fail("%s: ran = %v, want %v", file, !ran, ran)
		}
	}
	if got := p.fake.toolResult("call_4"); !strings.Contains(got, "toolgate: bash command 'touch ran-deny.txt' is denied by") {
		fail("the model was told %q about the denied call, want toolgate's reason", got)
	}
	// The grep itself may fail here (OpenCode downloads ripgrep, and there
	// is no network): it must get past toolgate and OpenCode's question.
	if got := p.fake.toolResult("call_6"); got == "" || strings.Contains(got, "toolgate") || strings.Contains(got, "rejected permission") {
		fail("the model was told %q about the allowed grep, want it run", got)
	}
	if got := p.fake.toolResult("call_7"); !strings.Contains(got, "CONTENT-OF-A") {
		fail("the model was told %q about the approved read, want the file", got)
	}
	if p.fake.anyRequestContains("CONTENT-OF-B") {
		fail("the rejected read ran: its content reached the model")
	}
	checkAudit(t, p, map[string]string{"call_0": "user_approved", "call_1": "policy_allow", "call_2": "user_approved_for_session",
		"call_3": "session_approved", "call_4": "policy_deny", "call_5": "user_approved", "call_6": "policy_allow",
		"call_7": "user_approved_for_session", "call_8": "user_denied"})
}

type lockedWriter struct {
	b  *bytes.Buffer
	mu *sync.Mutex
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

// driver is an `opencode serve` client: OpenCode's HTTP API and its event
// stream.
type driver struct {
	base, dir string
}

func (d *driver) url(path string) string {
	return d.base + path + "?directory=" + url.QueryEscape(d.dir)
}

func (d *driver) post(ctx context.Context, path string, body any) (*http.Response, error) {
	j, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.url(path), bytes.NewReader(j))
	if err != nil {
		return nil, err
	}
	req.Header.Set("content-type", "application/json")
	return http.DefaultClient.Do(req)
}

func (d *driver) waitReady(ctx context.Context) error {
	for {
		rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		req, _ := http.NewRequestWithContext(rctx, http.MethodGet, d.url("/config"), nil)
		resp, err := http.DefaultClient.Do(req)
		cancel()
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (last: %v)", ctx.Err(), err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// session starts a session with one prompt, answers the permission
// questions person has answers for (once|always|reject),
// and returns when the session is idle, with the answers given in order.
// answer is the person's reply to the question whose patterns contain match.
type answer struct{ match, reply string }

func (d *driver) session(ctx context.Context, person []answer) ([]string, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, d.url("/event"), nil)
	events, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer events.Body.Close()
	resp, err := d.post(ctx, "/session", map[string]any{})
	if err != nil {
		return nil, err
	}
	var s struct{ ID string }
	err = json.NewDecoder(resp.Body).Decode(&s)
	resp.Body.Close()
	if err != nil || s.ID == "" {
		return nil, fmt.Errorf("creating a session: %v", err)
	}
	resp, err = d.post(ctx, "/session/"+s.ID+"/prompt_async", map[string]any{"parts": []any{map[string]any{"type": "text", "text": "do it"}}})
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	var answered []string
	sc := bufio.NewScanner(events.Body)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Type       string `json:"type"`
			Properties struct {
				ID        string   `json:"id"`
				SessionID string   `json:"sessionID"`
				Patterns  []string `json:"patterns"`
				Status    struct {
					Type string `json:"type"`
				} `json:"status"`
			} `json:"properties"`
		}
		if json.Unmarshal([]byte(line), &ev) != nil || ev.Properties.SessionID != s.ID {
			continue
		}
		switch ev.Type {
		case "permission.asked":
			var mine *answer
			for i, a := range person {
				if strings.Contains(strings.Join(ev.Properties.Patterns, "\n"), a.match) {
					mine = &person[i]
				}
			}
			if mine == nil {
				continue // the plugin answers this one
			}
			answered = append(answered, mine.match+"="+mine.reply)
			reply := mine.reply
			resp, err := d.post(ctx, "/permission/"+ev.Properties.ID+"/reply", map[string]any{"reply": reply})
			if err != nil {
				return answered, err
			}
			resp.Body.Close()
		case "session.idle":
			return answered, nil
		case "session.status":
			if ev.Properties.Status.Type == "idle" {
				return answered, nil
			}
		}
	}
	return answered, fmt.Errorf("the event stream ended before the session was idle: %v", sc.Err())
}

// checkAudit checks that each call has one decision record with the wanted
// resolution, and that every record names the host.
func checkAudit(t *testing.T, p *project, want map[string]string) {
	t.Helper()
	data, err := os.ReadFile(p.audit)
	if err != nil {
		t.Fatalf("audit log: %v", err)
	}
	got := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("audit line %q: %v", line, err)
		}
		if rec["event"] != "decision" {
			continue
		}
		if rec["host"] != "opencode" {
			t.Errorf("audit record without the host named: %s", line)
		}
		id, _ := rec["toolCallId"].(string)
		res, _ := rec["resolution"].(string)
		got[id] = append(got[id], res)
	}
	for id, res := range want {
		if len(got[id]) != 1 || got[id][0] != res {
			t.Errorf("audit: %s has decisions %v, want one %s\n%s", id, got[id], res, data)
		}
	}
}
