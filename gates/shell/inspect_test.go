package shell

import (
	"fmt"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// inspectScripts use every kind of node the bash parser makes.
var inspectScripts = []string{
	`b=(x "y" [3]=$(rm z)); c[i+1]=$((j++)); a=1 cmd "$a" ${b[@]} ${c:-$(d)} ${e/$(f)/$(g)} ${h:1:$(i)} 2>"$(j)" <<EOF
body $(k) ${l}
EOF`,
	`if a; then b; elif c; then d; else e; fi; while f; do g; done; until h; do i; done`,
	`for x in $(a) "b" c; do d; done; for ((i=$(e); i<3; i++)); do f; done; select y in z; do w; done`,
	`case $(a) in b|"c") d;; $(e)) f;& *) g;;& esac`,
	`f() { a; } ; function g { b; } >$(c); h() ( d )`,
	`[[ -f $(a) && ( $b == "$(c)" || ! -d x ) ]]; (( x = $(d) + y[$(e)] )); let "z=$(f)" w++`,
	`declare -a x=($(a)) y; local z=$(b); export w="$(c)"; readonly v; typeset -n u=t`,
	`time { a | b |& c; } ; coproc n { d; }; coproc e; ! f & g; h <(i) >(j)`,
	"echo `a $(b)` \"$(c \"$(d)\")\" $'x' \"lit\" 'q' @(p|q) ~/x {a,b}",
	`x=$(( $(a) ? ${#b} : -c )); echo $(( (1+2) * 3 )) $[4+5]`,
	`# comment
a # trailing
{ b; } # more`,
	`arr[$(a)]+=x; arr+=( [k]=$(b) ); read -r y <<< "$(c)"; exec 3<>"$(d)"`,
}

// walkNodes lists the nodes syntax.Walk visits that inspect should visit:
// all but literals, comments, and literal words with what is inside them.
func walkNodes(n syntax.Node) []syntax.Node {
	var out []syntax.Node
	syntax.Walk(n, func(m syntax.Node) bool {
		switch m := m.(type) {
		case nil:
			return false
		case *syntax.Lit, *syntax.SglQuoted, *syntax.Comment:
			return true
		case *syntax.Word:
			if literalParts(m.Parts) {
				return false
			}
		}
		out = append(out, m)
		return true
	})
	return out
}

func inspectNodes(n syntax.Node) []syntax.Node {
	var out []syntax.Node
	inspect(n, func(m syntax.Node) bool {
		out = append(out, m)
		return true
	})
	return out
}

// checkInspect fails when inspect and syntax.Walk disagree on src, and
// reports whether src parsed.
func checkInspect(t *testing.T, src string) bool {
	t.Helper()
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		return false
	}
	want, got := walkNodes(f), inspectNodes(f)
	for i := range max(len(want), len(got)) {
		if i >= len(want) || i >= len(got) || want[i] != got[i] {
			t.Fatalf("%q: node %d: syntax.Walk visits %s, inspect %s", src, i, nodeAt(want, i), nodeAt(got, i))
		}
	}
	return true
}

func nodeAt(list []syntax.Node, i int) string {
	if i >= len(list) {
		return "nothing more"
	}
	return fmt.Sprintf("%T at %s", list[i], list[i].Pos())
}

// TestInspectMatchesWalk: inspect visits the same nodes in the same order as
// syntax.Walk, minus literals and comments, for scripts with every kind of
// node and every command of the analysis table (FuzzAnalyze checks the same
// on every input it makes).
func TestInspectMatchesWalk(t *testing.T) {
	fx := newFixture(t)
	for _, src := range inspectScripts {
		if !checkInspect(t, src) {
			t.Errorf("%q does not parse", src)
		}
	}
	for _, r := range analyzeRows {
		checkInspect(t, fx.expand(r.cmd))
	}
}

// TestInspectFindsEveryKind: every kind of node below a literal is reached
// by the scripts above, so that the comparison covers them all.
func TestInspectFindsEveryKind(t *testing.T) {
	seen := map[string]bool{}
	for _, src := range inspectScripts {
		f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		for _, n := range inspectNodes(f) {
			seen[fmt.Sprintf("%T", n)] = true
		}
	}
	for _, kind := range []string{"*syntax.File", "*syntax.Stmt", "*syntax.Assign", "*syntax.Redirect",
		"*syntax.CallExpr", "*syntax.Subshell", "*syntax.Block", "*syntax.IfClause", "*syntax.WhileClause",
		"*syntax.ForClause", "*syntax.WordIter", "*syntax.CStyleLoop", "*syntax.BinaryCmd", "*syntax.FuncDecl",
		"*syntax.Word", "*syntax.DblQuoted", "*syntax.CmdSubst", "*syntax.ParamExp", "*syntax.ArithmExp",
		"*syntax.ArithmCmd", "*syntax.BinaryArithm", "*syntax.BinaryTest", "*syntax.UnaryArithm",
		"*syntax.UnaryTest", "*syntax.ParenArithm", "*syntax.ParenTest", "*syntax.CaseClause",
		"*syntax.CaseItem", "*syntax.TestClause", "*syntax.DeclClause", "*syntax.ArrayExpr",
		"*syntax.ArrayElem", "*syntax.ExtGlob", "*syntax.ProcSubst", "*syntax.TimeClause",
		"*syntax.CoprocClause", "*syntax.LetClause"} {
		if !seen[kind] {
			t.Errorf("no script reaches a %s", kind)
		}
	}
}

// TestInspectPrunes: returning false skips what is below a node.
func TestInspectPrunes(t *testing.T) {
	f, err := syntax.NewParser().Parse(strings.NewReader(`a $(b $(c)); d`), "")
	if err != nil {
		t.Fatal(err)
	}
	var calls []string
	inspect(f, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok {
			calls = append(calls, c.Args[0].Lit())
		}
		_, subst := n.(*syntax.CmdSubst)
		return !subst
	})
	if got := strings.Join(calls, " "); got != "a d" {
		t.Errorf("calls outside substitutions = %q, want %q", got, "a d")
	}
}

// TestChildren: the fallback for node kinds inspect does not know lists the
// direct children, in order.
func TestChildren(t *testing.T) {
	f, err := syntax.NewParser().Parse(strings.NewReader(`a=1 b "$c" >d`), "")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range children(f.Stmts[0].Cmd) {
		got = append(got, fmt.Sprintf("%T@%d", n, n.Pos().Offset()))
	}
	want := "*syntax.Assign@0 *syntax.Word@4 *syntax.Word@6"
	if strings.Join(got, " ") != want {
		t.Errorf("children = %v, want %s", got, want)
	}
}
