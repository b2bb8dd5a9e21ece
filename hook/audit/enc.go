package audit

import (
	"strconv"
	"unicode/utf8"

	"github.com/toolgate/toolgate/internal/swar"
	"github.com/toolgate/toolgate/protocol"
)

// Enc appends a record's fields. Its methods write exactly the bytes that
// zerolog's Event methods of the same name write (zerolog stays the
// definition of the format: its field order, its escaping); it only
// builds them directly into the record, without an event or a writer.
// TestEncWritesWhatZerologWrites and TestRecordsAreTheZerologRecords keep
// it equal to zerolog.
type Enc struct {
	b []byte
}

// Bytes is what was appended so far (the record up to here).
func (e *Enc) Bytes() []byte { return e.b }

func (e *Enc) key(k string) {
	if n := len(e.b); n > 0 && e.b[n-1] != '{' {
		e.b = append(e.b, ',')
	}
	if plainKey(k) {
		// Every key toolgate writes is a word of letters: nothing to
		// escape, and no pass of the escaper to learn so.
		e.b = append(append(append(e.b, '"'), k...), '"', ':')
		return
	}
	e.b = AppendZerologString(e.b, k)
	e.b = append(e.b, ':')
}

// plainKey reports whether k is letters, digits and '_' only, which zerolog
// writes as they are.
func plainKey(k string) bool {
	for i := 0; i < len(k); i++ {
		if c := k[i] | 0x20; !(c >= 'a' && c <= 'z' || k[i] >= '0' && k[i] <= '9' || k[i] == '_') {
			return false
		}
	}
	return true
}

// Str adds the string field key, escaped as zerolog escapes it.
func (e *Enc) Str(key, val string) *Enc {
	e.key(key)
	e.b = AppendZerologString(e.b, val)
	return e
}

// Int adds the integer field key.
func (e *Enc) Int(key string, v int) *Enc {
	e.key(key)
	e.b = strconv.AppendInt(e.b, int64(v), 10)
	return e
}

// Int64 adds the integer field key.
func (e *Enc) Int64(key string, v int64) *Enc {
	e.key(key)
	e.b = strconv.AppendInt(e.b, v, 10)
	return e
}

// Uint64 adds the unsigned integer field key.
func (e *Enc) Uint64(key string, v uint64) *Enc {
	e.key(key)
	e.b = strconv.AppendUint(e.b, v, 10)
	return e
}

// RawJSON adds the field key with b, which must be one JSON value, as it
// is (zerolog's RawJSON).
func (e *Enc) RawJSON(key string, b []byte) *Enc {
	e.key(key)
	e.b = append(e.b, b...)
	return e
}

// Field starts the field key: its value is appended next, by the caller,
// to Buf (e.g. a value encoded by hand, as RawJSON would add it).
func (e *Enc) Field(key string) { e.key(key) }

// Buf is the record being built, for a value appended after Field; the
// caller sets it back with SetBuf.
func (e *Enc) Buf() []byte { return e.b }

// SetBuf sets the record being built to b (Buf with a value appended).
func (e *Enc) SetBuf(b []byte) { e.b = b }

// AppendZerologString appends s as a JSON string exactly as zerolog's
// encoder does (protocol.ZerologEscaping): '"', '\\' and the control
// characters (and DEL) escaped, \b \f \n \r \t by their short escapes,
// every byte of invalid UTF-8 replaced by \ufffd, and the rest as it is
// (no HTML escapes). Its plain twin is zerolog's own encoder;
// TestEncWritesWhatZerologWrites and TestZerologStringLongRuns keep them
// equal.
func AppendZerologString(dst []byte, s string) []byte {
	return protocol.AppendStringAs(dst, s, protocol.ZerologEscaping)
}

// AppendJSONString appends s as a JSON string exactly as encoding/json's
// Marshal (and goccy/go-json's) writes a Go string: '"', '\\', the control
// characters and '<', '>', '&' escaped, every byte of invalid UTF-8
// replaced by \ufffd, U+2028 and U+2029 escaped — the answers' encoder,
// protocol.AppendString. Its plain twins are both Marshals;
// TestAppendJSONStringIsMarshal keeps them equal.
func AppendJSONString(dst []byte, s string) []byte { return protocol.AppendString(dst, s) }

// AppendCompactJSON appends b, one JSON value that is the output of a
// MarshalJSON (a json.RawMessage), as goccy/go-json's (and
// encoding/json's) Marshal writes it when b is already compact: as it is,
// but '<', '>', '&', U+2028 and U+2029 escaped. It reports false, and
// appends nothing, when b is not valid JSON, has space between its
// tokens, or has anything else the marshaler would change or refuse
// (control characters, invalid UTF-8): it is conservative, and a value
// it refuses is written by the marshaler instead. Its plain twin is
// Marshal of the json.RawMessage; TestAppendCompactJSONIsMarshal keeps them
// equal.
func AppendCompactJSON(dst, b []byte) ([]byte, bool) {
	const hexDigits = "0123456789abcdef"
	i, ok := plainValue(b, 0, 0)
	if !ok || i != len(b) {
		return dst, false
	}
	start := 0
	for i := 0; i < len(b); i++ {
		i = htmlRun(b, i)
		if i >= len(b) {
			break
		}
		switch c := b[i]; {
		case c == '<' || c == '>' || c == '&':
			dst = append(dst, b[start:i]...)
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			start = i + 1
		case c == 0xe2 && i+2 < len(b) && b[i+1] == 0x80 && (b[i+2] == 0xa8 || b[i+2] == 0xa9):
			dst = append(dst, b[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[b[i+2]&0xF])
			i += 2
			start = i + 1
		}
	}
	return append(dst, b[start:]...), true
}

// maxPlainDepth bounds the nesting AppendCompactJSON follows.
const maxPlainDepth = 64

func plainValue(b []byte, i, depth int) (int, bool) {
	if i >= len(b) {
		return i, false
	}
	switch c := b[i]; {
	case c == '"':
		return plainString(b, i+1)
	case c == '{':
		if depth == maxPlainDepth {
			return i, false
		}
		i++
		if i < len(b) && b[i] == '}' {
			return i + 1, true
		}
		for {
			if i >= len(b) || b[i] != '"' {
				return i, false
			}
			var ok bool
			if i, ok = plainString(b, i+1); !ok {
				return i, false
			}
			if i >= len(b) || b[i] != ':' {
				return i, false
			}
			if i, ok = plainValue(b, i+1, depth+1); !ok {
				return i, false
			}
			if i >= len(b) {
				return i, false
			}
			if b[i] == '}' {
				return i + 1, true
			}
			if b[i] != ',' {
				return i, false
			}
			i++
		}
	case c == '[':
		if depth == maxPlainDepth {
			return i, false
		}
		i++
		if i < len(b) && b[i] == ']' {
			return i + 1, true
		}
		for {
			var ok bool
			if i, ok = plainValue(b, i, depth+1); !ok {
				return i, false
			}
			if i >= len(b) {
				return i, false
			}
			if b[i] == ']' {
				return i + 1, true
			}
			if b[i] != ',' {
				return i, false
			}
			i++
		}
	case c == 't':
		return plainLiteral(b, i, "true")
	case c == 'f':
		return plainLiteral(b, i, "false")
	case c == 'n':
		return plainLiteral(b, i, "null")
	case c == '-' || c >= '0' && c <= '9':
		return plainNumber(b, i)
	}
	return i, false
}

func plainLiteral(b []byte, i int, lit string) (int, bool) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return i, false
	}
	return i + len(lit), true
}

func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

func plainNumber(b []byte, i int) (int, bool) {
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(b, i+1)
	default:
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return i, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return i, false
		}
		i = j
	}
	return i, true
}

// plainString checks a string from after its opening quote and returns
// the index after its closing one.
func plainString(b []byte, i int) (int, bool) {
	for i < len(b) {
		if i = asciiRun(b, i); i >= len(b) {
			break
		}
		c := b[i]
		switch {
		case c == '"':
			return i + 1, true
		case c == '\\':
			if i+1 >= len(b) {
				return i, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if len(b)-i < 6 || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return i, false
				}
				i += 6
			default:
				return i, false
			}
		case c < 0x20:
			return i, false
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				return i, false
			}
			i += size
		default:
			i++
		}
	}
	return i, false
}

// htmlRun is the index of the first byte at or after i that
// AppendCompactJSON looks at ('<', '>', '&' and 0xe2, the first byte of
// U+2028 and U+2029), len(b) when there is none, eight bytes at a time
// (package swar). '<' 0x3c and '>' 0x3e differ in bit 1 only: a byte is
// zero after that mask exactly for those. Its plain twin is the byte
// loop; TestAppendCompactJSONOfLongStrings puts every byte at every place
// of a word.
func htmlRun(b []byte, i int) int {
	for ; i >= 0 && i+8 <= len(b); i += 8 {
		x := swar.Word(b, i)
		if m := swar.HasZero((x^0x3c*swar.Ones)&^(0x02*swar.Ones)) | swar.HasZero(x^'&'*swar.Ones) | swar.HasZero(x^0xe2*swar.Ones); m != 0 {
			return i + swar.First(m)
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c == '<' || c == '>' || c == '&' || c == 0xe2 {
			return i
		}
	}
	return i
}

// asciiRun is the index of the first byte at or after i that plainString
// looks at ('"', '\\', a control byte or one from 0x80 up), len(b) when
// there is none, eight bytes at a time (package swar).
func asciiRun(b []byte, i int) int {
	for ; i >= 0 && i+8 <= len(b); i += 8 {
		x := swar.Word(b, i)
		if m := x&swar.Highs | swar.HasZero(x^'"'*swar.Ones) | swar.HasZero(x^'\\'*swar.Ones) | swar.Below(x, 0x20); m != 0 {
			return i + swar.First(m)
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c == '"' || c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			return i
		}
	}
	return i
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
