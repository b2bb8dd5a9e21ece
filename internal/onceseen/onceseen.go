// Package onceseen is a table of things seen once, for the memos that keep
// an answer only from its second sighting on: a thing seen once costs a
// 64-bit hash in a fixed table (no allocation, nothing for the collector
// to scan) instead of a kept copy of its key.
package onceseen

import "hash/maphash"

// Slots is the size of a Table (a power of two): 32 KB of hashes.
const Slots = 1 << 12

// Table notes keys seen once. It keeps a hash of each key in the slot the
// hash names: a key displaced from its slot by another is seen afresh
// (its answer is kept a sighting later), and two keys of one hash count as
// one (an answer is then kept at its first sighting; the memos compare
// keys whole before they re-use anything). The zero value is ready; it is
// not safe for concurrent use (its users hold their own locks).
type Table struct {
	slots [Slots]uint64
}

// seed seeds every table's hashes.
var seed = maphash.MakeSeed()

// Again reports whether key was noted before, and forgets it then;
// otherwise it notes it.
func (t *Table) Again(key []byte) bool {
	return t.AgainHash(maphash.Bytes(seed, key))
}

// NewHash is a hash seeded as the tables' are, for a key made of several
// parts: written into it part by part (with a separator the parts cannot
// hold, or their lengths), its Sum64 is what AgainHash takes.
func NewHash() maphash.Hash {
	var h maphash.Hash
	h.SetSeed(seed)
	return h
}

// AgainHash is Again of a key hashed with NewHash.
func (t *Table) AgainHash(h uint64) bool {
	h |= 1 // never 0, the empty slot
	slot := &t.slots[h&(Slots-1)]
	if *slot == h {
		*slot = 0
		return true
	}
	*slot = h
	return false
}
