package gates

import (
	"slices"
	"testing"
)

// TestProtectedPathsIsOwnFiles keeps the remembered OwnFiles equal to a
// fresh one whatever changes between calls: the working directory, the
// agent folder, the protected files (a list of the same length too).
func TestProtectedPathsIsOwnFiles(t *testing.T) {
	calls := []Call{
		{Cwd: "/w/a", AgentDir: "/h/.pi/agent", Protected: []string{"/h/log", "/h/cfg"}},
		{Cwd: "/w/a", AgentDir: "/h/.pi/agent", Protected: []string{"/h/log", "/h/cfg"}},
		{Cwd: "/w/b", AgentDir: "/h/.pi/agent", Protected: []string{"/h/log", "/h/cfg"}},
		{Cwd: "/w/b", AgentDir: "/h2/.pi/agent", Protected: []string{"/h/log", "/h/cfg"}},
		{Cwd: "/w/b", AgentDir: "/h2/.pi/agent", Protected: []string{"/h/log", "/h/other"}},
		{Cwd: "/w/b", AgentDir: "/h2/.pi/agent", Protected: []string{"/h/log"}},
		{Cwd: "", AgentDir: "", Protected: nil},
		{Cwd: "/w/a//x/..", AgentDir: "/h/.pi/agent/", Protected: []string{"/h/log", "/h/cfg"}},
	}
	for i := range calls {
		c := &calls[i]
		got := protectedPaths(c)
		if want := OwnFiles(c.Protected, c.AgentDir, c.Cwd); !slices.Equal(got, want) {
			t.Errorf("call %d: protectedPaths = %q, want %q", i, got, want)
		}
		if cap(got) != len(got) {
			t.Errorf("call %d: a shared list with room to append into", i)
		}
	}
}
