package gates

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Visible returns s as a person may safely read it: every
// control character (C0, DEL, C1; newline and tab included), every
// bidirectional control, zero-width, format, private-use, unassigned or
// otherwise invisible character and every Unicode space other than the
// plain space is shown escaped ("\x1b", "\r", "<U+202E>"), and so is a byte
// that is not UTF-8. Nothing a dialog would hide or reorder is left. The
// result is only for display: values matched against rules stay raw.
func Visible(s string) string { return visible(s, false) }

// VisibleText is Visible for a text that is laid out in lines: a newline
// stays a line break, everything else is escaped as by Visible. Texts built
// from values already passed through Visible are unchanged by it.
func VisibleText(s string) string { return visible(s, true) }

// visible is Visible, and VisibleText when keepNewline is set. Its plain
// twin escapes every rune looked at alone (plainEscaped in the test);
// TestVisibleFastPathIsPlain keeps them equal.
func visible(s string, keepNewline bool) string {
	// Printable ASCII (and a kept newline) needs no escape: checked byte
	// by byte, the usual text is returned without decoding a rune
	// (TestVisibleFastPathIsPlain).
	i := 0
	for ; i < len(s); i++ {
		if c := s[i]; (c < 0x20 || c >= 0x7f) && !(c == '\n' && keepNewline) {
			break
		}
	}
	if i == len(s) {
		return s
	}
	clean := true
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || invisible(r, keepNewline) {
			clean = false
			break
		}
		i += n
	}
	if clean {
		return s
	}
	return escaped(s, keepNewline)
}

// escaped is s with every rune invisible reports and every byte that is
// not UTF-8 written as an escape. A run of printable ASCII is copied whole:
// a 64 KiB command with line breaks took 1.3 ms written a rune at a time.
// TestVisibleFastPathIsPlain holds visible, and so escaped, to a plain
// rune-by-rune escape.
func escaped(s string, keepNewline bool) string {
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && s[j] >= 0x20 && s[j] < 0x7f {
			j++
		}
		if j > i {
			b.WriteString(s[i:j])
			i = j
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case !invisible(r, keepNewline):
			b.WriteString(s[i : i+n])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, "<U+%04X>", r)
		}
		i += n
	}
	return b.String()
}

// invisible reports whether r must be escaped in front of a person.
func invisible(r rune, keepNewline bool) bool {
	switch {
	case r == '\n':
		return !keepNewline
	case r == ' ':
		return false
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
		return true
	case r < 0x7f:
		return false
	case unicode.Is(unicode.Zs, r): // no-break and other look-alike spaces
		return true
	case !unicode.IsGraphic(r): // Cc, Cf (bidi, zero-width, tags), Co, Cn, Zl, Zp
		return true
	}
	switch {
	case r >= 0xfe00 && r <= 0xfe0f, r >= 0xe0100 && r <= 0xe01ef: // variation selectors
		return true
	case r == 0x034f, r == 0x115f, r == 0x1160, r == 0x17b4, r == 0x17b5, r == 0x180b, r == 0x180c,
		r == 0x180d, r == 0x180f, r == 0x2800, r == 0x3164, r == 0xffa0: // joiners, fillers, blanks
		return true
	}
	return false
}
