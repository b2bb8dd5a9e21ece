package gates

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/toolgate/toolgate/gates/paths"
	"github.com/toolgate/toolgate/gates/shell"
	"github.com/toolgate/toolgate/internal/e2ecorpus"
	"github.com/toolgate/toolgate/internal/runtimecfg"
	"github.com/toolgate/toolgate/policy"
	"github.com/toolgate/toolgate/verdict"
)

// e2eWorld is the benchmark's sandbox: a home with the global policy, a
// project with the files the corpus touches, and the audit log's place.
type e2eWorld struct {
	root, home, work, agentDir, audit string
	res                               testResolver
	memo                              Memo
}

func newE2EWorld(tb testing.TB, rules int) *e2eWorld {
	tb.Helper()
	root, err := filepath.EvalSymlinks(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	w := &e2eWorld{root: root, home: filepath.Join(root, "home"), work: filepath.Join(root, "work"), audit: filepath.Join(root, "audit.jsonl")}
	w.agentDir = filepath.Join(w.home, ".pi", "agent")
	text := e2ecorpus.PolicyText(rules)
	files := e2ecorpus.Files(w.home, w.work)
	files[policy.GlobalPath(w.agentDir)] = text
	for p, c := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o600); err != nil {
			tb.Fatal(err)
		}
	}
	f := policy.ParseFile(policy.GlobalPath(w.agentDir), []byte(text))
	if len(f.Errors) > 0 {
		tb.Fatalf("policy errors: %v", f.Errors)
	}
	w.res = testResolver{p: policy.Compose([]policy.ScopeFile{{Scope: policy.ScopeGlobal, Path: policy.GlobalPath(w.agentDir), Trusted: true, Exists: true, File: f}}, w.home)}
	return w
}

// call builds one corpus entry as the server does (hook.decodeCall): the
// protected files, the host's directories, the shell analysis.
func (w *e2eWorld) call(entry map[string]any, dirs DirCache) *Call {
	name := entry["toolName"].(string)
	input := entry["input"].(map[string]any)
	c := &Call{ToolCallID: "c", ToolName: name, Input: input, Cwd: w.work, Home: w.home, AgentDir: w.agentDir, Dirs: dirs,
		Protected: []string{w.audit, w.audit + ".head", filepath.Join(w.home, ".config", "toolgate"), filepath.Join(w.work, ".toolgate")}}
	if dirs != nil {
		c.Memo = &w.memo // the server's caches come together
	}
	if name == "bash" {
		cmd := input["command"].(string)
		c.Shell = &ShellCommand{Command: cmd, Analysis: shell.Analyze(cmd, shell.Options{Cwd: w.work, Home: w.home})}
	}
	return c
}

// watchedDirs is a DirCache like the server's (hook/dircache.go) in its
// steady state: the directories the policy watch sees (the working
// directory, home and the agent's directories, and those above them) are
// remembered; any other is resolved by the caller.
type watchedDirs struct {
	mu      sync.Mutex
	watched map[string]bool
	known   map[string][2]any
	entries map[string][2]bool
	skip    map[string]bool
}

func (w *e2eWorld) watchedDirs() *watchedDirs {
	d := &watchedDirs{watched: map[string]bool{}, known: map[string][2]any{}, entries: map[string][2]bool{}, skip: map[string]bool{}}
	for _, top := range []string{w.work, policy.GlobalPath(w.agentDir), filepath.Join(w.work, ".pi", "agent", "x"), filepath.Join(w.home, ".config", "toolgate", "x")} {
		for dir := filepath.Dir(top); ; dir = filepath.Dir(dir) {
			d.watched[dir] = true
			if dir == "/" {
				break
			}
		}
	}
	d.watched[w.work] = true
	return d
}

func (d *watchedDirs) Canonical(dir string) (string, bool, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.skip[dir] {
		return "", false, false
	}
	if r, ok := d.known[dir]; ok {
		return r[0].(string), r[1].(bool), true
	}
	x := dir // the deepest watched directory at or above dir
	for !d.watched[x] {
		if x == "/" {
			return "", false, false
		}
		x = filepath.Dir(x)
	}
	if x != dir && filepath.Dir(dir) != x {
		next := dir
		for filepath.Dir(next) != x {
			next = filepath.Dir(next)
		}
		if _, err := os.Lstat(next); err == nil {
			d.skip[dir] = true // not kept
			return "", false, false
		}
	}
	real, ok := paths.Canonical(dir)
	if !ok || real != dir {
		return real, ok, true
	}
	d.known[dir] = [2]any{real, ok}
	info, err := os.Lstat(dir)
	d.entries[dir] = [2]bool{err == nil, err == nil && info.IsDir()}
	return real, ok, true
}

// Entry populates the cache as the server's does (hook/dircache.go).
func (d *watchedDirs) Entry(p string) (bool, bool, bool) {
	real, ok, hit := d.Canonical(p)
	if !hit || !ok || real != p {
		return false, false, false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	e, kept := d.entries[p]
	return e[0], e[1], kept
}

// discard is a Reporter that writes nothing.
type discard struct{}

func (discard) Notify(verdict.DecisionParams) {}
func (discard) Audit(AuditRecord) error       { return nil }

func benchE2E(b *testing.B, rules int, withShell, withEvals bool) {
	b.Cleanup(runtimecfg.Apply()) // the binary's collector settings
	w := newE2EWorld(b, rules)
	dirs := w.watchedDirs()
	corpus := e2ecorpus.Calls()
	calls := make([]*Call, len(corpus))
	for i, e := range corpus {
		calls[i] = w.call(e, dirs)
		raw, err := json.Marshal(calls[i].Input)
		if err != nil {
			b.Fatal(err)
		}
		calls[i].RawInput = raw
	}
	var evals *Evals // nil: Evaluate
	if withEvals {
		evals = &Evals{}
	}
	rn := &Runner{Reporter: discard{}}
	shells := &shell.Cache{Known: dirs.Entry}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k := i % len(corpus)
		c := calls[k]
		if withShell && c.Shell != nil {
			// As the server analyzes: through its cache, which takes what
			// the directory cache knows.
			cmd := c.Shell.Command
			a, stamp := shells.AnalyzeStamped(cmd, shell.Options{Cwd: w.work, Home: w.home})
			c.Shell = &ShellCommand{Command: cmd, Analysis: a, Stamp: stamp}
		}
		req := Request{Call: c, Gates: ToolGates, Resolver: w.res, Input: corpus[k]["input"]}
		outcomes, _, err := evals.Evaluate(req)
		if err != nil {
			b.Fatal(err)
		}
		req.Evaluated = outcomes
		rn.Run(context.Background(), req)
	}
}

// BenchmarkE2ECorpus is one call of the end-to-end benchmark's corpus,
// in turn: the bash analysis, the gates and the runner (no audit write).
func BenchmarkE2ECorpus200(b *testing.B)   { benchE2E(b, 200, true, false) }
func BenchmarkE2ECorpus10000(b *testing.B) { benchE2E(b, 10000, true, false) }

// BenchmarkE2EEvals is the same with the session's memo of evaluations
// (Evals), as the server decides.
func BenchmarkE2EEvals200(b *testing.B)   { benchE2E(b, 200, true, true) }
func BenchmarkE2EEvals10000(b *testing.B) { benchE2E(b, 10000, true, true) }

// BenchmarkE2EGates200 is the same without the bash analysis.
func BenchmarkE2EGates200(b *testing.B) { benchE2E(b, 200, false, false) }
