package shell

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixture is the file tree the table tests run in: a project (the working
// directory), a home directory and a directory outside both.
type fixture struct {
	root, cwd, home string
}

func newFixture(t testing.TB) fixture {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	fx := fixture{root: root, cwd: filepath.Join(root, "proj"), home: filepath.Join(root, "home")}
	for _, f := range []string{
		"home/.ssh/id_rsa", "home/.ssh/config", "home/notes.txt",
		"proj/.env", "proj/README.md", "proj/x", "proj/src/a.ts", "proj/src/b.ts",
		"proj/build/out.js", "proj/sub/y", "outside/x.txt",
	} {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(root, "outside"), filepath.Join(fx.cwd, "link")); err != nil {
		t.Fatal(err)
	}
	return fx
}

func (fx fixture) options() Options { return Options{Cwd: fx.cwd, Home: fx.home} }

// expand replaces @CWD@, @HOME@ and @ROOT@ in an expected value.
func (fx fixture) expand(s string) string {
	return strings.NewReplacer("@CWD@", fx.cwd, "@HOME@", fx.home, "@ROOT@", fx.root).Replace(s)
}

// unexpand is expand's inverse, for messages and the row generator.
func (fx fixture) unexpand(s string) string {
	return strings.NewReplacer(fx.cwd, "@CWD@", fx.home, "@HOME@", fx.root, "@ROOT@").Replace(s)
}
