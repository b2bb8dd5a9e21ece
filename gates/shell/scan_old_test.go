package shell

// Code as it was before the walk was made faster, kept to compare with:
// the pre-passes before scan gathered the facts and injectAt in one walk
// (three walks of the tree: seqFunc, the facts, injectAt), quickLit and
// field.add; and the tables commandKinds gathers.

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

func oldScan(file *syntax.File) *facts {
	f := &facts{assigns: map[string]int{}}
	inspect(file, func(n syntax.Node) bool {
		if d, ok := n.(*syntax.FuncDecl); ok && d.Name != nil && numberCommands[d.Name.Value] != nil {
			f.seqFunc = true // a function shadows the command: $(seq 3) may print anything
		}
		return !f.seqFunc
	})
	inspect(file, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CallExpr:
			f.commands++
			oldFactsCall(f, n)
		case *syntax.DeclClause:
			f.commands++
			oldFactsDecl(f, n)
		case *syntax.TestClause, *syntax.ArithmCmd, *syntax.LetClause:
			f.commands++
		case *syntax.WordIter:
			f.taintLit(n.Name)
			for _, w := range n.Items {
				if _, ok := quickLit(w); !ok && n.Name != nil && !oldNumericValue(f, w) {
					f.markData(n.Name.Value)
				}
			}
		case *syntax.BinaryArithm:
			if isArithAssign(n.Op) {
				f.taintArith(n.X)
			}
		case *syntax.UnaryArithm:
			if n.Op == syntax.Inc || n.Op == syntax.Dec {
				f.taintArith(n.X)
			}
		case *syntax.ParamExp:
			if n.Exp != nil && (n.Exp.Op == syntax.AssignUnset || n.Exp.Op == syntax.AssignUnsetOrNull) {
				f.taintLit(n.Param)
				if n.Param != nil && !oldNumericValue(f, n.Exp.Word) {
					f.markData(n.Param.Value)
				}
			}
		case *syntax.Redirect:
			if n.N != nil && strings.HasPrefix(n.N.Value, "{") {
				f.taint(strings.Trim(n.N.Value, "{}"))
			}
		case *syntax.CoprocClause:
			f.taint("COPROC")
			if n.Name != nil {
				f.taint(n.Name.Lit())
			}
		}
		return true
	})
	return f
}

func oldFactsCall(f *facts, c *syntax.CallExpr) {
	for _, as := range c.Assigns {
		if len(c.Args) == 0 && plainAssign(as) {
			f.assigns[as.Name.Value]++
			f.special(as.Name.Value)
		} else if as.Name != nil {
			f.taint(as.Name.Value)
		}
		if len(c.Args) == 0 && as.Name != nil && !oldNumericValue(f, as.Value) {
			f.markData(as.Name.Value)
		}
	}
	if f.codeLater(c.Args) { // trap and alias: code run later, anywhere
		f.noVars, f.mayChdir = true, true
	}
	assigning, reading := false, false
	for _, w := range c.Args {
		switch lit, _ := quickLit(w); lit {
		case "eval", "source", ".":
			f.clobber, f.mayChdir = true, true
		case "cd", "pushd", "popd":
			f.mayChdir = true
		case "shopt":
			f.dotglob = true
		case "read", "mapfile", "readarray", "printf", "getopts":
			assigning, reading = true, true // these assign text to the variables their arguments name
		case "unset", "export", "declare", "local", "typeset", "readonly", "let", "wait":
			assigning = true // these assign the variables their arguments name
		}
	}
	if assigning {
		f.taintArgs(c.Args)
	}
	if reading {
		for _, w := range c.Args {
			if lit, ok := quickLit(w); ok && identPrefix(lit+"=") != "" {
				f.markData(identPrefix(lit + "="))
			}
		}
		f.markData("OPTARG")
		f.markData("REPLY")
		f.markData("MAPFILE")
	}
}

func oldFactsDecl(f *facts, d *syntax.DeclClause) {
	if d.Variant != nil && d.Variant.Value == "nameref" {
		f.noVars = true
	}
	for _, as := range d.Args {
		if as.Name != nil {
			f.taint(as.Name.Value)
			if !oldNumericValue(f, as.Value) {
				f.markData(as.Name.Value)
			}
			continue
		}
		lit, ok := quickLit(as.Value)
		switch {
		case !ok:
			f.noVars = true
		case (strings.HasPrefix(lit, "-") || strings.HasPrefix(lit, "+")) && strings.Contains(lit, "n"):
			f.noVars = true // declare -n: a nameref assigns another name
		default:
			if name := identPrefix(lit); name != "" {
				f.taint(name)
			}
		}
	}
}

func oldNumericValue(f *facts, w *syntax.Word) bool {
	if w == nil {
		return true
	}
	if _, ok := quickLit(w); ok {
		return true
	}
	if len(w.Parts) == 1 {
		if _, ok := w.Parts[0].(*syntax.ArithmExp); ok {
			return true
		}
	}
	return !f.seqFunc && numbersOnly(w)
}

func oldInjectAt(src string, f *syntax.File) int {
	at := noInjection
	mark := func(n syntax.Node) {
		if off := int(n.Pos().Offset()); at == noInjection || off < at {
			at = off
		}
	}
	inspect(f, func(n syntax.Node) bool {
		if at != noInjection && int(n.Pos().Offset()) >= at {
			return false
		}
		switch n := n.(type) {
		case *syntax.CallExpr:
			if callInjects(src, n) {
				mark(n)
			}
		case *syntax.DeclClause:
			if declInjects(n) {
				mark(n)
			}
		case *syntax.WordIter: // for NAME in …, select NAME in …
			if n.Name != nil && injectionVar(n.Name.Value) {
				mark(n)
			}
		case *syntax.BinaryArithm:
			if isArithAssign(n.Op) && arithInjects(n.X) {
				mark(n)
			}
		case *syntax.UnaryArithm:
			if (n.Op == syntax.Inc || n.Op == syntax.Dec) && arithInjects(n.X) {
				mark(n)
			}
		case *syntax.LetClause:
			for _, x := range n.Exprs {
				if w, ok := x.(*syntax.Word); ok && arithTextInjects(nodeText(src, w)) {
					mark(n)
				}
			}
		case *syntax.ParamExp:
			if n.Param != nil && n.Exp != nil && injectionVar(n.Param.Value) &&
				(n.Exp.Op == syntax.AssignUnset || n.Exp.Op == syntax.AssignUnsetOrNull) {
				mark(n)
			}
		case *syntax.BinaryTest:
			// [[ PATH=1 -eq 1 ]]: the operands of an arithmetic test are
			// arithmetic, and may assign.
			if arithTest(n.Op) && (arithTextInjects(nodeText(src, n.X)) || arithTextInjects(nodeText(src, n.Y))) {
				mark(n)
			}
		case *syntax.Redirect: // {NAME}>file assigns NAME
			if n.N != nil && strings.HasPrefix(n.N.Value, "{") && injectionVar(strings.Trim(n.N.Value, "{}")) {
				mark(n)
			}
		case *syntax.CoprocClause:
			if n.Name != nil && injectionVar(n.Name.Lit()) {
				mark(n)
			}
		}
		return true
	})
	// bash's command and alias tables have no innocent use: wherever their
	// names appear (a string later evaluated as arithmetic included), the
	// script may set them.
	for name := range shellTables {
		if i := strings.Index(src, name); i >= 0 && (at == noInjection || i < at) {
			at = i
		}
	}
	return at
}

// scanScripts are scripts for the comparisons below beyond the tables:
// number commands shadowed by functions (seqFunc) before and after the
// values that depend on it, and every way of setting an injection variable.
var scanScripts = []string{
	`x=$(seq 3); a $((x)); seq() { c one; }`,
	`seq() { c one; }; x=$(seq 3); a $((x))`,
	`for i in $(seq 1 3) $(wc -l < f); do a $((i)); done; function wc { c two; }`,
	`: ${x:=$(nproc)}; declare y=$(id -u) z=$(date +%s); a $((x+y+z)); id() { :; }`,
	`: ${x:=$(nproc)}; declare y=$(id -u) z=$(date +%s); a $((x+y+z))`,
	`x=$(seq 3 | wc -l 2>/dev/null); (( x )); f() { g() { seq; }; }`,
	`a; PATH=./e; b`, `a; for PATH in ./e; do b; done`, `a; let PATH=1 b`, `a; [[ PATH=1 -eq 1 ]]; b`,
	`a; {PATH}>f b`, `a; coproc PATH { b; }`, `a; echo ${PATH:=./e}; b`, `a; BASH_CMDS[git]=./x; git`,
	`a; declare -x LD_PRELOAD=x; b`, `a; (( PATH++ )); b`, `a; hash -p ./x git; git`, `a $(PATH=./e; b) c`,
	"a <<EOF\n$(PATH=./e b)\nEOF\nc",
	// coproc: the parser starts a statement after the command in it.
	`coproc ${PATH:=./e} rm x`, `coproc V=1 PATH=./e rm x; a`, `x=${PATH:=./e} coproc rm x; coproc v=1 rm $((PATH=1))`,
}

// scanCorpus is every script the comparisons run: the tables, the scripts
// above and in the other tests, the fuzz seeds, the realistic statements,
// the end-to-end corpus and the 64 KiB command.
func scanCorpus(t *testing.T) []string {
	fx := newFixture(t)
	var out []string
	for _, r := range allRows() {
		out = append(out, fx.expand(r.cmd))
	}
	out = append(out, scanScripts...)
	out = append(out, inspectScripts...)
	out = append(out, bashDivergences...)
	out = append(out, storedCode...)
	out = append(out, realisticStatements...)
	out = append(out, corpusCommands...)
	seeds, err := filepath.Glob("testdata/fuzz/FuzzAnalyze/*")
	if err != nil || len(seeds) == 0 {
		t.Fatalf("fuzz seeds: %v, %d", err, len(seeds))
	}
	for _, name := range seeds {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		// "go test fuzz v1", then string("…")
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "string("); ok {
				s, err := strconv.Unquote(strings.TrimSuffix(v, ")"))
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				out = append(out, s)
			}
		}
	}
	return append(out, bigCommand(MaxCommandBytes))
}

// TestScanMatchesOldPasses: scan's one walk gathers exactly the facts and
// the injection offset the three walks it replaced did, on every script of
// the corpus and on the inline scripts written in it as quoted strings.
func TestScanMatchesOldPasses(t *testing.T) {
	parsed := 0
	for _, src := range scanCorpus(t) {
		for _, code := range append([]string{src}, quotedTexts(src)...) {
			a := newAnalyzer(Options{})
			f, text, err := a.parse(code)
			parsers.Put(a.parser)
			if err != nil {
				continue
			}
			parsed++
			facts, at := scan(text, f)
			if facts.assigns == nil {
				facts.assigns = map[string]int{} // made at the first assignment; nil reads as empty
			}
			if want := oldScan(f); !reflect.DeepEqual(facts, want) {
				t.Errorf("%q: facts\n got  %+v\n want %+v", code, facts, want)
			}
			if want := oldInjectAt(text, f); at != want {
				t.Errorf("%q: injectAt %d, want %d", code, at, want)
			}
		}
	}
	if parsed < 500 {
		t.Fatalf("only %d scripts parsed", parsed)
	}
}

// quotedTexts returns the texts of the single-quoted strings of src, the
// code of most inline scripts.
func quotedTexts(src string) []string {
	parts := strings.Split(src, "'")
	var out []string
	for i := 1; i < len(parts); i += 2 {
		if parts[i] != "" {
			out = append(out, parts[i])
		}
	}
	return out
}

// TestAnalyzeMatchesOldPasses: the analysis is the same with scan as with
// the passes it replaced, for every script of the corpus.
func TestAnalyzeMatchesOldPasses(t *testing.T) {
	fx := newFixture(t)
	old := func(src string, f *syntax.File) (*facts, int) { return oldScan(f), oldInjectAt(src, f) }
	for _, cmd := range scanCorpus(t) {
		want := Analyze(cmd, fx.options())
		a := newAnalyzer(fx.options())
		a.scanWith = old
		got := a.analyze(cmd)
		parsers.Put(a.parser)
		if a.cr {
			restoreCR(&got)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q:\n old passes %+v\n scan       %+v", cmd, got, want)
		}
	}
}

// oldQuickLit is quickLit before its fast paths for one quoted part.
func oldQuickLit(w *syntax.Word) (string, bool) {
	if w == nil {
		return "", false
	}
	if len(w.Parts) == 1 {
		if l, ok := w.Parts[0].(*syntax.Lit); ok && !strings.ContainsRune(l.Value, '\\') {
			return l.Value, true
		}
	}
	var sb strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			v, _ := unquoteLit(p.Value)
			sb.WriteString(v)
		case *syntax.SglQuoted:
			sb.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				sb.WriteString(unescapeDouble(l.Value))
			}
		default:
			return "", false
		}
	}
	return sb.String(), true
}

// TestQuickLitMatchesOld: quickLit's fast paths give what its loop gives,
// for every word of the corpus.
func TestQuickLitMatchesOld(t *testing.T) {
	words := 0
	for _, src := range scanCorpus(t) {
		f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
		if err != nil {
			continue
		}
		syntax.Walk(f, func(n syntax.Node) bool {
			if w, ok := n.(*syntax.Word); ok {
				words++
				got, gotOK := quickLit(w)
				want, wantOK := oldQuickLit(w)
				if got != want || gotOK != wantOK {
					t.Errorf("%q: quickLit %q, %v; want %q, %v", src, got, gotOK, want, wantOK)
				}
			}
			return true
		})
	}
	if words < 1000 {
		t.Fatalf("only %d words", words)
	}
}

// BenchmarkOldScan64KiB is BenchmarkScan64KiB with the passes scan replaced.
func BenchmarkOldScan64KiB(b *testing.B) {
	toolgateRuntime(b)
	f, text := parsed(b, bigCommand(MaxCommandBytes))
	for b.Loop() {
		oldScan(f)
		oldInjectAt(text, f)
	}
}

// oldAdd is field.add as it was before the operand was built lazily.
func oldAdd(f *field, s seg) {
	f.raw += s.raw
	f.text += s.text
	f.value += s.value
	f.pat += s.pat
	if s.lit {
		f.lits += s.raw
	}
	f.known = f.known && s.known
	f.glob = f.glob || s.glob
	f.proc = f.proc || s.proc
	f.pathy = f.pathy || s.pathy
	switch {
	case s.hasOperand:
		f.operand += s.operand
		f.hasOperand = true
	case s.known:
		f.operand += s.value
	default:
		f.noOperand = true
	}
}

// TestFieldAddMatchesOld: field.add gives the field the old add gave, its
// operand wherever it is valid (hasOperand and not noOperand), for the
// segments of every word of the corpus, in both modes and with variables
// set and unset.
func TestFieldAddMatchesOld(t *testing.T) {
	compared, operands := 0, 0
	srcs := append(scanCorpus(t), `F=x; a ${F:-~/.ssh/id_rsa}/b "${G:+x}$F" ${H:=1}y${F}z ${U:-a}${V:-b} p/${U:-a} "$HOME/${U:-.ssh}"/k $F/${U:-x}`)
	eachWord(srcs, "/etc/x", func(src string, sc *scope, w *syntax.Word) {
		for _, m := range []mode{argMode, valueMode} {
			segs := sc.segs(w.Parts, m)
			got, want := field{known: true}, field{known: true}
			for _, s := range segs {
				got.add(s)
				oldAdd(&want, s)
			}
			if got.hasOperand && !got.noOperand {
				operands++
			} else {
				want.operand = got.operand // not valid: no use reads it
			}
			compared++
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%q, word %q: add\n got  %+v\n want %+v", src, sc.slice(w), got, want)
			}
		}
	})
	if compared < 1000 || operands < 10 {
		t.Fatalf("only %d fields, %d with operands", compared, operands)
	}
}

// eachWord calls fn with every word of each of srcs that parses, in the
// top scope of its analysis, where $F is f.
func eachWord(srcs []string, f string, fn func(src string, sc *scope, w *syntax.Word)) {
	for _, src := range srcs {
		a := newAnalyzer(Options{Cwd: "/w", Home: "/home/u"})
		file, text, err := a.parse(src)
		parsers.Put(a.parser)
		if err != nil {
			continue
		}
		sc := a.topScope(text, file)
		sc.vars.set("F", f)
		syntax.Walk(file, func(n syntax.Node) bool {
			if w, ok := n.(*syntax.Word); ok {
				fn(src, sc, w)
			}
			return true
		})
	}
}

// TestCommandKindsReadOnly: commandKinds holds exactly the rows of
// readOnlyCommands, which run used to look up on its own.
func TestCommandKindsReadOnly(t *testing.T) {
	for name, writes := range readOnlyCommands {
		if k := commandKinds()[name]; !k.readOnly || !reflect.DeepEqual(k.readOnlyWrites, writes) {
			t.Errorf("%s: readOnly %v %q, want %q", name, k.readOnly, k.readOnlyWrites, writes)
		}
	}
	for name, k := range commandKinds() {
		if _, ok := readOnlyCommands[name]; k.readOnly != ok || (!ok && k.readOnlyWrites != nil) {
			t.Errorf("%s: readOnly %v, in readOnlyCommands %v", name, k.readOnly, ok)
		}
	}
}

// TestAddPathKeys: addPath keeps each path once, paths whose keys collide
// (same lengths, same last byte) included, below and past seenScan.
func TestAddPathKeys(t *testing.T) {
	a := newAnalyzer(Options{})
	defer parsers.Put(a.parser)
	var want []PathWord
	for i := range 2 * seenScan {
		p := PathWord{Raw: string(rune('a' + i%26)), Value: "v" + string(rune('a'+i/26)) + "x", Known: true, Dir: "/d"}
		want = append(want, p)
		for range 2 {
			a.addPath(p)
			a.addPath(want[i/2])
		}
	}
	for i := range want {
		want[i].Write = true
	}
	if !reflect.DeepEqual(a.paths, want) {
		t.Errorf("paths\n got  %v\n want %v", a.paths, want)
	}
}

// TestJoinFieldsIn: the written text is the unit's text only when it is
// the joined text; anything else is joined as before.
func TestJoinFieldsIn(t *testing.T) {
	rest := []field{literalField("-n"), literalField("x y")}
	for _, written := range []string{"", "a -n x y", "a  -n x y", "a -n 'x y'", "a -n x yz", "b -n x y", "a -n x_y", "a_-n x y"} {
		if got := joinFieldsIn("a", rest, written); got != "a -n x y" {
			t.Errorf("written %q: %q", written, got)
		}
	}
	if got := joinFieldsIn("a", nil, "a b"); got != "a" {
		t.Errorf("no rest: %q", got)
	}
}
