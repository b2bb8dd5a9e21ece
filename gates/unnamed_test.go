package gates

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/gates/shell"
	"github.com/toolgate/toolgate/policy"
)

// TestIntoGuard: a directory below which a command writes files it does
// not name asks as a write to the protected path that could be there,
// naming it; anywhere else it is an ordinary write.
func TestIntoGuard(t *testing.T) {
	s := newSandbox(t)
	for _, d := range []string{".git/hooks", "sub/.git", "build", "vendor/lib", "stuff/.pi/agents"} {
		if err := os.MkdirAll(filepath.Join(s.work, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	into := func(raw string) shell.PathWord {
		return shell.PathWord{Raw: raw, Value: s.expand(raw), Known: true, Dir: s.work, Write: true, Into: true}
	}
	cases := []struct {
		name     string
		word     shell.PathWord
		sentinel string // "" for no floor
		named    string // the protected path the prompt names
	}{
		{"project root", into("."), SentinelProtected, "$WORK/.pi/extensions/pi-permission-system"},
		{"project root names its git hooks too", into("."), SentinelProtected, "$WORK/.git/hooks"},
		{"project root spelled absolutely", into("$WORK"), SentinelProtected, "$WORK/.pi/extensions/pi-permission-system"},
		{"a .git folder", into(".git"), SentinelArming, "$WORK/.git/hooks"},
		{"below .git", into(".git/hooks"), SentinelArming, "$WORK/.git/hooks"},
		{"a folder holding .git", into("sub"), SentinelArming, "$WORK/sub/.git/hooks"},
		{"home", into("$HOME"), SentinelProtected, "$HOME/.pi/agent/extensions/pi-permission-system"},
		{"a folder on PATH", into("$HOME/.local/bin"), SentinelArming, "$HOME/.local/bin"},
		{"a folder holding toolgate's files", into(".pi"), SentinelProtected, "$WORK/.pi/extensions/pi-permission-system"},
		{"inside toolgate's files", into(".pi/agents"), SentinelProtected, "$WORK/.pi/agents"},
		{"the parent of the project (and of home, here)", into(".."), SentinelProtected, "$HOME/.pi/agent/extensions/pi-permission-system"},
		{"a location only known when it runs", shell.PathWord{Raw: "$D", Dir: s.work, Write: true, Into: true}, SentinelArming, "$D"},
		{"an ordinary build folder", into("build"), "", ""},
		{"a nested folder", into("vendor/lib"), "", ""},
		{"a folder outside the project", into("$OUTSIDE"), "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := compose(t, s.home, `{"permission": {"*": "allow"}}`)
			c := s.call("bash", map[string]any{"command": "x"})
			c.Shell = &ShellCommand{Command: "tar xf x.tar", Analysis: shell.Analysis{Paths: []shell.PathWord{tc.word}}}
			o := BashPath(c, r)
			if tc.sentinel == "" {
				if o.Kind != NotApplied {
					t.Fatalf("got %v %s (%s), want no floor", o.Kind, o.D.State, o.D.Sentinel)
				}
				return
			}
			if o.D.State != policy.Ask || o.D.Sentinel != tc.sentinel {
				t.Fatalf("state %s sentinel %q, want ask %q", o.D.State, o.D.Sentinel, tc.sentinel)
			}
			if named := s.expand(tc.named); !strings.Contains(o.D.Prompt.Message, "'"+named+"'") {
				t.Fatalf("prompt %q does not name %q", o.D.Prompt.Message, named)
			}
			if !strings.Contains(o.D.Prompt.Message, "'"+o.D.Value+"'") || o.D.Value == "" {
				t.Fatalf("value %q is not named in the prompt %q", o.D.Value, o.D.Prompt.Message)
			}
			if len(o.D.SessionPatterns) > 0 {
				t.Fatalf("session patterns %v: a protected write has none", o.D.SessionPatterns)
			}
		})
	}
}

// TestUnnamedWritesEndToEnd: the analysis and the gates together, in a
// sandbox with real archives and patches.
func TestUnnamedWritesEndToEnd(t *testing.T) {
	s := newSandbox(t)
	for _, d := range []string{".git/hooks", "build", "stuff/.pi/agents", "d/.git", "tree"} {
		if err := os.MkdirAll(filepath.Join(s.work, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeTar(t, filepath.Join(s.work, "hook.tar"), ".git/hooks/pre-commit")
	writeTar(t, filepath.Join(s.work, "src.tar"), "src/a.c", "src/")
	writeZip(t, filepath.Join(s.work, "hook.zip"), ".git/hooks/post-checkout")
	writeZip(t, filepath.Join(s.work, "src.zip"), "src/b.c")
	writeFile(t, filepath.Join(s.work, "hook.patch"), "diff --git a/.git/hooks/pre-push b/.git/hooks/pre-push\nnew file mode 100755\n--- /dev/null\n+++ b/.git/hooks/pre-push\n@@ -0,0 +1 @@\n+touch marker\n")
	writeFile(t, filepath.Join(s.work, "src.patch"), "--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1 +1 @@\n-x\n+y\n")
	cases := []struct {
		command  string
		sentinel string // "" when allowed
		named    string
	}{
		{"tar xf missing.tar", SentinelProtected, "$WORK/.pi/extensions/pi-permission-system"},
		{"tar xf hook.tar", SentinelArming, ".git/hooks/pre-commit"},
		{"tar -xf src.tar", "", ""},
		{"tar --extract --file=src.tar -C build", "", ""},
		{"tar xf missing.tar -C build", "", ""},
		{"tar -C .git -xf missing.tar", SentinelArming, "$WORK/.git/hooks"},
		{"tar tf hook.tar", "", ""},
		{"tar -xOf hook.tar", "", ""},
		{"tar -x < hook.tar", SentinelArming, ".git/hooks/pre-commit"},
		{"bsdtar -xf hook.tar", SentinelArming, ".git/hooks/pre-commit"},
		{"unzip hook.zip", SentinelArming, ".git/hooks/post-checkout"},
		{"unzip -o src.zip", "", ""},
		{"unzip -l hook.zip", "", ""},
		{"unzip missing.zip -d build", "", ""},
		{"7z x hook.zip", SentinelArming, ".git/hooks/post-checkout"},
		{"patch -p1 < hook.patch", SentinelArming, ".git/hooks/pre-push"},
		{"patch -p1 -i src.patch", "", ""},
		{"patch -p1 < missing.patch", SentinelProtected, "$WORK/.pi/extensions/pi-permission-system"},
		{"git apply hook.patch", SentinelArming, ".git/hooks/pre-push"},
		{"git apply src.patch", "", ""},
		{"git apply --check hook.patch", "", ""},
		{"cpio -idv < x.cpio", SentinelProtected, "$WORK/.pi/extensions/pi-permission-system"},
		{"git --work-tree=.git/hooks checkout HEAD -- x", SentinelArming, "$WORK/.git/hooks"},
		{"git --work-tree=tree checkout HEAD -- x", "", ""},
		{"git checkout main", "", ""},
		{"git reset --hard", "", ""},
		{"git --git-dir=d/.git reset --hard", SentinelProtected, "$WORK/.pi/extensions/pi-permission-system"},
		{"git checkout-index -a --prefix=.git/hooks/", SentinelArming, "$WORK/.git/hooks"},
		{"cp -r stuff/.pi .", SentinelProtected, "$WORK/.pi/extensions/pi-permission-system"},
		{"cp -r stuff/. .", SentinelProtected, "$WORK/.pi/extensions/pi-permission-system"},
		{"cp -r stuff build", "", ""},
		{"mv d/.git .", SentinelArming, "$WORK/.git/hooks"},
		{"rsync -a stuff/ .", SentinelProtected, "$WORK/.pi/extensions/pi-permission-system"},
		{"rsync -a stuff/ build/", "", ""},
		{"rsync -a stuff/ host:dst/", "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.command, func(t *testing.T) {
			r := compose(t, s.home, `{"permission": {"*": "allow"}}`)
			c := s.bash(tc.command)
			o := BashPath(c, r)
			if tc.sentinel == "" {
				if o.Kind == Checked && o.D.State != policy.Allow {
					t.Fatalf("got %s (%s, %q), want allowed", o.D.State, o.D.Sentinel, o.D.Value)
				}
				return
			}
			if o.D.State != policy.Ask || o.D.Sentinel != tc.sentinel {
				t.Fatalf("state %s sentinel %q value %q, want ask %q", o.D.State, o.D.Sentinel, o.D.Value, tc.sentinel)
			}
			if named := s.expand(tc.named); !strings.Contains(o.D.Prompt.Message, named) {
				t.Fatalf("prompt %q does not name %q", o.D.Prompt.Message, named)
			}
		})
	}
}

func writeFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeTar writes an uncompressed tar of the names (a trailing "/" is a
// folder), each file holding a harmless line.
func writeTar(t *testing.T, p string, names ...string) {
	t.Helper()
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	for _, n := range names {
		h := &tar.Header{Name: n, Mode: 0o755, Typeflag: tar.TypeReg, Size: int64(len("touch marker\n"))}
		if strings.HasSuffix(n, "/") {
			h.Typeflag, h.Size = tar.TypeDir, 0
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Size > 0 {
			_, _ = tw.Write([]byte("touch marker\n"))
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	writeFile(t, p, b.String())
}

func writeZip(t *testing.T, p string, names ...string) {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, n := range names {
		w, err := zw.Create(n)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.Write([]byte("touch marker\n"))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	writeFile(t, p, b.String())
}
