package policy

import (
	"unicode/utf8"
	"unsafe"

	"github.com/tailscale/hujson"
)

// jval is one value of a parsed JSONC file (policy files, agent front
// matter's JSON, mcp.json), in file order: what the checks of config.go
// read. It keeps only what they read — where the value starts, its kind,
// a scalar's literal text (a slice of the file, not a copy), an object's
// members, an array's elements — not the comments and white space around
// it (the file is edited through hujson in edit.go, never through this).
type jval struct {
	// ptr is a scalar's literal text, n bytes of the file's text (one
	// copy of the whole file as a string, so that the strings a File
	// keeps are pieces of it too), or an array's elements, or an object's
	// names and values (name, value, name, value, …), n jvals (children).
	// One pointer and 32-bit counts rather than a string and a slice: a
	// large policy is tens of thousands of values, and every byte of one
	// is memory a start faults in (24 bytes, not 56).
	ptr  unsafe.Pointer
	n    int32
	off  int32 // where the value starts (StartOffset)
	kind byte  // '{', '[', '"', '0' (number), 't', 'f', 'n'
	// plain is set (by the one-pass parser) for a string that reads as
	// its text between the quotes: no escape, valid UTF-8.
	plain bool
}

// maxJSONCBytes bounds a file the parser reads: its offsets and counts
// are 32-bit.
const maxJSONCBytes = 1<<31 - 1

// StartOffset is where the value starts in the file.
func (v *jval) StartOffset() int { return int(v.off) }

// lit is a scalar's literal text ("" for an object or an array).
func (v *jval) lit() string {
	if v.kind == '{' || v.kind == '[' || v.n == 0 {
		return ""
	}
	return unsafe.String((*byte)(v.ptr), v.n)
}

// setLit makes s v's literal text.
func (v *jval) setLit(s string) {
	v.ptr, v.n = unsafe.Pointer(unsafe.StringData(s)), int32(len(s))
}

// children are an array's elements, or an object's names and values.
func (v *jval) children() []jval {
	if (v.kind != '{' && v.kind != '[') || v.n == 0 {
		return nil
	}
	return unsafe.Slice((*jval)(v.ptr), v.n)
}

// setChildren makes kids v's children.
func (v *jval) setChildren(kids []jval) {
	if len(kids) == 0 {
		v.ptr, v.n = nil, 0
		return
	}
	v.ptr, v.n = unsafe.Pointer(unsafe.SliceData(kids)), int32(len(kids))
}

// jmember is one "name": value pair of an object: two jvals, laid out as
// two consecutive kids are.
type jmember struct {
	Name  jval
	Value jval
}

// Members are an object's members in file order (nil for other values).
func (v *jval) Members() []jmember {
	if v.kind != '{' || v.n == 0 {
		return nil
	}
	return unsafe.Slice((*jmember)(v.ptr), v.n/2)
}

// Elements are an array's elements (nil for other values).
func (v *jval) Elements() []jval {
	if v.kind != '[' {
		return nil
	}
	return v.children()
}

// Kind is the value's kind, as hujson names them.
func (v *jval) Kind() byte { return v.kind }

// Object returns v when it is an object.
func (v *jval) Object() (*jval, bool) { return v, v.kind == '{' }

// Array returns v when it is an array.
func (v *jval) Array() (*jval, bool) { return v, v.kind == '[' }

// Literal returns a scalar's literal text.
func (v *jval) Literal() (hujson.Literal, bool) {
	if v.kind == '{' || v.kind == '[' {
		return nil, false
	}
	return hujson.Literal(v.lit()), true // a copy: rare (numbers, unquoting)
}

// parseJSONCValue parses data as JWCC (JSON with comments and trailing
// commas) into a jval. One pass over the text builds the values directly;
// it accepts a strict subset of what hujson.Parse accepts (see fastJSONC),
// and anything else — every file with a syntax error, and the rare valid
// one outside that subset — goes through hujson.Parse, whose error (with
// its line and column) or tree is then used, so both routes give the same
// answer for every file (TestFastJSONCMatchesHujson, FuzzFastJSONC).
//
// text is data as a string (literals are pieces of it); kids is shape's
// count of the values in objects and arrays.
func parseJSONCValue(data []byte, text string, kids int) (*jval, error) {
	if v, ok := fastJSONCText(data, text, kids); ok {
		return v, nil
	}
	return slowJSONC(data)
}

// slowJSONC is parseJSONCValue through hujson.Parse.
func slowJSONC(data []byte) (*jval, error) {
	v, err := hujson.Parse(data)
	if err != nil && (len(data) == 0 || data[len(data)-1] != '\n') {
		// A line comment may end the file without a newline (JSONC); the
		// JSONC parser wants one. Errors keep the original positions.
		if v2, err2 := hujson.Parse(append(data[:len(data):len(data)], '\n')); err2 == nil {
			v, err = v2, nil
		}
	}
	if err != nil {
		return nil, err
	}
	out := fromHujson(&v)
	return &out, nil
}

// fromHujson converts a hujson tree.
func fromHujson(v *hujson.Value) jval {
	out := jval{off: int32(v.StartOffset), kind: byte(v.Value.Kind())}
	switch t := v.Value.(type) {
	case *hujson.Object:
		if len(t.Members) == 0 {
			break
		}
		kids := make([]jval, 0, 2*len(t.Members))
		for i := range t.Members {
			kids = append(kids, fromHujson(&t.Members[i].Name), fromHujson(&t.Members[i].Value))
		}
		out.setChildren(kids)
	case *hujson.Array:
		if len(t.Elements) == 0 {
			break
		}
		kids := make([]jval, len(t.Elements))
		for i := range t.Elements {
			kids[i] = fromHujson(&t.Elements[i])
		}
		out.setChildren(kids)
	case hujson.Literal:
		lit := string(t)
		out.setLit(lit)
		if n := len(lit); out.kind == '"' && n >= 2 {
			out.plain = plainJSONString(lit[1 : n-1])
		}
	}
	return out
}

// fastJSONC parses data in one pass, or reports !ok for a file it does not
// take: a syntax error, a comment with a byte outside ASCII (hujson checks
// those for UTF-8 and line separators), a line comment at the very end
// without a newline, or a number it does not read as JSON. What it takes
// is valid for hujson.Parse and reads the same: white space is " \t\r\n",
// comments are // to the newline and /* */, a member or element may be
// followed by one comma before the closing bracket, strings are checked
// like encoding/json.Valid checks them (escapes; no control character;
// other bytes as they are), and a literal is a JSON number, true, false
// or null, and objects and arrays nest at most maxNesting deep. kids sizes
// the block every object's and array's values are cut from (a short count
// only costs a new block). TestFastJSONCMatchesHujson keeps it equal to
// hujson.
func fastJSONC(data []byte, kids int) (*jval, bool) { return fastJSONCText(data, string(data), kids) }

// fastJSONCText is fastJSONC with data as a string already (text).
func fastJSONCText(data []byte, text string, kids int) (*jval, bool) {
	f := fastParser{b: data, s: text, stack: make([]jval, 0, 64), block: make([]jval, 0, kids+16)}
	f.space()
	if f.bad {
		return nil, false
	}
	v := f.value()
	f.space()
	if f.bad || f.n != len(data) {
		return nil, false
	}
	return &v, true
}

type fastParser struct {
	b   []byte
	s   string // b as a string: literals are pieces of it
	n   int
	bad bool
	// Every object's names and values (an array's elements) are a slice
	// of block, which starts with room for all of them. An object whose
	// values are all scalars (a pattern map: nearly every value of a
	// policy) is read straight into the block; an array, and an object
	// from its first value that is an object or an array, collect theirs
	// on stack while the nested values fill the block, then copy them
	// into it once.
	stack []jval
	block []jval
	depth int // objects and arrays open
}

// space skips white space and comments.
func (f *fastParser) space() {
	b := f.b
	for f.n < len(b) {
		switch b[f.n] {
		case ' ', '\t', '\r', '\n':
			f.n++
		case '/':
			if f.n+1 >= len(b) {
				f.bad = true
				return
			}
			switch b[f.n+1] {
			case '/':
				i := f.n + 2
				for ; i < len(b) && b[i] != '\n'; i++ {
					if b[i] >= 0x80 {
						f.bad = true
						return
					}
				}
				if i == len(b) {
					f.bad = true // at the end without a newline: hujson's route
					return
				}
				f.n = i + 1
			case '*':
				i := f.n + 2
				for ; i+1 < len(b) && !(b[i] == '*' && b[i+1] == '/'); i++ {
					if b[i] >= 0x80 {
						f.bad = true
						return
					}
				}
				if i+1 >= len(b) {
					f.bad = true
					return
				}
				f.n = i + 2
			default:
				f.bad = true
				return
			}
		default:
			return
		}
	}
}

// value reads one value (returned, not filled in through a pointer: the
// recursion would make every value escape to the heap).
func (f *fastParser) value() (v jval) {
	if f.n >= len(f.b) {
		f.bad = true
		return v
	}
	v.off = int32(f.n)
	switch c := f.b[f.n]; c {
	case '{', '[':
		// Deeper than the bound: hujson's route, after the nesting check
		// (shape) that names the offset.
		if f.depth++; f.depth > maxNesting {
			f.bad = true
			return v
		}
		v.kind = c
		if c == '{' {
			v.setChildren(f.object())
		} else {
			v.setChildren(f.array())
		}
		f.depth--
	case '"':
		v.kind = '"'
		lit, plain := f.str()
		v.setLit(lit)
		v.plain = plain
	default:
		start := f.n
		for f.n < len(f.b) && literalByte(f.b[f.n]) {
			f.n++
		}
		lit := f.s[start:f.n]
		switch lit {
		case "true":
			v.kind = 't'
		case "false":
			v.kind = 'f'
		case "null":
			v.kind = 'n'
		default:
			if !jsonNumber(lit) {
				f.bad = true
				return v
			}
			v.kind = '0'
		}
		v.setLit(lit)
	}
	return v
}

// literalByte is a byte hujson reads as part of a bare literal.
func literalByte(c byte) bool {
	return c == '-' || c == '+' || c == '.' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// jsonNumber reports whether b is a JSON number (RFC 8259).
func jsonNumber(b string) bool {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return false
		}
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return false
		}
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	}
	return i == len(b)
}

// str reads a string literal, quotes included; plain says it reads as
// its text between the quotes (no escape, valid UTF-8).
func (f *fastParser) str() (lit string, plain bool) {
	b := f.b
	start := f.n
	ascii, escaped := true, false
	for i := f.n + 1; i < len(b); i++ {
		// The run of bytes that need no look (nearly all of a policy's
		// strings) in a tight loop first.
		for i < len(b) && strPlainByte[b[i]] {
			i++
		}
		if i >= len(b) {
			break
		}
		switch c := b[i]; {
		case c == '"':
			f.n = i + 1
			lit = f.s[start:f.n]
			return lit, !escaped && (ascii || utf8.ValidString(lit[1:len(lit)-1]))
		case c == '\\':
			escaped = true
			i++
			if i >= len(b) {
				f.bad = true
				return "", false
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(b) || !hex4(b[i+1:i+5]) {
					f.bad = true
					return "", false
				}
				i += 4
			default:
				f.bad = true
				return "", false
			}
		case c < 0x20:
			f.bad = true
			return "", false
		case c >= 0x80:
			ascii = false
		}
	}
	f.bad = true
	return "", false
}

// strPlainByte marks the bytes a string literal holds as they are: not a
// quote, a backslash, a control character or a byte outside ASCII.
var strPlainByte = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func hex4(b []byte) bool {
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// next skips space up to the next byte and reports whether there is one:
// at the end, or at a comment that does not end, the text is bad.
func (f *fastParser) next() bool {
	f.space()
	if f.bad || f.n >= len(f.b) {
		f.bad = true
		return false
	}
	return true
}

func (f *fastParser) object() []jval {
	f.n++                               // '{'
	direct, start := true, len(f.block) // direct: the kids are f.block[start:]
	base := len(f.stack)
	for {
		if !f.next() {
			return nil
		}
		if f.b[f.n] == '}' {
			f.n++
			break
		}
		if f.b[f.n] != '"' {
			f.bad = true
			return nil
		}
		name := jval{off: int32(f.n), kind: '"'}
		lit, plain := f.str()
		name.setLit(lit)
		name.plain = plain
		f.space()
		if f.bad || f.n >= len(f.b) || f.b[f.n] != ':' {
			f.bad = true
			return nil
		}
		f.n++
		if !f.next() {
			return nil
		}
		if c := f.b[f.n]; direct && (c == '{' || c == '[') {
			// The nested value's kids go to the block: this object's
			// move to the stack.
			f.stack = append(f.stack, f.block[start:]...)
			clear(f.block[start:])
			f.block = f.block[:start]
			direct = false
		}
		val := f.value()
		if f.bad {
			return nil
		}
		if direct {
			if cap(f.block)-len(f.block) < 2 {
				// Only when shape's count was short: a new block, with
				// this object's kids so far.
				grown := make([]jval, 0, max(2*(len(f.block)-start)+2, 256))
				f.block = append(grown, f.block[start:]...)
				start = 0
			}
			f.block = append(f.block, name, val)
		} else {
			f.stack = append(f.stack, name, val)
		}
		if !f.next() {
			return nil
		}
		if f.b[f.n] == ',' {
			f.n++
			continue
		}
		if f.b[f.n] != '}' {
			f.bad = true
			return nil
		}
		f.n++
		break
	}
	if !direct {
		return f.pop(base)
	}
	if end := len(f.block); end > start {
		return f.block[start:end:end]
	}
	return nil
}

func (f *fastParser) array() []jval {
	f.n++ // '['
	base := len(f.stack)
	for {
		if !f.next() {
			return nil
		}
		if f.b[f.n] == ']' {
			f.n++
			break
		}
		el := f.value()
		if f.bad {
			return nil
		}
		f.stack = append(f.stack, el)
		if !f.next() {
			return nil
		}
		if f.b[f.n] == ',' {
			f.n++
			continue
		}
		if f.b[f.n] != ']' {
			f.bad = true
			return nil
		}
		f.n++
		break
	}
	return f.pop(base)
}

// pop moves the kids above base on the stack into the block.
func (f *fastParser) pop(base int) []jval {
	n := len(f.stack) - base
	if n == 0 {
		return nil
	}
	if cap(f.block)-len(f.block) < n {
		f.block = make([]jval, 0, max(n, 256))
	}
	l := len(f.block)
	f.block = append(f.block, f.stack[base:]...)
	clear(f.stack[base:])
	f.stack = f.stack[:base]
	return f.block[l : l+n : l+n]
}
