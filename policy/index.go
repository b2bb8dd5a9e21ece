package policy

import (
	"slices"
	"strings"
)

// indexMinRules is the shortest rule list that gets an index; a shorter one
// is scanned whole. At 64 (until 2026-12-04) the path surface of a
// 200-rule policy (about 40 rules, each value spelled three or four ways)
// was scanned for every path of a call; indexed from 16, a fresh call
// costs about 4 % less in-process (BenchmarkFreshCorpus).
const indexMinRules = 16

// ruleIndex narrows the rules of one surface to those that can match a
// value, by what every value a rule matches must start with. A pattern
// matches by one of up to three routes (its own text, the bare command a
// trailing " *" also matches, the directory a trailing "/*" also matches on
// path surfaces), and each route is a glob whose literal text before its
// first wildcard begins every value it matches. A rule is filed under each
// route's key:
//
//   - the first word, when that literal text holds a space ("git push *" is
//     filed under "git"), or when the route has no wildcard at all ("ls");
//     a text that starts with spaces is filed under "" and under the
//     first word after them too (" git push *" under "git"), the command
//     the canonical reading takes it for (canonRuleOf: the groups of
//     rules by command are read from these keys);
//   - else its literal text, up to prefixKeyMax bytes ("git*" under "git",
//     "/srv/data1/*" under "/srv/data1/");
//   - else nowhere in particular: it is a candidate for every value ("*",
//     "*.env").
//
// A value's candidates are then the rules filed under its first word, under
// each of its prefixes of a length some key has, and nowhere in particular; no other rule can match it, so
// evaluating the candidates from the last gives what scanning every rule
// gives. TestIndexMatchesScan and FuzzIndex check that.
type ruleIndex struct {
	any []int32 // ascending, like every list here
	// byPrefix and byWord are each key's list as a span of pos, where
	// every list lies: values without pointers, so that the collector
	// has one array to mark, not a list a key (a 10,000-rule policy has
	// about as many keys), and the keys themselves in tables it need not
	// look into (keyTable).
	byPrefix keyTable
	byWord   keyTable
	pos      []int32
	// prefixLens has bit m set when some byPrefix key is m bytes long.
	prefixLens uint32
}

// span is a list of pos: pos[off : off+n].
type span struct{ off, n int32 }

// word is the list filed under the first word w (nil for none).
func (ix *ruleIndex) word(w string) []int32 { return ix.list(ix.byWord.get(w)) }

// prefix is the list filed under the prefix p (nil for none).
func (ix *ruleIndex) prefix(p string) []int32 { return ix.list(ix.byPrefix.get(p)) }

func (ix *ruleIndex) list(s span) []int32 {
	if s.n == 0 {
		return nil
	}
	return ix.pos[s.off : s.off+s.n : s.off+s.n]
}

// prefixKeyMax bounds a prefix key: a longer literal text is filed under
// its first prefixKeyMax bytes.
const prefixKeyMax = 16

func newRuleIndex(rules []*Rule, pathSurface bool) *ruleIndex {
	ix := &ruleIndex{}
	// Two passes: each key's rules counted, then every list laid out in
	// pos, in rule order (ascending), with no list of its own on the way.
	total := 0
	for _, r := range rules {
		total += ix.file(-1, &r.pattern, pathSurface)
	}
	ix.pos = make([]int32, total)
	off := int32(0)
	for _, t := range [2]*keyTable{&ix.byWord, &ix.byPrefix} {
		t.each(func(s *keySlot) {
			n := s.sp.n
			s.sp = span{off: off}
			off += n
		})
	}
	for i, r := range rules {
		ix.file(int32(i), &r.pattern, pathSurface)
	}
	return ix
}

// file files rule i (with pattern p) under its keys: with i < 0 it only
// counts it in each key's span and reports how many keys it is filed
// under; else it writes i at the end of each key's list in pos (and into
// any, for a rule filed under no key). A rule is filed once under each
// distinct key.
func (ix *ruleIndex) file(i int32, p *matcher, pathSurface bool) int {
	words, prefixes, nw, nb, any := routeKeys(p, pathSurface)
	if any {
		if i >= 0 {
			ix.any = append(ix.any, i)
		}
		return 0
	}
	n := 0
	put := func(t *keyTable, k string) {
		s := t.slot(k) // valid until the next key is put
		if i >= 0 {
			ix.pos[s.sp.off+s.sp.n] = i
		}
		s.sp.n++
		n++
	}
	for k, w := range words[:nw] {
		if !slices.Contains(words[:k], w) {
			put(&ix.byWord, w)
		}
	}
	for k, pre := range prefixes[:nb] {
		if !slices.Contains(prefixes[:k], pre) {
			put(&ix.byPrefix, pre)
			ix.prefixLens |= 1 << len(pre)
		}
	}
	return n
}

// routeKeys are the keys the index files pattern p under: its routes'
// first words and literal prefixes, or any (a candidate for every value,
// and then under nothing else).
func routeKeys(p *matcher, pathSurface bool) (words [6]string, prefixes [3]string, nw, nb int, any bool) {
	if p.any {
		return words, prefixes, 0, 0, true
	}
	routes := [3]string{p.expanded}
	n := 1
	if p.hasOpt {
		routes[n] = p.optional()
		n++
	}
	if p.hasDir && pathSurface {
		routes[n] = p.dir()
		n++
	}
	for _, glob := range routes[:n] {
		lit, literal := glob, true
		if w := indexWild(glob); w >= 0 {
			lit, literal = glob[:w], false
		}
		switch sp := strings.IndexByte(lit, ' '); {
		case sp == 0:
			words[nw], nw = "", nw+1
			rest := strings.TrimLeft(lit, " ")
			if sp := strings.IndexByte(rest, ' '); sp > 0 {
				words[nw], nw = rest[:sp], nw+1
			} else if literal && rest != "" {
				words[nw], nw = rest, nw+1
			}
		case sp > 0:
			words[nw], nw = lit[:sp], nw+1
		case literal:
			words[nw], nw = lit, nw+1
		case lit != "":
			prefixes[nb], nb = lit[:min(len(lit), prefixKeyMax)], nb+1
		default:
			return words, prefixes, 0, 0, true
		}
	}
	return words, prefixes, nw, nb, false
}

// filedUnderWord is the positions of the rules an index of rules files
// under word, ascending: word(word) of newRuleIndex(rules, pathSurface),
// its plain twin, without building the index. TestFiledUnderWordMatchesIndex
// keeps them equal.
func filedUnderWord(rules []*Rule, word string, pathSurface bool) []int32 {
	var out []int32
	for i, r := range rules {
		// The cheap test first: every word key is a prefix of the
		// pattern's text or of one of its routes, which are prefixes of it
		// (after its leading spaces).
		if !strings.HasPrefix(strings.TrimLeft(r.pattern.expanded, " "), word) {
			continue
		}
		words, _, nw, _, any := routeKeys(&r.pattern, pathSurface)
		if !any && slices.Contains(words[:nw], word) {
			out = append(out, int32(i))
		}
	}
	return out
}

// candidateList is one list of candidates of a value and the position of
// the next one to merge (from the end, -1 when none is left).
type candidateList struct {
	l  []int32
	at int
}

// maxIndexedValues is how many values evaluate merges candidates for; more
// are scanned whole (a call has one value, a few spellings, or an MCP
// target's candidates).
const maxIndexedValues = 8

// evaluate is evaluateOn over the candidates of values.
func (ix *ruleIndex) evaluate(surface string, values []string, rules []*Rule) (*Rule, string) {
	i, v := ix.evaluateAt(surface, values, rules)
	if i < 0 {
		return nil, ""
	}
	return rules[i], v
}

// evaluateAt is evaluate returning the rule's position, -1 for none.
func (ix *ruleIndex) evaluateAt(surface string, values []string, rules []*Rule) (int, string) {
	if len(values) > maxIndexedValues {
		return evaluateOnAt(surface, values, rules)
	}
	// The candidate lists, each with where its merge stands: only the
	// lists that hold any (a value has a handful), in a small array the
	// call keeps, not one sized for every key a value could have.
	var buf [16]candidateList
	cs := buf[:0]
	if len(ix.any) > 0 {
		cs = append(cs, candidateList{ix.any, len(ix.any) - 1})
	}
	for _, v := range values {
		w := v
		if sp := strings.IndexByte(v, ' '); sp >= 0 {
			w = v[:sp]
		}
		if l := ix.word(w); len(l) > 0 {
			cs = append(cs, candidateList{l, len(l) - 1})
		}
		for m := 1; m <= prefixKeyMax && m <= len(v); m++ {
			if ix.prefixLens&(1<<m) != 0 {
				if l := ix.prefix(v[:m]); len(l) > 0 {
					cs = append(cs, candidateList{l, len(l) - 1})
				}
			}
		}
	}
	// Merge the lists from their ends: candidates in descending order.
	ps := IsPathSurface(surface)
	for {
		best := int32(-1)
		for k := range cs {
			if c := &cs[k]; c.at >= 0 && c.l[c.at] > best {
				best = c.l[c.at]
			}
		}
		if best < 0 {
			return -1, ""
		}
		for k := range cs {
			if c := &cs[k]; c.at >= 0 && c.l[c.at] == best {
				c.at--
			}
		}
		r := rules[best]
		for _, v := range values {
			if r.MatchesValue(v, ps) {
				return int(best), v
			}
		}
	}
}
