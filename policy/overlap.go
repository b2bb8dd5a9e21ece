package policy

import "strings"

// Covers reports, conservatively, whether pattern a matches every value
// pattern b matches (false when unsure).
func Covers(a, b string) bool { return subsumes(a, b) }

// LiteralPrefix is the part of a pattern before its first wildcard.
func LiteralPrefix(pattern string) string {
	if i := strings.IndexAny(pattern, "*?"); i >= 0 {
		return pattern[:i]
	}
	return pattern
}

// PrefixesMeet reports whether a value could start with both a and b:
// one is a prefix of the other.
func PrefixesMeet(a, b string) bool { return strings.HasPrefix(a, b) || strings.HasPrefix(b, a) }
