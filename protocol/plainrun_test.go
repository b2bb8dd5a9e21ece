package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"unicode/utf8"
)

// plainRunBytes is plainRun one byte at a time.
func plainRunBytes(b []byte, i int) int {
	for ; i < len(b); i++ {
		if c := b[i]; c == '"' || c == '\\' || c < 0x20 {
			return i
		}
	}
	return i
}

// escapedBytes is escaped as it was: one byte at a time, its buffer grown
// as it goes. It returns the bytes, where reading ended and whether it
// read a string.
func escapedBytes(b []byte, start, i int) ([]byte, int, bool) {
	out := append([]byte(nil), b[start:i]...)
	for i < len(b) {
		c := b[i]
		switch {
		case c == '"':
			return out, i + 1, true
		case c < 0x20:
			return nil, i, false
		case c != '\\':
			out = append(out, c)
			i++
			continue
		}
		if i+1 >= len(b) {
			return nil, i, false
		}
		e := b[i+1]
		i += 2
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
			if i+4 > len(b) {
				return nil, i, false
			}
			for _, h := range b[i : i+4] {
				switch {
				case '0' <= h && h <= '9':
					r = r<<4 | rune(h-'0')
				case 'a' <= h && h <= 'f':
					r = r<<4 | rune(h-'a'+10)
				case 'A' <= h && h <= 'F':
					r = r<<4 | rune(h-'A'+10)
				default:
					return nil, i, false
				}
			}
			if 0xD800 <= r && r <= 0xDFFF {
				return nil, i, false
			}
			i += 4
		default:
			return nil, i, false
		}
		out = utf8.AppendRune(out, r)
	}
	return nil, i, false
}

// stringBytes is a random string's inside, drawn mostly from the bytes
// the readers treat apart: quotes, backslashes, escape letters, hex
// digits, control bytes and the bytes around them, UTF-8.
func stringBytes(r *rand.Rand, n int) []byte {
	pieces := []string{`"`, `\`, `\"`, `\\`, `\n`, `\t`, `\/`, `\u00e9`, `\u0041`, `\uD83D`, `\u12`, `\x`, "u", "0", "f", "F",
		"\x00", "\x1f", " ", "!", "#", "[", "]", "\x7f", "é", "\xff", "\x80", "a", "bcdefgh", "plain text of some length "}
	var b []byte
	for len(b) < n {
		if r.Intn(3) == 0 {
			b = append(b, "abcdefghijklmnop"[:r.Intn(16)]...)
			continue
		}
		b = append(b, pieces[r.Intn(len(pieces))]...)
	}
	return b
}

// TestPlainRunIsTheByteLoop: plainRun finds the byte the byte loop finds,
// from every start, in strings of every length around its eight-byte
// steps, with every byte value in every position of a word.
func TestPlainRunIsTheByteLoop(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for n := 0; n < 3000; n++ {
		b := stringBytes(r, r.Intn(40))
		for i := 0; i <= len(b)+2; i++ {
			if got, want := plainRun(b, i), plainRunBytes(b, i); got != want {
				t.Fatalf("plainRun(%q, %d) = %d, the byte loop %d", b, i, got, want)
			}
		}
	}
	for c := 0; c < 256; c++ {
		for pos := 0; pos < 17; pos++ {
			b := bytes.Repeat([]byte("a"), 17)
			b[pos] = byte(c)
			for i := 0; i <= len(b); i++ {
				if got, want := plainRun(b, i), plainRunBytes(b, i); got != want {
					t.Fatalf("plainRun(%q, %d) = %d, the byte loop %d", b, i, got, want)
				}
			}
		}
	}
}

// TestEscapedIsTheByteLoop: a string read by strBytes reads as the byte
// loop of before reads it (the same bytes, the same end, the same refusal),
// and str's string is those bytes.
func TestEscapedIsTheByteLoop(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	read := 0
	for n := 0; n < 200000; n++ {
		inside := stringBytes(r, r.Intn(60))
		line := append(append([]byte(`"`), inside...), `", "next": 1}`...)
		if r.Intn(4) == 0 {
			line = append([]byte(`"`), inside...) // no end
		}
		d := fastDecoder{b: line}
		got, fresh, ok := d.strScratch()
		// The byte loop of before: plain bytes up to the first escape,
		// then escapedBytes.
		i, wantFresh := 1, false
		var want []byte
		var wantOK bool
		end := i
		for i < len(line) && line[i] != '"' && line[i] != '\\' && line[i] >= 0x20 {
			i++
		}
		switch {
		case i < len(line) && line[i] == '"':
			want, end, wantOK = line[1:i], i+1, true
		case i < len(line) && line[i] == '\\':
			want, end, wantOK = escapedBytes(line, 1, i)
			wantFresh = true
		}
		if ok != wantOK || (ok && (!bytes.Equal(got, want) || d.i != end || fresh != wantFresh)) {
			t.Fatalf("%q: read %q, end %d, fresh %v, ok %v; the byte loop %q, %d, %v, %v", line, got, d.i, fresh, ok, want, end, wantFresh, wantOK)
		}
		if ok {
			read++
			d2 := fastDecoder{b: line}
			s, ok2 := d2.str()
			if !ok2 || s != string(want) {
				t.Fatalf("%q: str %q, %v; want %q", line, s, ok2, want)
			}
		}
	}
	if read < 20000 {
		t.Fatalf("only %d of the strings were read: the generator makes too few good ones", read)
	}
}

// benchWriteLine is a write of an 8 KiB source file, as an agent sends
// one: a line break every 40 bytes or so, quotes and tabs here and there.
var benchWriteLine = func() []byte {
	var src bytes.Buffer
	for n := 0; src.Len() < 8192; n++ {
		src.WriteString("export function handler")
		src.WriteString(string(rune('a' + n%26)))
		src.WriteString("(req: Request): Response {\n\tconst name = \"item\";\n\treturn json({ name, n: 1 });\n}\n\n")
	}
	params, _ := json.Marshal(map[string]any{"toolCallId": "call-9", "toolName": "write", "input": map[string]any{"path": "src/handler.ts", "content": src.String()}})
	return []byte(`{"jsonrpc":"2.0","id":9,"method":"tool_call","params":` + string(params) + "}")
}()

func BenchmarkDecodeWrite8KiB(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchWriteLine)))
	for i := 0; i < b.N; i++ {
		if _, ok := DecodeToolCall(benchWriteLine); !ok {
			b.Fatal("not taken")
		}
	}
}

// TestLongLineStrings: in a line longer than maxScratchAhead, a short
// escaped string before a long one, and a long one after that, read as
// encoding/json reads them (room grows the scratch buffer past its bound).
func TestLongLineStrings(t *testing.T) {
	var long strings.Builder
	for long.Len() < 3*maxScratchAhead {
		long.WriteString("line \"quoted\"\tand é \\ back\n")
	}
	input := map[string]any{"path": "a\tb", "content": long.String(), "oldText": "x\"y", "newText": long.String() + "\u2028!"}
	params, _ := json.Marshal(map[string]any{"toolCallId": "c\"1", "toolName": "edit", "input": input})
	line := []byte(`{"jsonrpc":"2.0","id":1,"method":"tool_call","params":` + string(params) + `}`)
	fc, ok := DecodeToolCall(line)
	if !ok {
		t.Fatal("not taken")
	}
	if fc.ToolCallID != `c"1` {
		t.Fatalf("toolCallId %q", fc.ToolCallID)
	}
	for k, want := range input {
		if got := fc.InputValue[k]; got != want {
			t.Fatalf("input.%s: %d bytes read, want %d", k, len(fmt.Sprint(got)), len(want.(string)))
		}
	}
}
