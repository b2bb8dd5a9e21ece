package shell

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The differential test: scripts are run by real bash in a throwaway
// directory whose PATH holds only stub commands that log their argv, and
// every command bash ran must be a unit the analysis found (name and
// arguments), unless the analysis is floored (unparseable, or a dynamic,
// opaque or unparseable unit: toolgate then asks whatever the script does).

// stubNames are the commands on the stub PATH. "bash" is the real bash
// behind a stub, so that inline scripts run too.
var stubNames = []string{"a", "b", "c", "rm", "git", "cat", "bash"}

// bashLab is a stub PATH and a place to run scripts in.
type bashLab struct {
	bash  string // the real bash
	root  string // holds stubs/, the log and one directory per run
	stubs string
	log   string
	runs  int
}

// bashPath returns the real bash, or skips the test when there is none,
// except under CI, where a missing bash fails.
func bashPath(t testing.TB) string {
	t.Helper()
	for _, p := range []string{"/bin/bash", "/usr/bin/bash"} {
		if info, err := os.Stat(p); err == nil && !info.IsDir() {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("bash is not installed, and CI is set: the differential test must run")
	}
	t.Skip("bash is not installed")
	return ""
}

func newBashLab(t testing.TB, restricted bool) *bashLab {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	lab := &bashLab{bash: bashPath(t), root: root, stubs: filepath.Join(root, "stubs"), log: filepath.Join(root, "argv.log")}
	if err := os.Mkdir(lab.stubs, 0o755); err != nil {
		t.Fatal(err)
	}
	// A stub logs its argument count, then its name and arguments, each
	// ended by a NUL byte. Its name is the one bash looked up.
	// One printf, so that one write: stubs in a pipeline log at once.
	logger := "printf '%s\\0' $# \"${0##*/}\" \"$@\" >>" + shQuote(lab.log) + "\n"
	for _, name := range stubNames {
		body := "#!/bin/sh\n" + logger
		if name == "bash" {
			flags := ""
			if restricted {
				flags = " -r"
			}
			body += "exec " + shQuote(lab.bash) + " --norc --noprofile" + flags + " \"$@\"\n"
		}
		if err := os.WriteFile(filepath.Join(lab.stubs, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return lab
}

func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// run runs script with bash in a fresh directory and returns the commands
// the stubs logged, each as its words joined by single spaces, and the
// directory and home it ran in. restricted runs bash -r, which cannot run a
// command named with a "/", redirect output or change PATH: the fuzz
// target's inputs are arbitrary.
func (lab *bashLab) run(t testing.TB, script string, restricted bool) (ran []string, cwd, home string) {
	t.Helper()
	lab.runs++
	dir := filepath.Join(lab.root, "run"+strconv.Itoa(lab.runs))
	cwd, home = filepath.Join(dir, "cwd"), filepath.Join(dir, "home")
	for _, d := range []string{cwd, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"f1", "f2", "g.txt"} {
		if err := os.WriteFile(filepath.Join(cwd, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(cwd, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "script")
	if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lab.log, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// The timeout only kills a run that hangs (a fuzzed "while :"); it is
	// no assertion. It is short for the fuzz target, whose engine takes a
	// slow input for a hung worker.
	limit := 10 * time.Second
	if restricted {
		limit = time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	args := []string{"--norc", "--noprofile"}
	if restricted {
		args = append(args, "-r")
	}
	cmd := exec.CommandContext(ctx, lab.bash, append(args, file)...)
	cmd.Dir = cwd
	cmd.Env = []string{"PATH=" + lab.stubs, "HOME=" + home}
	cmd.Stdin = nil // /dev/null
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 500 * time.Millisecond
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			t.Fatalf("bash: %v", err)
		}
	}
	data, err := os.ReadFile(lab.log)
	if err != nil {
		t.Fatal(err)
	}
	ran, err = parseArgvLog(data)
	if err != nil {
		t.Fatalf("stub log: %v", err)
	}
	return ran, cwd, home
}

// parseArgvLog reads the stubs' records: a count, then the name and that
// many arguments, each ended by NUL.
func parseArgvLog(data []byte) ([]string, error) {
	fields := strings.Split(string(data), "\x00")
	if len(fields) > 0 && fields[len(fields)-1] == "" {
		fields = fields[:len(fields)-1]
	}
	var out []string
	for i := 0; i < len(fields); {
		n, err := strconv.Atoi(fields[i])
		if err != nil || n < 0 || i+2+n > len(fields) {
			return nil, fmt.Errorf("bad record at field %d of %d", i, len(fields))
		}
		out = append(out, strings.Join(fields[i+1:i+2+n], " "))
		i += 2 + n
	}
	return out, nil
}

// floored reports whether toolgate asks whatever the script runs.
func floored(a Analysis) bool {
	if a.Unparseable {
		return true
	}
	for _, u := range a.Units {
		switch u.Floor {
		case SentinelDynamic, SentinelOpaque, SentinelUnparseable:
			return true
		}
	}
	return false
}

// differential runs script in bash and returns, when a command bash ran is
// no unit of the analysis and nothing is floored, a description of the
// miss; "" when the analysis covers the run.
func (lab *bashLab) differential(t testing.TB, script string, restricted bool) string {
	t.Helper()
	ran, cwd, home := lab.run(t, script, restricted)
	a := Analyze(script, Options{Cwd: cwd, Home: home})
	if floored(a) {
		return ""
	}
	for _, r := range ran {
		if !covered(r, a.Units) {
			var units []string
			for _, u := range a.Units {
				units = append(units, strconv.Quote(u.Text))
			}
			return fmt.Sprintf("bash ran %q, the analysis found the units [%s]", r, strings.Join(units, ", "))
		}
	}
	return ""
}

// covered reports whether the command bash ran is one of the units. A word
// of a unit that is an expansion the analysis leaves as written ($x, $(…),
// a glob, ~) stands for any text there, or none.
func covered(ran string, units []Unit) bool {
	for _, u := range units {
		for _, text := range append([]string{u.Text}, u.Alts...) {
			if unitMatches(text, ran) {
				return true
			}
		}
	}
	return false
}

func unitMatches(text, ran string) bool {
	if text == ran {
		return true
	}
	// pattern: literal words and wild words. A wild word that opens a
	// substitution runs to its end, over the spaces inside.
	var pieces []string
	var wild []bool
	depth, ticks := 0, 0
	for i, w := range strings.Split(text, " ") {
		inside := depth > 0 || ticks%2 == 1
		depth += strings.Count(w, "(") - strings.Count(w, ")")
		ticks += strings.Count(w, "`")
		if inside {
			continue // part of the wild word before
		}
		if i > 0 && (strings.Contains(w, "$(") || strings.Contains(w, "`") || strings.Contains(w, "<(") || strings.Contains(w, ">(")) {
			// A substitution: its commands are units of their own, and
			// its case patterns unbalance the parentheses. The rest of
			// the unit matches anything.
			pieces, wild = append(pieces, ""), append(wild, true)
			break
		}
		dynamic := strings.ContainsAny(w, "$`*?[~{(")
		if i == 0 && dynamic {
			return false // a dynamic name is floored, never a match
		}
		if dynamic {
			pieces, wild = append(pieces, ""), append(wild, true)
			continue
		}
		pieces, wild = append(pieces, w), append(wild, false)
	}
	return wildMatch(pieces, wild, ran, true)
}

// wildMatch matches s against the words in pieces: a literal word must
// appear as itself, separated by a space from what came before; a wild word
// matches any text, including none.
func wildMatch(pieces []string, wild []bool, s string, first bool) bool {
	if len(pieces) == 0 {
		return s == ""
	}
	if wild[0] {
		for i := 0; i <= len(s); i++ {
			if wildMatch(pieces[1:], wild[1:], s[i:], i == 0 && first) {
				return true
			}
		}
		return false
	}
	w := pieces[0]
	if !first {
		// after a wild word or a literal one: the separating space may
		// have been eaten by an empty expansion.
		w = " " + w
		if !strings.HasPrefix(s, w) && strings.HasPrefix(s, pieces[0]) {
			w = pieces[0]
		}
	}
	if !strings.HasPrefix(s, w) {
		return false
	}
	return wildMatch(pieces[1:], wild[1:], s[len(w):], false)
}

// TestBashDifferential runs a few hundred generated scripts, from a fixed
// seed, in bash and in the analysis.
func TestBashDifferential(t *testing.T) {
	lab := newBashLab(t, false)
	rng := rand.New(rand.NewPCG(12, 2026))
	const scripts = 300
	var misses []string
	for i := 0; i < scripts && len(misses) < 10; i++ {
		script := genScript(rng)
		if strings.Contains(script, "/") {
			t.Fatalf("the generator wrote a /: %q", script)
		}
		if miss := lab.differential(t, script, false); miss != "" {
			misses = append(misses, fmt.Sprintf("script %q: %s", script, miss))
		}
	}
	for _, m := range misses {
		t.Error(m)
	}
}

// TestBashDifferentialKnown are the divergences between mvdan.cc/sh and
// bash found so far, each run in bash.
func TestBashDifferentialKnown(t *testing.T) {
	lab := newBashLab(t, false)
	for _, script := range bashDivergences {
		t.Run(script, func(t *testing.T) {
			if miss := lab.differential(t, script, false); miss != "" {
				t.Error(miss)
			}
		})
	}
}

// bashDivergences are scripts where the parser alone reads the text unlike
// bash; each runs rm or c in bash where a naive analysis sees neither.
var bashDivergences = []string{
	"a # note \\\nrm x",
	"a # note \\\r\nrm x",
	"a \\\r\nrm x",
	"a\r#;rm x",
	"a x\r# ; rm x",
	"cat <<E\nx\\\nE\nrm y\nE\n",
	"cat <<E\r\nx\nE\r\nrm y\nE\n",
	"cat <<E\nx\nE\r\nrm y\nE\n",
	"a\x00rm x",
	"time -- rm x",
	"a $'\\r' ; rm x",
	"rm x\\",
	"bash -c 'rm x\\'",
	"coproc v=1 rm x",
	"a $((rm x) )",
	"a $((rm x);(c y))",
	"((rm x) )",
	"((rm x);(c y))",
	"a $((c y) | (rm x))",
	"a $( (rm x))",
	"case x in x) rm x;; esac",
	"a <<E\nx\nE\\\nrm x\nE\n",
	"a <<'E'\nx\\\nE\nrm x\n",
	"a <<-E\n\tx\n\tE\nrm x\n",
	"a <<E <<F\nx\nE\nrm x\nF\nc y\n",
	"a <<'E'\r\nx\r\nE\r\nrm x\r\n",
	"a <<\"E\r\"\nx\nE\r\nrm x\n",
	"a <<$'E'\nx\nE\nrm x\n$'E'\nc y\n",
	"a <<$'E\\r'\nx\nE\r\nrm x\n",
	"a <<E\\\nF\nx\nEF\nrm x\n",
	"a <<E x\nE\nrm x\n",
	"a <<E; rm x\nE\n",
	"a <<E\n$(rm x)\nE\n",
	"a <<'E'\n$(rm x)\nE\nc y\n",
	"a <<E\n`rm x`\nE\n",
	"a <<E\n${v:-$(rm x)}\nE\n",
	"a <<E\n$((1+$(rm x)))\nE\n",
	"a <<<$(rm x)",
	"a # x\\\\\nrm x",
	"a # x\\\\\\\nrm x",
	"a '#' \\\nrm x",
	"a \\\n# x\nrm x",
	"a x\\\n#y; rm x",
	"echo x; # comment\nrm x",
	"a \u00a0#x; rm x",
	"a;#\rrm x",
	"c x\\\\\\\na y",
	"a `cat <<'EX'\nE\\\nX\nrm y\n`",
	"a `cat <<'EX'\nE\\\nX\nrm y\nEX\n`",
	"a `a 'x\\\n'; rm y`",
	"a `a # x \\\n rm y`",
	"a \"`a 'x\\\ny'`\"",
	"a 0<&-x y",
	"a >&-x y",
	"a 2>&-\"x\" y",
	"a 3<&-; rm x",
	"time -- rm x | c y",
	"time -p -- rm x | c y && c z",
}

// TestBashStoredCode runs scripts where bash runs text that looked like
// data (issue 12): a literal that reaches an arithmetic context, an array
// subscript, ${!x} or ${x@P}, single-quoted text in arithmetic, a pattern.
func TestBashStoredCode(t *testing.T) {
	lab := newBashLab(t, false)
	for _, script := range storedCode {
		t.Run(script, func(t *testing.T) {
			ran, _, _ := lab.run(t, script, false)
			if !slices.ContainsFunc(ran, func(r string) bool { return strings.HasPrefix(r, "c ") }) {
				t.Fatalf("bash did not run the payload c: %q", ran)
			}
			if miss := lab.differential(t, script, false); miss != "" {
				t.Error(miss)
			}
		})
	}
}

// storedCode are scripts whose payload "c …" bash runs from text that
// looks like data.
var storedCode = []string{
	"x='a[$(c one)]'; a $((x))",
	"for x in 'a[$(c two)]'; do a $((x)); done",
	"a $(( ${x:-'a[$(c three)]'} ))",
	"a ${z['$(c four)']}",
	"declare -a arr; a ${arr['$(c five)']}",
	"a $(( 'b[$(c six)]' ))",
	"v=abcdef; a ${v:'b[$(c seven)]':1}",
	"[[ -v 'q[$(c eight)]' ]]; a",
	"[[ x == @($(c nine)|y) ]]; a",
	"[[ 'q[$(c ten)]' -eq 1 ]]; a",
	"x='q[$(c eleven)]'; a ${!x}",
	"x='$(c twelve)'; a ${x@P}",
	"a $[ 'q[$(c thirteen)]' ]",
	"x='q[$(c fourteen)]'; (( x )); let x; a",
	"x='q[$(c fifteen)]'; a ${y:=$x}; a $((y))",
	"x='q[$(c sixteen)]'; [[ x -eq 1 ]]; a",
	"a ${y:='q[$(c seventeen)]'}; a $((y))",
	"a $(( ${y:-'q[$(c eighteen)]'} + 1 ))",
	"declare -i n; n='q[$(c twenty)]'; a",
	"for ((i='q[$(c twentyone)]'; i<0; i++)); do a; done",
	"a ${z[${y:-'$(c twentytwo)'}]}",
	"let 'q[$(c twentythree)]'; a",
	"x='q[$(c twentyfour)]'; a $(( ${x} ))",
	"declare x='q[$(c twentyfive)]'; a $((x))",
	// Builtins that take a variable name evaluate its subscript.
	"printf -v 'a[$(c thirtyone)]' x; a",
	"read 'a[$(c thirtytwo)]' <<< x; a",
	"[ -v 'a[$(c thirtythree)]' ]; a",
	"test -v 'a[$(c thirtyfour)]'; a",
	"declare 'a[$(c thirtyfive)]=1'; a",
	"declare -n r='a[$(c thirtysix)]'; echo $r; a",
	"a=(); a+=([$(c thirtyseven)]=1); a",
	// Text only known at run time: floored.
	"a $(( $(echo 'q[$(c twentysix)]') ))",
	"read x <<< 'q[$(c twentyseven)]'; a $((x))",
	"x=$(echo 'q[$(c twentyeight)]'); [[ $x -eq 1 ]]",
	"read x <<< 'q[$(c twentynine)]'; a ${!x}",
	"mapfile -t m <<< 'q[$(c thirty)]'; y=$m; a $((y))",
	"for i in $(echo 'q[$(c${IFS}forty)]'); do a $((i+1)); done",
	"seq() { echo 'q[$(c${IFS}fortyone)]'; }; for i in $(seq 3); do a $((i+1)); done",
	"wc() { echo 'q[$(c${IFS}fortytwo)]'; }; n=$(wc -l); a $((n+1))",
}

// FuzzBashDifferential runs arbitrary scripts in restricted bash (no command
// named with a "/", no output redirection) and checks them like
// TestBashDifferential. Inputs with a "/" are skipped as a second guard.
func FuzzBashDifferential(f *testing.F) {
	rng := rand.New(rand.NewPCG(7, 7))
	for i := 0; i < 50; i++ {
		f.Add(genScript(rng))
	}
	for _, s := range bashDivergences {
		f.Add(s)
	}
	lab := newBashLab(f, true)
	f.Fuzz(func(t *testing.T, script string) {
		if strings.ContainsAny(script, "/\x00") || len(script) > 4096 {
			return
		}
		if miss := lab.differential(t, script, true); miss != "" {
			t.Errorf("script %q: %s", script, miss)
		}
	})
}
