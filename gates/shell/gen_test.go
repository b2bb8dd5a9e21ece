package shell

import (
	"math/rand/v2"
	"strings"
)

// genScript writes a random script over the constructs of the design (lists,
// pipelines, groups, bodies, substitutions, here-documents, comments, line
// endings, quoting, expansions) for the differential test. It never writes
// a "/": every command it names is a stub or a builtin.
func genScript(rng *rand.Rand) string {
	g := &gen{rng: rng, nl: "\n"}
	if rng.IntN(4) == 0 {
		g.nl = "\r\n"
	}
	var sb strings.Builder
	n := 1 + rng.IntN(4)
	for i := 0; i < n; i++ {
		sb.WriteString(g.stmt(3))
		sb.WriteString(g.end())
	}
	return sb.String()
}

type gen struct {
	rng *rand.Rand
	nl  string // the script's line ending
}

func (g *gen) pick(xs ...string) string { return xs[g.rng.IntN(len(xs))] }

func (g *gen) chance(n int) bool { return g.rng.IntN(n) == 0 }

// end ends a statement: a newline, a ;, a comment.
func (g *gen) end() string {
	switch g.rng.IntN(8) {
	case 0:
		return ";"
	case 1:
		return " # " + g.commentText() + g.nl
	case 2:
		return ";" + g.nl
	}
	return g.nl
}

func (g *gen) commentText() string {
	return g.pick("note", "x \\", "a 'b", `"q`, "$(c)", "`c`", "\\", "x;rm y", "#", "\r")
}

func (g *gen) stmt(depth int) string {
	if depth <= 0 {
		return g.simple(0)
	}
	switch g.rng.IntN(32) {
	case 0:
		return g.stmt(depth-1) + g.pick(" && ", " || ", "; ", " & ", " | ", " |& ", "&&"+g.nl, "|"+g.nl) + g.stmt(depth-1)
	case 1:
		return "{ " + g.list(depth-1) + "; }"
	case 2:
		return "(" + g.list(depth-1) + ")"
	case 3:
		return "if " + g.list(depth-1) + "; then " + g.list(depth-1) + g.pick("; fi", "; else "+g.list(depth-1)+"; fi")
	case 4:
		return "for v in " + g.words(3) + "; do " + g.list(depth-1) + "; done"
	case 5:
		return "while " + g.pick("false", "! true", "[[ -n '' ]]") + "; do " + g.list(depth-1) + "; done"
	case 6:
		return "case " + g.word() + " in " + g.pick("x", "*", "f?", "@(x|y)", "a|b") + ") " + g.list(depth-1) +
			g.pick(";;", ";&", ";;&") + " *) " + g.list(depth-1) + ";; esac"
	case 7:
		name := g.pick("fn", "fa")
		return g.pick(name+"() { ", "function "+name+" { ", "function "+name+"() { ") + g.list(depth-1) + "; }; " + name + " " + g.word()
	case 8:
		return g.heredoc(depth)
	case 9:
		return "bash -c " + g.quoteScript(g.list(depth-1))
	case 10:
		return "eval " + g.quoteScript(g.list(depth-1))
	case 11:
		return g.pick("v", "w") + "=" + g.word() + "; " + g.simple(depth-1)
	case 12:
		return "time " + g.pick("", "-p ", "-- ") + g.simple(depth-1)
	case 13:
		return "! " + g.simple(depth-1)
	case 14:
		return "[[ " + g.word() + g.pick(" == ", " != ", " = ") + g.word() + " ]] && " + g.simple(depth-1)
	case 15:
		return "(( " + g.pick("1", "0", "v+1", "$(c)") + " )) && " + g.simple(depth-1)
	case 16:
		return g.simple(depth-1) + " " + g.pick("> g.txt", "2>&1", "< f1", ">> out", "<<< "+g.word(), "&> out")
	case 17:
		return g.simple(depth-1) + " \\" + g.nl + " " + g.word()
	case 18:
		return g.simple(depth-1) + " " + g.pick("<("+g.simple(0)+")", "$("+g.stmt(depth-1)+")", "`"+g.simple(0)+"`")
	case 19:
		return "for ((i=0; i<1; i++)); do " + g.list(depth-1) + "; done"
	case 20:
		return g.pick("coproc ", "coproc N { ", "command ", "builtin ", "exec ") + g.simple(depth-1) + g.pick("", "", "; }")
	case 21:
		return g.pick("{", "{ ", "!", "! ") + g.simple(depth-1) + g.pick(";}", "; }", "}")
	case 22:
		return "alias " + g.pick("a", "b") + "=" + g.pick("rm", "'c x'") + g.nl + g.simple(depth-1)
	case 23:
		return g.simple(depth-1) + g.pick(" < <(", " > >(", " 2> >(") + g.simple(0) + ")"
	case 24:
		return g.pick("fx() ( ", "function fy ( ") + g.list(depth-1) + " ); " + g.pick("fx", "fy")
	case 25:
		return "case " + g.word() + " in (" + g.word() + ") " + g.list(depth-1) + ";; esac"
	case 26:
		return g.simple(depth-1) + " " + g.pick(">| out", "&>> out", "3>&1", "<> out", "0<&-") + g.pick("", " "+g.word())
	case 27:
		return "shopt -s extglob" + g.nl + g.simple(depth-1) + " " + g.pick("@(f1|x)", "!(f1)", "+(f)1", "*(x)")
	case 28:
		return "select v in " + g.word() + "; do " + g.list(depth-1) + "; break; done"
	case 29:
		return g.simple(depth-1) + " \\" + g.pick("", "\r") + "\n" + g.pick("", "#", " # x") + g.simple(0)
	}
	return g.simple(depth - 1)
}

func (g *gen) list(depth int) string {
	s := g.stmt(depth)
	if g.chance(3) {
		s += g.pick("; ", g.nl, " && ") + g.stmt(depth)
	}
	return s
}

func (g *gen) heredoc(depth int) string {
	delim := g.pick("E", "EOF", "'E'", `"E"`, "\\E", "E'x'")
	close := strings.NewReplacer("'", "", `"`, "", "\\", "").Replace(delim)
	op := g.pick("<<", "<<-")
	body := g.pick("text", "$(c)", "`a`", "x \\", "$v", "'", close+" x", "\t"+close, "rm y", close+"\r")
	tail := g.nl
	if g.chance(3) {
		tail = "\n"
	}
	return g.pick("cat", "a", "bash") + " " + op + delim + " " + g.pick("", "| b", "&& b") + g.nl +
		body + g.nl + close + tail + g.simple(depth-1)
}

// quoteScript quotes an inline script for bash -c or eval.
func (g *gen) quoteScript(s string) string {
	if g.chance(2) && !strings.Contains(s, "'") {
		return "'" + s + "'"
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "$", `\$`, "`", "\\`").Replace(s) + `"`
}

func (g *gen) simple(depth int) string {
	name := g.pick("a", "b", "c", "rm", "git", "cat", "a", "b", "echo", "true", ":")
	if g.chance(12) {
		name = g.pick(`\rm`, `'rm'`, `"c"`, `r\m`, "$'a'", "{a,b}", "c$v", "${w:-a}")
	}
	s := name
	if g.chance(8) {
		s = g.pick("v=1 ", "v=$(a) ", "w=x ") + s
	}
	n := g.rng.IntN(3)
	for i := 0; i < n; i++ {
		s += " " + g.word()
	}
	if depth > 0 && g.chance(4) {
		s += " " + g.pick("\"$(", "$(") + g.simple(depth-1) + g.pick(")\"", ")")
	}
	return s
}

func (g *gen) words(n int) string {
	var ws []string
	for i := 0; i < 1+g.rng.IntN(n); i++ {
		ws = append(ws, g.word())
	}
	return strings.Join(ws, " ")
}

func (g *gen) word() string {
	switch g.rng.IntN(36) {
	case 0:
		return "'q w'"
	case 1:
		return `"x $v"`
	case 2:
		return "$'a\\tb'"
	case 3:
		return "$v"
	case 4:
		return "${v:-d}"
	case 5:
		return "${w:+e}"
	case 6:
		return "f*"
	case 7:
		return "*.txt"
	case 8:
		return "{x,y}"
	case 9:
		return "~"
	case 10:
		return `x\ y`
	case 11:
		return "x#y"
	case 12:
		return "$(a)"
	case 13:
		return "$((1+2))"
	case 14:
		return "\"$(b x)\""
	case 15:
		return "?1"
	case 16:
		return "$'\\r'"
	case 17:
		return "x\ry"
	case 18:
		return `\#`
	case 19:
		return "${#v}"
	case 20:
		return "@(x|f1)"
	case 21:
		return "!x"
	case 22:
		return "$'it\\'s'"
	case 23:
		return "\"a\\\nb\""
	case 24:
		return "'a\\\nb'"
	case 25:
		return g.pick("$\"x\"", "$'\\x41'", "$'\\101'", "$'\\cA'", "$'a\\'b'", "$'\\u0041'", "$'\\e'")
	case 26:
		return g.pick("x\u00a0y", "\u00a0", "x\u2003y", "\u3000")
	case 27:
		return g.pick("${v:0:1}", "${v#x}", "${v%%y}", "${v^^}", "${v@Q}", "${!v}", "${v[0]}")
	case 28:
		return g.pick("`echo \\`a\\``", "\"`b`\"", "$(echo $(a))", "$(case x in x) a;; esac)")
	case 29:
		return g.pick("x\\", "\\\\", "'\\'", "\"\\\\\"", "x\\\\\\", "a\\ ")
	}
	return g.pick("x", "y", "f1", "-r", "--", "d", "z9", "-f")
}
