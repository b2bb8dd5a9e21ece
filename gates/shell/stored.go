package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Text that bash later runs as code is code (issue 12): bash evaluates the
// text of an arithmetic context, an array subscript, a ${v:offset:length}
// slice, the operand of [[ -v ]] and of [[ -eq ]] and the other arithmetic
// tests as arithmetic, in which a subscript "a[$(cmd)]" runs cmd, quoted or
// not; a variable's literal value, a for item and a ${x:=…} or ${x:-…}
// operand reach those contexts through the variable; and a [[ == ]]
// pattern's @(…) runs the substitutions inside it. Such text is parsed for
// its substitutions (dataSubsts) wherever it stands.

// codeNode analyzes the literal text inside n, a node bash evaluates as
// arithmetic or expands as an operand, for the substitutions bash runs.
func (a *analyzer) codeNode(n syntax.Node, sc *scope) {
	switch n := n.(type) {
	case *syntax.ArithmExp:
		a.codeWords(n.X, sc)
	case *syntax.ArithmCmd:
		a.codeWords(n.X, sc)
	case *syntax.LetClause:
		for _, x := range n.Exprs {
			a.codeWords(x, sc)
		}
	case *syntax.CStyleLoop:
		a.codeWords(n, sc)
	case *syntax.ParamExp:
		if n.Index != nil {
			a.codeWords(n.Index, sc)
		}
		if n.Slice != nil {
			a.codeWords(n.Slice.Offset, sc)
			a.codeWords(n.Slice.Length, sc)
		}
		if n.Exp != nil && n.Exp.Word != nil {
			a.codeWords(n.Exp.Word, sc)
		}
	case *syntax.Assign:
		if n.Index != nil {
			a.codeWords(n.Index, sc)
		}
	case *syntax.ArrayElem:
		if n.Index != nil {
			a.codeWords(n.Index, sc)
		}
	case *syntax.UnaryTest:
		if n.Op == syntax.TsVarSet || n.Op == syntax.TsRefVar {
			a.codeWords(n.X, sc)
		}
	case *syntax.BinaryTest:
		switch n.Op {
		case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
			a.codeWords(n.X, sc)
			a.codeWords(n.Y, sc)
		}
	case *syntax.ExtGlob:
		if n.Pattern != nil {
			a.dataSubsts(n.Pattern.Value, sc)
		}
	}
}

// codeWords analyzes the literal text of every word below n (quotes
// removed, the parts of one word joined) for substitutions; the commands
// substituted below n are walked as commands elsewhere.
func (a *analyzer) codeWords(n syntax.Node, sc *scope) {
	if isNil(n) {
		return
	}
	syntax.Walk(n, func(m syntax.Node) bool {
		switch m := m.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			return false
		case *syntax.Word:
			if m == nil {
				return false
			}
			var sb strings.Builder
			literalText(&sb, m.Parts, false)
			if s := sb.String(); strings.Contains(s, "$(") || strings.ContainsRune(s, '`') {
				a.dataSubsts(s, sc)
			}
		}
		return true
	})
}

// literalText appends the literal parts of a word, quotes removed.
func literalText(sb *strings.Builder, parts []syntax.WordPart, quoted bool) {
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if quoted {
				sb.WriteString(unescapeDouble(p.Value))
			} else {
				v, _ := unquoteLit(p.Value)
				sb.WriteString(v)
			}
		case *syntax.SglQuoted:
			if p.Dollar {
				sb.WriteString(ansiC(p.Value))
			} else {
				sb.WriteString(p.Value)
			}
		case *syntax.DblQuoted:
			literalText(sb, p.Parts, true)
		}
	}
}
