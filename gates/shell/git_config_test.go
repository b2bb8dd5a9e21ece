package shell

import (
	"path/filepath"
	"testing"
)

// TestGitWritesConfigByDesign: a git unit that writes the repository's
// configuration by design names .git/config as a by-design write; one
// that does not, or writes another file, names none.
func TestGitWritesConfigByDesign(t *testing.T) {
	cwd := t.TempDir()
	for cmd, want := range map[string]bool{
		"git remote add origin https://example.invalid/x.git":     true,
		"git remote set-url origin https://example.invalid/y.git": true,
		"git push -u origin main":                                 true,
		"git push --set-upstream origin main":                     true,
		"git branch --set-upstream-to=origin/main":                true,
		"git submodule update --init":                             true,
		"git submodule add https://example.invalid/m.git m":       true,
		"git config user.email a@b.c":                             true,
		"git config --local user.email a@b.c":                     true,
		"git push origin main":                                    false,
		"git remote -v":                                           false,
		"git submodule update":                                    false,
		"git config --global user.email a@b.c":                    false,
		"git config --get user.email":                             false,
		"git config -f other.cfg user.email a@b.c":                false,
		"git status": false,
	} {
		a := Analyze(cmd, Options{Cwd: cwd, Home: filepath.Join(cwd, "home")})
		got := false
		for _, p := range a.Paths {
			if p.ByDesign {
				got = got || p.Value == ".git/config" && p.Write && p.Dir == cwd
			}
		}
		if got != want {
			t.Errorf("%s: writes .git/config by design %v, want %v (paths %+v)", cmd, got, want, a.Paths)
		}
	}
}
