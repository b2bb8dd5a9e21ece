package policy

import (
	"path/filepath"
	"testing"
	"time"
)

// toolgate's own files: the global one under $XDG_CONFIG_HOME
// (default ~/.config) after the pi global file, the project one after the
// pi project file, with the same trust rules.
func TestLoaderToolgateFiles(t *testing.T) {
	t0 := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, xdg := range []bool{false, true} {
		e := newLoaderEnv(t)
		dir := filepath.Dir(e.loc.Cwd)
		e.loc.Home = filepath.Join(dir, "home")
		e.loc.ConfigHome = "" // the default: home/.config
		ownGlobal := filepath.Join(e.loc.Home, ".config", "toolgate", "config.json")
		if xdg {
			e.loc.ConfigHome = filepath.Join(dir, "xdg")
			ownGlobal = filepath.Join(dir, "xdg", "toolgate", "config.json")
			// A file at the default place is not read when XDG_CONFIG_HOME
			// names another folder.
			e.write(filepath.Join(e.loc.Home, ".config", "toolgate", "config.json"), `{"permission": {"bash": {"rm *": "allow"}}}`, t0)
		}
		if got := ToolgateGlobalPath(e.loc.ConfigHome, e.loc.Home); got != ownGlobal {
			t.Fatalf("global path %s, want %s", got, ownGlobal)
		}
		ownProject := filepath.Join(e.loc.Cwd, ".toolgate", "config.json")
		e.write(e.global, `{"permission": {"bash": {"*": "ask", "git *": "deny", "ls": "deny"}}}`, t0)
		e.write(ownGlobal, `{"yoloMode": true, "permission": {"bash": {"git *": "allow", "rm *": "deny"}}}`, t0)
		e.write(e.project, `{"permission": {"bash": {"cat *": "deny"}}}`, t0)
		e.write(ownProject, `{"yoloMode": true, "permission": {"bash": {"cat *": "allow", "rm *": "allow", "make": "allow"}}}`, t0)
		trustProject(t, e.loc, e.project, ownProject)
		l := NewLoader()
		p := l.Policy(e.loc)
		for _, c := range []struct {
			value  string
			action Action
			scope  string
		}{
			{"git status", Allow, ScopeGlobal}, // own global after the pi global
			{"cat y", Allow, ScopeProject},     // own project after the pi project
			{"make", Allow, ScopeProject},
			{"rm x", Deny, ScopeGlobal}, // a project file cannot loosen a global deny
			{"ls", Deny, ScopeGlobal},
			{"echo", Allow, ScopeYolo}, // the own global file may set knobs
		} {
			if a, s := decide(p, "bash", c.value); a != c.action || s != c.scope {
				t.Errorf("xdg %t: %s = %v from %s, want %v from %s", xdg, c.value, a, s, c.action, c.scope)
			}
		}
		want := []Source{{ScopeGlobal, e.global, true, true, false, false}, {ScopeGlobal, ownGlobal, true, true, false, false},
			{ScopeProject, e.project, true, true, true, true}, {ScopeProject, ownProject, true, true, true, true}}
		if len(listed(p)) != len(want) {
			t.Fatalf("xdg %t: sources %+v", xdg, listed(p))
		}
		for i := range want {
			if listed(p)[i] != want[i] {
				t.Errorf("xdg %t: source %d = %+v, want %+v", xdg, i, listed(p)[i], want[i])
			}
		}
		untrusted := e.loc
		untrusted.ProjectTrusted = false
		// Distrusted by the host, the project files tighten, never loosen.
		// (The own global file turns yolo on: the global ask allows.)
		for _, v := range []string{"cat y", "make"} {
			if a, s := decide(l.Policy(untrusted), "bash", v); a != Allow {
				t.Errorf("xdg %t: untrusted project: %s = %v from %s, want the global ask under yolo", xdg, v, a, s)
			}
		}
		if a, s := decide(l.Policy(untrusted), "bash", "rm x"); a != Deny || s != ScopeGlobal {
			t.Errorf("xdg %t: untrusted project: rm x = %v from %s", xdg, a, s)
		}
	}
}
