package shell

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// The catalog's differential: real
// wrappers and real programs with shell escapes run under bash with a
// PATH of stubs that log what they are asked to run. What bash (through
// the program) ran must be a unit of the analysis, and every command the
// analysis says the program runs, as a wrapped command or an escape
// payload, must be what ran: the analysis reads the program's options as
// the program does.
func TestBashDiffCatalog(t *testing.T) {
	lab := newBashLab(t, false)
	for _, c := range []struct {
		program, script string
	}{
		{"logsave", `logsave /dev/null a -x 1`},
		{"logsave", `logsave -a log.txt b --y=2 z`},
		{"ssh-agent", `ssh-agent a -t 5 x`},
		{"ssh-agent", `ssh-agent -t 60 b y`},
		{"prlimit", `prlimit --nofile=256 a z`},
		{"taskset", `taskset 1 a -c x`},
		{"chrt", `chrt -o 0 b q`},
		{"ionice", `ionice -c 3 a w`},
		{"unshare", `unshare b -r v`},
		{"capsh", `capsh -- -c 'a from-capsh'`},
		{"awk", `awk 'BEGIN { system("a from awk") }'`},
		{"awk", `awk 'BEGIN { print "in" | "b piped"; close("b piped") }'`},
		{"awk", `awk 'BEGIN { "c got" | getline x; print x }'`},
		{"sed", `echo hi | sed '1e a from-sed'`},
		{"sqlite3", `sqlite3 :memory: '.shell b from-sqlite'`},
		{"sqlite3", `sqlite3 :memory: -cmd '.system c from-cmd' 'select 1;'`},
		{"ed", `ed <<< '!a from-ed'`},
		{"gdb", `gdb -nx -batch -ex '!b from-gdb'`},
		{"env", `env -u FOO a env-wrapped`},
	} {
		real, err := exec.LookPath(c.program)
		if err != nil {
			t.Logf("%s is not installed here: %s not run", c.program, c.script)
			continue
		}
		link := filepath.Join(lab.stubs, c.program)
		if _, err := os.Lstat(link); err != nil {
			if err := os.Symlink(real, link); err != nil {
				t.Fatal(err)
			}
		}
		t.Run(c.script, func(t *testing.T) {
			ran, cwd, home := lab.run(t, c.script, false)
			a := Analyze(c.script, Options{Cwd: cwd, Home: home})
			if a.Unparseable {
				t.Fatalf("unparseable: %s", a.Error)
			}
			var claimed []string
			for _, u := range a.Units {
				if (u.Context == CtxWrapped || u.Context == CtxPayload) && len(u.Args) > 0 && slices.Contains([]string{"a", "b", "c"}, u.Args[0]) {
					claimed = append(claimed, u.Text)
				}
			}
			for _, r := range ran {
				if !covered(r, a.Units) {
					t.Errorf("bash ran %q, which is no unit of the analysis (units: %q)", r, unitTexts(a.Units))
				}
			}
			for _, cl := range claimed {
				if !slices.Contains(ran, cl) {
					t.Errorf("the analysis says %q runs; bash ran %q", cl, ran)
				}
			}
			if len(claimed) == 0 {
				t.Errorf("the analysis found no command the program runs (units: %q); bash ran %q", unitTexts(a.Units), ran)
			}
		})
	}
}

func unitTexts(us []Unit) []string {
	var out []string
	for _, u := range us {
		out = append(out, u.Text+" @"+string(u.Context)+" "+u.Floor)
	}
	return out
}
