package gates

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/toolgate/toolgate/gates/paths"
)

// TestProtectedPathsCacheIsOwnFiles holds protectedPaths, kept in the call
// once worked out, equal to OwnFiles worked out afresh: on the first ask
// and every later one, after the caller appended to what it returned, and
// in what protected answers through it, for edge cases and random calls.
func TestProtectedPathsCacheIsOwnFiles(t *testing.T) {
	protectedPool := []string{"/a/b", "/a/b/", "/a/./b", "/x/../y", "rel/x", "", "/", ".", "/home/u/.config/toolgate", "/var/log/audit.jsonl"}
	dirPool := []string{"", "/", ".", "..", "/home/u/.pi/agent", "/home/u/.pi/agent/", "/home/u//p", "agent", "/a/./b", "/w", "/w/../v"}
	type callIn struct {
		protected         []string
		agentDir, cwd     string
		appendAfterFirst  bool
		queriesBeforeLast int
	}
	cases := []callIn{
		{}, {protected: []string{}}, {agentDir: "/"}, {cwd: "/"}, {cwd: "."}, {protected: []string{""}},
		{protected: []string{"/a"}, agentDir: "/home/u/.pi/agent", cwd: "/w", appendAfterFirst: true},
		{protected: []string{"/a", "/a"}, agentDir: "/home/u/.pi/agent/", cwd: "/w/", queriesBeforeLast: 3},
	}
	rng := rand.New(rand.NewPCG(21, 8))
	for range 2000 {
		c := callIn{agentDir: dirPool[rng.IntN(len(dirPool))], cwd: dirPool[rng.IntN(len(dirPool))],
			appendAfterFirst: rng.IntN(2) == 0, queriesBeforeLast: rng.IntN(3)}
		for range rng.IntN(4) {
			c.protected = append(c.protected, protectedPool[rng.IntN(len(protectedPool))])
		}
		cases = append(cases, c)
	}
	queries := []string{"/a/b/c", "/a/bc", "/y", "/home/u/.pi/agent/agents/x.md", "/w/.pi/agents", "/w/src/x.go",
		"/home/u/.pi/agent/mcp.json", "/v/.pi/agent/pi-permissions.jsonc", "/var/log/audit.jsonl", "/etc/passwd"}
	for _, in := range cases {
		c := &Call{Protected: slices.Clone(in.protected), AgentDir: in.agentDir, Cwd: in.cwd}
		want := OwnFiles(in.protected, in.agentDir, in.cwd)
		first := protectedPaths(c)
		if !slices.Equal(first, want) {
			t.Fatalf("%+v: protectedPaths first %q; OwnFiles %q", in, first, want)
		}
		if in.appendAfterFirst {
			_ = append(first, "/appended/by/the/caller")
		}
		for i := range in.queriesBeforeLast {
			q := queries[(i*7+len(in.protected))%len(queries)]
			p := paths.New(q, "", "/w", "/home/u")
			fresh := &Call{Protected: slices.Clone(in.protected), AgentDir: in.agentDir, Cwd: in.cwd}
			if got, plain := protected(c, p), protected(fresh, p); got != plain {
				t.Fatalf("%+v, %q: protected through the kept paths %v; with them worked out afresh %v", in, q, got, plain)
			}
		}
		again := protectedPaths(c)
		want = OwnFiles(in.protected, in.agentDir, in.cwd)
		if !slices.Equal(again, want) {
			t.Fatalf("%+v: protectedPaths asked again %q; OwnFiles afresh %q", in, again, want)
		}
	}
}
