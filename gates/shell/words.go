package shell

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// A field is one word of a command after brace expansion, parameter
// substitution, field splitting and quote removal; one shell word may give
// several fields, or none.
type field struct {
	raw   string // quotes removed, expansions as written: "$DIR/x"
	text  string // raw with the command's own literal variables substituted
	value string // fully expanded (~, $HOME, literal variables); valid if known
	pat   string // value as a glob pattern: quoted metacharacters escaped
	lits  string // the literal parts only, for words that stay unknown
	known bool   // every expansion was resolved
	glob  bool   // an unquoted glob character or extended glob is left
	proc  bool   // contains a process substitution
	// operand is the word's value when the operands of its ${x:-…},
	// ${x:+…} and ${x:=…} expansions win over their unknown variables;
	// valid when hasOperand is set and noOperand is not.
	operand               string
	hasOperand, noOperand bool
	// overflow is set for a word past an expansion budget: unknown, and a
	// path word whatever it looks like.
	overflow bool
	// pathy is set when an unknown expansion works on a variable whose
	// value is a path ("${F#a:}"): the word is a path word.
	pathy bool
}

// literalField is a field for a word the analysis makes up (xargs' echo).
func literalField(s string) field {
	return field{raw: s, text: s, value: s, pat: escapeGlob(s), lits: s, known: true}
}

// seg is one piece of a word before fields are formed.
type seg struct {
	raw, text, value, pat string
	known                 bool
	lit                   bool // written literally, not an expansion
	split                 bool // unquoted expansion: subject to field splitting
	glob, proc            bool
	operand               string // see field.operand
	hasOperand            bool
	pathy                 bool // see field.pathy
}

// add appends s to f. The operand is built lazily; its plain twin is add
// as it was (oldAdd in the test), and TestFieldAddMatchesOld keeps them
// equal.
func (f *field) add(s seg) {
	f.raw += s.raw
	f.text += s.text
	value := f.value
	f.value += s.value
	f.pat += s.pat
	if s.lit {
		f.lits += s.raw
	}
	f.mergeFlags(s)
	// The operand is built only once an operand seg comes: until then it
	// is the value of the known segs before it, which is f's value (or
	// noOperand is set and the operand is of no use).
	switch {
	case s.hasOperand:
		if !f.hasOperand {
			f.operand = value
		}
		f.operand += s.operand
		f.hasOperand = true
	case s.known:
		if f.hasOperand {
			f.operand += s.value
		}
	default:
		f.noOperand = true
	}
}

// mergeFlags takes s's flags into f, as adding s does.
func (f *field) mergeFlags(s seg) {
	f.known = f.known && s.known
	f.glob = f.glob || s.glob
	f.proc = f.proc || s.proc
	f.pathy = f.pathy || s.pathy
}

// addAll adds each seg of run in turn, as add does, building each string
// once: add joins strings, and a word of thousands of parts (`ls`×16,000)
// made each join copy all the parts before it. A short run is added seg by
// seg, which costs nothing for the first (a string added to "" is not
// copied). TestAddAllIsAdd keeps the two equal.
func (f *field) addAll(run []seg) {
	if len(run) <= 4 {
		for _, s := range run {
			f.add(s)
		}
		return
	}
	var raw, text, value, pat, lits, operand strings.Builder
	for _, b := range []struct {
		b    *strings.Builder
		have string
		part func(seg) string
	}{
		{&raw, f.raw, func(s seg) string { return s.raw }},
		{&text, f.text, func(s seg) string { return s.text }},
		{&value, f.value, func(s seg) string { return s.value }},
		{&pat, f.pat, func(s seg) string { return s.pat }},
	} {
		n := len(b.have)
		for _, s := range run {
			n += len(b.part(s))
		}
		b.b.Grow(n)
		b.b.WriteString(b.have)
	}
	lits.WriteString(f.lits)
	operand.WriteString(f.operand)
	for _, s := range run {
		raw.WriteString(s.raw)
		text.WriteString(s.text)
		before := value.String() // the value of the segs before s
		value.WriteString(s.value)
		pat.WriteString(s.pat)
		if s.lit {
			lits.WriteString(s.raw)
		}
		f.mergeFlags(s)
		switch {
		case s.hasOperand:
			if !f.hasOperand {
				operand.Reset()
				operand.WriteString(before)
			}
			operand.WriteString(s.operand)
			f.hasOperand = true
		case s.known:
			if f.hasOperand {
				operand.WriteString(s.value)
			}
		default:
			f.noOperand = true
		}
	}
	f.raw, f.text, f.value, f.pat, f.lits = raw.String(), text.String(), value.String(), pat.String(), lits.String()
	f.operand = operand.String()
}

// mode says which expansions a word undergoes where it stands (brace
// expansion is done by appendFields, for arguments only).
type mode struct {
	split, tilde   bool
	doc, quotedDoc bool // a here-document body, and whether its delimiter was quoted
}

var (
	argMode   = mode{split: true, tilde: true}
	valueMode = mode{tilde: true} // assignment values and redirect targets
)

// appendFields expands w as a command argument and appends its fields.
func (a *analyzer) appendFields(dst []field, w *syntax.Word, sc *scope) []field {
	if f, ok := plainField(w); ok {
		a.fieldsLeft--
		return append(dst, f)
	}
	if !hasBraceLit(w) { // braceWords would return w alone
		if a.fieldsLeft < 1 {
			return append(dst, sc.unknownWord(w))
		}
		n := len(dst)
		dst = appendSplit(dst, sc.segs(w.Parts, argMode))
		a.fieldsLeft -= len(dst) - n
		return dst
	}
	words, ok := braceWords(w, a.bracesLeft)
	if len(words) > 1 || !ok {
		a.bracesLeft -= len(words) + 1
	}
	if !ok || a.fieldsLeft < len(words) {
		return append(dst, sc.unknownWord(w))
	}
	n := len(dst)
	for _, bw := range words {
		dst = appendSplit(dst, sc.segs(bw.Parts, argMode))
	}
	a.fieldsLeft -= len(dst) - n
	return dst
}

// plainField is the fast path of fields for the common word that is one
// literal with nothing to expand. Its plain twin is the general path,
// appendSplit of sc.segs; TestPlainFieldIsSegsSplit keeps them equal.
func plainField(w *syntax.Word) (field, bool) {
	if len(w.Parts) != 1 {
		return field{}, false
	}
	var v string
	switch p := w.Parts[0].(type) {
	case *syntax.Lit:
		if hasByte(p.Value, &plainStop) {
			return field{}, false
		}
		v = p.Value
		f := field{raw: v, text: v, value: v, pat: v, lits: v, known: true}
		f.glob = hasGlob(v)
		return f, true
	case *syntax.SglQuoted:
		if p.Dollar {
			return field{}, false
		}
		v = p.Value
	default:
		return field{}, false
	}
	return field{raw: v, text: v, value: v, pat: escapeGlob(v), lits: v, known: true}, true
}

// word expands w as one field: an assignment value, a redirect target or a
// here-document body.
func (sc *scope) word(w *syntax.Word, m mode) field {
	if w == nil {
		return literalField("")
	}
	f := field{known: true}
	f.addAll(sc.segs(w.Parts, m))
	f.glob = f.glob || hasGlob(f.pat)
	return f
}

// braceWords performs brace expansion; ok is false past maxBraceFields or
// left words, and the words made so far are returned to be counted.
func braceWords(w *syntax.Word, left int) ([]*syntax.Word, bool) {
	if !hasBraceLit(w) {
		return []*syntax.Word{w}, true
	}
	cp := &syntax.Word{Parts: slices.Clone(w.Parts)}
	if !syntax.SplitBraces(cp) {
		return []*syntax.Word{w}, true
	}
	if braceExps(cp.Parts, maxBraceExps) > maxBraceExps {
		// Each word made costs the expansion time in the square of the
		// braces: a word of a thousand took seconds for its first few.
		return nil, false
	}
	var out []*syntax.Word
	for bw, err := range expand.BracesSeq(nil, cp) {
		if err != nil || len(out) >= min(maxBraceFields, left) {
			return out, false
		}
		out = append(out, bw)
	}
	return out, true
}

// braceExps counts the brace expressions in parts, nested ones too, up to
// just past limit.
func braceExps(parts []syntax.WordPart, limit int) int {
	n := 0
	for _, p := range parts {
		b, ok := p.(*syntax.BraceExp)
		if !ok {
			continue
		}
		n++
		for _, e := range b.Elems {
			if n > limit {
				return n
			}
			n += braceExps(e.Parts, limit-n)
		}
		if n > limit {
			return n
		}
	}
	return n
}

// hasBraceLit reports whether a literal part of w has a "{", which brace
// expansion may expand.
func hasBraceLit(w *syntax.Word) bool {
	return slices.ContainsFunc(w.Parts, func(p syntax.WordPart) bool {
		l, ok := p.(*syntax.Lit)
		return ok && strings.IndexByte(l.Value, '{') >= 0
	})
}

func (sc *scope) unknownWord(w *syntax.Word) field {
	raw := sc.slice(w)
	return field{raw: raw, text: raw, pat: escapeGlob(raw), overflow: true}
}

// slice returns the source text of n, or "" when n has no valid position in
// the script walked.
func (sc *scope) slice(n syntax.Node) string {
	start, end := n.Pos(), n.End()
	if !start.IsValid() || !end.IsValid() {
		return ""
	}
	i, j := int(start.Offset()), int(end.Offset())
	if i < 0 || j > len(sc.src) || i > j {
		return ""
	}
	return sc.src[i:j]
}

// span returns the source text from the start of from to the end of to,
// or "" when they have no valid position in it.
func (sc *scope) span(from, to syntax.Node) string {
	start, end := from.Pos(), to.End()
	if !start.IsValid() || !end.IsValid() {
		return ""
	}
	i, j := int(start.Offset()), int(end.Offset())
	if i < 0 || j > len(sc.src) || i > j {
		return ""
	}
	return sc.src[i:j]
}

// segs returns the segments of a word's parts, in a buffer that the next
// call reuses.
func (sc *scope) segs(parts []syntax.WordPart, m mode) []seg {
	sc.segBuf = sc.appendSegs(sc.segBuf[:0], parts, m, false)
	return sc.segBuf
}

func (sc *scope) appendSegs(out []seg, parts []syntax.WordPart, m mode, quoted bool) []seg {
	for i, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if i == 0 && m.tilde && !quoted && strings.HasPrefix(p.Value, "~") {
				if t, rest, ok := sc.tilde(p.Value, len(parts) > 1); ok {
					out = append(out, t, litSeg(rest, m, false))
					continue
				}
			}
			out = append(out, litSeg(p.Value, m, quoted))
		case *syntax.SglQuoted:
			v := p.Value
			if p.Dollar {
				v = ansiC(v)
			}
			out = append(out, seg{raw: v, text: v, value: v, pat: escapeGlob(v), known: true, lit: true})
		case *syntax.DblQuoted:
			if len(p.Parts) == 0 { // "" is an empty word, not no word
				out = append(out, seg{known: true, lit: true})
			}
			out = sc.appendSegs(out, p.Parts, m, true)
		case *syntax.ParamExp:
			out = append(out, sc.param(p, m, quoted))
		case *syntax.ExtGlob:
			raw := p.Op.String() + litValue(p.Pattern) + ")"
			out = append(out, seg{raw: raw, text: raw, pat: raw, glob: true})
		case *syntax.ProcSubst:
			raw := sc.slice(p)
			out = append(out, seg{raw: raw, text: raw, pat: escapeGlob(raw), proc: true})
		default: // command substitution, arithmetic
			raw := sc.slice(p)
			out = append(out, seg{raw: raw, text: raw, pat: escapeGlob(raw)})
		}
	}
	return out
}

func litValue(l *syntax.Lit) string {
	if l == nil {
		return ""
	}
	return l.Value
}

func litSeg(s string, m mode, quoted bool) seg {
	var v, pat string
	switch {
	case quoted:
		v = unescapeDouble(s)
		pat = escapeGlob(v)
	case m.doc && m.quotedDoc:
		v, pat = s, escapeGlob(s)
	case m.doc:
		v = unescapeDoc(s)
		pat = escapeGlob(v)
	default:
		v, pat = unquoteLit(s)
	}
	return seg{raw: v, text: v, value: v, pat: pat, known: true, lit: true}
}

// tilde expands the tilde prefix of the first literal of a word. ok is false
// when the prefix runs into a quoted or expanded part (no expansion then).
func (sc *scope) tilde(lit string, more bool) (t seg, rest string, ok bool) {
	prefix := lit[1:]
	if i := strings.IndexByte(lit, '/'); i >= 0 {
		prefix, rest = lit[1:i], lit[i:]
	} else if more {
		return seg{}, "", false
	}
	if strings.ContainsRune(prefix, '\\') {
		return seg{}, "", false
	}
	raw := "~" + prefix
	t = seg{raw: raw, text: raw, pat: escapeGlob(raw), lit: true}
	if home, known := sc.vars.get("HOME"); known && prefix == "" {
		t.value, t.pat, t.known = home, escapeGlob(home), true
	}
	return t, rest, true
}

// colonTilde expands the tildes bash expands after a ":" in an assignment
// value written as one unquoted literal ("P=a:~/bin").
func (sc *scope) colonTilde(w *syntax.Word, f field) field {
	if w == nil || len(w.Parts) != 1 || !f.known || !strings.Contains(f.value, ":~") {
		return f
	}
	l, ok := w.Parts[0].(*syntax.Lit)
	home, known := sc.vars.get("HOME")
	if !ok || !known || strings.ContainsRune(l.Value, '\\') {
		return f
	}
	parts := strings.Split(f.value, ":")
	for i, p := range parts {
		if i > 0 && (p == "~" || strings.HasPrefix(p, "~/")) {
			parts[i] = home + p[1:]
		}
	}
	f.value = strings.Join(parts, ":")
	f.pat = escapeGlob(f.value)
	return f
}

// param expands $name and ${name}: HOME and the script's own literal
// variables are known, anything else is not.
func (sc *scope) param(p *syntax.ParamExp, m mode, quoted bool) seg {
	raw := sc.slice(p)
	s := seg{raw: raw, text: raw, pat: escapeGlob(raw)}
	if p.Param != nil {
		// ${F#x}, ${F:1}…: unknown, but a path word when F's value is one.
		if v, ok := sc.vars.get(p.Param.Value); ok && (strings.Contains(v, "/") || strings.HasPrefix(v, "~") || strings.HasPrefix(v, ".")) {
			s.pathy = true
		}
	}
	if p.Exp != nil {
		return sc.operandParam(p, s, m, quoted)
	}
	name, simple := simpleParam(p)
	v, known := sc.vars.get(name)
	if !simple || !known {
		return s
	}
	s.value, s.known = v, true
	if name != "HOME" {
		s.text = v
	}
	if quoted || m.doc {
		s.pat = escapeGlob(v)
	} else {
		s.pat, s.split = v, m.split
	}
	return s
}

// operandParam expands ${name:-word}, ${name:+word}, ${name:=word} and
// ${name:?word} (and their forms without the colon): the operand is a word
// of its own (issue 12). With name's value known the result is
// known; otherwise the result is unknown, and the operand is what the word
// is when the operand wins (s.operand).
func (sc *scope) operandParam(p *syntax.ParamExp, s seg, m mode, quoted bool) seg {
	op := p.Exp.Op
	var useOperand func(v string) bool // whether the operand wins over value v
	switch op {
	case syntax.DefaultUnsetOrNull, syntax.AssignUnsetOrNull:
		useOperand = func(v string) bool { return v == "" }
	case syntax.DefaultUnset, syntax.AssignUnset, syntax.ErrorUnset, syntax.ErrorUnsetOrNull:
		useOperand = func(string) bool { return false }
	case syntax.AlternateUnsetOrNull:
		useOperand = func(v string) bool { return v != "" }
	case syntax.AlternateUnset:
		useOperand = func(string) bool { return true }
	default:
		return s
	}
	cp := *p
	cp.Exp = nil
	name, simple := simpleParam(&cp)
	if !simple {
		return s
	}
	// The operand undergoes tilde expansion unless quoted.
	w := literalField("")
	if p.Exp.Word != nil {
		w = field{known: true}
		w.addAll(sc.appendSegs(nil, p.Exp.Word.Parts, mode{tilde: !quoted && m.tilde}, quoted))
	}
	v, known := sc.vars.get(name)
	switch {
	case !known:
		if op != syntax.ErrorUnset && op != syntax.ErrorUnsetOrNull && w.known {
			s.operand, s.hasOperand = w.value, true
		}
		return s
	case !useOperand(v):
		if op == syntax.AlternateUnsetOrNull || op == syntax.AlternateUnset {
			v = "" // a set variable's ${v:+…} is empty when null
		}
	case !w.known:
		return s
	default:
		v = w.value
	}
	s.value, s.text, s.known = v, v, true
	if quoted || m.doc {
		s.pat = escapeGlob(v)
	} else {
		s.pat, s.split = v, m.split
	}
	return s
}

// simpleParam returns the name of a $name or ${name} expansion.
func simpleParam(p *syntax.ParamExp) (string, bool) {
	simple := p.Param != nil && p.Flags == nil && p.NestedParam == nil &&
		!p.Excl && !p.Length && !p.Width && !p.IsSet &&
		p.Split == syntax.OptUnset && p.GlobSubst == syntax.OptUnset && p.RcExpand == syntax.OptUnset &&
		p.Index == nil && len(p.Modifiers) == 0 && p.Slice == nil && p.Repl == nil &&
		p.Names == 0 && p.Exp == nil
	if !simple || identPrefix(p.Param.Value) != p.Param.Value {
		return "", false
	}
	return p.Param.Value, true
}

// appendSplit forms fields from segments and appends them to out: unquoted
// known expansions are split on blanks, and an unquoted expansion that is
// empty leaves no field.
func appendSplit(out []field, segs []seg) []field {
	cur, open := field{known: true}, false
	// from is where the run of segs not yet added to cur starts: a run of
	// segs that are not split goes to cur in one addAll.
	from := 0
	flush := func() {
		if open {
			cur.glob = cur.glob || hasGlob(cur.pat)
			out = append(out, cur)
		}
		cur, open = field{known: true}, false
	}
	for i, s := range segs {
		if !s.split || !hasByte(s.value, &ifsBytes) {
			open = open || !s.split || s.value != ""
			continue
		}
		cur.addAll(segs[from:i])
		from = i + 1
		pieces := strings.FieldsFunc(s.value, isIFS)
		if isIFS(firstRune(s.value)) {
			flush()
		}
		for i, p := range pieces {
			if i > 0 {
				flush()
			}
			cur.add(seg{raw: p, text: p, value: p, pat: p, known: true})
			open = true
		}
		if len(pieces) > 0 && isIFS(lastRune(s.value)) {
			flush()
		}
	}
	cur.addAll(segs[from:])
	flush()
	return out
}

const ifs = " \t\n"

func isIFS(r rune) bool { return r == ' ' || r == '\t' || r == '\n' }

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

func lastRune(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}

// unquoteLit removes the backslashes of an unquoted literal, and returns it
// as a glob pattern too, with the escaped characters escaped.
func unquoteLit(s string) (value, pat string) {
	if !strings.ContainsRune(s, '\\') {
		return s, s
	}
	var v, p strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) {
			i++
			c = s[i]
		}
		v.WriteByte(c)
		if c == '\\' || isGlobByte(c) {
			p.WriteByte('\\')
		}
		p.WriteByte(c)
	}
	return v.String(), p.String()
}

// unescapeDouble removes the backslashes that double quotes honour.
func unescapeDouble(s string) string { return unescape(s, "$`\"\\\n") }

// unescapeDoc removes the backslashes an unquoted here-document honours.
func unescapeDoc(s string) string { return unescape(s, "$`\\\n") }

func unescape(s, special string) string {
	if !strings.ContainsRune(s, '\\') {
		return s
	}
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte(special, s[i+1]) >= 0 {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		sb.WriteByte(s[i])
	}
	return sb.String()
}

// byteSet is a set of ASCII bytes, for the scans done on every word.
type byteSet [256]bool

func newByteSet(chars string) (t byteSet) {
	for i := 0; i < len(chars); i++ {
		t[chars[i]] = true
	}
	return t
}

var (
	plainStop = newByteSet("\\~{")   // a literal without these needs no expansion
	ifsBytes  = newByteSet(ifs)      // field separators
	globBytes = newByteSet("*?[]\\") // bytes escapeGlob escapes
	wildBytes = newByteSet("*?")     // wildcard bytes of a rule
)

// hasByte reports whether s contains a byte of set.
func hasByte(s string, set *byteSet) bool { return indexByte(s, set) >= 0 }

func isGlobByte(c byte) bool { return c == '*' || c == '?' || c == '[' || c == ']' }

// escapeGlob makes s match only itself as a glob pattern: a backslash
// before every byte of globBytes, the runs between them copied at once
// (a heredoc's text is one word). escapeGlobBytes is its plain twin, a
// byte at a time; TestEscapeGlobIsTheByteLoop keeps them equal.
func escapeGlob(s string) string {
	i := indexByte(s, &globBytes)
	if i < 0 {
		return s
	}
	var sb strings.Builder
	sb.Grow(len(s) + 8)
	for ; i >= 0; i = indexByte(s, &globBytes) {
		sb.WriteString(s[:i])
		sb.WriteByte('\\')
		sb.WriteByte(s[i])
		s = s[i+1:]
	}
	sb.WriteString(s)
	return sb.String()
}

// indexByte is the index of the first byte of s in set, -1 when none is.
func indexByte(s string, set *byteSet) int {
	for i := 0; i < len(s); i++ {
		if set[s[i]] {
			return i
		}
	}
	return -1
}

// hasGlob reports whether pat has an unescaped *, ? or [...].
func hasGlob(pat string) bool {
	open := false
	for i := 0; i < len(pat); i++ {
		switch pat[i] {
		case '\\':
			i++
		case '*', '?':
			return true
		case '[':
			open = true
		case ']':
			if open {
				return true
			}
		}
	}
	return false
}

// ansiC decodes the escapes of a $'…' string like bash, which stops at a
// NUL byte.
func ansiC(s string) string {
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			sb.WriteByte(c)
			continue
		}
		i++
		if r, n, ok := ansiEscape(s[i:]); ok {
			if r == 0 {
				break
			}
			sb.WriteRune(r)
			i += n - 1
			continue
		}
		sb.WriteByte('\\')
		sb.WriteByte(s[i])
	}
	return sb.String()
}

var ansiSimple = map[byte]rune{
	'a': '\a', 'b': '\b', 'e': 0x1b, 'E': 0x1b, 'f': '\f', 'n': '\n', 'r': '\r',
	't': '\t', 'v': '\v', '\\': '\\', '\'': '\'', '"': '"', '?': '?',
}

// ansiEscape decodes the escape at the start of s (after the backslash) and
// returns the rune and the bytes it used.
func ansiEscape(s string) (rune, int, bool) {
	c := s[0]
	if r, ok := ansiSimple[c]; ok {
		return r, 1, true
	}
	switch c {
	case 'x':
		return numEscape(s[1:], 16, 2, 1)
	case 'u':
		return numEscape(s[1:], 16, 4, 1)
	case 'U':
		return numEscape(s[1:], 16, 8, 1)
	case 'c':
		if len(s) > 1 {
			return rune(s[1] & 0x1f), 2, true
		}
	}
	if c >= '0' && c <= '7' {
		return numEscape(s, 8, 3, 0)
	}
	return 0, 0, false
}

// numEscape reads up to max digits in base from s; skip is the length of
// the escape letter before them.
func numEscape(s string, base, max, skip int) (rune, int, bool) {
	n := 0
	for n < max && n < len(s) && isDigitIn(s[n], base) {
		n++
	}
	if n == 0 {
		return 0, 0, false
	}
	v, err := strconv.ParseUint(s[:n], base, 32)
	if err != nil || v > utf8.MaxRune {
		return utf8.RuneError, n + skip, true
	}
	return rune(v), n + skip, true
}

func isDigitIn(c byte, base int) bool {
	switch {
	case c >= '0' && c <= '7':
		return true
	case c == '8' || c == '9':
		return base == 16
	case c >= 'a' && c <= 'f', c >= 'A' && c <= 'F':
		return base == 16
	}
	return false
}
