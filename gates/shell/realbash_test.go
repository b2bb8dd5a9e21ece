package shell

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestInjectionAttacksInRealBash runs each attack of the injection and
// callback classes (issue 12.6, 18.6) in real bash, in a throwaway
// directory with PATH set to an empty directory and a harmless payload
// (an executable that touches "marker"), and checks both that bash really
// runs the payload and that the analysis floors the command that does.
func TestInjectionAttacksInRealBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash on this machine")
	}
	touch, err := exec.LookPath("touch")
	if err != nil {
		t.Skip("no touch on this machine")
	}
	rows := []string{
		`PATH=./e; ls`,
		`for PATH in ./e; do ls; done`,
		`read PATH <<< ./e; ls`,
		`printf -v PATH ./e; ls`,
		`declare PATH=./e; ls`,
		`f() { local PATH=./e; ls; }; f`,
		`BASH_CMDS[ls]=./x; ls`,
		`: ${BASH_CMDS[ls]:=./x}; ls`,
		`declare -A BASH_CMDS=([ls]=./x); ls`,
		`(( BASH_CMDS[ls]=1 )); ls`,
		`let 'BASH_CMDS[ls]=1'; ls`,
		`[[ BASH_CMDS[ls]=1 -eq 1 ]]; ls`,
		`x='BASH_CMDS[ls]=1'; (( x )); ls`,
		`hash -p ./x ls; ls`,
		`mapfile -C ./x -c 1 arr < lines`,
		`readarray -C ./x -c 1 arr < lines`,
		`compgen -C ./x y`,
		`f() { ./x; }; compgen -F f y`,
		`compgen -W '$(./x)' y`,
	}
	payload := []byte("#!" + bash + "\n" + touch + " marker\n")
	for _, cmd := range rows {
		t.Run(cmd, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range []string{"x", "1", "e/ls"} {
				p := filepath.Join(dir, f)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, payload, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(filepath.Join(dir, "lines"), []byte("a\nb\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(filepath.Join(dir, "empty"), 0o755); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			run := exec.CommandContext(ctx, bash, "--norc", "--noprofile", "-c", cmd)
			run.Dir = dir
			run.Env = []string{"PATH=" + filepath.Join(dir, "empty"), "HOME=" + dir}
			_ = run.Run() // the payload's effect is what counts
			if _, err := os.Stat(filepath.Join(dir, "marker")); err != nil {
				t.Fatalf("bash did not run the payload: the row is no attack")
			}
			a := Analyze(cmd, Options{Cwd: dir, Home: dir})
			if a.Unparseable {
				return // asked as a whole
			}
			last := a.Units[len(a.Units)-1]
			floored := last.Floor != ""
			for _, u := range a.Units {
				floored = floored || (u.Context != CtxPayload && u.Floor == SentinelOpaque)
			}
			if !floored {
				t.Errorf("nothing floors the command that runs the payload: %+v", a.Units)
			}
		})
	}
}

// TestGitOptionAttacksInRealGit runs git (and sed) options that run a
// program (issue 12.4) with real git in a throwaway repository, PATH limited to a
// directory holding only git and sed, and a touch payload; each really runs the
// payload, and the analysis floors the git unit.
func TestGitOptionAttacksInRealGit(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash on this machine")
	}
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git on this machine")
	}
	touch, err := exec.LookPath("touch")
	if err != nil {
		t.Skip("no touch on this machine")
	}
	rows := []string{
		`git -c alias.y='!./x' y`,
		`git ls-remote --upload-pack=./x .`,
		`git clone -q -u ./x . copy3`,
		`git difftool -y -x ./x --no-index a b`,
		`git difftool -y --extcmd=./x --no-index a b`,
		`git grep -O./x a`,
		`git -c core.fsmonitor=./x status`,
		`git archive --remote=. --exec=./x HEAD`,
		`git clone -q --template=./t . copy`,
		`git clone -q -c core.fsmonitor=./x . copy2 && git -C copy2 status`,
		`HOME=./h git y`,
		`XDG_CONFIG_HOME=./c git y`,
		`GIT_CONFIG_GLOBAL=./g git y`,
		`export HOME=./h; git y`,
		`for HOME in ./h; do git y; done`,
		`sed -n '1e ./x' a`,
		`sed 's/.*/.\/x/e' a`,
		`sed 't x; 1e ./x
:x' a`,
	}
	for _, cmd := range rows {
		t.Run(cmd, func(t *testing.T) {
			dir := t.TempDir()
			payload := []byte("#!" + bash + "\n" + touch + " '" + filepath.Join(dir, "marker") + "'\n")
			bin := filepath.Join(dir, "bin")
			if err := os.Mkdir(bin, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(git, filepath.Join(bin, "git")); err != nil {
				t.Fatal(err)
			}
			if sed, err := exec.LookPath("sed"); err == nil {
				if err := os.Symlink(sed, filepath.Join(bin, "sed")); err != nil {
					t.Fatal(err)
				}
			}
			for _, f := range []string{"x", "t/hooks/post-checkout"} {
				p := filepath.Join(dir, f)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, payload, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			alias := []byte("[alias]\n\ty = !" + filepath.Join(dir, "x") + "\n")
			for _, f := range []string{"h/.gitconfig", "c/git/config", "g"} {
				p := filepath.Join(dir, f)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, alias, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for _, f := range []string{"a", "b"} {
				if err := os.WriteFile(filepath.Join(dir, f), []byte(f+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			env := []string{"PATH=" + bin, "HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1"}
			for _, setup := range [][]string{{"init", "-q"}, {"add", "a", "b", "x"},
				{"-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "m"}} {
				c := exec.Command(git, setup...)
				c.Dir, c.Env = dir, env
				if out, err := c.CombinedOutput(); err != nil {
					t.Fatalf("git %v: %v\n%s", setup, err, out)
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			run := exec.CommandContext(ctx, bash, "--norc", "--noprofile", "-c", cmd)
			run.Dir, run.Env = dir, env
			_ = run.Run()
			if _, err := os.Stat(filepath.Join(dir, "marker")); err != nil {
				t.Fatalf("git did not run the payload: the row is no attack")
			}
			a := Analyze(cmd, Options{Cwd: dir, Home: dir})
			floored := false
			for _, u := range a.Units {
				floored = floored || (u.Context != CtxPayload && u.Floor != "")
			}
			if !floored {
				t.Errorf("no git unit is floored: %+v", a.Units)
			}
		})
	}
}
