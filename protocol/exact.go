package protocol

import (
	"unicode"
	"unicode/utf8"
)

// NearKey reports whether key would be read as want by a lenient reader:
// the same after folding letter case (as Unicode simple folding does, so
// the Kelvin sign is a k) and dropping '_' and '-' ("Choice", "tool_name"
// for "toolName"). toolgate reads keys exactly; a near miss of a key it
// reads fails closed instead of being ignored.
func NearKey(key, want string) bool {
	i, j := 0, 0
	for {
		for i < len(key) && (key[i] == '_' || key[i] == '-') {
			i++
		}
		for j < len(want) && (want[j] == '_' || want[j] == '-') {
			j++
		}
		if i == len(key) || j == len(want) {
			return i == len(key) && j == len(want)
		}
		a, n := utf8.DecodeRuneInString(key[i:])
		b, m := utf8.DecodeRuneInString(want[j:])
		i, j = i+n, j+m
		if a != b && !foldEqual(a, b) {
			return false
		}
	}
}

func foldEqual(a, b rune) bool {
	for r := unicode.SimpleFold(a); r != a; r = unicode.SimpleFold(r) {
		if r == b {
			return true
		}
	}
	return false
}
