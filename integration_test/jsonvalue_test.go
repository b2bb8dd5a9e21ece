package integration_test

// JSON values as the project's reference runner sees them.
//
// Transcripts are read into plain values: nil, bool, json.Number, string,
// []any and *object. Objects keep their keys in document order, as Python's
// dict does, so a pattern is checked key by key in the order it was written
// (the first mismatch reported is the same one replay.py reports) and a
// `send` goes out with its keys in the order the transcript wrote them.
// Numbers stay json.Number everywhere, so big integers survive and
// comparison is by value (see numEqual).

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"
)

// object is a JSON object with its keys in document order.
type object struct {
	keys []string
	vals map[string]any
}

func newObject() *object { return &object{vals: map[string]any{}} }

// set adds or replaces a key. A repeated key keeps its first position and
// takes the last value, as Python's json.loads and dict do.
func (o *object) set(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *object) get(k string) (any, bool) {
	v, ok := o.vals[k]
	return v, ok
}

func (o *object) has(k string) bool {
	_, ok := o.vals[k]
	return ok
}

// decodeJSON parses exactly one JSON value (surrounding JSON whitespace
// allowed) from UTF-8 text.
func decodeJSON(data []byte) (any, error) {
	if !utf8.Valid(data) {
		return nil, errors.New("not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if tok, err := dec.Token(); err != io.EOF {
		if err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("unexpected %v after the JSON value", tok)
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err == io.EOF {
		return nil, io.ErrUnexpectedEOF
	}
	if err != nil {
		return nil, err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return tok, nil // string, json.Number, bool or nil
	}
	switch d {
	case '{':
		o := newObject()
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			k, ok := kt.(string)
			if !ok {
				return nil, fmt.Errorf("object key %v is not a string", kt)
			}
			v, err := decodeValue(dec)
			if err != nil {
				return nil, err
			}
			o.set(k, v)
		}
		if _, err := dec.Token(); err != nil { // '}'
			return nil, err
		}
		return o, nil
	case '[':
		arr := []any{}
		for dec.More() {
			v, err := decodeValue(dec)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
		if _, err := dec.Token(); err != nil { // ']'
			return nil, err
		}
		return arr, nil
	}
	return nil, fmt.Errorf("unexpected %v", d)
}

// pyDumps encodes v the way Python's json.dumps does: with indent < 0 on one
// line with ", " and ": " separators (what replay.py sends), otherwise
// pretty-printed with that indent (what it writes for a setup file whose
// content is not a string). Strings are ASCII-only (ensure_ascii). Numbers
// are written as the transcript spelled them.
func pyDumps(v any, indent int) string {
	var b strings.Builder
	dumpValue(&b, v, indent, 0)
	return b.String()
}

func dumpValue(b *strings.Builder, v any, indent, level int) {
	newline := func(l int) {
		b.WriteByte('\n')
		b.WriteString(strings.Repeat(" ", indent*l))
	}
	// item starts the i-th item of an array or object: after a separator
	// but for the first, on a line of its own when indented.
	item := func(i int) {
		if i > 0 {
			b.WriteByte(',')
			if indent < 0 {
				b.WriteByte(' ')
			}
		}
		if indent >= 0 {
			newline(level + 1)
		}
	}
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case json.Number:
		b.WriteString(x.String())
	case string:
		dumpString(b, x)
	case []any:
		if len(x) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteByte('[')
		for i, e := range x {
			item(i)
			dumpValue(b, e, indent, level+1)
		}
		if indent >= 0 {
			newline(level)
		}
		b.WriteByte(']')
	case *object:
		if len(x.keys) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteByte('{')
		for i, k := range x.keys {
			item(i)
			dumpString(b, k)
			b.WriteString(": ")
			dumpValue(b, x.vals[k], indent, level+1)
		}
		if indent >= 0 {
			newline(level)
		}
		b.WriteByte('}')
	case absentValue:
		b.WriteString("<missing>")
	default:
		fmt.Fprintf(b, "<%T %v>", v, v)
	}
}

// dumpString writes s as Python's ensure_ascii encoder does: printable
// ASCII as is, the usual short escapes, everything else as \uXXXX
// (lower-case hex, surrogate pairs above the BMP).
func dumpString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			switch {
			case r >= ' ' && r <= '~':
				b.WriteRune(r)
			case r < 0x10000:
				fmt.Fprintf(b, `\u%04x`, r)
			default:
				r -= 0x10000
				fmt.Fprintf(b, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
			}
		}
	}
	b.WriteByte('"')
}

// show renders a value for a failure message, cut to a readable length.
func show(v any) string {
	return clip(pyDumps(v, -1), 300)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// numEqual compares two JSON numbers by value with Python's rules: integer
// literals are exact integers, any literal with a fraction or exponent is a
// float64, and an integer equals a float only when they are the same number.
func numEqual(a, b json.Number) bool {
	ai, aInt := parseInteger(a)
	bi, bInt := parseInteger(b)
	switch {
	case aInt && bInt:
		return ai.Cmp(bi) == 0
	case aInt:
		return intEqualsFloat(ai, parseFloat(b))
	case bInt:
		return intEqualsFloat(bi, parseFloat(a))
	default:
		return parseFloat(a) == parseFloat(b)
	}
}

func parseInteger(n json.Number) (*big.Int, bool) {
	s := n.String()
	if strings.ContainsAny(s, ".eE") {
		return nil, false
	}
	i, ok := new(big.Int).SetString(s, 10)
	return i, ok
}

// parseFloat reads a float literal; out-of-range literals become ±Inf as
// Python's float() makes them.
func parseFloat(n json.Number) float64 {
	f, err := strconv.ParseFloat(n.String(), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return math.NaN() // not a number literal: equal to nothing
	}
	return f
}

func intEqualsFloat(i *big.Int, f float64) bool {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return false
	}
	return new(big.Float).SetInt(i).Cmp(new(big.Float).SetFloat64(f)) == 0
}

// pySplitLines splits text where Python's str.splitlines does.
func pySplitLines(s string) []string {
	var lines []string
	start := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch r {
		case '\n', '\v', '\f', '\x1c', '\x1d', '\x1e', '\u0085', '\u2028', '\u2029':
			lines = append(lines, s[start:i])
			start = i + size
		case '\r':
			lines = append(lines, s[start:i])
			if i+1 < len(s) && s[i+1] == '\n' {
				size++
			}
			start = i + size
		}
		i += size
	}
	if start < len(s) {
		lines = append(lines, s[start:])
	}
	return lines
}

// universalNewlines turns \r\n and lone \r into \n, as Python's text-mode
// open() does when it reads a file.
func universalNewlines(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}
