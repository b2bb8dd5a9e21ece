package protocol

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/toolgate/toolgate/internal/swar"
)

// FastCall is a tool_call request read in one pass by DecodeToolCall.
type FastCall struct {
	// ID is the request's id as sent: a non-negative integer within the
	// int64 range, or a string that needs no escaping (so it is written
	// back byte for byte). It is a slice of the line.
	ID []byte
	// The params' fields, each of its own type (DecodeToolCall takes
	// no other type for them): Has says which of them the params hold
	// (the Param* bits).
	ToolCallID, ToolName, AgentName, Cwd string
	HasUI                                bool
	Has                                  uint8
	// InputValue is params.input decoded (objects as map[string]any,
	// numbers as json.Number), as a strict decoder of it reads it.
	InputValue map[string]any
	// Input is the raw bytes of params.input (nil when absent), a copy.
	Input []byte
	// Other are the params' other keys, in their order, and their values.
	Other       []string
	OtherValues []any
}

// The bits of FastCall.Has: which keys the params hold.
const (
	ParamToolCallID uint8 = 1 << iota
	ParamToolName
	ParamInput
	ParamAgentName
	ParamCwd
	ParamHasUI
)

// Params is the params as a decoder reads them into a map (objects as
// map[string]any, numbers as json.Number).
func (fc *FastCall) Params() map[string]any {
	m := map[string]any{}
	for _, f := range [...]struct {
		bit uint8
		key string
		v   any
	}{{ParamToolCallID, "toolCallId", fc.ToolCallID}, {ParamToolName, "toolName", fc.ToolName}, {ParamInput, "input", fc.InputValue},
		{ParamAgentName, "agentName", fc.AgentName}, {ParamCwd, "cwd", fc.Cwd}, {ParamHasUI, "hasUI", fc.HasUI}} {
		if fc.Has&f.bit != 0 {
			m[f.key] = f.v
		}
	}
	for i, k := range fc.Other {
		var v any
		if i < len(fc.OtherValues) {
			v = fc.OtherValues[i]
		}
		m[k] = v
	}
	return m
}

// fastMaxDepth bounds the nesting the one-pass reader takes on itself;
// anything deeper is left to the general path (which refuses past 256).
const fastMaxDepth = 64

// fastMaxKeys bounds the keys of one object the one-pass reader compares
// pairwise for repeats; a larger object is left to the general path.
const fastMaxKeys = 32

// DecodeToolCall reads a line that is a plain tool_call request in one
// pass: exactly the keys jsonrpc ("2.0"), id, method ("tool_call") and
// params (an object whose fields of FastCall are each of their type: a
// string, a bool, an object), strict JSON, valid UTF-8, no key repeated in
// any object (exactly or in another letter case), no lone or paired
// surrogate escapes, nesting within fastMaxDepth. It reports false for anything else,
// which the general path reads and answers as before: a false is never an
// answer, only "not the common case".
//
// Its plain twin is the general path's jsonrpc2 and encoding/json read;
// TestDecodeToolCallReadsAsTheGeneralPath and TestCheckCallKeysIsCheckKeys
// (hook) and TestKnownValuesDecodeAsStrings keep them equal.
func DecodeToolCall(line []byte) (FastCall, bool) {
	if !utf8.Valid(line) {
		return FastCall{}, false
	}
	d := fastDecoder{b: line}
	d.ws()
	if !d.eat('{') {
		return FastCall{}, false
	}
	var fc FastCall
	var seen [4]bool
	for n := 0; ; n++ {
		d.ws()
		if n == 0 && d.eat('}') {
			return FastCall{}, false
		}
		if n > 0 {
			if d.eat('}') {
				break
			}
			if !d.eat(',') {
				return FastCall{}, false
			}
			d.ws()
		}
		key, ok := d.plainString()
		if !ok {
			return FastCall{}, false
		}
		d.ws()
		if !d.eat(':') {
			return FastCall{}, false
		}
		d.ws()
		k := -1
		switch string(key) {
		case "jsonrpc":
			k = 0
			v, ok := d.plainString()
			if !ok || string(v) != "2.0" {
				return FastCall{}, false
			}
		case "id":
			k = 1
			id, ok := d.id()
			if !ok {
				return FastCall{}, false
			}
			fc.ID = id
		case "method":
			k = 2
			v, ok := d.plainString()
			if !ok || string(v) != MethodToolCall {
				return FastCall{}, false
			}
		case "params":
			k = 3
			if d.i >= len(d.b) || d.b[d.i] != '{' {
				return FastCall{}, false
			}
			if !d.params(&fc) {
				return FastCall{}, false
			}
		default:
			return FastCall{}, false
		}
		if seen[k] {
			return FastCall{}, false
		}
		seen[k] = true
	}
	d.ws()
	if d.i != len(d.b) || !seen[0] || !seen[1] || !seen[2] || !seen[3] {
		return FastCall{}, false
	}
	return fc, true
}

type fastDecoder struct {
	b []byte
	i int
	// scratch is where escaped unescapes a string, reused from string to
	// string of the line: str and strBytes copy what they keep out of it.
	// It is made by the line's first escaped string, as long as the rest
	// of the line (nothing after unescapes longer than it is written) up
	// to maxScratchAhead, so that most lines make one at most (room).
	scratch []byte
}

func (d *fastDecoder) ws() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\r', '\n':
			d.i++
		default:
			return
		}
	}
}

func (d *fastDecoder) eat(c byte) bool {
	if d.i < len(d.b) && d.b[d.i] == c {
		d.i++
		return true
	}
	return false
}

// plainString reads a string without escapes and returns its bytes.
func (d *fastDecoder) plainString() ([]byte, bool) {
	if !d.eat('"') {
		return nil, false
	}
	start := d.i
	if j := plainRun(d.b, d.i); j < len(d.b) && d.b[j] == '"' {
		d.i = j + 1
		return d.b[start:j], true
	}
	return nil, false
}

// plainRun returns the index of the first byte at or after i in b that a
// JSON string cannot hold as it is ('"', '\\' or a control byte), or
// len(b) when there is none (i itself when i is past the end), eight bytes
// at a time (package swar: the lowest flag of a word is its first such
// byte). plainRunBytes is its plain twin; TestPlainRunIsTheByteLoop keeps
// them equal.
func plainRun(b []byte, i int) int {
	for ; i >= 0 && i+8 <= len(b); i += 8 {
		x := swar.Word(b, i)
		if m := swar.HasZero(x^'"'*swar.Ones) | swar.HasZero(x^'\\'*swar.Ones) | swar.Below(x, 0x20); m != 0 {
			return i + swar.First(m)
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c == '"' || c == '\\' || c < 0x20 {
			return i
		}
	}
	return i
}

// id reads a non-negative integer that fits an int64 (jsonrpc2 reads a
// number id as one and refuses a larger one) or a string of printable
// ASCII that JSON encoders write as it is.
func (d *fastDecoder) id() ([]byte, bool) {
	start := d.i
	if d.i < len(d.b) && d.b[d.i] == '"' {
		s, ok := d.plainString()
		if !ok {
			return nil, false
		}
		for _, c := range s {
			if c < 0x20 || c >= 0x7f || c == '<' || c == '>' || c == '&' {
				return nil, false
			}
		}
		return d.b[start:d.i], true
	}
	for d.i < len(d.b) && '0' <= d.b[d.i] && d.b[d.i] <= '9' {
		d.i++
	}
	n := d.i - start
	if n == 0 || n > 19 || (n > 1 && d.b[start] == '0') || (n == 19 && string(d.b[start:d.i]) > "9223372036854775807") {
		return nil, false
	}
	if d.i < len(d.b) {
		switch d.b[d.i] {
		case '.', 'e', 'E':
			return nil, false
		}
	}
	return d.b[start:d.i], true
}

func (d *fastDecoder) value(depth int) (any, bool) {
	if depth > fastMaxDepth || d.i >= len(d.b) {
		return nil, false
	}
	switch c := d.b[d.i]; c {
	case '{':
		m, ok := d.object(depth)
		return m, ok
	case '[':
		d.i++
		arr := []any{}
		for n := 0; ; n++ {
			d.ws()
			if d.eat(']') {
				return arr, true
			}
			if n > 0 {
				if !d.eat(',') {
					return nil, false
				}
				d.ws()
			}
			v, ok := d.value(depth + 1)
			if !ok {
				return nil, false
			}
			arr = append(arr, v)
		}
	case '"':
		if v, ok := d.knownValue(); ok {
			return v, true
		}
		s, ok := d.str()
		return s, ok
	case 't':
		return true, d.lit("true")
	case 'f':
		return false, d.lit("false")
	case 'n':
		return nil, d.lit("null")
	}
	return d.number()
}

func (d *fastDecoder) lit(w string) bool {
	if len(d.b)-d.i >= len(w) && string(d.b[d.i:d.i+len(w)]) == w {
		d.i += len(w)
		return true
	}
	return false
}

func (d *fastDecoder) digits() int {
	start := d.i
	for d.i < len(d.b) && '0' <= d.b[d.i] && d.b[d.i] <= '9' {
		d.i++
	}
	return d.i - start
}

// number reads a JSON number as its literal (json.Number).
func (d *fastDecoder) number() (any, bool) {
	start := d.i
	d.eat('-')
	switch {
	case d.i < len(d.b) && d.b[d.i] == '0':
		d.i++
	case d.digits() == 0:
		return nil, false
	}
	if d.eat('.') && d.digits() == 0 {
		return nil, false
	}
	if d.eat('e') || d.eat('E') {
		if !d.eat('+') {
			d.eat('-')
		}
		if d.digits() == 0 {
			return nil, false
		}
	}
	return json.Number(d.b[start:d.i]), true
}

// str reads a string and returns it unescaped. A \u escape of a
// surrogate is left to the general path.
func (d *fastDecoder) str() (string, bool) {
	b, _, ok := d.strScratch()
	return string(b), ok
}

// strBytes reads a string: its bytes unescaped (a slice of d.b when it
// has no escape, else a copy of its own).
func (d *fastDecoder) strBytes() ([]byte, bool) {
	b, inScratch, ok := d.strScratch()
	if inScratch {
		b = append([]byte(nil), b...)
	}
	return b, ok
}

// strScratch is strBytes, its bytes in d.scratch (valid until the next
// string) when the string has an escape: inScratch says so.
func (d *fastDecoder) strScratch() (b []byte, inScratch, ok bool) {
	d.i++ // '"'
	start := d.i
	j := plainRun(d.b, d.i)
	if j >= len(d.b) {
		return nil, false, false
	}
	switch d.b[j] {
	case '"':
		d.i = j + 1
		return d.b[start:j], false, true
	case '\\':
		d.i = j
		b, ok := d.escaped(start)
		return b, true, ok
	}
	return nil, false, false // a control byte
}

// escaped reads the rest of a string from its first escape (at d.i; the
// string's bytes start at start) and returns it unescaped, in d.scratch,
// copying each run of plain bytes at once. escapedBytes is its plain twin,
// one byte at a time; TestEscapedIsTheByteLoop keeps them equal.
func (d *fastDecoder) escaped(start int) ([]byte, bool) {
	out := append(d.room(d.scratch[:0], 4+d.i-start), d.b[start:d.i]...)
	for {
		// d.i is at a backslash.
		if d.i+1 >= len(d.b) {
			return nil, false
		}
		e := d.b[d.i+1]
		d.i += 2
		var r rune
		switch e {
		case '"', '\\', '/':
			r = rune(e)
		case 'b':
			r = '\b'
		case 'f':
			r = '\f'
		case 'n':
			r = '\n'
		case 'r':
			r = '\r'
		case 't':
			r = '\t'
		case 'u':
			if d.i+4 > len(d.b) {
				return nil, false
			}
			for _, h := range d.b[d.i : d.i+4] {
				switch {
				case '0' <= h && h <= '9':
					r = r<<4 | rune(h-'0')
				case 'a' <= h && h <= 'f':
					r = r<<4 | rune(h-'a'+10)
				case 'A' <= h && h <= 'F':
					r = r<<4 | rune(h-'A'+10)
				default:
					return nil, false
				}
			}
			if 0xD800 <= r && r <= 0xDFFF {
				return nil, false
			}
			d.i += 4
		default:
			return nil, false
		}
		if r < utf8.RuneSelf {
			out = append(out, byte(r))
		} else {
			out = utf8.AppendRune(out, r)
		}
		j := min(plainRun(d.b, d.i), len(d.b))
		out = append(d.room(out, 4+j-d.i), d.b[d.i:j]...)
		d.i = j
		if j >= len(d.b) || d.b[j] < 0x20 {
			return nil, false
		}
		if d.b[j] == '"' {
			d.i++
			return out, true
		}
	}
}

// room returns out with room for n more bytes: out itself when it has
// it, else out copied into a new d.scratch with room for n and the rest of
// the line besides (nothing in it unescapes longer than it is written), so
// that the strings of a line of up to maxScratchAhead bytes grow it once
// at most; past that it grows by at least doubling. (append would grow it
// too; room only saves the copies of growing it a little at a time.)
func (d *fastDecoder) room(out []byte, n int) []byte {
	if cap(out)-len(out) >= n {
		return out
	}
	ahead := min(len(d.b)-d.i, max(cap(out), maxScratchAhead))
	grown := make([]byte, len(out), len(out)+n+ahead)
	copy(grown, out)
	d.scratch = grown[:0]
	return grown
}

// maxScratchAhead bounds what room reserves beyond what is asked: a small
// escaped string early in a long line does not make a buffer the size of
// the line.
const maxScratchAhead = 64 << 10

// key reads an object key: its bytes unescaped and the key as a string
// (the keys toolgate reads are not allocated again for every call).
func (d *fastDecoder) key() ([]byte, string, bool) {
	b, ok := d.strBytes()
	if !ok {
		return b, "", ok
	}
	if k, ok := knownKey(b); ok {
		return b, k, true
	}
	return b, string(b), true
}

func knownKey(b []byte) (string, bool) {
	switch string(b) {
	case "toolCallId":
		return "toolCallId", true
	case "toolName":
		return "toolName", true
	case "input":
		return "input", true
	case "agentName":
		return "agentName", true
	case "cwd":
		return "cwd", true
	case "hasUI":
		return "hasUI", true
	case "command":
		return "command", true
	case "path":
		return "path", true
	case "description":
		return "description", true
	case "timeout":
		return "timeout", true
	case "pattern":
		return "pattern", true
	case "glob":
		return "glob", true
	case "content":
		return "content", true
	case "oldText":
		return "oldText", true
	case "newText":
		return "newText", true
	case "edits":
		return "edits", true
	case "offset":
		return "offset", true
	case "limit":
		return "limit", true
	case "tool":
		return "tool", true
	case "server":
		return "server", true
	case "arguments":
		return "arguments", true
	case "name":
		return "name", true
	}
	return "", false
}

// maxKnownValue is the longest string knownValue looks for.
const maxKnownValue = 8

// knownValue reads a string that is one of the values every call carries
// (the tool names), as the same string boxed once by the compiler rather
// than allocated (twice: its bytes and its interface) for every call.
// Anything else is left to str.
func (d *fastDecoder) knownValue() (any, bool) {
	start := d.i + 1
	for j := start; j < len(d.b) && j <= start+maxKnownValue; j++ {
		switch c := d.b[j]; {
		case c == '"':
			var v any
			switch string(d.b[start:j]) {
			case "bash":
				v = "bash"
			case "read":
				v = "read"
			case "edit":
				v = "edit"
			case "write":
				v = "write"
			case "grep":
				v = "grep"
			case "find":
				v = "find"
			case "ls":
				v = "ls"
			case "mcp":
				v = "mcp"
			case "skill":
				v = "skill"
			default:
				return nil, false
			}
			d.i = j + 1
			return v, true
		case c == '\\' || c < 0x20:
			return nil, false
		}
	}
	return nil, false
}

// object reads an object into a map, refusing a key repeated in it
// (exactly or after folding letter case, as the general path compares).
func (d *fastDecoder) object(depth int) (map[string]any, bool) {
	d.i++ // '{'
	m := make(map[string]any)
	// keys are the object's keys so far (unescaped), compared on the stack
	// rather than by ranging over the map (at most fastMaxKeys).
	var keys [fastMaxKeys][]byte
	for n := 0; ; n++ {
		d.ws()
		if d.eat('}') {
			return m, true
		}
		if n > 0 {
			if !d.eat(',') {
				return nil, false
			}
			d.ws()
		}
		if n >= fastMaxKeys || d.i >= len(d.b) || d.b[d.i] != '"' {
			return nil, false
		}
		kb, key, ok := d.key()
		if !ok {
			return nil, false
		}
		for _, prev := range keys[:n] {
			if sameFold(prev, kb) {
				return nil, false
			}
		}
		keys[n] = kb
		d.ws()
		if !d.eat(':') {
			return nil, false
		}
		d.ws()
		v, ok := d.value(depth + 1)
		if !ok {
			return nil, false
		}
		m[key] = v
	}
}

// params reads the params object into fc: only its keys, each once and of
// its type; anything else is left to the general path.
func (d *fastDecoder) params(fc *FastCall) bool {
	d.i++ // '{'
	// keys are the params' keys so far (unescaped), none repeated in any
	// letter case, as object compares them.
	var keys [fastMaxKeys][]byte
	for n := 0; ; n++ {
		d.ws()
		if d.eat('}') {
			return true
		}
		if n > 0 {
			if !d.eat(',') {
				return false
			}
			d.ws()
		}
		if n >= fastMaxKeys || d.i >= len(d.b) || d.b[d.i] != '"' {
			return false
		}
		key, ok := d.strBytes()
		if !ok {
			return false
		}
		for _, prev := range keys[:n] {
			if sameFold(prev, key) {
				return false
			}
		}
		keys[n] = key
		var bit uint8
		switch string(key) {
		case "toolCallId":
			bit = ParamToolCallID
		case "toolName":
			bit = ParamToolName
		case "input":
			bit = ParamInput
		case "agentName":
			bit = ParamAgentName
		case "cwd":
			bit = ParamCwd
		case "hasUI":
			bit = ParamHasUI
		}
		fc.Has |= bit
		d.ws()
		if !d.eat(':') {
			return false
		}
		d.ws()
		if d.i >= len(d.b) {
			return false
		}
		c := d.b[d.i]
		switch bit {
		case 0:
			// A key toolgate does not read: its value is read (and checked)
			// as any other, and the key kept for the check of near keys.
			v, ok := d.value(1)
			if !ok {
				return false
			}
			fc.Other = append(fc.Other, string(key))
			fc.OtherValues = append(fc.OtherValues, v)
		case ParamInput:
			if c != '{' {
				return false
			}
			start := d.i
			// The params are at depth 0, their values at 1 (as value
			// would read them).
			m, ok := d.object(1)
			if !ok {
				return false
			}
			fc.InputValue, fc.Input = m, append([]byte(nil), d.b[start:d.i]...)
		case ParamHasUI:
			switch {
			case c == 't' && d.lit("true"):
				fc.HasUI = true
			case c == 'f' && d.lit("false"):
				fc.HasUI = false
			default:
				return false
			}
		default:
			if c != '"' {
				return false
			}
			var s string
			if v, known := d.knownValue(); known {
				s = v.(string)
			} else if b, ok := d.strBytes(); ok {
				s = string(b)
			} else {
				return false
			}
			switch bit {
			case ParamToolCallID:
				fc.ToolCallID = s
			case ParamToolName:
				fc.ToolName = s
			case ParamAgentName:
				fc.AgentName = s
			case ParamCwd:
				fc.Cwd = s
			}
		}
	}
}

// sameFold reports whether two keys are one after the folding the general
// path's repeat check uses (strings.ToLower(strings.ToUpper(k))).
func sameFold(a, b []byte) bool {
	ascii := true
	for i := 0; i < len(a); i++ {
		if a[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	for i := 0; ascii && i < len(b); i++ {
		if b[i] >= utf8.RuneSelf {
			ascii = false
		}
	}
	if !ascii {
		return strings.ToLower(strings.ToUpper(string(a))) == strings.ToLower(strings.ToUpper(string(b)))
	}
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
