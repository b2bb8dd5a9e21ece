//go:build linux

package policy

import (
	"os"
	"path/filepath"
	"testing"
)

// TestLoaderQuietShortcut: once the watch said every file is armed, the
// loader does not ask it again while its generation stays (armedOK), and
// an edit, a removed directory or new locations are still seen on the
// very next call.
func TestLoaderQuietShortcut(t *testing.T) {
	root := realTempDir(t)
	loc := Locations{Home: root, AgentDir: filepath.Join(root, "agent"), Cwd: filepath.Join(root, "work"), ProjectTrusted: true}
	global, project := GlobalPath(loc.AgentDir), ProjectPath(loc.Cwd)
	write := func(path, action string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(`{"permission": {"bash": {"git status": "`+action+`"}}}`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(global, "allow")
	if err := os.MkdirAll(loc.Cwd, 0o700); err != nil {
		t.Fatal(err)
	}
	l := NewLoader()
	decided := func(loc Locations) string {
		return l.Policy(loc).Resolve(Query{Surface: "bash", Values: []string{"git status"}}).Action.String()
	}
	settle := func(step string, loc Locations, want string) {
		t.Helper()
		for i := 0; i < 4; i++ {
			if got := decided(loc); got != want {
				t.Fatalf("%s, call %d: %s, want %s", step, i, got, want)
			}
		}
		if !l.armedOK {
			t.Fatalf("%s: the shortcut is not taken", step)
		}
	}
	settle("start", loc, "allow")
	write(global, "deny")
	settle("global edited", loc, "deny")
	write(project, "ask")
	settle("project file created", loc, "deny") // the trust floor
	write(global, "allow")
	settle("global edited again", loc, "ask")
	if err := os.RemoveAll(filepath.Join(loc.Cwd, ".pi")); err != nil {
		t.Fatal(err)
	}
	settle("project directory removed", loc, "allow")
	other := loc
	other.Cwd = filepath.Join(root, "other")
	write(ProjectPath(other.Cwd), "deny")
	settle("other locations", other, "deny")
	settle("back", loc, "allow")
}
