package gates

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/toolgate/toolgate/gates/shell"
	"github.com/toolgate/toolgate/internal/e2ecorpus"
	"github.com/toolgate/toolgate/internal/testmount"
	"github.com/toolgate/toolgate/policy"
)

// Evals (the memo of whole evaluations) decides exactly what Evaluate
// decides, call after call: over the end-to-end benchmark's corpus and
// the generated calls of fast_test.go, across a policy edit, a session
// approval, and every kind of file system change between two identical
// calls. And a memo broken on purpose is caught.

func (r testResolver) Identity() (*policy.Policy, []*policy.Rule) { return r.p, r.session }

// genDirs is watchedDirs under a generation, as the server's directory
// cache is under the policy watch: a change in a watched directory is a
// new generation, with nothing kept.
type genDirs struct {
	*watchedDirs
	gen uint64
	// vouch, when set, is the watch's Vouch (paths.Watcher); nil vouches
	// for nothing.
	vouch func(dir string) (uint64, bool)
}

// Vouch implements paths.Watcher.
func (g *genDirs) Vouch(dir string) (uint64, bool) {
	if g.vouch == nil {
		return 0, false
	}
	return g.vouch(dir)
}

func (g *genDirs) Generation() uint64 { return g.gen }

// CanonicalKept and EntryKept (paths.KeptDirs) say an answer is kept when
// it is one the cache remembers or skips (as the server's does), so the
// memo does not ask it again within the generation.
func (g *genDirs) CanonicalKept(dir string) (string, bool, bool, bool) {
	real, ok, hit := g.Canonical(dir)
	return real, ok, hit, g.kept(dir)
}

func (g *genDirs) EntryKept(p string) (bool, bool, bool, bool) {
	exists, isDir, known := g.Entry(p)
	return exists, isDir, known, g.kept(p)
}

func (g *genDirs) kept(dir string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	_, known := g.known[dir]
	return known || g.skip[dir]
}

// memoRig decides each call twice: through an Evals (with the shell cache
// and the directory cache, as the server does) and by Evaluate of a call
// built afresh (its shell analysis uncached), and the plain gates.
type memoRig struct {
	w      *e2eWorld
	dirs   *genDirs
	shells *shell.Cache
	evals  *Evals
	res    testResolver
	cwd    string
	hasUI  bool
	// skipPlain leaves out the check of the rig itself (Evaluate against
	// the plain gates), where another test makes it.
	skipPlain bool
	// watch, when set, is a real policy watch (a policy.Loader read at
	// the start of every call, as the server does): it vouches for the
	// directories the remembered evaluations depend on, and its
	// generation is the Dirs' (with events counted: one simulated
	// watchEvent more each).
	watch     *policy.Loader
	watchLocs policy.Locations
	events    uint64
	// lyingWatch (tests only): Vouch says yes to every existing
	// directory without watching it, to show the scenarios catch a watch
	// that does not see.
	lyingWatch bool
}

// newWatchedRig is newMemoRig with a real policy watch.
func newWatchedRig(w *e2eWorld, broken breakKind, lying bool) *memoRig {
	r := newMemoRig(w, broken)
	// The loader's own project files are elsewhere: the world's
	// .toolgate is a link, which the watch never trusts.
	r.watch, r.watchLocs = policy.NewLoader(), policy.Locations{Home: w.home, AgentDir: w.agentDir, Cwd: filepath.Join(w.root, "loader"), ProjectTrusted: true}
	r.lyingWatch = lying
	r.shells.Vouch = func(dir string) (uint64, bool) { return r.dirs.Vouch(dir) }
	r.shells.Generation = func() uint64 { return r.dirs.gen }
	r.sync()
	r.sync()
	return r
}

// sync is the start of a call with a watch: the watch read, and a new
// generation of Dirs (nothing kept) when it saw a change.
func (r *memoRig) sync() {
	if r.watch == nil {
		return
	}
	r.watch.Policy(r.watchLocs)
	gen := r.watch.Generation() + r.events<<32
	if gen == r.dirs.gen {
		return
	}
	vouch := r.watch.Vouch
	if r.lyingWatch {
		vouch = func(dir string) (uint64, bool) {
			var st syscall.Stat_t
			if err := syscall.Lstat(dir, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
				return 0, false
			}
			return uint64(st.Dev), true
		}
	}
	r.dirs = &genDirs{watchedDirs: r.w.watchedDirs(), gen: gen, vouch: vouch}
}

func newMemoRig(w *e2eWorld, broken breakKind) *memoRig {
	r := &memoRig{w: w, dirs: &genDirs{watchedDirs: w.watchedDirs()}, evals: &Evals{broken: broken}, res: w.res, cwd: w.work}
	r.shells = &shell.Cache{Known: func(p string) (bool, bool, bool) { return r.dirs.Entry(p) }}
	return r
}

// watchEvent is what the policy watch does on a change in a watched
// directory: a new generation, nothing kept.
func (r *memoRig) watchEvent() {
	if r.watch != nil {
		r.events++
		r.sync()
		return
	}
	r.dirs = &genDirs{watchedDirs: r.w.watchedDirs(), gen: r.dirs.gen + 1}
}

func (r *memoRig) build(entry map[string]any, cached bool) *Call {
	var dirs DirCache
	if cached {
		dirs = r.dirs
	}
	c := r.w.call(entry, dirs)
	c.Cwd = r.cwd
	raw, err := json.Marshal(c.Input)
	if err != nil {
		panic(err)
	}
	c.RawInput = raw
	if c.Shell != nil {
		opt := shell.Options{Cwd: r.cwd, Home: r.w.home}
		if cached {
			a, stamp := r.shells.AnalyzeStamped(c.Shell.Command, opt)
			c.Shell = &ShellCommand{Command: c.Shell.Command, Analysis: a, Stamp: stamp}
		} else {
			c.Shell = &ShellCommand{Command: c.Shell.Command, Analysis: shell.Analyze(c.Shell.Command, opt)}
		}
	}
	return c
}

// decide returns the memo's outcomes, Evaluate's and whether the memo
// answered from what it remembered.
func (r *memoRig) decide(tb testing.TB, entry map[string]any) (on, off []Outcome, hit bool) {
	tb.Helper()
	hits, _ := r.evals.Stats()
	r.sync()
	on, _, err := r.evals.Evaluate(Request{Call: r.build(entry, true), Gates: ToolGates, Resolver: r.res, HasUI: r.hasUI})
	if err != nil {
		tb.Fatalf("%v: %v", entry, err)
	}
	now, _ := r.evals.Stats()
	// With a lying watch the shell cache's analyses are as wrong as the
	// memo's: Evaluate is then of a call built afresh.
	off, _, err = Evaluate(Request{Call: r.build(entry, !r.lyingWatch), Gates: ToolGates, Resolver: r.res, HasUI: r.hasUI})
	if err != nil {
		tb.Fatalf("%v: %v", entry, err)
	}
	if r.skipPlain || r.lyingWatch {
		return on, off, now > hits
	}
	plain := evaluatePlain(Request{Call: r.build(entry, false), Gates: ToolGates, Resolver: r.res, HasUI: r.hasUI})
	if !reflect.DeepEqual(off, plain) {
		tb.Errorf("the rig is wrong (its directory cache missed a change?): %v:\nevaluate %+v\nplain    %+v", entry, off, plain)
	}
	return on, off, now > hits
}

// memoExtraCalls are calls of the kinds the generated ones lack: skills,
// mcp servers, globs, loops and cd chains, the same call spelled twice.
func memoExtraCalls() []map[string]any {
	var out []map[string]any
	for _, cmd := range []string{
		"ls src/*.ts", "cat src/* > /tmp/all", "cd src && cat index.ts", "cd docs/guide && echo x > a.md", "cd out && ls",
		"for f in src/*.ts; do cp $f /tmp/; done", "git -C src status", "echo $HOME > x", "rm -rf build", "cat .env",
		"echo x > .git/config", "find . -name '*.env'", "grep -r TODO src docs", "tar czf /tmp/b.tgz src", "git status",
	} {
		out = append(out, map[string]any{"toolName": "bash", "input": map[string]any{"command": cmd}})
	}
	for _, in := range []map[string]any{
		{"pattern": "x", "path": ".", "glob": "*.env"}, {"pattern": "x", "path": "src", "glob": "**/*.ts"},
		{"pattern": "x", "path": "docs", "glob": "!*.md"}, {"pattern": "x", "glob": "*.env"}, {"pattern": "x", "path": "out"},
	} {
		out = append(out, map[string]any{"toolName": "grep", "input": in})
	}
	for _, in := range []map[string]any{{"pattern": "*.env", "path": "."}, {"pattern": "*.md", "path": "docs"}, {"pattern": "*", "path": "out"}} {
		out = append(out, map[string]any{"toolName": "find", "input": in})
	}
	out = append(out,
		map[string]any{"toolName": "skill", "input": map[string]any{"name": "x"}},
		map[string]any{"toolName": "mcp", "input": map[string]any{"tool": "github:delete_repo"}},
		map[string]any{"toolName": "mcp", "input": map[string]any{"server": "exa", "tool": "search"}},
		map[string]any{"toolName": "read", "input": map[string]any{"path": "src/index.ts", "offset": 1}},
		map[string]any{"toolName": "read", "input": map[string]any{"offset": 1, "path": "src/index.ts"}},
	)
	return out
}

func sameOutcomes(on, off []Outcome) bool { return reflect.DeepEqual(on, off) }

// brief is what a person needs of outcomes to see where they differ.
func brief(os []Outcome) string {
	var b strings.Builder
	for _, o := range os {
		fmt.Fprintf(&b, "[%s %d %s %s %q %q] ", o.Gate, o.Kind, o.D.State, o.D.Sentinel, o.D.Surface, o.D.Value)
	}
	return b.String()
}

// TestEvalsDecideAsEvaluate: over the corpus and every generated call,
// with and without a UI, each call three times in a row (the memo
// remembers it the second time and gives it the third),
// then across a policy edit: the memo decides as Evaluate, and it is used.
func TestEvalsDecideAsEvaluate(t *testing.T) {
	w := fastWorld(t)
	rig := newMemoRig(w, breakNone)
	calls := append(fastCalls(w), memoExtraCalls()...)
	before := map[string][]Outcome{}
	for _, hasUI := range []bool{false, true} {
		rig.hasUI = hasUI
		for _, entry := range calls {
			for round := 0; round < 3; round++ { // remembered the second time, given the third
				rig.skipPlain = round > 0 // the rig checked once
				on, off, _ := rig.decide(t, entry)
				if !sameOutcomes(on, off) {
					t.Errorf("round %d, hasUI %v, %v:\nmemo     %s\nevaluate %s", round, hasUI, entry, brief(on), brief(off))
				}
				before[fmt.Sprint(hasUI, entry)] = off
			}
		}
	}
	hits, misses := rig.evals.Stats()
	if hits < uint64(len(calls)) {
		t.Errorf("the memo answered %d of %d calls: it is hardly used", hits, hits+misses)
	}
	// (a) The policy file edited: a new policy, decided by the next call.
	text := e2ecorpus.PolicyText(200)
	edited := strings.Replace(text, `"read": {"*": "allow"}`, `"read": {"*": "deny"}`, 1)
	if edited == text {
		t.Fatal("the policy edit changed nothing")
	}
	f := policy.ParseFile(policy.GlobalPath(w.agentDir), []byte(edited))
	rig.res = testResolver{p: policy.Compose([]policy.ScopeFile{{Scope: policy.ScopeGlobal, Path: policy.GlobalPath(w.agentDir), Trusted: true, Exists: true, File: f}}, w.home)}
	changed := 0
	for _, hasUI := range []bool{false, true} {
		rig.hasUI = hasUI
		for _, entry := range calls {
			on, off, _ := rig.decide(t, entry)
			if !sameOutcomes(on, off) {
				t.Errorf("after the edit, hasUI %v, %v:\nmemo     %s\nevaluate %s", hasUI, entry, brief(on), brief(off))
			}
			if !reflect.DeepEqual(before[fmt.Sprint(hasUI, entry)], off) {
				changed++
			}
		}
	}
	if changed == 0 {
		t.Error("the policy edit changed no decision")
	}
	// Policies of the gates' test tables: every floor, the path surface,
	// external directories allowed and denied, session patterns. (Not the
	// link loop's calls: each takes a loop's resolution, ~50 ms.)
	var some []map[string]any
	for _, entry := range calls {
		if !strings.Contains(fmt.Sprint(entry), "loop") {
			some = append(some, entry)
		}
	}
	for _, text := range []string{
		`{"permission": {"*": "allow"}}`,
		`{"permission": {"*": "ask", "read": {"*": "allow", "*.env": "deny"}, "write": {"*": "ask", "src/*": "allow"}, "path": {"~/.ssh/*": "deny"}}}`,
		`{"permission": {"*": "allow", "external_directory": "deny", "bash": {"*": "allow", "rm *": "deny"}}}`,
		`{"permission": {"*": "deny", "read": "ask", "grep": "allow", "find": "allow", "external_directory": {"*": "allow"}}}`,
	} {
		f := policy.ParseFile(policy.GlobalPath(w.agentDir), []byte(text))
		if len(f.Errors) > 0 {
			t.Fatalf("%s: %v", text, f.Errors)
		}
		rig.res = testResolver{p: policy.Compose([]policy.ScopeFile{{Scope: policy.ScopeGlobal, Path: policy.GlobalPath(w.agentDir), Trusted: true, Exists: true, File: f}}, w.home)}
		for _, hasUI := range []bool{false, true} {
			rig.hasUI = hasUI
			for _, entry := range some {
				for round := 0; round < 3; round++ {
					on, off, _ := rig.decide(t, entry)
					if !sameOutcomes(on, off) {
						t.Errorf("policy %s, hasUI %v, %v:\nmemo     %s\nevaluate %s", text, hasUI, entry, brief(on), brief(off))
					}
				}
			}
		}
	}
}

// memoScenario is a change between two identical calls.
type memoScenario struct {
	name  string
	calls []map[string]any
	// setup prepares the world before the first call; change makes the
	// change (and says whether it was in a watched directory).
	setup  func(t *testing.T, w *e2eWorld)
	change func(t *testing.T, w *e2eWorld, r *memoRig) (watched bool)
	// mayStay: the change need not change the decision (a directory made
	// unreadable, for root, who lists it anyway: no answer the evaluation
	// gets changes, and memo and Evaluate must still agree).
	mayStay bool
	// mustMiss: the change changes an answer the evaluation read (if not
	// its decision): the memo must not answer the next call.
	mustMiss bool
}

func call(tool string, input map[string]any) map[string]any {
	return map[string]any{"toolName": tool, "input": input}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func memoScenarios() []memoScenario {
	write := call("write", map[string]any{"path": "src/index.ts"})
	edit := call("edit", map[string]any{"path": "src/index.ts"})
	echo := call("bash", map[string]any{"command": "echo x > src/index.ts"})
	replaceByLink := func(target func(w *e2eWorld) string) func(t *testing.T, w *e2eWorld, r *memoRig) bool {
		return func(t *testing.T, w *e2eWorld, r *memoRig) bool {
			p := filepath.Join(w.work, "src", "index.ts")
			must(t, os.Remove(p))
			must(t, os.Symlink(target(w), p))
			return false
		}
	}
	return []memoScenario{
		{name: "file created matching a find pattern", calls: []map[string]any{call("find", map[string]any{"path": "docs", "pattern": "*.env"})},
			change: func(t *testing.T, w *e2eWorld, r *memoRig) bool {
				must(t, os.WriteFile(filepath.Join(w.work, "docs", "guide", "b.env"), nil, 0o600))
				return false
			}},
		{name: "file created matching a grep glob", calls: []map[string]any{call("grep", map[string]any{"pattern": "x", "path": "src", "glob": "*.env"}),
			call("bash", map[string]any{"command": "cat src/*"})},
			change: func(t *testing.T, w *e2eWorld, r *memoRig) bool {
				must(t, os.WriteFile(filepath.Join(w.work, "src", "k.env"), nil, 0o600))
				return false
			}},
		{name: "file removed", calls: []map[string]any{call("grep", map[string]any{"pattern": "x", "path": "src", "glob": "*.env"}),
			call("bash", map[string]any{"command": "cat src/*"})},
			setup: func(t *testing.T, w *e2eWorld) {
				must(t, os.WriteFile(filepath.Join(w.work, "src", "old.env"), nil, 0o600))
			},
			change: func(t *testing.T, w *e2eWorld, r *memoRig) bool {
				must(t, os.Remove(filepath.Join(w.work, "src", "old.env")))
				return false
			}},
		{name: "file removed in a watched directory", calls: []map[string]any{call("grep", map[string]any{"pattern": "x", "path": ".", "glob": "*.env"})},
			change: func(t *testing.T, w *e2eWorld, r *memoRig) bool {
				must(t, os.Remove(filepath.Join(w.work, ".env")))
				return true
			}},
		{name: "file replaced by a symlink to outside", calls: []map[string]any{write, edit, echo, call("read", map[string]any{"path": "src/index.ts"})},
			change: replaceByLink(func(w *e2eWorld) string { return filepath.Join(w.root, "outside", "x.txt") })},
		{name: "file replaced by a symlink to a protected file", calls: []map[string]any{write, edit, echo},
			setup:  func(t *testing.T, w *e2eWorld) { must(t, os.WriteFile(w.audit, nil, 0o600)) },
			change: replaceByLink(func(w *e2eWorld) string { return w.audit })},
		{name: "file replaced by a symlink to toolgate's directory", calls: []map[string]any{write, echo},
			change: replaceByLink(func(w *e2eWorld) string { return filepath.Join(w.agentDir, "agents", "x.md") })},
		{name: "symlink retargeted", calls: []map[string]any{call("read", map[string]any{"path": "src/lnk"}), call("write", map[string]any{"path": "src/lnk"}),
			call("bash", map[string]any{"command": "cat src/lnk > src/copy"})},
			setup: func(t *testing.T, w *e2eWorld) {
				must(t, os.Symlink(filepath.Join(w.work, "src", "util.ts"), filepath.Join(w.work, "src", "lnk")))
			},
			change: func(t *testing.T, w *e2eWorld, r *memoRig) bool {
				p := filepath.Join(w.work, "src", "lnk")
				must(t, os.Remove(p))
				must(t, os.Symlink(filepath.Join(w.root, "outside", "x.txt"), p))
				return false
			}},
		{name: "directory replaced by a symlink", calls: []map[string]any{call("read", map[string]any{"path": "docs/guide/a.md"}),
			call("edit", map[string]any{"path": "docs/guide/a.md"}), call("find", map[string]any{"path": "docs", "pattern": "*"}),
			call("bash", map[string]any{"command": "cd docs/guide && echo x > a.md"})},
			change: func(t *testing.T, w *e2eWorld, r *memoRig) bool {
				p := filepath.Join(w.work, "docs", "guide")
				must(t, os.RemoveAll(p))
				must(t, os.Symlink(filepath.Join(w.root, "outside"), p))
				return false
			}},
		{name: "working directory moved outside, a symlink in its place", calls: []map[string]any{call("read", map[string]any{"path": "src/index.ts"}),
			call("write", map[string]any{"path": "src/index.ts"})},
			change: func(t *testing.T, w *e2eWorld, r *memoRig) bool {
				// The same files under the same names: only the directory
				// cache's answer for the working directory (kept under the
				// generation) says so.
				p, out := w.work, filepath.Join(w.root, "outside", "work")
				must(t, os.Rename(p, out))
				must(t, os.Symlink(out, p))
				return true
			}},
		{name: "directory made unreadable", mayStay: os.Geteuid() == 0,
			calls: []map[string]any{call("find", map[string]any{"path": "docs", "pattern": "*.env"}), call("grep", map[string]any{"pattern": "x", "path": "docs", "glob": "*.env"})},
			setup: func(t *testing.T, w *e2eWorld) {
				must(t, os.WriteFile(filepath.Join(w.work, "docs", "guide", "c.env"), nil, 0o600))
				t.Cleanup(func() { os.Chmod(filepath.Join(w.work, "docs", "guide"), 0o700) })
			},
			change: func(t *testing.T, w *e2eWorld, r *memoRig) bool {
				must(t, os.Chmod(filepath.Join(w.work, "docs", "guide"), 0))
				return false
			}},
		{name: "cwd changed by initialize", calls: []map[string]any{write, echo, call("grep", map[string]any{"pattern": "x", "path": "src"})},
			setup: func(t *testing.T, w *e2eWorld) {
				other := filepath.Join(w.root, "other")
				must(t, os.MkdirAll(other, 0o700))
				must(t, os.Symlink(filepath.Join(w.root, "outside"), filepath.Join(other, "src")))
			},
			change: func(t *testing.T, w *e2eWorld, r *memoRig) bool {
				r.cwd = filepath.Join(w.root, "other")
				return false
			}},
		{name: "policy file edited", calls: []map[string]any{call("read", map[string]any{"path": "README.md"}), call("bash", map[string]any{"command": "git status"})},
			change: func(t *testing.T, w *e2eWorld, r *memoRig) bool {
				text := strings.Replace(strings.Replace(e2ecorpus.PolicyText(200), `"read": {"*": "allow"}`, `"read": {"*": "deny"}`, 1), `"git *": "allow"`, `"git *": "deny"`, 1)
				f := policy.ParseFile(policy.GlobalPath(w.agentDir), []byte(text))
				r.res = testResolver{p: policy.Compose([]policy.ScopeFile{{Scope: policy.ScopeGlobal, Path: policy.GlobalPath(w.agentDir), Trusted: true, Exists: true, File: f}}, w.home)}
				return false
			}},
		{name: "session approval recorded", calls: []map[string]any{call("write", map[string]any{"path": "README.md"}), call("bash", map[string]any{"command": "curl example.com"})},
			change: func(t *testing.T, w *e2eWorld, r *memoRig) bool {
				var rules []*policy.Rule
				for _, p := range [][2]string{{"write", "README.md"}, {"bash", "curl example.com"}} {
					rule := policy.NewRuleFrom(policy.Rule{Surface: p[0], Pattern: p[1], Action: policy.Allow, Layer: policy.LayerSession,
						Origin: policy.Origin{Scope: policy.ScopeSession}, Exact: true}, w.home)
					rules = append(rules, &rule)
				}
				r.res = testResolver{p: r.res.p, session: append(r.res.session[:len(r.res.session):len(r.res.session)], rules...)}
				return false
			}},
	}
}

// runMemoScenarios runs every scenario with an Evals broken so and
// returns where the memo and Evaluate decided differently.
func runMemoScenarios(t *testing.T, broken breakKind) (mismatches []string) {
	return runScenarios(t, broken, memoScenarios(), false, false)
}

// runScenarios runs scenarios with an Evals broken so, with a real policy
// watch (lying: one that vouches without watching) or the simulated one,
// and returns where the memo and Evaluate decided differently. With a
// watch each call is decided five times before the change: a bash
// command's analysis kept the second time (shell.Cache keeps a command
// from its second sighting), the evaluation remembered the third, its
// answers vouched for and kept the fourth, answered from what is kept
// (nothing asked again) the fifth.
func runScenarios(t *testing.T, broken breakKind, scs []memoScenario, watched, lying bool) (mismatches []string) {
	for _, sc := range scs {
		for _, entry := range sc.calls {
			w := fastWorld(t)
			if sc.setup != nil {
				sc.setup(t, w)
			}
			r := newMemoRig(w, broken)
			repeats := 1
			if watched {
				r = newWatchedRig(w, broken, lying)
				repeats = 2
			}
			first, _, _ := r.decide(t, entry)
			r.decide(t, entry) // the shell analysis kept (a command's second sighting), the evaluation seen once
			r.decide(t, entry) // remembered now
			for tries := 0; ; tries++ {
				gen := r.dirs.gen
				hits := 0
				for range repeats {
					again, off, hit := r.decide(t, entry)
					if hit && sameOutcomes(again, off) {
						hits++
					} else if !watched || r.dirs.gen == gen || tries == 20 {
						t.Fatalf("%s, %v: the repeated call was not answered from the memo (hit %v) or not as Evaluate:\nmemo %s\nevaluate %s", sc.name, entry, hit, brief(again), brief(off))
					}
				}
				// A real watch sees the machine's other changes too (the
				// temporary directory's other entries): again, until the
				// calls ran under one generation.
				if hits == repeats && r.dirs.gen == gen {
					break
				}
			}
			if sc.change(t, w, r) {
				r.watchEvent()
			}
			on, off, hit := r.decide(t, entry)
			if !sameOutcomes(on, off) {
				mismatches = append(mismatches, fmt.Sprintf("%s, %v:\nmemo     %s\nevaluate %s", sc.name, entry, brief(on), brief(off)))
			} else if sc.mustMiss && hit {
				mismatches = append(mismatches, fmt.Sprintf("%s, %v: answered from the memo after an answer it depends on changed", sc.name, entry))
			}
			if !sc.mayStay && reflect.DeepEqual(first, off) {
				t.Errorf("%s, %v: the change changed no decision: %s", sc.name, entry, brief(off))
			}
		}
	}
	return mismatches
}

// TestEvalsSeeEveryChange: each change is seen by the very next call.
func TestEvalsSeeEveryChange(t *testing.T) {
	for _, m := range runMemoScenarios(t, breakNone) {
		t.Error(m)
	}
}

// watchScenarios are changes in directories the watch watches only
// because a remembered evaluation depends on them (src, docs/guide, the
// home's .ssh): every kind of change to their entries must be seen by the
// very next call, through the watch alone (none is a simulated event).
func watchScenarios() []memoScenario {
	globs := []map[string]any{call("grep", map[string]any{"pattern": "x", "path": "src", "glob": "*.env"}),
		call("bash", map[string]any{"command": "cat src/*"}), call("bash", map[string]any{"command": "for f in src/*; do wc -l \"$f\"; done"})}
	sc := []memoScenario{
		{name: "file created in a watched directory", calls: globs,
			change: func(t *testing.T, w *e2eWorld, r *memoRig) bool {
				must(t, os.WriteFile(filepath.Join(w.work, "src", "k.env"), nil, 0o600))
				return false
			}},
		{name: "file removed from a watched directory", calls: globs,
			setup: func(t *testing.T, w *e2eWorld) {
				must(t, os.WriteFile(filepath.Join(w.work, "src", "old.env"), nil, 0o600))
			},
			change: func(t *testing.T, w *e2eWorld, r *memoRig) bool {
				must(t, os.Remove(filepath.Join(w.work, "src", "old.env")))
				return false
			}},
		{name: "file renamed into a watched directory", calls: globs,
			setup: func(t *testing.T, w *e2eWorld) {
				must(t, os.WriteFile(filepath.Join(w.root, "outside", "in.env"), nil, 0o600))
			},
			change: func(t *testing.T, w *e2eWorld, r *memoRig) bool {
				must(t, os.Rename(filepath.Join(w.root, "outside", "in.env"), filepath.Join(w.work, "src", "in.env")))
				return false
			}},
		{name: "file renamed out of a watched directory", calls: globs,
			setup: func(t *testing.T, w *e2eWorld) {
				must(t, os.WriteFile(filepath.Join(w.work, "src", "out.env"), nil, 0o600))
			},
			change: func(t *testing.T, w *e2eWorld, r *memoRig) bool {
				must(t, os.Rename(filepath.Join(w.work, "src", "out.env"), filepath.Join(w.root, "outside", "out.env")))
				return false
			}},
		{name: "file renamed within a watched directory", calls: []map[string]any{call("read", map[string]any{"path": "src/util.ts"}),
			call("bash", map[string]any{"command": "cat src/util.ts"})},
			change: func(t *testing.T, w *e2eWorld, r *memoRig) bool {
				// util.ts now a link to outside, renamed over it.
				must(t, os.Symlink(filepath.Join(w.root, "outside", "x.txt"), filepath.Join(w.work, "src", "tmp")))
				must(t, os.Rename(filepath.Join(w.work, "src", "tmp"), filepath.Join(w.work, "src", "util.ts")))
				return false
			}},
		{name: "file replaced by a link to outside in a watched directory", calls: []map[string]any{call("read", map[string]any{"path": "~/.ssh/config"}),
			call("bash", map[string]any{"command": "cat ~/.ssh/config"}), call("edit", map[string]any{"path": "src/index.ts"})},
			change: func(t *testing.T, w *e2eWorld, r *memoRig) bool {
				for _, p := range []string{filepath.Join(w.home, ".ssh", "config"), filepath.Join(w.work, "src", "index.ts")} {
					must(t, os.Remove(p))
					must(t, os.Symlink(filepath.Join(w.root, "outside", "x.txt"), p))
				}
				return false
			}},
		{name: "permissions changed in a watched directory", mayStay: true, mustMiss: true,
			calls: []map[string]any{call("bash", map[string]any{"command": "cd src && echo x > a.ts"}), call("read", map[string]any{"path": "src/index.ts"}),
				call("write", map[string]any{"path": "docs/guide/a.md"})},
			setup: func(t *testing.T, w *e2eWorld) { must(t, os.Chmod(filepath.Join(w.work, "src"), 0o700)) },
			change: func(t *testing.T, w *e2eWorld, r *memoRig) bool {
				must(t, os.Chmod(filepath.Join(w.work, "src"), 0o755)) // cd src now sure to succeed
				must(t, os.Chmod(filepath.Join(w.work, "src", "index.ts"), 0o640))
				must(t, os.Chmod(filepath.Join(w.work, "docs", "guide", "a.md"), 0o640))
				return false
			}},
		{name: "a directory above replaced", calls: []map[string]any{call("read", map[string]any{"path": "docs/guide/a.md"}),
			call("bash", map[string]any{"command": "cat docs/guide/a.md"}), call("find", map[string]any{"path": "docs/guide", "pattern": "*"})},
			change: func(t *testing.T, w *e2eWorld, r *memoRig) bool {
				docs := filepath.Join(w.work, "docs")
				must(t, os.Rename(docs, filepath.Join(w.root, "outside", "docs")))
				must(t, os.MkdirAll(docs, 0o700))
				must(t, os.Symlink(filepath.Join(w.root, "outside"), filepath.Join(docs, "guide")))
				return false
			}},
	}
	if os.Geteuid() == 0 {
		sc = append(sc, memoScenario{name: "a file system mounted over a watched directory", calls: globs,
			change: func(t *testing.T, w *e2eWorld, r *memoRig) bool {
				src := filepath.Join(w.work, "src")
				if err := testmount.Tmpfs(src); err != nil {
					t.Skipf("mount: %v", err)
				}
				t.Cleanup(func() { _ = testmount.Unmount(src, true) })
				must(t, os.WriteFile(filepath.Join(src, "m.env"), nil, 0o600))
				return false
			}})
	}
	return sc
}

// TestEvalsSeeChangesInWatchedDirectories: with a real policy watch, the
// memo keeps the answers the watch vouches for and asks them no more;
// each kind of change to a directory it watches for that is seen by the
// very next call.
func TestEvalsSeeChangesInWatchedDirectories(t *testing.T) {
	for _, m := range runScenarios(t, breakNone, append(watchScenarios(), memoScenarios()...), true, false) {
		t.Error(m)
	}
}

// TestEvalsWatchBrokenIsCaught: a watch that vouches without watching, or
// a memo that trusts what it keeps across generations, decides some of
// the scenarios otherwise: the kept answers are what the fourth call was
// answered from.
func TestEvalsWatchBrokenIsCaught(t *testing.T) {
	for _, c := range []struct {
		name   string
		broken breakKind
		lying  bool
	}{{"lying watch", breakNone, true}, {"kept across generations", breakKeptAcross, false}} {
		ms := runScenarios(t, c.broken, watchScenarios(), true, c.lying)
		if len(ms) == 0 {
			t.Errorf("%s: every scenario decided as Evaluate", c.name)
		}
		for _, m := range ms {
			t.Logf("%s: %s", c.name, strings.SplitN(m, "\n", 2)[0])
		}
	}
}

// TestEvalsBrokenIsCaught: a memo that does not ask the file system again,
// leaves the working directory out of its key, does not compare the
// policy and the session approvals, or trusts the directory cache's kept
// answers across generations decides some scenario otherwise.
func TestEvalsBrokenIsCaught(t *testing.T) {
	for _, b := range []breakKind{breakNoReask, breakNoCwd, breakNoIdentity, breakKeptAcross} {
		ms := runMemoScenarios(t, b)
		if len(ms) == 0 {
			t.Errorf("a memo broken so (%d) decided every scenario as Evaluate", b)
		}
		for _, m := range ms {
			t.Logf("broken %d: %s", b, strings.SplitN(m, "\n", 2)[0])
		}
	}
}

// TestEvalsKeepNoPrompts: a call that will ask a person is never
// remembered, and a remembered call carries nothing of its call (its id).
func TestEvalsKeepNoPrompts(t *testing.T) {
	w := fastWorld(t)
	r := newMemoRig(w, breakNone)
	r.hasUI = true
	ask := call("write", map[string]any{"path": "README.md"}) // write * ask
	for i := 0; i < 4; i++ {
		if _, _, hit := r.decide(t, ask); hit {
			t.Fatal("a call that prompts was answered from the memo")
		}
	}
	allow := call("read", map[string]any{"path": "README.md"})
	for i := 0; i < 2; i++ { // seen, then remembered
		first := r.build(allow, true)
		first.ToolCallID = "the-first-call-id"
		if _, _, err := r.evals.Evaluate(Request{Call: first, Gates: ToolGates, Resolver: r.res, HasUI: true}); err != nil {
			t.Fatal(err)
		}
	}
	c := r.build(allow, true)
	c.ToolCallID = "another-id"
	hits, _ := r.evals.Stats()
	r.sync()
	on, _, err := r.evals.Evaluate(Request{Call: c, Gates: ToolGates, Resolver: r.res, HasUI: true})
	if err != nil {
		t.Fatal(err)
	}
	if now, _ := r.evals.Stats(); now != hits+1 {
		t.Fatal("the repeated call was not answered from the memo")
	}
	if s := fmt.Sprintf("%+v", on); strings.Contains(s, "the-first-call-id") || len(on) != len(ToolGates) {
		t.Errorf("outcomes of a call answered from the memo carry the first call's id: %s", s)
	}
	// Other gates, a resolver that says nothing of itself, an input not
	// given as bytes, an unstamped analysis: never remembered.
	type anon struct{ Resolver }
	for i, req := range []Request{
		{Call: r.build(allow, true), Gates: ToolGates[:4], Resolver: r.res},
		{Call: r.build(allow, true), Gates: ToolGates, Resolver: anon{r.res}},
		{Call: func() *Call { c := r.build(allow, true); c.RawInput = nil; return c }(), Gates: ToolGates, Resolver: r.res},
		{Call: func() *Call {
			c := r.build(call("bash", map[string]any{"command": "ls"}), true)
			c.Shell.Stamp = 0
			return c
		}(), Gates: ToolGates, Resolver: r.res},
	} {
		if _, ok := evalKey(nil, req, breakNone); ok {
			t.Errorf("request %d has a key", i)
		}
	}
}

// TestEvalsConcurrent: goroutines deciding the corpus through one Evals
// (as prompting calls' workers and the reader may) each get what
// Evaluate decides (run with -race to see the memo's own safety).
func TestEvalsConcurrent(t *testing.T) {
	w := fastWorld(t)
	rig := newMemoRig(w, breakNone)
	calls := append(e2ecorpus.Calls(), memoExtraCalls()...)
	want := make([][]Outcome, len(calls))
	for i, entry := range calls {
		_, want[i], _ = rig.decide(t, entry)
	}
	done := make(chan string, 4)
	for g := 0; g < 4; g++ {
		go func(g int) {
			for round := 0; round < 5; round++ {
				for i := range calls {
					k := (i + g*7) % len(calls)
					on, _, err := rig.evals.Evaluate(Request{Call: rig.build(calls[k], true), Gates: ToolGates, Resolver: rig.res})
					if err != nil || !sameOutcomes(on, want[k]) {
						done <- fmt.Sprintf("goroutine %d, %v: %v\nmemo     %s\nevaluate %s", g, calls[k], err, brief(on), brief(want[k]))
						return
					}
				}
			}
			done <- ""
		}(g)
	}
	for g := 0; g < 4; g++ {
		if m := <-done; m != "" {
			t.Error(m)
		}
	}
	if hits, _ := rig.evals.Stats(); hits == 0 {
		t.Error("the memo answered no call")
	}
}

// TestEvalsBounded: however many policies and calls, the memo keeps at
// most maxEvalPolicy policies' entries and maxEvals entries.
func TestEvalsBounded(t *testing.T) {
	w := newE2EWorld(t, 200)
	r := newMemoRig(w, breakNone)
	r.skipPlain = true
	for i := 0; i < 3*maxEvalPolicy; i++ {
		f := policy.ParseFile("/g.json", []byte(fmt.Sprintf(`{"permission": {"*": "allow", "bash": {"*": "ask", "x%d": "deny"}}}`, i)))
		r.res = testResolver{p: policy.Compose([]policy.ScopeFile{{Scope: policy.ScopeGlobal, Path: "/g.json", Trusted: true, Exists: true, File: f}}, w.home)}
		r.decide(t, call("read", map[string]any{"path": "README.md"}))
		r.decide(t, call("read", map[string]any{"path": "README.md"}))
		r.evals.mu.Lock()
		n := len(r.evals.pols)
		r.evals.mu.Unlock()
		if n > maxEvalPolicy {
			t.Fatalf("entries of %d policies kept", n)
		}
	}
	for i := 0; i < maxEvals+10; i++ {
		r.decide(t, call("read", map[string]any{"path": fmt.Sprintf("src/f%d.ts", i)}))
		r.decide(t, call("read", map[string]any{"path": fmt.Sprintf("src/f%d.ts", i)}))
	}
	if n := len(r.evals.m); n > maxEvals || n == 0 || r.evals.bytes > maxEvalBytes {
		t.Fatalf("%d entries kept, of about %d bytes", n, r.evals.bytes)
	}
	// Calls that never repeat are not remembered.
	r.evals = &Evals{}
	for i := 0; i < 100; i++ {
		r.decide(t, call("read", map[string]any{"path": fmt.Sprintf("src/g%d.ts", i)}))
	}
	if n := len(r.evals.m); n != 0 {
		t.Fatalf("%d calls seen once remembered", n)
	}
}

// benchUnique decides calls that never repeat (each reads another file),
// with or without the memo: what the memo costs when it never helps.
func benchUnique(b *testing.B, withEvals bool) {
	w := newE2EWorld(b, 200)
	r := newMemoRig(w, breakNone)
	var evals *Evals
	if withEvals {
		evals = r.evals
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c := r.build(call("edit", map[string]any{"path": fmt.Sprintf("src/f%d.ts", i)}), true)
		if _, _, err := evals.Evaluate(Request{Call: c, Gates: ToolGates, Resolver: r.res}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkUniqueEvaluate(b *testing.B) { benchUnique(b, false) }
func BenchmarkUniqueEvals(b *testing.B)    { benchUnique(b, true) }
