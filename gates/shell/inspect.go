package shell

import "mvdan.cc/sh/v3/syntax"

// inspect calls f for n and, while f returns true, for every node below it,
// depth first, like syntax.Walk, except that it never visits what cannot
// hold a command, an assignment or an expansion: literals (*syntax.Lit,
// *syntax.SglQuoted), comments, and words made only of those (a literal word
// in double quotes included). It is the walk of the analysis's hot paths:
// syntax.Walk also visits every literal and pays for a deferred call on
// each node. TestInspectMatchesWalk checks that both visit the same nodes.
func inspect(n syntax.Node, f func(syntax.Node) bool) {
	switch n := n.(type) {
	case nil, *syntax.Lit, *syntax.SglQuoted, *syntax.Comment:
		return
	case *syntax.Word:
		if n == nil || literalParts(n.Parts) || !f(n) {
			return
		}
		inspectParts(n.Parts, f)
		return
	}
	if !f(n) {
		return
	}
	switch n := n.(type) {
	case *syntax.File:
		inspectStmts(n.Stmts, f)
	case *syntax.Stmt:
		if n.Cmd != nil {
			inspect(n.Cmd, f)
		}
		for _, r := range n.Redirs {
			inspect(r, f)
		}
	case *syntax.Assign:
		inspectWord(n.Value, f)
		inspectArithm(n.Index, f)
		if n.Array != nil {
			inspect(n.Array, f)
		}
	case *syntax.Redirect:
		inspectWord(n.Word, f)
		inspectWord(n.Hdoc, f)
	case *syntax.CallExpr:
		for _, as := range n.Assigns {
			inspect(as, f)
		}
		inspectWords(n.Args, f)
	case *syntax.Subshell:
		inspectStmts(n.Stmts, f)
	case *syntax.Block:
		inspectStmts(n.Stmts, f)
	case *syntax.IfClause:
		inspectStmts(n.Cond, f)
		inspectStmts(n.Then, f)
		if n.Else != nil {
			inspect(n.Else, f)
		}
	case *syntax.WhileClause:
		inspectStmts(n.Cond, f)
		inspectStmts(n.Do, f)
	case *syntax.ForClause:
		inspect(n.Loop, f)
		inspectStmts(n.Do, f)
	case *syntax.WordIter:
		inspectWords(n.Items, f)
	case *syntax.CStyleLoop:
		inspectArithm(n.Init, f)
		inspectArithm(n.Cond, f)
		inspectArithm(n.Post, f)
	case *syntax.BinaryCmd:
		inspect(n.X, f)
		inspect(n.Y, f)
	case *syntax.FuncDecl:
		inspect(n.Body, f)
	case *syntax.DblQuoted:
		inspectParts(n.Parts, f)
	case *syntax.CmdSubst:
		inspectStmts(n.Stmts, f)
	case *syntax.ParamExp:
		if n.NestedParam != nil {
			inspect(n.NestedParam, f)
		}
		inspectArithm(n.Index, f)
		if n.Slice != nil {
			inspectArithm(n.Slice.Offset, f)
			inspectArithm(n.Slice.Length, f)
		}
		if n.Repl != nil {
			inspectWord(n.Repl.Orig, f)
			inspectWord(n.Repl.With, f)
		}
		if n.Exp != nil {
			inspectWord(n.Exp.Word, f)
		}
	case *syntax.ArithmExp:
		inspectArithm(n.X, f)
	case *syntax.ArithmCmd:
		inspectArithm(n.X, f)
	case *syntax.BinaryArithm:
		inspectArithm(n.X, f)
		inspectArithm(n.Y, f)
	case *syntax.BinaryTest:
		inspectTest(n.X, f)
		inspectTest(n.Y, f)
	case *syntax.UnaryArithm:
		inspectArithm(n.X, f)
	case *syntax.UnaryTest:
		inspectTest(n.X, f)
	case *syntax.ParenArithm:
		inspectArithm(n.X, f)
	case *syntax.FlagsArithm:
		inspectArithm(n.X, f)
	case *syntax.ParenTest:
		inspectTest(n.X, f)
	case *syntax.CaseClause:
		inspectWord(n.Word, f)
		for _, item := range n.Items {
			inspect(item, f)
		}
	case *syntax.CaseItem:
		inspectWords(n.Patterns, f)
		inspectStmts(n.Stmts, f)
	case *syntax.TestClause:
		inspectTest(n.X, f)
	case *syntax.DeclClause:
		for _, as := range n.Args {
			inspect(as, f)
		}
	case *syntax.ArrayExpr:
		for _, e := range n.Elems {
			inspect(e, f)
		}
	case *syntax.ArrayElem:
		inspectArithm(n.Index, f)
		inspectWord(n.Value, f)
	case *syntax.ExtGlob:
	case *syntax.ProcSubst:
		inspectStmts(n.Stmts, f)
	case *syntax.TimeClause:
		if n.Stmt != nil {
			inspect(n.Stmt, f)
		}
	case *syntax.CoprocClause:
		inspectWord(n.Name, f)
		inspect(n.Stmt, f)
	case *syntax.LetClause:
		for _, x := range n.Exprs {
			inspectArithm(x, f)
		}
	case *syntax.TestDecl:
		inspectWord(n.Description, f)
		inspect(n.Body, f)
	default:
		// A node type this walk does not know: syntax.Walk lists its
		// children, so that nothing below it is missed.
		for _, child := range children(n) {
			inspect(child, f)
		}
	}
}

// inspectBelow is inspect(n, f) without the call of f for n itself: the
// walk of the nodes below n, for a caller that has seen n.
func inspectBelow(n syntax.Node, f func(syntax.Node) bool) {
	top := true
	inspect(n, func(m syntax.Node) bool {
		if top {
			top = false
			return true
		}
		return f(m)
	})
}

// children returns the nodes directly below n, as syntax.Walk finds them.
func children(n syntax.Node) []syntax.Node {
	var out []syntax.Node
	syntax.Walk(n, func(m syntax.Node) bool {
		if m == n {
			return true
		}
		if m != nil {
			out = append(out, m)
		}
		return false
	})
	return out
}

func inspectStmts(list []*syntax.Stmt, f func(syntax.Node) bool) {
	for _, s := range list {
		inspect(s, f)
	}
}

func inspectWords(list []*syntax.Word, f func(syntax.Node) bool) {
	for _, w := range list {
		inspectWord(w, f)
	}
}

func inspectParts(list []syntax.WordPart, f func(syntax.Node) bool) {
	for _, p := range list {
		inspect(p, f)
	}
}

// inspectWord, inspectArithm and inspectTest keep a nil child (a typed nil
// pointer in an interface) from reaching inspect.
func inspectWord(w *syntax.Word, f func(syntax.Node) bool) {
	if w != nil {
		inspect(w, f)
	}
}

func inspectArithm(x syntax.ArithmExpr, f func(syntax.Node) bool) {
	if w, ok := x.(*syntax.Word); ok {
		inspectWord(w, f)
	} else if x != nil {
		inspect(x, f)
	}
}

func inspectTest(x syntax.TestExpr, f func(syntax.Node) bool) {
	if w, ok := x.(*syntax.Word); ok {
		inspectWord(w, f)
	} else if x != nil {
		inspect(x, f)
	}
}
