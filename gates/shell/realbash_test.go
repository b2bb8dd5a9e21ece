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
