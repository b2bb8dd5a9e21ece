package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// facts are what a whole script does to its variables and directory,
// gathered before the walk. A variable's literal value is trusted only when
// the script assigns it exactly once, by a plain NAME=value statement, and
// nothing else in the script can change it (read, for, declare, arithmetic,
// ${x:=…}, namerefs, traps …).
type facts struct {
	// assigns counts plain assignment statements per name; manyAssigns marks
	// a name assigned in any other way.
	assigns map[string]int
	// noVars is set when no variable can be trusted at all (a nameref, an
	// assignment to a name only known at run time, IFS, a trap, an alias).
	noVars bool
	// clobber is set when eval, source or . appear: a function call may then
	// change anything.
	clobber bool
	// mayChdir is set when something in the script may change directory, so
	// a function body cannot assume the directory it was defined in.
	mayChdir bool
	cdpath   bool // CDPATH is set: a relative cd may go anywhere
	dotglob  bool // shopt or GLOBIGNORE: globs may match dot files
	// commands counts the commands written in the script, to size the
	// list of units.
	commands int
	// data marks the variables the script may give a text it cannot know
	// (a command's output, read, a for item or a value only known at run
	// time): bash runs such text as code where it reaches arithmetic.
	data map[string]bool
	// seqFunc is set when the script defines a function named like a
	// command of numberCommands, so $(seq 3) may print anything.
	seqFunc bool
	// seqData are the names scan marks as data if seqFunc is set.
	seqData []string
}

const manyAssigns = 2

// eligible reports whether name's literal value may be trusted.
func (f *facts) eligible(name string) bool {
	return !f.noVars && f.assigns[name] == 1
}

// apply forgets, at the start of a script, every inherited value the script
// may change in a way the walk cannot follow.
func (f *facts) apply(t *varTable) {
	if f.noVars {
		t.clear()
		return
	}
	for name, n := range f.assigns {
		if n != 1 {
			t.unset(name)
		}
	}
}

// scan gathers the facts of a script and the offset where it may first set
// an injection variable (see injectAt), in one walk of its tree. It
// stands for the separate passes it replaced: TestScanMatchesOldPasses and
// TestAnalyzeMatchesOldPasses keep it equal to them.
func scan(src string, file *syntax.File) (*facts, int) {
	f := &facts{}
	inj := injectScan{src: src, at: noInjection}
	factsOnly := func(n syntax.Node) bool {
		f.node(n)
		return true
	}
	inspect(file, func(n syntax.Node) bool {
		f.node(n)
		if !inj.node(n) {
			// injectScan is done with n and everything below it; the
			// facts are gathered below it alone, in the same order.
			inspectBelow(n, factsOnly)
			return false
		}
		return true
	})
	// seqFunc is known now: the values that are numbers only unless a
	// function shadows a number command are data if one does.
	if f.seqFunc {
		for _, name := range f.seqData {
			f.markData(name)
		}
	}
	f.seqData = nil
	return f, inj.result()
}

// node gathers the facts of one node.
func (f *facts) node(n syntax.Node) {
	switch n := n.(type) {
	case *syntax.CallExpr:
		f.commands++
		f.call(n)
	case *syntax.DeclClause:
		f.commands++
		f.decl(n)
	case *syntax.TestClause, *syntax.ArithmCmd, *syntax.LetClause:
		f.commands++
	case *syntax.FuncDecl:
		if n.Name != nil && numberCommands[n.Name.Value] != nil {
			f.seqFunc = true // a function shadows the command: $(seq 3) may print anything
		}
	case *syntax.WordIter:
		f.taintLit(n.Name)
		for _, w := range n.Items {
			if _, ok := quickLit(w); !ok && n.Name != nil {
				f.dataUnlessNumeric(n.Name.Value, w)
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
			if n.Param != nil {
				f.dataUnlessNumeric(n.Param.Value, n.Exp.Word)
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
}

// numbersOnly reports whether w expands to decimal numbers only: its parts
// are literal digits, arithmetic results and $(seq N…) with literal
// decimal operands and no option but -w (seq -f and -s print any text).
// Text like that cannot be code where it reaches arithmetic.
func numbersOnly(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.ArithmExp:
		case *syntax.CmdSubst:
			if !seqOfNumbers(p) {
				return false
			}
		case *syntax.Lit:
			if !decimal(p.Value, true) {
				return false
			}
		default:
			return false
		}
	}
	return len(w.Parts) > 0
}

// seqOfNumbers reports whether a command substitution prints decimal
// numbers only: one command, or a pipeline whose last command is one, of
// the table numberCommands with literal arguments it allows, redirected
// at most from a file (wc -l < f) or with errors to /dev/null. The
// script must not define a function of that name (see seqFunc).
func seqOfNumbers(c *syntax.CmdSubst) bool {
	if len(c.Stmts) != 1 || c.Stmts[0].Background || c.Stmts[0].Negated || c.Stmts[0].Coprocess {
		return false
	}
	st := c.Stmts[0]
	for {
		b, ok := st.Cmd.(*syntax.BinaryCmd)
		if !ok {
			break
		}
		if b.Op != syntax.Pipe || b.Y == nil {
			return false
		}
		st = b.Y // a pipeline prints what its last command prints
	}
	for _, r := range st.Redirs {
		if !(r.Op == syntax.RdrIn || (r.Op == syntax.RdrOut && r.N != nil && r.N.Value == "2")) {
			return false
		}
	}
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Assigns) > 0 || len(call.Args) == 0 {
		return false
	}
	name, ok := quickLit(call.Args[0])
	allowed, known := numberCommands[name]
	if !ok || !known {
		return false
	}
	args := call.Args[1:]
	if name == "seq" && len(args) == 0 {
		return false
	}
	for _, a := range args {
		lit, ok := quickLit(a)
		if !ok || !(allowed[lit] || name == "seq" && decimal(lit, false)) {
			return false
		}
	}
	return true
}

// numberCommands print only decimal numbers with the arguments listed
// (seq also takes decimal operands; wc no file operand, so no name is
// printed).
var numberCommands = map[string]map[string]bool{
	"seq":   {"-w": true},
	"wc":    {"-l": true, "-c": true, "-w": true, "-m": true, "--lines": true, "--bytes": true, "--words": true, "--chars": true},
	"nproc": {},
	"id":    {"-u": true, "-g": true, "-ur": true, "-gr": true},
	"date":  {"+%s": true},
}

// decimal reports whether s is a decimal number ("-3", "1.5"); with
// digitsOnly any run of digits and signs (a literal beside an expansion).
func decimal(s string, digitsOnly bool) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case '0' <= c && c <= '9':
		case !digitsOnly && c == '.' && i > 0:
		case (c == '-' || c == '+') && (i == 0 || digitsOnly):
		default:
			return false
		}
	}
	return true
}

func (f *facts) call(c *syntax.CallExpr) {
	for _, as := range c.Assigns {
		if len(c.Args) == 0 && plainAssign(as) {
			f.assigned()[as.Name.Value]++
			f.special(as.Name.Value)
		} else if as.Name != nil {
			f.taint(as.Name.Value)
		}
		if len(c.Args) == 0 && as.Name != nil {
			f.dataUnlessNumeric(as.Name.Value, as.Value)
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

// codeLater reports whether the command args may be trap or alias, whose
// strings the shell runs later, anywhere. Only the command name counts
// (grep alias ~/.gitconfig defines nothing), looked up through command and
// builtin, the wrappers that run a builtin in this shell; a name brace
// expansion can change could be either.
func (f *facts) codeLater(args []*syntax.Word) bool {
	for i := 0; i < len(args); i++ {
		lit, ok := quickLit(args[i])
		switch {
		case !ok:
			// Only known at run time: the walk substitutes a known value
			// (X=trap; $X …) and floors an unknown one as dynamic.
			return false
		case strings.IndexByte(lit, '{') >= 0 || strings.IndexByte(lit, '}') >= 0 || lit == "trap" || lit == "alias":
			return true
		case lit == "command" || lit == "builtin":
			for i+1 < len(args) {
				if l, ok := quickLit(args[i+1]); ok && strings.HasPrefix(l, "-") {
					i++ // command -p trap …, command -- trap …
					continue
				}
				break
			}
			continue
		}
		return false
	}
	return false
}

func (f *facts) markData(name string) {
	if f.data == nil {
		f.data = map[string]bool{}
	}
	f.data[name] = true
}

// dataUnlessNumeric marks name as data unless its assigned value w is
// literal text or an arithmetic result (text the script itself wrote), or
// numbers only (numbersOnly): those are data only when the script defines
// a function named like a number command (seqFunc), known once the whole
// script is scanned, so the name waits in seqData until then.
func (f *facts) dataUnlessNumeric(name string, w *syntax.Word) {
	if w == nil {
		return
	}
	if _, ok := quickLit(w); ok {
		return
	}
	if len(w.Parts) == 1 {
		if _, ok := w.Parts[0].(*syntax.ArithmExp); ok {
			return
		}
	}
	if numbersOnly(w) {
		f.seqData = append(f.seqData, name)
		return
	}
	f.markData(name)
}

// taintArgs taints every argument that names a variable; an argument only
// known at run time could name any.
func (f *facts) taintArgs(args []*syntax.Word) {
	for _, w := range args {
		lit, ok := quickLit(w)
		if !ok {
			f.noVars = true
			continue
		}
		if name := identPrefix(lit); name != "" {
			f.taint(name)
		}
	}
}

func (f *facts) decl(d *syntax.DeclClause) {
	if d.Variant != nil && d.Variant.Value == "nameref" {
		f.noVars = true
	}
	for _, as := range d.Args {
		if as.Name != nil {
			f.taint(as.Name.Value)
			f.dataUnlessNumeric(as.Name.Value, as.Value)
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

func (f *facts) taint(name string) {
	if name == "" {
		return
	}
	f.assigned()[name] = manyAssigns
	f.special(name)
}

// assigned is f.assigns, made at the first assignment (most commands
// assign nothing; a nil map reads as empty).
func (f *facts) assigned() map[string]int {
	if f.assigns == nil {
		f.assigns = map[string]int{}
	}
	return f.assigns
}

func (f *facts) taintLit(l *syntax.Lit) {
	if l != nil {
		f.taint(l.Value)
	}
}

func (f *facts) taintArith(x syntax.ArithmExpr) {
	if w, ok := x.(*syntax.Word); ok && w != nil {
		lit, _ := quickLit(w)
		f.taint(identPrefix(lit))
	}
}

// special notes variables that change how the shell itself works.
func (f *facts) special(name string) {
	switch name {
	case "IFS":
		f.noVars = true
	case "CDPATH":
		f.cdpath = true
	case "GLOBIGNORE":
		f.dotglob = true
	}
}

func plainAssign(as *syntax.Assign) bool {
	return as.Name != nil && !as.Append && !as.Naked && as.Index == nil && as.Array == nil
}

func isArithAssign(op syntax.BinAritOperator) bool {
	switch op {
	case syntax.Assgn, syntax.AddAssgn, syntax.SubAssgn, syntax.MulAssgn,
		syntax.QuoAssgn, syntax.RemAssgn, syntax.AndAssgn, syntax.OrAssgn,
		syntax.XorAssgn, syntax.ShlAssgn, syntax.ShrAssgn, syntax.AndBoolAssgn,
		syntax.OrBoolAssgn, syntax.XorBoolAssgn, syntax.PowAssgn:
		return true
	}
	return false
}

// quickLit returns a word's text when it has no expansion, for the pre-pass
// that only needs to recognize command and variable names
// (TestQuickLitMatchesOld keeps it equal to the general word reader).
func quickLit(w *syntax.Word) (string, bool) {
	if w == nil {
		return "", false
	}
	if len(w.Parts) == 1 { // what the loop below gives, without a builder
		switch p := w.Parts[0].(type) {
		case *syntax.Lit:
			if strings.IndexByte(p.Value, '\\') < 0 {
				return p.Value, true
			}
		case *syntax.SglQuoted:
			return p.Value, true
		case *syntax.DblQuoted:
			if len(p.Parts) == 1 {
				if l, ok := p.Parts[0].(*syntax.Lit); ok {
					return unescapeDouble(l.Value), true
				}
			}
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

// identPrefix returns the variable name s starts with ("x" for "x=1",
// "a" for "a[2]"), or "" when s does not start with one.
func identPrefix(s string) string {
	i := 0
	for i < len(s) && isIdentByte(s[i], i == 0) {
		i++
	}
	if i == 0 || (i < len(s) && s[i] != '=' && s[i] != '[' && s[i] != '+') {
		return ""
	}
	return s[:i]
}

func isIdentByte(c byte, first bool) bool {
	switch {
	case c == '_', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		return true
	case c >= '0' && c <= '9':
		return !first
	}
	return false
}
