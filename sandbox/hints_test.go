package sandbox

import (
	"strings"
	"testing"
)

func TestHints(t *testing.T) {
	p := &Profile{Cwd: "/h/proj", Write: []Entry{{Path: "/h/proj"}},
		ReadOnly: []Entry{{Path: "/h/proj/.git/hooks", Why: "hooks"}, {Path: "/h/proj/.git/config", Why: "config"}, {Path: "/h/proj/.toolgate", Why: "own"}},
		Hidden:   []Entry{{Path: "/h/.ssh/id_rsa", Why: "keys"}, {Path: "/h/proj/certs/k.pem", Why: "pem"}}}
	cases := []struct {
		argv []string
		want []string // the entries named
	}{
		{[]string{"sh", "-c", "grep -r TODO src"}, nil},
		{[]string{"go", "test", "./..."}, nil},
		{[]string{"sh", "-c", "cat ~/.ssh/id_rsa"}, []string{"/h/.ssh/id_rsa"}},
		{[]string{"sh", "-c", "cat $HOME/.ssh/id_rsa"}, []string{"/h/.ssh/id_rsa"}},
		{[]string{"grep", "-r", "x", "certs"}, []string{"/h/proj/certs/k.pem"}},
		{[]string{"sh", "-c", "echo x > .git/hooks/pre-commit"}, []string{"/h/proj/.git/hooks"}},
		{[]string{"git", "config", "user.name", "x"}, []string{"/h/proj/.git/hooks", "/h/proj/.git/config"}},
		{[]string{"tar", "-xf", "/tmp/a.tar"}, []string{"/h/proj/.git/hooks", "/h/proj/.git/config", "/h/proj/.toolgate"}},
	}
	for _, tc := range cases {
		var named []string
		for _, h := range Hints(p, tc.argv, "/h") {
			if rest, ok := strings.CutPrefix(h, "may have been stopped by "); ok {
				named = append(named, strings.Fields(rest)[0])
			}
		}
		if strings.Join(named, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%q: named %v, want %v", tc.argv, named, tc.want)
		}
	}
}
