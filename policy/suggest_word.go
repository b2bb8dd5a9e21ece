package policy

import "strings"

// NearestWord returns the candidate closest to word by edit distance
// (insertions, deletions, substitutions and swaps of neighbours, case
// ignored), if it is close enough to be a likely typo: at most one edit
// for words of up to four letters, two for longer ones, and never the word
// itself. Ties go to the earlier candidate, so callers list the likeliest
// words first.
func NearestWord(word string, candidates []string) (string, bool) {
	w := strings.ToLower(word)
	limit := 1
	if len([]rune(w)) > 4 {
		limit = 2
	}
	best, bestDist := "", limit+1
	for _, c := range candidates {
		if c == word {
			return "", false
		}
		if d := editDistance(w, strings.ToLower(c)); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best, best != ""
}

// DidYouMean is the one style of every typo hint: ` (did you mean "x"?)`,
// or "" when nothing is close.
func DidYouMean(word string, candidates []string) string {
	if c, ok := NearestWord(word, candidates); ok {
		return ` (did you mean "` + c + `"?)`
	}
	return ""
}

// States are the words a state may be.
var States = []string{"allow", "ask", "deny"}

// KnownSurfaces are the surfaces toolgate itself uses, with the most
// common first.
var KnownSurfaces = []string{"bash", "read", "write", "edit", "grep", "find", "ls", "mcp", "skill", "path", "external_directory"}

// TopLevelKeys are the keys a policy file may have, the most common first.
var TopLevelKeys = []string{"permission", "yoloMode", "auditLog", "promptTimeoutMs", "piInfrastructureReadPaths",
	"shellTools", "permissionReviewLog", "debugLog", "doublePressToConfirm", "toolInputPreviewMaxLength",
	"toolTextSummaryMaxLength", "authorizerChain", "$schema"}

// editDistance is the optimal-string-alignment distance of a and b, by
// rune.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// HintTypo adds the nearest valid word to a parse error about a misspelt
// state or top-level key, in the style of DidYouMean; other messages, and
// messages that already carry a hint, come back unchanged.
func HintTypo(message string) string {
	if strings.Contains(message, "did you mean") {
		return message
	}
	if word, ok := quotedAfter(message, "invalid state \"", "\""); ok {
		if h := DidYouMean(word, States); h != "" {
			return insertHint(message, "invalid state \""+word+"\"", h)
		}
	}
	if word, ok := quotedAfter(message, "Unrecognized config key '", "'"); ok {
		return message + DidYouMean(word, TopLevelKeys)
	}
	return message
}

func quotedAfter(s, open, close string) (string, bool) {
	i := strings.Index(s, open)
	if i < 0 {
		return "", false
	}
	rest := s[i+len(open):]
	j := strings.Index(rest, close)
	if j < 0 {
		return "", false
	}
	return rest[:j], true
}

// insertHint puts the hint right after the misspelt word's phrase.
func insertHint(message, phrase, hint string) string {
	return strings.Replace(message, phrase, phrase+hint, 1)
}
