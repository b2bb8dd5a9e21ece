package gates

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toolgate/toolgate/gates/paths"
	"github.com/toolgate/toolgate/gates/shell"
	"github.com/toolgate/toolgate/internal/e2ecorpus"
	"github.com/toolgate/toolgate/policy"
	"github.com/toolgate/toolgate/verdict"
)

// The fast paths of an evaluation (one file system view and one memo per
// evaluation, the directory cache across calls, the precomputed protected
// set, the arming test without copies) decide exactly what the plain forms
// decide: every gate run with no view, no memo and no directory cache, and
// the guard as it was (plain_test.go).

// evaluatePlain runs every gate of req the plain way.
func evaluatePlain(req Request) []Outcome {
	c := *req.Call
	c.fs, c.memo, c.Dirs, c.Memo, c.protectedDirs = nil, nil, nil, nil, nil
	out := make([]Outcome, 0, len(req.Gates))
	for _, g := range req.Gates {
		o := g.Check(&c, req.Resolver)
		noteBroken(&o, req.Resolver)
		o.Gate = g.ID
		out = append(out, o)
	}
	return out
}

// fastWorld is the end-to-end benchmark's world with links in it: a
// directory link inside the project to outside, a file link, a link to
// toolgate's own directory and a link loop.
func fastWorld(t *testing.T) *e2eWorld {
	w := newE2EWorld(t, 200)
	outside := filepath.Join(w.root, "outside")
	for _, d := range []string{outside, filepath.Join(w.work, ".git", "hooks"), filepath.Join(w.work, "config"), filepath.Join(w.agentDir, "agents")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "x.txt"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{
		filepath.Join(w.work, "out"):       outside,
		filepath.Join(w.work, "xfile"):     filepath.Join(outside, "x.txt"),
		filepath.Join(w.work, "own"):       filepath.Join(w.agentDir, "agents"),
		filepath.Join(w.work, "loop"):      filepath.Join(w.work, "loop"),
		filepath.Join(w.work, "dangling"):  filepath.Join(w.root, "nowhere", "f"),
		filepath.Join(w.work, "rel"):       "src",
		filepath.Join(w.work, "gitconfig"): filepath.Join(w.work, ".git", "config"),
		filepath.Join(w.work, ".toolgate"): filepath.Join(w.root, "tgreal"), // a protected directory that is a link
	}
	if err := os.MkdirAll(filepath.Join(w.root, "tgreal"), 0o700); err != nil {
		t.Fatal(err)
	}
	for l, target := range links {
		if err := os.Symlink(target, l); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

// fastPaths are path inputs of every kind the guard and the gates treat
// differently.
var fastPaths = []string{
	"src/index.ts", "src/new.ts", "README.md", ".env", "docs/guide/a.md", "/etc/hostname", "/tmp/x",
	"out/x.txt", "out", "xfile", "own/x.md", "loop", "loop/x", "dangling", "rel/index.ts", "gitconfig",
	".git/config", ".GIT/CONFIG", ".git/hooks/pre-commit", ".git", "x.git/hooks/h", ".git/modules/m/hooks/h",
	".husky/pre-push", "config", "config/x", "sub/config", "src/.envrc", "~/.bashrc", "~/.local/bin/git",
	"/usr/local/bin/ls", "/usr/bin", "/usr/binx", "/etc/profile", "/etc/profile.d/x.sh", "~/.config/fish/config.fish",
	"~/.config/toolgate/config.json", "~/.pi/agent/agents/x.md", "~/.pi/agent/mcp.json", ".pi/agents/a.md",
	".pi/extensions/pi-permission-system/config.json", ".toolgate/config.json", "../audit.jsonl", "../audit.jsonl.head",
	"$HOME/.ssh/config", "~/.ssh/config", "'src/index.ts'", "@src/index.ts", "src\u00a0index.ts", "/dev/null",
	"src/../../work/src/index.ts", "../tgreal/config.json", ".toolgate/config.json", "./src//index.ts", "/", ".", "..", "x/.git", "a/b/c/d/e/f",
	"/bin/sh", "/BIN/sh", "/sbin", "/sbin/init", "/etc/zsh/zshrc", "/etc/zshx", "/usr/local/sbin/z", "/usr/localbin/z",
	"a/.local/bin/y", "a/.local/binx", "/home/x/.config/fish", "/x/.config/fishy/y", ".config/fish/x",
}

func TestFastGuardIsPlain(t *testing.T) {
	w := fastWorld(t)
	dirs := w.watchedDirs()
	for _, in := range fastPaths {
		fast := w.call(map[string]any{"toolName": "write", "input": map[string]any{"path": in}}, dirs)
		fast.fs, fast.memo = paths.NewView(), &evalMemo{}
		fast.fs.Dirs = dirs
		plain := w.call(map[string]any{"toolName": "write", "input": map[string]any{"path": in}}, nil)
		pf, _ := toolPath(fast)
		pp, _ := newToolPath(plain)
		if !reflect.DeepEqual(pf, pp) {
			t.Errorf("%q: path %+v, plain %+v", in, pf, pp)
		}
		if g, want := guard(fast, pf), guardPlain(plain, pp); g != want {
			t.Errorf("%q: guard %q, plain %q", in, g, want)
		}
		for _, s := range []string{pf.Abs, pf.Real, pf.Literal, strings.ToUpper(pf.Abs), pf.Abs + "/", pf.Literal + "/./x/.."} {
			if s == "" {
				continue
			}
			for _, isDir := range []bool{false, true} {
				d := func() bool { return isDir }
				if got, want := armingPath(s, d), armingPathPlain(s, d); got != want {
					t.Errorf("armingPath(%q, dir %v) = %v, plain %v", s, isDir, got, want)
				}
			}
		}
	}
}

// fastCalls are the corpus and calls of every tool on fastPaths, bash
// commands on them included.
func fastCalls(w *e2eWorld) []map[string]any {
	calls := e2ecorpus.Calls()
	for _, in := range fastPaths {
		for _, tool := range []string{"read", "write", "edit", "ls", "grep", "acme_upload"} {
			calls = append(calls, map[string]any{"toolName": tool, "input": map[string]any{"path": in}})
		}
		calls = append(calls,
			map[string]any{"toolName": "find", "input": map[string]any{"path": in, "pattern": "*.ts"}},
			map[string]any{"toolName": "grep", "input": map[string]any{"path": in, "glob": "**/config"}},
			map[string]any{"toolName": "mcp", "input": map[string]any{"tool": "github:get", "arguments": map[string]any{"path": in}}},
			map[string]any{"toolName": "bash", "input": map[string]any{"command": "cat " + shellQuote(in) + " > " + shellQuote(in+".bak")}},
			map[string]any{"toolName": "bash", "input": map[string]any{"command": "cd " + shellQuote(in) + " && echo x > config"}})
	}
	return calls
}

func shellQuote(s string) string {
	if strings.HasPrefix(s, "~") || strings.HasPrefix(s, "$HOME") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// TestFastEvaluationIsPlain: Evaluate (view, memo, directory cache)
// decides every call exactly as the plain gates, and the runner's answer
// from it is the same.
func TestFastEvaluationIsPlain(t *testing.T) {
	w := fastWorld(t)
	dirs := w.watchedDirs()
	for round := 0; round < 2; round++ { // the second round meets the caches warm
		for _, entry := range fastCalls(w) {
			req := Request{Call: w.call(entry, dirs), Gates: ToolGates, Resolver: w.res}
			fast, _, err := Evaluate(req)
			if err != nil {
				t.Fatalf("%v: %v", entry, err)
			}
			plain := evaluatePlain(Request{Call: w.call(entry, nil), Gates: ToolGates, Resolver: w.res})
			if !reflect.DeepEqual(fast, plain) {
				t.Errorf("round %d, %v:\nfast  %+v\nplain %+v", round, entry, fast, plain)
			}
		}
	}
}

// TestLentOutcomesArePlain: an evaluation lent a buffer (Request.Outcomes),
// one buffer for call after call as the fast path lends it, writes each
// call's outcomes into it, and they are the plain evaluation's; a buffer
// too small for every gate is not used.
func TestLentOutcomesArePlain(t *testing.T) {
	w := fastWorld(t)
	dirs := w.watchedDirs()
	buf := make([]Outcome, 0, len(ToolGates))
	for round := 0; round < 2; round++ {
		for _, entry := range fastCalls(w) {
			req := Request{Call: w.call(entry, dirs), Gates: ToolGates, Resolver: w.res, Outcomes: buf}
			got, _, err := Evaluate(req)
			if err != nil {
				t.Fatalf("%v: %v", entry, err)
			}
			if len(got) == 0 || &got[0] != &buf[:1][0] {
				t.Fatalf("%v: the outcomes are not in the buffer lent", entry)
			}
			plain := evaluatePlain(Request{Call: w.call(entry, nil), Gates: ToolGates, Resolver: w.res})
			if !reflect.DeepEqual(got, plain) {
				t.Errorf("round %d, %v:\nlent  %+v\nplain %+v", round, entry, got, plain)
			}
		}
	}
	small := make([]Outcome, 0, len(ToolGates)-1)
	got, _, _ := Evaluate(Request{Call: w.call(fastCalls(w)[0], dirs), Gates: ToolGates, Resolver: w.res, Outcomes: small})
	if len(got) > 0 && &got[0] == &small[:1][0] {
		t.Error("a buffer too small for every gate was used")
	}
}

// TestLentTraceIsTrace: Run lent one trace buffer call after call (and
// one for the outcomes) answers each call as Run lent none, the trace in
// the buffer; a buffer too small for every gate is not used.
func TestLentTraceIsTrace(t *testing.T) {
	w := fastWorld(t)
	dirs := w.watchedDirs()
	traces := make([]verdict.TraceEntry, 0, len(ToolGates))
	outcomes := make([]Outcome, 0, len(ToolGates))
	rn := &Runner{Prompter: &fakePrompter{}, Session: &fakeRecorder{}, Reporter: &fakeReporter{}}
	for round := 0; round < 2; round++ {
		for _, entry := range fastCalls(w) {
			lent := rn.Run(context.Background(), Request{Call: w.call(entry, dirs), Gates: ToolGates, Resolver: w.res,
				Outcomes: outcomes, Traces: traces})
			if len(lent.Trace) == 0 || &lent.Trace[0] != &traces[:1][0] {
				t.Fatalf("%v: the trace is not in the buffer lent", entry)
			}
			plain := rn.Run(context.Background(), Request{Call: w.call(entry, dirs), Gates: ToolGates, Resolver: w.res})
			if !reflect.DeepEqual(lent, plain) {
				t.Errorf("round %d, %v:\nlent  %+v\nplain %+v", round, entry, lent, plain)
			}
		}
	}
	small := make([]verdict.TraceEntry, 0, len(ToolGates)-1)
	res := rn.Run(context.Background(), Request{Call: w.call(fastCalls(w)[0], dirs), Gates: ToolGates, Resolver: w.res, Traces: small})
	if len(res.Trace) > 0 && &res.Trace[0] == &small[:1][0] {
		t.Error("a trace buffer too small for every gate was used")
	}
}

// TestFastSeesFileSystemChange: what one evaluation saw is not what the
// next one decides from: a file replaced by a symlink to toolgate's own
// directory (or to outside) between two calls is seen by the second,
// through the same directory cache, as the plain gates see it.
func TestFastSeesFileSystemChange(t *testing.T) {
	w := fastWorld(t)
	dirs := w.watchedDirs()
	target := filepath.Join(w.work, "src", "index.ts")
	calls := []map[string]any{
		{"toolName": "write", "input": map[string]any{"path": "src/index.ts"}},
		{"toolName": "read", "input": map[string]any{"path": "src/index.ts"}},
		{"toolName": "find", "input": map[string]any{"path": "src", "pattern": "*.ts"}},
		{"toolName": "bash", "input": map[string]any{"command": "echo x > src/index.ts"}},
	}
	decide := func(entry map[string]any) ([]Outcome, []Outcome) {
		req := Request{Call: w.call(entry, dirs), Gates: ToolGates, Resolver: w.res}
		fast, _, err := Evaluate(req)
		if err != nil {
			t.Fatal(err)
		}
		return fast, evaluatePlain(Request{Call: w.call(entry, nil), Gates: ToolGates, Resolver: w.res})
	}
	for _, link := range []string{filepath.Join(w.agentDir, "agents", "x.md"), filepath.Join(w.root, "outside", "x.txt")} {
		for _, entry := range calls {
			if err := os.Remove(target); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(target, []byte("x"), 0o600); err != nil {
				t.Fatal(err)
			}
			before, _ := decide(entry)
			if err := os.Remove(target); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(link, target); err != nil {
				t.Fatal(err)
			}
			after, plain := decide(entry)
			if !reflect.DeepEqual(after, plain) {
				t.Errorf("%v after the link: fast %+v\nplain %+v", entry, after, plain)
			}
			if reflect.DeepEqual(before, after) {
				t.Errorf("%v: the link to %s changed nothing: %+v", entry, link, after)
			}
		}
	}
}

// Keep the imports honest if the lists above change.
var _ = shell.Analyze
var _ = policy.Allow

// TestJoinCleanIsJoin: joinClean is filepath.Join for the directories a
// call may carry.
func TestJoinCleanIsJoin(t *testing.T) {
	for _, dir := range []string{"/", ".", "..", "a", "/a/b", "/a/b/", "a//b", "/a/./b", "/a/../b", "../x", "x/..", ""} {
		for _, rel := range []string{"agents", ".pi/agents", "extensions/pi-permission-system"} {
			if got, want := joinClean(dir, rel), filepath.Join(dir, rel); got != want {
				t.Errorf("joinClean(%q, %q) = %q, want %q", dir, rel, got, want)
			}
		}
	}
}

// TestVisibleFastPathIsPlain: the printable-ASCII fast path of visible
// returns what decoding every rune returns, for strings mixing ASCII,
// controls, newlines, invalid bytes and invisible runes.
// plainEscaped is escaped without its fast path: every rune looked at
// alone.
func plainEscaped(s string, keepNewline bool) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case !invisible(r, keepNewline):
			b.WriteString(s[i : i+n])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, "<U+%04X>", r)
		}
		i += n
	}
	return b.String()
}

func TestVisibleFastPathIsPlain(t *testing.T) {
	parts := []string{"a", " ", "~", "\n", "\t", "\x1b", "\x7f", "\xff", "é", "\u202e", "\u00a0", "\u200b", "z/y"}
	var gen func(prefix string, depth int)
	gen = func(prefix string, depth int) {
		for _, keep := range []bool{false, true} {
			if got, want := visible(prefix, keep), plainEscaped(prefix, keep); got != want {
				t.Errorf("visible(%q, %v) = %q, want %q", prefix, keep, got, want)
			}
		}
		if depth == 3 {
			return
		}
		for _, p := range parts {
			gen(prefix+p, depth+1)
		}
	}
	gen("", 0)
}
