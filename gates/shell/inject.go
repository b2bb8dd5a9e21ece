package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// An injection variable set in the shell itself, not as the prefix of one
// command (PATH=./e; for PATH in ./e; read PATH; printf -v PATH; declare;
// arithmetic; ${BASH_CMDS[git]:=./x}; hash -p ./x git), changes what every
// later command runs: from that statement on, every unit is floored like a
// wrapper (environment injection).

// noInjection is the injectAt of a script that sets no injection variable.
const noInjection = -1

// injectScan finds the offset in the script of the first node that may set
// an injection variable (or replace a command by name), or noInjection,
// node by node as scan walks the tree. A name only known at run time may
// be any, so it counts. A node at or past the offset found so far is
// skipped with every node below it (node reports false), as the walk it
// replaced did.
type injectScan struct {
	src string
	at  int
}

func (s *injectScan) mark(n syntax.Node) {
	if off := int(n.Pos().Offset()); s.at == noInjection || off < s.at {
		s.at = off
	}
}

func (s *injectScan) node(n syntax.Node) bool {
	if s.at != noInjection && int(n.Pos().Offset()) >= s.at {
		return false
	}
	src := s.src
	switch n := n.(type) {
	case *syntax.CallExpr:
		if callInjects(src, n) {
			s.mark(n)
		}
	case *syntax.DeclClause:
		if declInjects(n) {
			s.mark(n)
		}
	case *syntax.WordIter: // for NAME in …, select NAME in …
		if n.Name != nil && injectionVar(n.Name.Value) {
			s.mark(n)
		}
	case *syntax.BinaryArithm:
		if isArithAssign(n.Op) && arithInjects(n.X) {
			s.mark(n)
		}
	case *syntax.UnaryArithm:
		if (n.Op == syntax.Inc || n.Op == syntax.Dec) && arithInjects(n.X) {
			s.mark(n)
		}
	case *syntax.LetClause:
		for _, x := range n.Exprs {
			if w, ok := x.(*syntax.Word); ok && arithTextInjects(nodeText(src, w)) {
				s.mark(n)
			}
		}
	case *syntax.ParamExp:
		if n.Param != nil && n.Exp != nil && injectionVar(n.Param.Value) &&
			(n.Exp.Op == syntax.AssignUnset || n.Exp.Op == syntax.AssignUnsetOrNull) {
			s.mark(n)
		}
	case *syntax.BinaryTest:
		// [[ PATH=1 -eq 1 ]]: the operands of an arithmetic test are
		// arithmetic, and may assign.
		if arithTest(n.Op) && (arithTextInjects(nodeText(src, n.X)) || arithTextInjects(nodeText(src, n.Y))) {
			s.mark(n)
		}
	case *syntax.Redirect: // {NAME}>file assigns NAME
		if n.N != nil && strings.HasPrefix(n.N.Value, "{") && injectionVar(strings.Trim(n.N.Value, "{}")) {
			s.mark(n)
		}
	case *syntax.CoprocClause:
		if n.Name != nil && injectionVar(n.Name.Lit()) {
			s.mark(n)
		}
	}
	return true
}

// result is the offset found once every node was seen.
func (s *injectScan) result() int {
	at := s.at
	// bash's command and alias tables have no innocent use: wherever their
	// names appear (a string later evaluated as arithmetic included), the
	// script may set them.
	for name := range shellTables {
		if i := strings.Index(s.src, name); i >= 0 && (at == noInjection || i < at) {
			at = i
		}
	}
	return at
}

func arithTest(op syntax.BinTestOperator) bool {
	switch op {
	case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
		return true
	}
	return false
}

// injectionVar reports whether setting name in the shell changes what later
// commands run: the injection variables, the variables that move
// configuration (HOME, XDG_CONFIG_HOME, ZDOTDIR) and bash's own command and
// alias tables.
func injectionVar(name string) bool {
	return injectsEnv(name) || shellTables[name]
}

// shellTables are bash's look-up tables: BASH_CMDS[git]=./x makes git run
// ./x, BASH_ALIASES the same for aliases.
var shellTables = map[string]bool{"BASH_CMDS": true, "BASH_ALIASES": true}

// nodeText is the source text of n as written.
func nodeText(src string, n syntax.Node) string {
	if n == nil {
		return ""
	}
	i, j := int(n.Pos().Offset()), int(n.End().Offset())
	if i < 0 || j > len(src) || i > j {
		return src // fail closed: the whole script is checked
	}
	return src[i:j]
}

// arithTextInjects reports whether arithmetic written as text (a let
// argument, a [[ -eq ]] operand) may assign an injection variable: it
// names one, assigns through an expansion ($x = 1 assigns the variable x
// names), or holds a command substitution.
func arithTextInjects(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c == '`' || (c == '$' && i+1 < len(s) && s[i+1] == '(') {
			return true
		}
		if !isIdentByte(c, true) {
			i++
			continue
		}
		j := i + 1
		for j < len(s) && isIdentByte(s[j], false) {
			j++
		}
		expanded := i > 0 && (s[i-1] == '$' || (s[i-1] == '{' && i > 1 && s[i-2] == '$'))
		switch {
		case expanded && (arithAssignsAfter(s[j:]) || arithAssignsBefore(s[:i-1])):
			return true
		case !expanded && injectionVar(s[i:j]):
			return true
		}
		i = j
	}
	return false
}

// arithAssignsAfter reports whether rest, following a name, assigns it.
func arithAssignsAfter(rest string) bool {
	rest = strings.TrimLeft(rest, "} \t")
	if strings.HasPrefix(rest, "[") {
		if k := strings.IndexByte(rest, ']'); k >= 0 {
			rest = strings.TrimLeft(rest[k+1:], " \t")
		}
	}
	if strings.HasPrefix(rest, "++") || strings.HasPrefix(rest, "--") {
		return true
	}
	for _, op := range []string{"<<=", ">>=", "+=", "-=", "*=", "/=", "%=", "&=", "^=", "|=", "**="} {
		if strings.HasPrefix(rest, op) {
			return true
		}
	}
	return strings.HasPrefix(rest, "=") && !strings.HasPrefix(rest, "==")
}

// arithAssignsBefore reports whether text before a name increments it.
func arithAssignsBefore(before string) bool {
	before = strings.TrimRight(before, " \t{")
	return strings.HasSuffix(before, "++") || strings.HasSuffix(before, "--")
}

// arithInjects reports whether the target of an arithmetic assignment is an
// injection variable or only known at run time.
func arithInjects(x syntax.ArithmExpr) bool {
	w, ok := x.(*syntax.Word)
	if !ok || w == nil || len(w.Parts) != 1 {
		return true
	}
	switch p := w.Parts[0].(type) {
	case *syntax.Lit:
		return injectionVar(p.Value)
	case *syntax.ParamExp:
		// (( $x = 1 )) assigns the variable x names: any.
		return p.Param == nil || !p.Short || p.Dollar.IsValid() || injectionVar(p.Param.Value)
	}
	return true
}

// callInjects reports whether a simple command sets an injection variable
// in the shell: an assignment statement, or a builtin that assigns the
// variable its arguments name.
func callInjects(src string, c *syntax.CallExpr) bool {
	if len(c.Args) == 0 {
		for _, as := range c.Assigns {
			if as.Name != nil && (shellTables[as.Name.Value] || injectsAssign(as)) {
				return true
			}
		}
		return false
	}
	args := c.Args
	name, ok := quickLit(args[0])
	for len(args) > 1 && (name == "builtin" || name == "command") {
		args = args[1:]
		name, ok = quickLit(args[0])
	}
	if !ok {
		return false // a dynamic command is floored anyway
	}
	if name == "let" {
		for _, w := range args[1:] {
			if arithTextInjects(nodeText(src, w)) {
				return true
			}
		}
		return false
	}
	spec, found := assigningBuiltins[name]
	if !found {
		return false
	}
	return spec(args[1:])
}

// assigningBuiltins read, for each builtin that assigns variables, whether
// its arguments name an injection variable.
var assigningBuiltins = map[string]func(args []*syntax.Word) bool{
	"read":      func(args []*syntax.Word) bool { return namesInOperands(args, "dinNptu", "a", true) },
	"mapfile":   mapfileInjects,
	"readarray": mapfileInjects,
	"printf":    func(args []*syntax.Word) bool { return namesInOperands(args, "", "v", false) },
	"wait":      func(args []*syntax.Word) bool { return namesInOperands(args, "", "p", false) },
	"getopts": func(args []*syntax.Word) bool {
		if len(args) < 2 {
			return false
		}
		return wordIsInjectionName(args[1])
	},
	"hash": func(args []*syntax.Word) bool { return hasShortOpt(args, 'p') },
	"enable": func(args []*syntax.Word) bool {
		return hasShortOpt(args, 'f')
	},
	"declare":  assignWordsInject,
	"typeset":  assignWordsInject,
	"local":    assignWordsInject,
	"export":   assignWordsInject,
	"readonly": assignWordsInject,
}

func mapfileInjects(args []*syntax.Word) bool { return namesInOperands(args, "dnOsuCc", "", true) }

// namesInOperands reads a builtin's leading short options (valued: those
// taking a value; named: those whose value names a variable) and reports
// whether a named value, or an operand when operands is set (they all name
// variables), is an injection variable or only known at run time.
func namesInOperands(args []*syntax.Word, valued, named string, operands bool) bool {
	i := 0
	for ; i < len(args); i++ {
		lit, ok := quickLit(args[i])
		if !ok || len(lit) < 2 || lit[0] != '-' {
			break
		}
		if lit == "--" {
			i++
			break
		}
		for j := 1; j < len(lit); j++ {
			c := rune(lit[j])
			if !strings.ContainsRune(valued+named, c) {
				continue
			}
			v, known := "", true
			switch {
			case j+1 < len(lit):
				v = lit[j+1:]
			case i+1 < len(args):
				i++
				v, known = quickLit(args[i])
			}
			if strings.ContainsRune(named, c) && (!known || injectionVar(identPrefixOrAll(v))) {
				return true
			}
			break
		}
	}
	if !operands {
		return false
	}
	for _, w := range args[i:] {
		if wordIsInjectionName(w) {
			return true
		}
	}
	return false
}

// wordIsInjectionName reports whether a word that names a variable names
// an injection variable or is only known at run time.
func wordIsInjectionName(w *syntax.Word) bool {
	lit, ok := quickLit(w)
	if !ok {
		return true
	}
	return injectionVar(identPrefixOrAll(lit))
}

// identPrefixOrAll is identPrefix, or the whole word when it is a name.
func identPrefixOrAll(s string) string {
	if p := identPrefix(s); p != "" {
		return p
	}
	return s
}

// assignWordsInject reads declare-like arguments written through builtin
// or command (builtin declare PATH=./e), which the parser leaves as plain
// words.
func assignWordsInject(args []*syntax.Word) bool {
	for _, w := range args {
		lit, ok := quickLit(w)
		if !ok {
			return true
		}
		if strings.HasPrefix(lit, "-") || strings.HasPrefix(lit, "+") {
			continue
		}
		if name := identPrefix(lit); name != "" && (shellTables[name] || injectsValue(name, lit[min(len(name)+1, len(lit)):], true)) {
			return true
		}
	}
	return false
}

// injectsAssign reports whether an assignment sets an injection variable
// to a value that is not inert (see injectsValue); a value only known at
// run time, an append or an array is never inert.
func injectsAssign(as *syntax.Assign) bool {
	if as.Name == nil {
		return false
	}
	value, known := quickLit(as.Value)
	if as.Value == nil {
		value, known = "", true
	}
	return injectsValue(as.Name.Value, value, known && !as.Append && as.Array == nil && as.Index == nil)
}

func hasShortOpt(args []*syntax.Word, c byte) bool {
	for _, w := range args {
		lit, ok := quickLit(w)
		if !ok {
			return true
		}
		if lit == "--" || len(lit) < 2 || lit[0] != '-' {
			return false
		}
		if strings.IndexByte(lit[1:], c) >= 0 {
			return true
		}
	}
	return false
}

// declInjects reports whether declare, local, export, readonly or typeset
// assigns an injection variable: a NAME=value, a name only known at run
// time, or a nameref to one.
func declInjects(d *syntax.DeclClause) bool {
	nameref := false
	for _, as := range d.Args {
		if as.Name == nil {
			lit, ok := quickLit(as.Value)
			switch {
			case !ok:
				return true
			case (strings.HasPrefix(lit, "-") || strings.HasPrefix(lit, "+")) && strings.Contains(lit, "n"):
				nameref = true
			case !strings.HasPrefix(lit, "-") && !strings.HasPrefix(lit, "+"):
				if name := identPrefix(lit); name != "" && injectionVar(name) {
					return true
				}
			}
			continue
		}
		if !as.Naked && (shellTables[as.Name.Value] || injectsAssign(as)) {
			return true
		}
		if nameref && as.Value != nil && wordIsInjectionName(as.Value) {
			return true
		}
	}
	return false
}
