package shell

import (
	"math/rand/v2"
	"path"
	"strings"
	"testing"
)

// escapeGlobBytes is escapeGlob as it was: a byte at a time.
func escapeGlobBytes(s string) string {
	if !hasByte(s, &globBytes) {
		return s
	}
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		if isGlobByte(s[i]) || s[i] == '\\' {
			sb.WriteByte('\\')
		}
		sb.WriteByte(s[i])
	}
	return sb.String()
}

// TestEscapeGlobIsTheByteLoop: escapeGlob writes what the byte loop
// writes, for strings of the glob bytes, backslashes and others in any
// order and length, and its pattern matches the string itself.
func TestEscapeGlobIsTheByteLoop(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	pieces := []string{"*", "?", "[", "]", `\`, `\\`, "a", "bc", " ", "é", "\x00", "[a-z]", "**", "plain text of a commit message "}
	for n := 0; n < 20000; n++ {
		var b strings.Builder
		for k := r.IntN(12); k > 0; k-- {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := b.String()
		got, want := escapeGlob(s), escapeGlobBytes(s)
		if got != want {
			t.Fatalf("escapeGlob(%q) = %q, the byte loop %q", s, got, want)
		}
		if ok, err := path.Match(got, s); !ok || err != nil {
			t.Fatalf("escapeGlob(%q) = %q does not match the string itself as a glob (%v)", s, got, err)
		}
	}
}
