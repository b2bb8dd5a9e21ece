package shell

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSelfThroughLinks: a command name that reaches the running binary
// (the test binary stands in for toolgate) through a symbolic link or a
// hard link is toolgate itself; another file with a slash is not.
func TestSelfThroughLinks(t *testing.T) {
	self := selfPath()
	if self == "" {
		t.Skip("the running binary's path is unknown here")
	}
	dir := t.TempDir()
	if err := os.Symlink(self, filepath.Join(dir, "soft")); err != nil {
		t.Fatal(err)
	}
	hardOK := os.Link(self, filepath.Join(dir, "hard")) == nil // another file system: no hard link
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "other"), []byte("echo\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		cmd  string
		self bool
	}{
		{"./soft --version", true},
		{"cd sub && ../soft --version", true},
		{"./other", false},
		{"./missing", false},
		{self + " trust --yes", true},
	}
	if hardOK {
		cases = append(cases, struct {
			cmd  string
			self bool
		}{"./hard trust --yes", true})
	}
	for _, c := range cases {
		a := Analyze(c.cmd, Options{Cwd: dir, Home: "/home/u"})
		got := false
		for _, u := range a.Units {
			if u.Floor == SentinelSelf {
				got = true
			}
		}
		if got != c.self {
			t.Errorf("%q: floored as toolgate itself = %v, want %v (units %+v)", c.cmd, got, c.self, a.Units)
		}
	}
}
