package shell

import (
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/runtimecfg"
	"mvdan.cc/sh/v3/syntax"
)

// The benchmarks run with the runtime settings of the toolgate binary
// (runtimecfg: GOGC=400, 20 MiB soft memory limit). Setting GOGC and
// GOMEMLIMIT in the environment overrides them, e.g. GOGC=100 GOMEMLIMIT=off
// for Go's defaults.
func toolgateRuntime(b *testing.B) { b.Cleanup(runtimecfg.Apply()) }

// typicalCommand is about 100 bytes of what a coding agent runs.
const typicalCommand = `cd src && npm run build 2>&1 | tail -n 20 && git status --short && cat package.json | grep version`

// realisticStatements are mixed into the 64 KiB command.
var realisticStatements = []string{
	`cd /tmp/project && npm install --save-dev typescript@5 2>&1 | tail -5`,
	`for f in src/*.ts; do echo "$f"; wc -l "$f"; done`,
	`if [ -f package.json ]; then jq '.scripts' package.json; fi`,
	`git log --oneline -n 20 -- src/ | head -3`,
	`find . -name '*.py' -not -path './node_modules/*' | xargs grep -n TODO`,
	`OUT=$(mktemp -d); cp -r ./dist "$OUT"/ && ls -la "$OUT"`,
	`sed -i 's/foo/bar/g' src/config.ts && echo done > /tmp/log.txt`,
	`bash -c 'echo inline && ls -la ~/projects'`,
	`cat <<'EOF' > notes.md
# heading
some text
EOF`,
	`docker compose up -d --build && curl -fsS http://localhost:8080/health`,
}

func bigCommand(size int) string {
	var sb strings.Builder
	for i := 0; sb.Len() < size; i++ {
		s := realisticStatements[i%len(realisticStatements)]
		if sb.Len()+len(s)+1 > size {
			break
		}
		sb.WriteString(s)
		sb.WriteByte('\n')
	}
	return sb.String()
}

func BenchmarkAnalyzeTypical(b *testing.B) {
	toolgateRuntime(b)
	opt := Options{Cwd: b.TempDir(), Home: "/home/u"}
	if a := Analyze(typicalCommand, opt); a.Unparseable {
		b.Fatal(a.Error)
	}
	b.SetBytes(int64(len(typicalCommand)))
	for b.Loop() {
		Analyze(typicalCommand, opt)
	}
}

func BenchmarkAnalyze64KiB(b *testing.B) {
	toolgateRuntime(b)
	cmd := bigCommand(MaxCommandBytes)
	opt := Options{Cwd: b.TempDir(), Home: "/home/u"}
	if a := Analyze(cmd, opt); a.Unparseable || len(a.Units) < 2000 {
		b.Fatalf("unparseable=%v (%s), %d units", a.Unparseable, a.Error, len(a.Units))
	}
	b.SetBytes(int64(len(cmd)))
	for b.Loop() {
		Analyze(cmd, opt)
	}
}

// BenchmarkParse64KiB is the parser's share of BenchmarkAnalyze64KiB.
func BenchmarkParse64KiB(b *testing.B) {
	toolgateRuntime(b)
	cmd := bigCommand(MaxCommandBytes)
	a := newAnalyzer(Options{})
	b.SetBytes(int64(len(cmd)))
	for b.Loop() {
		if _, _, err := a.parse(cmd); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWalk64KiB is BenchmarkAnalyze64KiB without the parse of the
// command: the analysis's own walk of the tree (inline scripts are still
// parsed).
func BenchmarkWalk64KiB(b *testing.B) {
	toolgateRuntime(b)
	cmd := bigCommand(MaxCommandBytes)
	opt := Options{Cwd: b.TempDir(), Home: "/home/u"}
	f, text := parsed(b, cmd)
	b.SetBytes(int64(len(cmd)))
	for b.Loop() {
		a := newAnalyzer(opt)
		sc := a.topScope(text, f)
		a.units = make([]Unit, 0, sc.facts.commands+sc.facts.commands/4+4)
		a.fieldStack = make([]field, 0, 8)
		a.stmts(f.Stmts, CtxTop, sc)
		parsers.Put(a.parser)
		if len(a.units) < 2000 {
			b.Fatalf("%d units", len(a.units))
		}
	}
}

// BenchmarkScan64KiB is the pre-pass of the 64 KiB command (see scan).
func BenchmarkScan64KiB(b *testing.B) {
	toolgateRuntime(b)
	f, text := parsed(b, bigCommand(MaxCommandBytes))
	for b.Loop() {
		scan(text, f)
	}
}

// parsed is cmd parsed as Analyze parses it, and the text the parser read:
// the tree a benchmark of the walk or of its pre-passes starts from.
func parsed(b *testing.B, cmd string) (*syntax.File, string) {
	b.Helper()
	p := newAnalyzer(Options{})
	f, text, err := p.parse(cmd)
	parsers.Put(p.parser)
	if err != nil {
		b.Fatal(err)
	}
	return f, text
}
