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
		a.arithm(n.X, sc)
	case *syntax.ArithmCmd:
		a.arithm(n.X, sc)
	case *syntax.LetClause:
		for _, x := range n.Exprs {
			a.arithm(x, sc)
		}
	case *syntax.CStyleLoop:
		a.arithm(n, sc)
	case *syntax.ParamExp:
		if n.Index != nil {
			a.arithm(n.Index, sc)
		}
		if n.Slice != nil {
			a.arithm(n.Slice.Offset, sc)
			a.arithm(n.Slice.Length, sc)
		}
		if n.Exp != nil && n.Exp.Word != nil {
			a.codeWords(n.Exp.Word, sc)
		}
		// ${!x} and ${x@P} evaluate x's text: a name with a subscript,
		// a prompt with substitutions.
		indirect := n.Excl && n.Names == 0 && n.Index == nil
		prompt := n.Exp != nil && n.Exp.Op == syntax.OtherParamOps && n.Exp.Word != nil && n.Exp.Word.Lit() == "P"
		if (indirect || prompt) && n.Param != nil && sc.dataVar(n.Param.Value) {
			a.unknownCode(n, sc)
		}
	case *syntax.Assign:
		if n.Index != nil {
			a.arithm(n.Index, sc)
		}
	case *syntax.ArrayElem:
		if n.Index != nil {
			a.arithm(n.Index, sc)
		}
	case *syntax.UnaryTest:
		if n.Op == syntax.TsVarSet || n.Op == syntax.TsRefVar {
			a.arithm(n.X, sc)
		}
	case *syntax.BinaryTest:
		switch n.Op {
		case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
			a.arithm(n.X, sc)
			a.arithm(n.Y, sc)
		}
	case *syntax.ExtGlob:
		if n.Pattern != nil {
			a.dataSubsts(n.Pattern.Value, sc)
		}
	}
}

// codeWords analyzes the literal text of every word below n (quotes
// removed, the parts of one word joined) for substitutions; the commands
// substituted below n are walked as commands elsewhere. The operand of a
// ${…} nested below n is left to codeNode, which substs calls for that
// ${…} too, in the same scope: walked here as well, a word nested a
// thousand deep was read a thousand times.
func (a *analyzer) codeWords(n syntax.Node, sc *scope) {
	if isNil(n) {
		return
	}
	var operand *syntax.Word // of the ${…} being walked, when codeNode reads it
	syntax.Walk(n, func(m syntax.Node) bool {
		a.codeWalked++
		switch m := m.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			return false
		case *syntax.ParamExp:
			operand = nil
			if m.Exp != nil && m != n {
				operand = m.Exp.Word
			}
		case *syntax.Word:
			if m != nil && m == operand {
				return false
			}
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

// arithm analyzes n, text bash evaluates as arithmetic: its literal text
// for substitutions, and whether text the analysis cannot know reaches it
// (a command's output, a variable the script read or took from a command):
// bash would run the subscripts in that text, so the arithmetic is a unit
// floored as dynamic.
func (a *analyzer) arithm(n syntax.Node, sc *scope) {
	if isNil(n) {
		return
	}
	a.codeWords(n, sc)
	unknown := false
	syntax.Walk(n, func(m syntax.Node) bool {
		switch m := m.(type) {
		case *syntax.CmdSubst:
			unknown = true
		case *syntax.ProcSubst:
			return false
		case *syntax.ParamExp:
			unknown = unknown || (m.Param != nil && sc.dataVar(m.Param.Value))
		case *syntax.Word:
			if m != nil && len(m.Parts) == 1 {
				if l, ok := m.Parts[0].(*syntax.Lit); ok {
					unknown = unknown || sc.dataVar(identPrefix(l.Value+"="))
				}
			}
		}
		return !unknown
	})
	if unknown {
		a.unknownCode(n, sc)
	}
}

// unknownCode records code whose text is only known at run time.
func (a *analyzer) unknownCode(n syntax.Node, sc *scope) {
	text := sc.slice(n)
	if text == "" {
		text = "$((…))"
	}
	a.addUnit(Unit{Text: text, Context: CtxArithmetic, Floor: SentinelDynamic})
}

// dataVar reports whether name may hold text the analysis cannot know:
// the script gives it such text, and its value is not known here.
func (sc *scope) dataVar(name string) bool {
	if name == "" || !sc.facts.data[name] {
		return false
	}
	_, known := sc.vars.get(name)
	return !known
}

// nameBuiltins take variable names as arguments, and bash evaluates the
// subscript of a name such as 'a[$(cmd)]' there.
var nameBuiltins = map[string]bool{
	"printf": true, "read": true, "mapfile": true, "readarray": true, "test": true, "[": true,
	"unset": true, "getopts": true, "wait": true, "declare": true, "typeset": true, "local": true,
	"export": true, "readonly": true,
}

// nameArgs analyzes the literal arguments of a builtin that takes variable
// names for the substitutions in their subscripts.
func (a *analyzer) nameArgs(fields []field, sc *scope) {
	if len(fields) < 2 || !fields[0].known || !nameBuiltins[fields[0].value] {
		return
	}
	for _, f := range fields[1:] {
		if f.known && strings.IndexByte(f.value, '[') >= 0 {
			a.dataSubsts(f.value, sc)
		}
	}
}
