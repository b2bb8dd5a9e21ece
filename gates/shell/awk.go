package shell

import "strings"

// awk, gawk, mawk and nawk: a program that only transforms text is a plain
// command that reads its files. One that calls system(), pipes to or from
// a command, talks to the network (gawk's /inet files) or loads an
// extension runs code the analysis cannot follow: foreign code. The
// literal commands it gives system() or a pipe are bash, parsed as
// payloads; the literal files it prints to are writes and the files getline
// reads are reads.
func (a *analyzer) awk(i int, base string, c cmd, sc *scope) {
	spec := patternFirstSpecs[base]
	list, operands := scanArgs(spec.opts, c.args())
	var programs []field
	given, fromFile := false, false
	for _, o := range list {
		switch o.name {
		case "-e", "--source":
			given = true
			if o.has {
				programs = append(programs, o.value)
			}
		case "-f", "--file", "-i", "--include", "-l", "--load":
			given, fromFile = true, true // code from a file, like a script
		}
	}
	if !given && len(operands) > 0 {
		programs = append(programs, operands[0])
	}
	reads := len(programs) > 0 && !fromFile
	for _, p := range programs {
		if !p.known {
			a.foreignCode(i, "", "awk", "")
			reads = false
			continue
		}
		r := awkScan(p.value)
		if len(r.cmds) > 0 || r.unknown {
			a.foreignCode(i, "", "awk", "")
		}
		for _, s := range r.cmds {
			a.payload(s, sc, false)
		}
		for _, f := range r.outs {
			if !isDevice(f) {
				reads = false
				saved := a.readOnly
				a.readOnly = false
				a.pathWord(sc.expandTilde(literalField(f)), sc, isFile)
				a.readOnly = saved
			}
		}
		for _, f := range r.ins {
			if f != "-" && !isDevice(f) {
				a.readPath(sc.expandTilde(literalField(f)), sc, isFile)
			}
		}
		reads = reads && len(r.cmds) == 0 && !r.unknown
	}
	a.readOnly = reads
	a.patternFirst(i, spec, c.args(), sc)
}

// awkResult is what an awk program reaches outside its input and output.
type awkResult struct {
	cmds    []string // literal commands given to system() or a pipe
	outs    []string // literal files printed to
	ins     []string // literal files getline reads
	unknown bool     // a command, a file or code the scan cannot know
}

// awkToken is one token of an awk program.
type awkToken struct {
	kind byte // 's' string, 'n' name, 'o' operator, '\n' newline, 'r' regex, '0' number
	text string
}

// awkScan reads an awk program with a tokenizer of the awk language
// (strings, regular expressions, comments) and finds its commands and
// files.
func awkScan(prog string) awkResult {
	toks, ok := awkTokens(prog)
	var r awkResult
	if !ok {
		r.unknown = true
		return r
	}
	at := func(k int) awkToken {
		if k < 0 || k >= len(toks) {
			return awkToken{kind: '\n'}
		}
		return toks[k]
	}
	// ends reports whether the token at k ends an expression that a
	// literal string must stand alone in.
	ends := func(k int) bool {
		t := at(k)
		return t.kind == '\n' || (t.kind == 'o' && strings.Contains(";}),|>", t.text)) || (t.kind == 'o' && t.text == "||") || (t.kind == 'o' && t.text == "&&")
	}
	printDepth, depth := -1, 0
	for k := 0; k < len(toks); k++ {
		t := toks[k]
		switch {
		case t.kind == 'n' && (t.text == "print" || t.text == "printf"):
			printDepth = depth
		case t.kind == '\n' || (t.kind == 'o' && (t.text == ";" || t.text == "{" || t.text == "}")):
			printDepth = -1
		case t.kind == 'o' && t.text == "(":
			depth++
		case t.kind == 'o' && t.text == ")":
			depth--
		case t.kind == 'o' && t.text == "@":
			r.unknown = true // @load, @include: an extension or more code
		case t.kind == 'n' && t.text == "system" && at(k+1).text == "(":
			if at(k+2).kind == 's' && at(k+3).text == ")" {
				r.cmds = append(r.cmds, at(k+2).text)
			} else {
				r.unknown = true
			}
		case t.kind == 'o' && (t.text == "|" || t.text == "|&"):
			if at(k+1).kind == 'n' && at(k+1).text == "getline" {
				// "cmd" | getline: the command is the expression before.
				prev := at(k - 1)
				if prev.kind == 's' && (k < 2 || at(k-2).kind == 'o' || at(k-2).kind == '\n') && !strings.HasPrefix(prev.text, "/inet") {
					r.cmds = append(r.cmds, prev.text)
				} else {
					r.unknown = true
				}
				continue
			}
			next := at(k + 1)
			if next.kind == 's' && ends(k+2) && !strings.HasPrefix(next.text, "/inet") {
				r.cmds = append(r.cmds, next.text)
			} else {
				r.unknown = true
			}
		case t.kind == 'o' && (t.text == ">" || t.text == ">>") && printDepth >= 0 && depth == printDepth:
			if next := at(k + 1); next.kind == 's' && ends(k+2) {
				r.outs = append(r.outs, next.text)
			} else {
				r.unknown = true
			}
		case t.kind == 'o' && t.text == "<" && (at(k-1).text == "getline" || at(k-2).text == "getline"):
			if next := at(k + 1); next.kind == 's' && ends(k+2) {
				r.ins = append(r.ins, next.text)
			} else {
				r.unknown = true
			}
		}
	}
	return r
}

// awkTokens splits an awk program into tokens; ok is false for text it
// cannot read (an unclosed string or regular expression).
func awkTokens(s string) ([]awkToken, bool) {
	var toks []awkToken
	// regexAllowed: a "/" here starts a regular expression, not a division.
	regexAllowed := func() bool {
		if len(toks) == 0 {
			return true
		}
		t := toks[len(toks)-1]
		switch t.kind {
		case '\n':
			return true
		case 'n':
			return t.text == "print" || t.text == "printf" || t.text == "return" || t.text == "in" || t.text == "case"
		case 'o':
			return t.text != ")" && t.text != "]" && t.text != "++" && t.text != "--" && t.text != "$"
		}
		return false
	}
	for k := 0; k < len(s); {
		ch := s[k]
		switch {
		case ch == '\\' && k+1 < len(s) && s[k+1] == '\n':
			k += 2
		case ch == ' ' || ch == '\t' || ch == '\r':
			k++
		case ch == '\n':
			toks = append(toks, awkToken{kind: '\n'})
			k++
		case ch == '#':
			for k < len(s) && s[k] != '\n' {
				k++
			}
		case ch == '"':
			var sb strings.Builder
			k++
			for ; k < len(s) && s[k] != '"'; k++ {
				if s[k] == '\\' && k+1 < len(s) {
					k++
					switch s[k] {
					case 'n':
						sb.WriteByte('\n')
					case 't':
						sb.WriteByte('\t')
					default:
						sb.WriteByte(s[k])
					}
					continue
				}
				if s[k] == '\n' {
					return nil, false
				}
				sb.WriteByte(s[k])
			}
			if k >= len(s) {
				return nil, false
			}
			k++
			toks = append(toks, awkToken{kind: 's', text: sb.String()})
		case ch == '/' && regexAllowed():
			k++
			inClass := false
			for ; k < len(s) && (s[k] != '/' || inClass); k++ {
				switch {
				case s[k] == '\\':
					k++
				case s[k] == '[':
					inClass = true
				case s[k] == ']':
					inClass = false
				case s[k] == '\n':
					return nil, false
				}
			}
			if k >= len(s) {
				return nil, false
			}
			k++
			toks = append(toks, awkToken{kind: 'r'})
		case isIdentByte(ch, true):
			j := k
			for j < len(s) && isIdentByte(s[j], false) {
				j++
			}
			toks = append(toks, awkToken{kind: 'n', text: s[k:j]})
			k = j
		case ch >= '0' && ch <= '9' || ch == '.':
			j := k
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.' || s[j] == 'e' || s[j] == 'E' || s[j] == 'x' ||
				s[j] >= 'a' && s[j] <= 'f' || s[j] >= 'A' && s[j] <= 'F') {
				j++
			}
			toks = append(toks, awkToken{kind: '0', text: s[k:j]})
			k = j
		default:
			op := s[k : k+1]
			for _, two := range []string{"|&", "||", "&&", ">>", ">=", "<=", "==", "!=", "++", "--", "+=", "-=", "*=", "/=", "%=", "^=", "**"} {
				if strings.HasPrefix(s[k:], two) {
					op = two
					break
				}
			}
			toks = append(toks, awkToken{kind: 'o', text: op})
			k += len(op)
		}
	}
	return toks, true
}
