package gates

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestVisible(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"git status", "git status"},
		{"héllo wörld — ✓ 日本", "héllo wörld — ✓ 日本"},
		{"a\x1b[2Jb", `a\x1b[2Jb`},
		{"safe\rrm -rf ~", `safe\rrm -rf ~`},
		{"line1\nline2\tx", `line1\nline2\tx`},
		{"nul\x00 bel\x07 del\x7f", `nul\x00 bel\x07 del\x7f`},
		{"c1\u0085\u009b", `c1<U+0085><U+009B>`},
		{"abc\u202edcba\u202c", "abc<U+202E>dcba<U+202C>"},
		{"\u202a\u202b\u202d\u2066\u2067\u2068\u2069\u200e\u200f\u061c", "<U+202A><U+202B><U+202D><U+2066><U+2067><U+2068><U+2069><U+200E><U+200F><U+061C>"},
		{"zero\u200bwidth\u200c\u200d\u2060\ufeff", "zero<U+200B>width<U+200C><U+200D><U+2060><U+FEFF>"},
		{"soft\u00adhyphen", "soft<U+00AD>hyphen"},
		{"tag\U000e0041\U000e007f", "tag<U+E0041><U+E007F>"},
		{"vs\ufe0f\U000e0100", "vs<U+FE0F><U+E0100>"},
		{"nbsp\u00a0ideo\u3000thin\u2009", "nbsp<U+00A0>ideo<U+3000>thin<U+2009>"},
		{"sep\u2028\u2029", "sep<U+2028><U+2029>"},
		{"private\ue000", "private<U+E000>"},
		{"filler\u3164\u115f", "filler<U+3164><U+115F>"},
		{"bad\xffutf8", `bad\xffutf8`},
	} {
		if got := Visible(tc.in); got != tc.want {
			t.Errorf("Visible(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestVisibleText(t *testing.T) {
	in := "Run:\n  'a\x1b]0;x\x07' \u202e\nok"
	want := "Run:\n  'a\\x1b]0;x\\x07' <U+202E>\nok"
	if got := VisibleText(in); got != want {
		t.Fatalf("VisibleText = %q, want %q", got, want)
	}
	// Idempotent on its own output and on Visible's.
	for _, s := range []string{in, "a\nb\x1bc\u202e"} {
		v := VisibleText(s)
		if VisibleText(v) != v || VisibleText(Visible(s)) != Visible(s) {
			t.Errorf("not idempotent on %q", s)
		}
	}
}

// Whatever goes in, nothing invisible comes out.
func FuzzVisible(f *testing.F) {
	for _, s := range []string{"a\x1bb", "\u202e", "x\ny", "\xff", "日本"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v := Visible(s)
		if !utf8.ValidString(v) {
			t.Fatalf("Visible(%q) = %q is not UTF-8", s, v)
		}
		for _, r := range v {
			if invisible(r, false) {
				t.Fatalf("Visible(%q) = %q keeps %U", s, v, r)
			}
		}
		if strings.Contains(VisibleText(s), "\r") {
			t.Fatalf("VisibleText keeps a CR")
		}
	})
}
