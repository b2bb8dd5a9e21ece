package shell

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
)

func TestAnalyzeLength(t *testing.T) {
	fill := func(n int) string { return "echo " + strings.Repeat("a", n-len("echo ")) }
	if a := Analyze(fill(MaxCommandBytes), Options{}); a.Unparseable || len(a.Units) != 1 {
		t.Errorf("a %d-byte command: Unparseable=%v (%s), %d units; want one unit",
			MaxCommandBytes, a.Unparseable, a.Error, len(a.Units))
	}
	a := Analyze(fill(MaxCommandBytes+1), Options{})
	if !a.Unparseable || !strings.Contains(a.Error, "65537 bytes") {
		t.Errorf("a %d-byte command: Unparseable=%v, Error=%q; want unparseable, saying its length",
			MaxCommandBytes+1, a.Unparseable, a.Error)
	}
}

// An error names the line and column where the parser gave up.
func TestAnalyzeErrorPosition(t *testing.T) {
	a := Analyze("ls\necho 'open", Options{})
	if !a.Unparseable || !regexp.MustCompile(`^2:6: `).MatchString(a.Error) {
		t.Errorf("Error = %q, want it to start with 2:6:", a.Error)
	}
}

// Inline scripts nested deeper than MaxDepth are not parsed: the unit that
// would run them stays floored and an unparseable unit marks the rest.
func TestAnalyzeMaxDepth(t *testing.T) {
	cmd := `bash -c 'bash -c "rm -rf x"'`
	a := Analyze(cmd, Options{MaxDepth: 1})
	want := []string{
		"bash -c bash -c \"rm -rf x\" " + SentinelOpaque,
		"bash -c rm -rf x " + SentinelOpaque,
		"rm -rf x " + SentinelUnparseable,
	}
	var got []string
	for _, u := range a.Units {
		got = append(got, u.Text+" "+u.Floor)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("MaxDepth 1: units\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	deep := strings.Repeat("eval ", defaultMaxDepth+2) + "rm x"
	a = Analyze(deep, Options{})
	if n := len(a.Units); n != defaultMaxDepth+2 || a.Units[n-1].Floor != SentinelUnparseable {
		t.Errorf("eval nested %d deep: %d units, the last %+v; want %d, the last unparseable",
			defaultMaxDepth+2, n, a.Units[n-1], defaultMaxDepth+2)
	}
}

func TestExactSuggestion(t *testing.T) {
	for cmd, want := range map[string][]bool{
		"git status":             {false},
		"ls *.go":                {true},
		"cat a?.txt":             {true},
		"sudo ls":                {true, false},
		"nohup make":             {true, false},
		"bash -c 'ls'":           {true, false},
		"$X a":                   {true},
		"PATH=/x ls":             {true},
		"find . -exec rm {} \\;": {true, false},
	} {
		var got []bool
		for _, u := range Analyze(cmd, Options{}).Units {
			got = append(got, u.ExactSuggestion)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: ExactSuggestion %v, want %v", cmd, got, want)
		}
	}
}

// Without a working directory every relative word is somewhere unknown.
func TestAnalyzeNoCwd(t *testing.T) {
	a := Analyze("cat src/a.ts /etc/hosts", Options{})
	for _, p := range a.Paths {
		if p.Dir != "" {
			t.Errorf("path %q: Dir %q, want unknown", p.Raw, p.Dir)
		}
	}
	if len(a.Paths) != 2 {
		t.Errorf("got %d path words, want 2", len(a.Paths))
	}
}

// A glob with more matches than the budget is not expanded partially: the
// word is reported as unknown, which asks wherever a path rule could apply.
func TestGlobBudget(t *testing.T) {
	dir := t.TempDir()
	for i := range maxGlobMatches + 1 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a := Analyze("cat f* g*", Options{Cwd: dir})
	want := []PathWord{
		{Raw: "f*", Value: "f*", Known: true, Dir: dir},
		{Raw: "f*", Dir: dir},
		{Raw: "g*", Value: "g*", Known: true, Dir: dir},
	}
	if fmt.Sprint(a.Paths) != fmt.Sprint(want) {
		t.Errorf("paths\n%v\nwant\n%v", a.Paths, want)
	}
}

// Analyze shares nothing between calls (run with -race).
func TestAnalyzeConcurrent(t *testing.T) {
	fx := newFixture(t)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for _, r := range analyzeRows[:50] {
				Analyze(fx.expand(r.cmd), fx.options())
			}
		})
	}
	wg.Wait()
}

// Hostile input is bounded by the budgets, and fails closed where a budget
// cuts the analysis short.
func TestAnalyzeBudgets(t *testing.T) {
	nest := func(open, close string) string {
		n := MaxCommandBytes / (len(open) + len(close) + 1)
		return strings.Repeat(open, n) + "a" + strings.Repeat(close, n)
	}
	for _, tc := range []struct {
		name, cmd string
		check     func(Analysis) bool
	}{
		{"nested substitutions", nest("$(", ")"), func(a Analysis) bool {
			return a.Unparseable && strings.Contains(a.Error, "nested deeper")
		}},
		{"nested quotes", nest(`"$(a `, `)"`), func(a Analysis) bool { return a.Unparseable }},
		{"brace bombs", strings.Repeat("{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}{o,p}{q,r} ", 1400),
			func(a Analysis) bool { return len(a.Units) == 1 }},
		{"evals", strings.Repeat("eval ", 13000) + "ls", func(a Analysis) bool {
			return a.Units[len(a.Units)-1].Floor == SentinelUnparseable
		}},
		{"wrappers", strings.Repeat("sudo ", 13000) + "ls", func(a Analysis) bool {
			return len(a.Units) == maxWrapDepth+2
		}},
		{"cd chain", strings.Repeat("cd a && ", 8000) + "cat x", func(a Analysis) bool {
			last := a.Paths[len(a.Paths)-1]
			return last.Raw == "x" && last.Dir == "" // past PATH_MAX: unknown
		}},
		{"globs", strings.Repeat("cat /*/*/* ", 5000), func(a Analysis) bool { return !a.Unparseable }},
		{"a word of many braces", "rm " + strings.Repeat("{a,b}", 2*maxBraceExps) + " x", func(a Analysis) bool {
			return len(a.Units) == 1 && len(a.Paths) == 1 && !a.Paths[0].Known // unknown, a path word whatever it looks like
		}},
		{"inline scripts", "X='" + strings.Repeat("ls;", 8000) + "'" + strings.Repeat(`; bash -c "$X"`, 12),
			func(a Analysis) bool {
				return a.Units[len(a.Units)-1].Floor == SentinelUnparseable // past maxPayloadBytes
			}},
	} {
		if a := Analyze(tc.cmd, Options{Cwd: "/", Home: "/root"}); !tc.check(a) {
			t.Errorf("%s: unexpected result: unparseable=%v (%s), %d units, %d paths",
				tc.name, a.Unparseable, a.Error, len(a.Units), len(a.Paths))
		}
	}
}

// Input that nests or repeats one construct costs the analysis in
// proportion to its size, not to its square or more: four times the input
// may cost at most six times as much. The work is counted, not timed.
func TestDeepInputCostIsLinear(t *testing.T) {
	// A word's brace expressions, counted in bytes allocated: past
	// maxBraceExps the word is not expanded (it is unknown, as past the
	// other budgets); each word made cost the square of its braces, and
	// 4,000 took 20 s.
	braces := func(n int) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		Analyze("echo "+strings.Repeat("{a,b}", n), Options{Cwd: "/", Home: "/root"})
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	braces(8) // warm the pools
	if a, b := braces(1000), braces(4000); b > 6*a {
		t.Errorf("brace expressions: 4,000 allocate %d bytes, 1,000 %d: more than linear", b, a)
	}
	// Operands nested in operands (${x:-${x:-…}}), counted in the nodes
	// the reading of operands visits: each was read again for every
	// operand around it, and 8,000 took 38 s in the binary.
	operands := func(n int) uint64 {
		a := newAnalyzer(Options{Cwd: "/", Home: "/root"})
		defer parsers.Put(a.parser)
		a.analyze("echo " + strings.Repeat("${x:-", n) + "y" + strings.Repeat("}", n))
		return uint64(a.codeWalked)
	}
	if a, b := operands(1000), operands(4000); a == 0 || b > 6*a {
		t.Errorf("nested operands: 4,000 visit %d nodes, 1,000 %d: more than linear", b, a)
	}
}

// The collector is paused for the analysis of a long command whose
// brackets nest deep (its parse recurses that deep), and only for that:
// the everyday 64 KiB command and a short deep one run as any other.
func TestPausesCollectorForDeepCommands(t *testing.T) {
	deep := func(open, close string, n int) string {
		return strings.Repeat(open, n) + "1" + strings.Repeat(close, n)
	}
	for _, c := range []struct {
		name  string
		cmd   string
		pause bool
	}{
		{"arithmetic nested 16,000 deep", "echo $((" + deep("(", ")", 16000) + "))", true},
		{"substitutions nested 4,000 deep", "echo " + deep("$(", ")", 4000), true},
		{"operands nested 3,000 deep", "echo " + deep("${x:-", "}", 3000), true},
		{"64 KiB of everyday commands", bigCommand(MaxCommandBytes), false},
		{"a short command nested 300 deep", "echo " + deep("$(", ")", 300), false},
		{"many brackets side by side", strings.Repeat("echo $(( (1) + [2] )) {a,b}; ", 1000), false},
	} {
		if got := pausesCollector(c.cmd); got != c.pause {
			t.Errorf("%s: pauses the collector = %v, want %v", c.name, got, c.pause)
		}
	}
	if got := bracketDepth("a ( b [ c { d } ] ) (", 100); got != 3 {
		t.Errorf("bracketDepth = %d, want 3", got)
	}
}
