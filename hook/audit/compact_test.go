package audit

import (
	stdjson "encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	json "github.com/goccy/go-json"
)

// TestAppendCompactJSONOfLongStrings: in strings longer than a word, with
// every byte value and every rune AppendCompactJSON looks at in every
// place of the words around it, what it writes of a value it takes is
// what Marshal writes, and what it refuses Marshal would change or refuse
// (or is invalid UTF-8, which it refuses by design).
func TestAppendCompactJSONOfLongStrings(t *testing.T) {
	took := 0
	pieces := []string{`\u2028`, "\u2028", "\u2029", "\xe2\x80", "\xe2", "é", "\xc3", `\n`, `\\`, `\"`, "<", ">", "&", "<>&"}
	for v := 0; v < 256; v++ {
		pieces = append(pieces, string([]byte{byte(v)}))
	}
	for _, piece := range pieces {
		for at := 0; at <= 17; at++ {
			for _, fill := range []string{"a", " ", "~"} {
				str := strings.Repeat(fill, at) + piece + strings.Repeat(fill, 20-at)
				for _, in := range []string{`"` + str + `"`, `{"k` + str + `":"x"}`, `["` + str + `","` + str + `"]`} {
					got, ok := AppendCompactJSON([]byte("x"), []byte(in))
					out, err := json.Marshal(stdjson.RawMessage(in))
					switch {
					case ok && (err != nil || string(got) != "x"+string(out)):
						t.Fatalf("AppendCompactJSON of %q wrote %q, but Marshal writes %q (%v)", in, got, out, err)
					case ok:
						took++
					case string(got) != "x":
						t.Fatalf("AppendCompactJSON refused %q but appended %q", in, got)
					case err == nil && string(out) == in && utf8.ValidString(in):
						// (Invalid UTF-8 it refuses by design.)
						t.Fatalf("AppendCompactJSON refused %q, which Marshal writes as it is", in)
					}
				}
			}
		}
	}
	if took < 10000 {
		t.Fatalf("only %d values taken: the test does not reach the fast paths", took)
	}
}
