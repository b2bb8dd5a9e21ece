package shell

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// branch is where a statement may leave the shell: the directories after it
// succeeded and after it failed (they differ for cd, so that `cd x || cat y`
// reads y where the shell was).
type branch struct{ ok, fail []string }

func same(sc *scope) branch { return branch{sc.dirs, sc.dirs} }

func (a *analyzer) stmts(list []*syntax.Stmt, ctx Context, sc *scope) branch {
	br := same(sc)
	if a.nesting >= maxNesting || a.tooDeep {
		a.tooDeep = true
		return br
	}
	a.nesting++
	for _, s := range list {
		if a.nesting == 1 && sc.depth == 0 {
			a.topPos = s.Pos()
		}
		a.injected = a.injected || (sc.injectAt != noInjection && int(s.End().Offset()) > sc.injectAt)
		br = a.stmt(s, ctx, sc)
		sc.dirs = union(br.ok, br.fail)
	}
	a.nesting--
	return br
}

func (a *analyzer) stmt(s *syntax.Stmt, ctx Context, sc *scope) branch {
	if s == nil {
		return same(sc)
	}
	if s.Background || s.Coprocess || s.Disown {
		sc.isolate(func() { a.stmtBody(s, ctx, sc) })
		return same(sc)
	}
	br := a.stmtBody(s, ctx, sc)
	if s.Negated {
		br.ok, br.fail = br.fail, br.ok
	}
	return br
}

// stmtBody walks one statement: its redirect targets are resolved where the
// shell stands before the command runs, its command, then the commands
// inside its redirects.
func (a *analyzer) stmtBody(s *syntax.Stmt, ctx Context, sc *scope) branch {
	for _, r := range s.Redirs {
		a.redirectPath(r, sc)
	}
	br := a.command(s, ctx, sc)
	for _, r := range s.Redirs {
		a.redirectSubsts(r, sc)
	}
	return br
}

func (a *analyzer) command(s *syntax.Stmt, ctx Context, sc *scope) branch {
	switch c := s.Cmd.(type) {
	case *syntax.CallExpr:
		return a.call(c, ctx, sc, stdinOf(s.Redirs))
	case *syntax.Subshell:
		sc.isolate(func() { a.stmts(c.Stmts, CtxSubshell, sc) })
	case *syntax.Block:
		return a.stmts(c.Stmts, CtxGroup, sc)
	case *syntax.BinaryCmd:
		return a.binary(c, ctx, sc)
	case *syntax.IfClause:
		return a.ifClause(c, sc)
	case *syntax.WhileClause:
		a.loop(c, c.Cond, c.Do, sc)
	case *syntax.ForClause:
		a.forClause(c, sc)
	case *syntax.CaseClause:
		a.caseClause(c, sc)
	case *syntax.FuncDecl:
		a.funcDecl(c, sc)
	case *syntax.ArithmCmd, *syntax.LetClause:
		a.addUnit(Unit{Text: sc.slice(c), Context: CtxArithmetic})
		a.substs(c, "", sc)
	case *syntax.TestClause:
		a.testClause(c, sc)
	case *syntax.DeclClause:
		a.decl(c, sc)
	case *syntax.TimeClause:
		if c.Stmt == nil {
			a.addUnit(Unit{Text: "time", Context: ctx})
			break
		}
		return a.stmt(timed(c.Stmt), CtxWrapped, sc)
	case *syntax.CoprocClause:
		a.substs(c.Name, "", sc)
		sc.isolate(func() { a.stmt(withAssigns(c.Stmt, 0), CtxSubshell, sc) })
	case *syntax.TestDecl:
		a.substs(c.Description, "", sc)
		sc.isolate(func() { a.stmt(c.Body, CtxFunction, sc) })
	case nil: // redirections only: "> file"
		a.addUnit(Unit{Text: sc.slice(s), Context: ctx})
	}
	return same(sc)
}

// timed returns the statement the time keyword runs: bash skips a "--"
// after "time" (and "time -p"), which the parser leaves as the command name.
func timed(s *syntax.Stmt) *syntax.Stmt {
	if b, ok := s.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) {
		// time times a pipeline; the "--" is in its first command.
		x := timed(b.X)
		if x == b.X {
			return s
		}
		cp, bin := *s, *b
		bin.X = x
		cp.Cmd = &bin
		return &cp
	}
	c, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(c.Args) < 2 {
		return s
	}
	if lit, ok := quickLit(c.Args[0]); !ok || lit != "--" || len(c.Args[0].Parts) != 1 {
		return s
	}
	// What follows "--" is a command of its own: "v=1 git x" assigns.
	return withAssigns(s, 1)
}

// withAssigns returns the statement s with its first skip words dropped and
// the assignments the parser left among its words ("coproc v=1 cmd",
// "time -- v=1 cmd") read as bash reads them.
func withAssigns(s *syntax.Stmt, skip int) *syntax.Stmt {
	c, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(c.Args) <= skip {
		return s
	}
	if _, ok := assignWord(c.Args[skip]); !ok && skip == 0 {
		return s
	}
	cp, call := *s, *c
	call.Args = c.Args[skip:]
	call.Assigns = slices.Clone(c.Assigns)
	for len(call.Args) > 1 {
		as, ok := assignWord(call.Args[0])
		if !ok {
			break
		}
		call.Assigns = append(call.Assigns, as)
		call.Args = call.Args[1:]
	}
	cp.Cmd = &call
	return &cp
}

// assignWord reads a word the parser took for an argument as the
// assignment bash reads there ("v=1", "v+=$(a)").
func assignWord(w *syntax.Word) (*syntax.Assign, bool) {
	l, ok := w.Parts[0].(*syntax.Lit)
	if !ok {
		return nil, false
	}
	name := identPrefix(l.Value)
	rest := l.Value[len(name):]
	as := &syntax.Assign{}
	switch {
	case name == "":
		return nil, false
	case strings.HasPrefix(rest, "="):
	case strings.HasPrefix(rest, "+="):
		as.Append = true
	default:
		return nil, false
	}
	k := uint(strings.IndexByte(l.Value, '=') + 1)
	pos := l.ValuePos
	as.Name = &syntax.Lit{ValuePos: pos, ValueEnd: syntax.NewPos(pos.Offset()+uint(len(name)), pos.Line(), pos.Col()+uint(len(name))), Value: name}
	value := &syntax.Lit{ValuePos: syntax.NewPos(pos.Offset()+k, pos.Line(), pos.Col()+k), ValueEnd: l.ValueEnd, Value: l.Value[k:]}
	as.Value = &syntax.Word{Parts: append([]syntax.WordPart{value}, w.Parts[1:]...)}
	return as, true
}

func (a *analyzer) binary(c *syntax.BinaryCmd, ctx Context, sc *scope) branch {
	if c.Op != syntax.AndStmt && c.Op != syntax.OrStmt {
		return a.pipeline(c, ctx, sc)
	}
	// "a && b || c" is ((a && b) || c): the list is walked from its first
	// command on, one level at a time, as the recursion down the left side
	// would, so that a list of thousands keeps the stack flat.
	levels := spine(c, isList)
	x := a.stmt(levels[len(levels)-1].X, ctx, sc)
	for i := len(levels) - 1; i >= 0; i-- {
		c := levels[i]
		runsY, skipsY := x.ok, x.fail
		if c.Op == syntax.OrStmt {
			runsY, skipsY = x.fail, x.ok
		}
		sc.dirs = runsY
		var y branch
		sc.maybe(func() { y = a.stmt(c.Y, ctx, sc) })
		if c.Op == syntax.AndStmt {
			x = branch{ok: y.ok, fail: union(skipsY, y.fail)}
		} else {
			x = branch{ok: union(skipsY, y.ok), fail: y.fail}
		}
	}
	return x
}

func isList(op syntax.BinCmdOperator) bool { return op == syntax.AndStmt || op == syntax.OrStmt }

func isPipe(op syntax.BinCmdOperator) bool { return op == syntax.Pipe || op == syntax.PipeAll }

// spine returns c and the binary commands down its left side that continue
// it (same kind of operator, a statement that is nothing but the command),
// outermost first: ((a | b) | c) gives the commands of "… | c" and "a | b".
func spine(c *syntax.BinaryCmd, kind func(syntax.BinCmdOperator) bool) []*syntax.BinaryCmd {
	levels := []*syntax.BinaryCmd{c}
	for {
		s := c.X
		b, ok := s.Cmd.(*syntax.BinaryCmd)
		if !ok || !kind(b.Op) || len(s.Redirs) > 0 || s.Negated || s.Background || s.Coprocess || s.Disown {
			return levels
		}
		levels = append(levels, b)
		c = b
	}
}

// pipeline walks each stage as a subshell. The last stage may run in the
// current shell (shopt -s lastpipe), so its directory changes may survive.
// A pipeline of thousands of stages is walked stage by stage, not by
// recursion down its left side.
func (a *analyzer) pipeline(c *syntax.BinaryCmd, ctx Context, sc *scope) branch {
	before := sc.dirs
	var last branch
	piped := a.piped
	levels := spine(c, isPipe)
	sc.isolate(func() { a.stmt(levels[len(levels)-1].X, ctx, sc) })
	a.piped = true // a later stage reads the earlier one's output
	for i := len(levels) - 1; i >= 0; i-- {
		sc.isolate(func() { last = a.stmt(levels[i].Y, ctx, sc) })
	}
	a.piped = piped
	dirs := union(before, union(last.ok, last.fail))
	return branch{dirs, dirs}
}

func (a *analyzer) ifClause(c *syntax.IfClause, sc *scope) branch {
	cond := a.stmts(c.Cond, CtxIf, sc)
	sc.dirs = cond.ok
	var then []string
	sc.maybe(func() {
		br := a.stmts(c.Then, CtxIf, sc)
		then = union(br.ok, br.fail)
	})
	other := cond.fail
	if c.Else != nil {
		sc.dirs = cond.fail
		sc.maybe(func() {
			br := a.ifClause(c.Else, sc)
			other = union(br.ok, br.fail)
		})
	}
	sc.dirs = union(then, other)
	return same(sc)
}

// loop walks a loop's condition and body once. A loop that may change
// directory runs its later rounds somewhere unknown.
func (a *analyzer) loop(n syntax.Node, cond, body []*syntax.Stmt, sc *scope) {
	entry := sc.dirs
	if a.mayChdir(n) {
		entry = union(entry, unknownDir)
	}
	sc.dirs = entry
	sc.maybe(func() {
		a.stmts(cond, CtxLoop, sc)
		a.stmts(body, CtxLoop, sc)
	})
	sc.dirs = union(entry, sc.dirs)
}

func (a *analyzer) forClause(c *syntax.ForClause, sc *scope) {
	switch l := c.Loop.(type) {
	case *syntax.WordIter:
		for _, w := range l.Items {
			// The items are usually file names the body will use. Their
			// fields go on the field stack, as a command's do (see call).
			start := len(a.fieldStack)
			a.fieldStack = a.appendFields(a.fieldStack, w, sc)
			for _, f := range a.fieldStack[start:len(a.fieldStack):len(a.fieldStack)] {
				a.pathWord(f, sc, maybeFile)
				if f.known {
					a.dataSubsts(f.value, sc) // the variable may reach arithmetic
				}
			}
			a.fieldStack = a.fieldStack[:start]
			a.substs(w, "", sc)
		}
	case *syntax.CStyleLoop:
		a.substs(l, "", sc)
	}
	a.loop(c, nil, c.Do, sc)
}

func (a *analyzer) caseClause(c *syntax.CaseClause, sc *scope) {
	a.substs(c.Word, "", sc)
	before := sc.dirs
	after := before
	for _, item := range c.Items {
		for _, p := range item.Patterns {
			a.substs(p, "", sc)
		}
		sc.dirs = before
		sc.maybe(func() {
			br := a.stmts(item.Stmts, CtxCase, sc)
			after = union(after, union(br.ok, br.fail))
		})
	}
	sc.dirs = after
}

// funcDecl walks a function body where it is defined. The body runs when the
// function is called, maybe from another directory, and what it assigns is
// unknown afterwards.
func (a *analyzer) funcDecl(c *syntax.FuncDecl, sc *scope) {
	entry := sc.dirs
	if sc.facts.mayChdir {
		entry = union(entry, unknownDir)
	}
	sc.withDirs(entry, func() {
		sc.maybe(func() { a.body(c.Body, sc) })
	})
	if c.Name != nil {
		if a.funcs == nil {
			a.funcs = map[string]bool{}
		}
		a.funcs[c.Name.Value] = a.mayChdir(c.Body)
	}
}

// body walks a function body; its braces or parentheses are the function's
// own syntax, so its commands stand in the function context.
func (a *analyzer) body(s *syntax.Stmt, sc *scope) {
	switch c := s.Cmd.(type) {
	case *syntax.Block:
		a.stmts(c.Stmts, CtxFunction, sc)
		for _, r := range s.Redirs {
			a.redirectPath(r, sc)
			a.redirectSubsts(r, sc)
		}
	case *syntax.Subshell:
		sc.isolate(func() { a.stmts(c.Stmts, CtxFunction, sc) })
		for _, r := range s.Redirs {
			a.redirectPath(r, sc)
			a.redirectSubsts(r, sc)
		}
	default:
		a.stmt(s, CtxFunction, sc)
	}
}

// mayChdir reports whether n may change the directory: cd, pushd, popd,
// code the analysis cannot follow, or a call to such a function.
func (a *analyzer) mayChdir(n syntax.Node) bool {
	found := false
	inspect(n, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok {
			for _, w := range c.Args {
				lit, _ := quickLit(w)
				found = found || chdirCommands[lit] || a.funcs[lit]
			}
		}
		return !found
	})
	return found
}

var chdirCommands = map[string]bool{
	"cd": true, "pushd": true, "popd": true, "eval": true, "source": true, ".": true, "trap": true,
}

func (a *analyzer) testClause(c *syntax.TestClause, sc *scope) {
	a.addUnit(Unit{Text: sc.slice(c), Context: CtxTest})
	inspect(c.X, func(n syntax.Node) bool {
		switch t := n.(type) {
		case *syntax.UnaryTest:
			if fileTest(t.Op) {
				a.testOperand(t.X, sc)
			}
		case *syntax.BinaryTest:
			if t.Op == syntax.TsNewer || t.Op == syntax.TsOlder || t.Op == syntax.TsDevIno {
				a.testOperand(t.X, sc)
				a.testOperand(t.Y, sc)
			}
		}
		return true
	})
	a.substs(c, "", sc)
}

func (a *analyzer) testOperand(x syntax.TestExpr, sc *scope) {
	if w, ok := x.(*syntax.Word); ok && w != nil {
		a.pathWord(sc.word(w, valueMode), sc, isFile)
	}
}

// fileTest reports whether a [[ ]] unary operator looks at a file.
func fileTest(op syntax.UnTestOperator) bool {
	switch op {
	case syntax.TsNot, syntax.TsParen, syntax.TsEmpStr, syntax.TsNempStr,
		syntax.TsOptSet, syntax.TsVarSet, syntax.TsRefVar, syntax.TsFdTerm:
		return false
	}
	return true
}

// decl walks declare, local, export, readonly and typeset: one unit, and
// the commands inside the values.
func (a *analyzer) decl(c *syntax.DeclClause, sc *scope) {
	text := litValue(c.Variant)
	for _, as := range c.Args {
		text += " " + sc.assignText(as)
	}
	i := a.addUnit(Unit{Text: text, Context: CtxDeclaration})
	for _, as := range c.Args {
		if as.Name != nil {
			if !as.Naked && injectsAssign(as) {
				a.setFloor(i, SentinelIndirection)
			}
			sc.vars.unset(as.Name.Value)
		}
		if as.Value != nil {
			a.dataSubsts(sc.word(as.Value, valueMode).value, sc)
		}
		a.substs(as, "", sc)
	}
}

// assignText is an assignment after quote removal: "X=$(rm y)".
func (sc *scope) assignText(as *syntax.Assign) string {
	switch {
	case as.Name == nil:
		return sc.word(as.Value, valueMode).text
	case as.Naked:
		return as.Name.Value
	case as.Array != nil || as.Index != nil:
		return sc.slice(as)
	}
	op := "="
	if as.Append {
		op = "+="
	}
	return as.Name.Value + op + sc.word(as.Value, valueMode).text
}

// assignment walks a statement of assignments only: one unit as written
// (anchor behaviour), and the literal values the rest of the script may use.
func (a *analyzer) assignment(c *syntax.CallExpr, sc *scope) {
	i := a.addUnit(Unit{Text: sc.slice(c), Context: CtxAssignment})
	for _, as := range c.Assigns {
		if as.Name == nil {
			continue
		}
		name := as.Name.Value
		if injectsAssign(as) {
			a.setFloor(i, SentinelIndirection)
		}
		f := sc.colonTilde(as.Value, sc.word(as.Value, valueMode))
		a.dataSubsts(f.value, sc)
		if sc.facts.eligible(name) && plainAssign(as) && f.known {
			sc.vars.set(name, f.value)
		} else {
			sc.vars.unset(name)
		}
	}
	for _, as := range c.Assigns {
		a.substs(as, "", sc)
	}
}

// substs walks the command and process substitutions inside n. ctx, when
// set, overrides their context (here-document bodies).
func (a *analyzer) substs(n syntax.Node, ctx Context, sc *scope) {
	if isNil(n) {
		return
	}
	inspect(n, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst:
			sc.isolate(func() { a.stmts(n.Stmts, orCtx(ctx, CtxCmdSubst), sc) })
			return false
		case *syntax.ProcSubst:
			sc.isolate(func() { a.stmts(n.Stmts, orCtx(ctx, CtxProcSubst), sc) })
			return false
		default:
			a.codeNode(n, sc)
		}
		return true
	})
}

// literalParts reports whether a word's parts are literal and quoted text
// only, with nothing to expand.
func literalParts(parts []syntax.WordPart) bool {
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
		case *syntax.DblQuoted:
			if !literalParts(p.Parts) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

func orCtx(ctx, def Context) Context {
	if ctx != "" {
		return ctx
	}
	return def
}

// isNil reports whether n is nil or a typed nil pointer, which inspect
// cannot take.
func isNil(n syntax.Node) bool {
	switch n := n.(type) {
	case nil:
		return true
	case *syntax.Word:
		return n == nil
	case *syntax.Assign:
		return n == nil
	case *syntax.Lit:
		return n == nil
	}
	return false
}

// redirectSubsts walks the commands inside a redirect: substitutions in its
// target and, in an unquoted here-document, in its body.
func (a *analyzer) redirectSubsts(r *syntax.Redirect, sc *scope) {
	a.substs(r.Word, "", sc)
	a.substs(r.Hdoc, CtxHeredoc, sc)
}

// stdinOf returns the statement's last redirect of standard input.
func stdinOf(rs []*syntax.Redirect) *syntax.Redirect {
	var in *syntax.Redirect
	for _, r := range rs {
		if r.N != nil && r.N.Value != "0" {
			continue
		}
		switch r.Op {
		case syntax.RdrIn, syntax.RdrInOut, syntax.DplIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			in = r
		}
	}
	return in
}
