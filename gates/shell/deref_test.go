package shell

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// grep -R follows every link below its folders (grep -r only those it is
// given): the links below are paths it reads, and past the walk's budget
// what lies below is a path of unknown location.
func TestGrepDereferenceFollowsLinks(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "src")
	if err := os.MkdirAll(filepath.Join(src, "deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc", filepath.Join(src, "deep", "etc")); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(src, "deep", "etc")
	has := func(a Analysis, value string, known bool) bool {
		for _, p := range a.Paths {
			if p.Known == known && (p.Value == value || !known && strings.HasSuffix(p.Raw, value)) {
				return true
			}
		}
		return false
	}
	opt := Options{Cwd: dir, Home: "/home/u"}
	for _, c := range []struct {
		cmd  string
		want bool
	}{
		{"grep -R TODO src", true},
		{"grep --dereference-recursive TODO src", true},
		{"grep -rR TODO " + src, true},
		{"cd src && grep -R TODO", true},
		{"grep -r TODO src", false},
		{"grep TODO src", false},
	} {
		if got := has(Analyze(c.cmd, opt), link, true); got != c.want {
			t.Errorf("%s: the link below is a path read: %t, want %t", c.cmd, got, c.want)
		}
	}
	// Past the budget: unknown below.
	big := filepath.Join(dir, "big")
	if err := os.Mkdir(big, 0o755); err != nil {
		t.Fatal(err)
	}
	one := filepath.Join(dir, "one")
	if err := os.WriteFile(one, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for i := 0; i <= maxTreeEntries; i++ { // hard links: one file, many names
		if err := os.Link(one, filepath.Join(big, fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	if a := Analyze("grep -R TODO big", opt); !has(a, "big/…", false) {
		t.Errorf("past the budget: no unknown path below: %+v", a.Paths)
	}
}
