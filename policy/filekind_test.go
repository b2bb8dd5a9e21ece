//go:build unix

package policy

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A file toolgate is configured by that is no regular file, or is too
// large, is a broken file with a warning that says what it is; reading it
// never hangs, never crashes and never reads it whole.

// fileKind makes something other than a readable policy file at path.
type fileKind struct {
	name string
	make func(t *testing.T, path string)
	// words are in the warning.
	words string
}

func fileKinds(t *testing.T) []fileKind {
	kinds := []fileKind{
		{"fifo", func(t *testing.T, path string) {
			if err := syscall.Mkfifo(path, 0o644); err != nil {
				t.Fatal(err)
			}
		}, "named pipe (FIFO)"},
		{"dev-zero", func(t *testing.T, path string) { symlink(t, "/dev/zero", path) }, "character device"},
		{"dev-null", func(t *testing.T, path string) { symlink(t, "/dev/null", path) }, "character device"},
		{"dir", func(t *testing.T, path string) {
			if err := os.Mkdir(path, 0o755); err != nil {
				t.Fatal(err)
			}
		}, "a directory"},
		{"dir-link", func(t *testing.T, path string) { symlink(t, t.TempDir(), path) }, "a directory"},
		{"huge", func(t *testing.T, path string) {
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			// Sparse: larger than the limit, nothing to read.
			if err := f.Truncate(MaxFileBytes + 1); err != nil {
				t.Fatal(err)
			}
			f.Close()
		}, "larger than 4194304 bytes"},
		{"socket", func(t *testing.T, path string) {
			ln, err := net.Listen("unix", path)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ln.Close() })
		}, "a socket"},
	}
	// A symlink to a pipe, as /dev/stdin is to the plugin's stdin.
	if _, err := os.Stat("/proc/self/fd"); err == nil {
		kinds = append(kinds, fileKind{"stdin-like", func(t *testing.T, path string) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { r.Close(); w.Close() })
			symlink(t, fmt.Sprintf("/proc/self/fd/%d", r.Fd()), path)
		}, "named pipe (FIFO)"})
	}
	return kinds
}

func symlink(t *testing.T, target, path string) {
	t.Helper()
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
}

// withTimeout runs f and fails the test if it does not return: the limit
// only turns a hang into a failure, it asserts nothing about speed.
func withTimeout[T any](t *testing.T, what string, f func() T) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	done := make(chan T, 1)
	go func() { done <- f() }()
	select {
	case v := <-done:
		return v
	case <-ctx.Done():
		t.Fatalf("%s hangs", what)
		panic("unreachable")
	}
}

func TestReadFileKinds(t *testing.T) {
	for _, k := range fileKinds(t) {
		dir := t.TempDir()
		path := filepath.Join(dir, "f")
		k.make(t, path)
		err := withTimeout(t, k.name, func() error { _, e := ReadFile(path); return e })
		if err == nil || !strings.Contains(err.Error(), k.words) {
			t.Errorf("%s: error %v, want one saying %q", k.name, err, k.words)
		}
	}
	// A regular file up to the limit is read as it is.
	dir := t.TempDir()
	for _, n := range []int{0, 10, MaxFileBytes} {
		path := filepath.Join(dir, fmt.Sprint(n))
		data := []byte(strings.Repeat("x", n))
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := ReadFile(path)
		if err != nil || len(got) != n {
			t.Errorf("%d bytes: read %d, %v", n, len(got), err)
		}
	}
	// Through a symlink too.
	link := filepath.Join(dir, "link")
	symlink(t, filepath.Join(dir, "10"), link)
	if got, err := ReadFile(link); err != nil || len(got) != 10 {
		t.Errorf("symlink to a regular file: %d %v", len(got), err)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing")); !os.IsNotExist(err) {
		t.Errorf("missing: %v", err)
	}
}

// TestLoaderFileKinds: in every scope, at start a hostile file is broken
// (warning, fail-closed), and swapped in mid-session the last good version
// stays (the mtime re-read path).
func TestLoaderFileKinds(t *testing.T) {
	t0 := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	type scope struct {
		name string
		path func(e *loaderEnv) string
		good string
	}
	scopes := []scope{
		{"global", func(e *loaderEnv) string { return e.global }, `{"permission": {"bash": {"rm *": "deny"}}}`},
		{"project", func(e *loaderEnv) string { return e.project }, `{"permission": {"bash": {"rm *": "deny"}}}`},
		{"agent", func(e *loaderEnv) string { return AgentPath(filepath.Join(e.loc.AgentDir, "agents"), "a") }, "---\npermission:\n  bash:\n    \"rm *\": deny\n---\n"},
		{"legacy", func(e *loaderEnv) string { return LegacyGlobalPath(e.loc.AgentDir) }, `{"bash": {"rm *": "deny"}}`},
		{"mcp.json", func(e *loaderEnv) string { return MCPPath(e.loc.AgentDir) }, `{"mcpServers": {"exa": {}}}`},
	}
	for _, s := range scopes {
		for _, k := range fileKinds(t) {
			name := s.name + " " + k.name
			e := newLoaderEnv(t)
			e.loc.AgentName = "a"
			path := s.path(e)
			if s.name != "global" {
				e.write(e.global, `{"permission": {"bash": {"ls": "allow"}}}`, t0)
			}
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			k.make(t, path)
			p := withTimeout(t, name, func() *Policy { return NewLoader().Policy(e.loc) })
			clamped := p.Clamped
			if s.name == "mcp.json" {
				// It clamps MCP decisions only.
				clamped = p.MCPClamped() && !p.Clamped
			}
			if !clamped || !hasWarning(p, path, 0, 0, k.words) {
				t.Errorf("%s at start: clamped %t, warnings %v", name, p.Clamped, p.Warnings)
			}
			if !strings.Contains(p.BrokenNote(), path) {
				t.Errorf("%s at start: note %q", name, p.BrokenNote())
			}

			// Mid-session: a good file replaced by the hostile one.
			e.remove(path)
			e.write(path, s.good, t0.Add(time.Second))
			l := NewLoader()
			if g := l.Policy(e.loc); g.Clamped {
				t.Fatalf("%s: the good version clamps: %v", name, g.Warnings)
			}
			e.remove(path)
			k.make(t, path)
			p = withTimeout(t, name, func() *Policy { return l.Policy(e.loc) })
			if p.Clamped || !hasWarning(p, path, 0, 0, k.words) || !strings.Contains(p.BrokenNote(), "last good version") {
				t.Errorf("%s mid-session: clamped %t note %q warnings %v", name, p.Clamped, p.BrokenNote(), p.Warnings)
			}
			if s.name == "mcp.json" {
				if strings.Join(p.MCPServers, ",") != "exa" {
					t.Errorf("%s mid-session: server names %v, want the last good ones", name, p.MCPServers)
				}
			} else if a := p.Resolve(Query{Surface: "bash", Values: []string{"rm x"}}).Action; a != Deny {
				t.Errorf("%s mid-session: rm x = %v, want the last good deny", name, a)
			}
		}
	}
}

func TestParseMCPFile(t *testing.T) {
	for _, c := range []struct {
		name, text, names, err string
	}{
		{"servers", `{"mcpServers": {"exa": {"command": "x"}, "context7": {}}}`, "context7,exa", ""},
		{"dashed key", `{"mcp-servers": {"b": {}}, "mcpServers": {"a": {}, "b": {}}}`, "a,b", ""},
		{"other keys", `{"settings": {"x": 1}}`, "", ""},
		{"byte order mark", "\ufeff{\"mcpServers\": {\"exa\": {}}}", "exa", ""},
		{"comments", "{\n  // mine\n  \"mcpServers\": {\"exa\": {},},\n}", "exa", ""},
		{"not parsable", `{"mcpServers": {"exa": {}}`, "", "cannot parse mcp.json"},
		{"not an object", `[]`, "", "mcp.json must be an object, not an array"},
		{"servers not an object", `{"mcpServers": ["exa"]}`, "", "mcpServers must be an object, not an array"},
		{"too deep", `{"mcpServers": ` + strings.Repeat("[", 2000), "", "nest deeper"},
	} {
		f := ParseMCPFile("/a/mcp.json", []byte(c.text))
		if got := strings.Join(f.MCPServers, ","); got != c.names {
			t.Errorf("%s: names %q, want %q", c.name, got, c.names)
		}
		switch {
		case c.err == "" && len(f.Errors) > 0:
			t.Errorf("%s: errors %v", c.name, f.Errors)
		case c.err != "" && (len(f.Errors) == 0 || !strings.Contains(f.Errors[0].Message, c.err) || f.Errors[0].Line < 1):
			t.Errorf("%s: errors %v, want one with a line containing %q", c.name, f.Errors, c.err)
		}
	}
}

// TestLoaderMCPFile: the names reach the policy; a broken mcp.json is a
// warning that fails closed (a missing name can make an mcp call miss
// its server's rule), and is no policy source.
func TestLoaderMCPFile(t *testing.T) {
	e := newLoaderEnv(t)
	t0 := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	e.write(e.global, `{"permission": {"mcp": {"*": "allow", "exa:*": "deny"}}}`, t0)
	mcp := MCPPath(e.loc.AgentDir)
	e.write(mcp, `{"mcpServers": {"exa": {}}}`, t0)
	l := NewLoader()
	p := l.Policy(e.loc)
	if strings.Join(p.MCPServers, ",") != "exa" || p.Clamped || sourceOf(p, mcp) != nil {
		t.Errorf("good mcp.json: names %v clamped %t sources %v", p.MCPServers, p.Clamped, p.Sources)
	}
	e.write(mcp, `{"mcpServers": ["exa"]}`, t0.Add(time.Second))
	if p := l.Policy(e.loc); strings.Join(p.MCPServers, ",") != "exa" || p.Clamped || !hasWarning(p, mcp, 1, 16, "must be an object") {
		t.Errorf("broken mid-session: names %v clamped %t warnings %v", p.MCPServers, p.Clamped, p.Warnings)
	}
	p = NewLoader().Policy(e.loc)
	if len(p.MCPServers) != 0 || p.Clamped || !p.MCPClamped() || !hasWarning(p, mcp, 0, 0, "fail-closed") {
		t.Errorf("broken at start: names %v clamped %t warnings %v", p.MCPServers, p.Clamped, p.Warnings)
	}
	if got := p.Resolve(Query{Surface: "mcp", Values: []string{"other_tool"}}); got.Action != Ask || got.Rule.Origin.Scope != ScopeFailClosed {
		t.Errorf("broken at start: the mcp allow = %v from %s", got.Action, got.Rule.Origin.Scope)
	}
	// Only MCP decisions: a bash allow still allows.
	e.write(e.global, `{"permission": {"bash": {"ls": "allow"}, "mcp": {"*": "allow"}}}`, t0.Add(2*time.Second))
	if got := NewLoader().Policy(e.loc).Resolve(Query{Surface: "bash", Values: []string{"ls"}}); got.Action != Allow {
		t.Errorf("broken mcp.json: bash ls = %v from %s", got.Action, got.Rule.Origin.Scope)
	}
}

// TestOpenNoBlockFIFO: the open itself never waits for a writer, so a FIFO
// swapped in between the stat and the open cannot hang ReadFile either;
// the descriptor check then rejects it.
func TestOpenNoBlockFIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
	err := withTimeout(t, "open", func() error {
		f, err := os.OpenFile(path, os.O_RDONLY|openNoBlock, 0)
		if err != nil {
			return err
		}
		defer f.Close()
		info, err := f.Stat()
		if err != nil {
			return err
		}
		return regular(info)
	})
	if err == nil || !strings.Contains(err.Error(), "named pipe") {
		t.Errorf("FIFO by descriptor: %v", err)
	}
}
