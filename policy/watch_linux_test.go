//go:build linux

package policy

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The watch answers quiet only while nothing that could change a policy
// file has happened: every kind of change below must make it say so on the
// very next question, and a file it cannot watch is never quiet.
func TestChangeWatch(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	global := filepath.Join(root, "agent", "extensions", "pi-permission-system", "config.json")
	project := filepath.Join(root, "work", ".pi", "extensions", "pi-permission-system", "config.json")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Dir(global), 0o700))
	must(os.MkdirAll(filepath.Join(root, "work"), 0o700))
	must(os.WriteFile(global, []byte(`{}`), 0o600))
	w := newChangeWatch()
	if w == nil {
		t.Fatal("inotify unavailable on Linux")
	}
	paths := []string{global, project}
	settle := func(step string) {
		t.Helper()
		if w.quiet(paths) {
			t.Fatalf("%s: quiet before it was armed", step)
		}
		w.arm(paths)
		if !w.quiet(paths) {
			t.Fatalf("%s: not quiet right after arming", step)
		}
	}
	changed := func(step string, change func()) {
		t.Helper()
		change()
		if w.quiet(paths) {
			t.Fatalf("%s: the watch did not see it", step)
		}
		settle(step)
	}
	settle("start")
	changed("edit in place", func() { must(os.WriteFile(global, []byte(`{"permission": {}}`), 0o600)) })
	changed("mtime only", func() { must(os.Chtimes(global, time.Now(), time.Now().Add(2*time.Second))) })
	changed("chmod", func() { must(os.Chmod(global, 0o400)) })
	changed("replace by rename", func() {
		must(os.WriteFile(global+".tmp", []byte(`{}`), 0o600))
		must(os.Rename(global+".tmp", global))
	})
	changed("project file created with its directories", func() {
		must(os.MkdirAll(filepath.Dir(project), 0o700))
		must(os.WriteFile(project, []byte(`{}`), 0o600))
	})
	changed("project file edited", func() { must(os.WriteFile(project, []byte(`{"permission": {}}`), 0o600)) })
	changed("an ancestor renamed away and back", func() {
		dir := filepath.Join(root, "work", ".pi")
		must(os.Rename(dir, dir+".old"))
		must(os.Rename(dir+".old", dir))
	})
	changed("removed", func() { must(os.Remove(project)) })
	changed("the agent directory replaced", func() {
		must(os.Rename(filepath.Join(root, "agent"), filepath.Join(root, "agent.old")))
		must(os.MkdirAll(filepath.Dir(global), 0o700))
		must(os.WriteFile(global, []byte(`{}`), 0o600))
	})
	// A symlinked policy file is stat'ed on every call: its target can
	// change without an event in the watched directory.
	target := filepath.Join(root, "dotfiles", "config.json")
	must(os.MkdirAll(filepath.Dir(target), 0o700))
	must(os.WriteFile(target, []byte(`{}`), 0o600))
	must(os.Remove(global))
	must(os.Symlink(target, global))
	w.quiet(paths)
	w.arm(paths)
	if w.quiet(paths) {
		t.Fatal("a symlinked policy file was trusted to the watch")
	}
	// Paths never armed are never quiet.
	if w.quiet([]string{filepath.Join(root, "other.json")}) {
		t.Fatal("quiet for a path that was never armed")
	}
}

// Through the loader: every edit between two calls is in the second one's
// policy, however it was made, while unchanged files are not read again.
func TestLoaderSeesEveryEdit(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	agentDir := filepath.Join(root, "agent")
	loc := Locations{Home: root, AgentDir: agentDir, Cwd: filepath.Join(root, "work"), ProjectTrusted: true}
	global := GlobalPath(agentDir)
	project := ProjectPath(loc.Cwd)
	for _, d := range []string{filepath.Dir(global), loc.Cwd} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	l := NewLoader()
	state := func() string {
		res := l.Policy(loc).Resolve(Query{Surface: "bash", Values: []string{"git status"}})
		return res.Action.String()
	}
	write := func(path, action string, viaRename bool) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		data := []byte(`{"permission": {"bash": {"git status": "` + action + `"}}}`)
		target := path
		if viaRename {
			target = path + ".new"
		}
		if err := os.WriteFile(target, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if viaRename {
			if err := os.Rename(target, path); err != nil {
				t.Fatal(err)
			}
		}
	}
	steps := []struct {
		path, action string
		rename       bool
		want         string
	}{
		{global, "allow", false, "allow"},
		{global, "deny", false, "deny"},
		{global, "ask", true, "ask"},
		{global, "allow", true, "allow"},
		{project, "deny", false, "deny"},
		{project, "ask", true, "ask"},
		{global, "deny", false, "deny"}, // the trust floor: a global deny holds
		{project, "allow", false, "deny"},
	}
	if got := state(); got != "ask" {
		t.Fatalf("no files: %s", got)
	}
	for i, st := range steps {
		// Calls with nothing changed between the edits.
		for j := 0; j < 3; j++ {
			state()
		}
		write(st.path, st.action, st.rename)
		if got := state(); got != st.want {
			t.Fatalf("step %d (%s = %s): the next call decided %s, want %s", i, st.path, st.action, got, st.want)
		}
	}
}
