package policy

import "hash/maphash"

// keyTable maps the keys of a rule index to their spans with nothing the
// collector must follow: the keys' bytes lie in one arena and each slot
// holds offsets, so a 10,000-rule policy's index is a few arrays of plain
// values to the collector, not ten thousand key strings to visit on every
// collection. Open addressing, linear probing, grown at three quarters
// full. Its plain twin is a map[string]span; TestKeyTableIsMap keeps them
// equal.
type keyTable struct {
	slots []keySlot // a power of two of them; empty while nothing is put
	arena []byte
	n     int
	seed  maphash.Seed
}

// keySlot is one key: arena[off : off+len1-1], len1 zero for an empty slot.
type keySlot struct {
	hash uint32
	off  int32
	len1 int32
	sp   span
}

// key is the text of slot s.
func (t *keyTable) key(s *keySlot) string { return string(t.arena[s.off : s.off+s.len1-1]) }

// slotHash is k's hash; its low bits pick the first slot.
func (t *keyTable) slotHash(k string) uint32 { return uint32(maphash.String(t.seed, k)) }

// find is the slot of k, nil when k was never put.
func (t *keyTable) find(k string) *keySlot {
	if len(t.slots) == 0 {
		return nil
	}
	h := t.slotHash(k)
	mask := uint32(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.len1 == 0 {
			return nil
		}
		if s.hash == h && int(s.len1-1) == len(k) && string(t.arena[s.off:s.off+s.len1-1]) == k {
			return s
		}
	}
}

// get is k's span (zero for a key never put).
func (t *keyTable) get(k string) span {
	if s := t.find(k); s != nil {
		return s.sp
	}
	return span{}
}

// slot is the slot of k, put (with a zero span) when it was not.
func (t *keyTable) slot(k string) *keySlot {
	if s := t.find(k); s != nil {
		return s
	}
	if len(t.slots) == 0 {
		t.seed = maphash.MakeSeed()
		t.slots = make([]keySlot, 16)
	} else if 4*(t.n+1) > 3*len(t.slots) {
		t.grow()
	}
	h := t.slotHash(k)
	mask := uint32(len(t.slots) - 1)
	i := h & mask
	for t.slots[i].len1 != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = keySlot{hash: h, off: int32(len(t.arena)), len1: int32(len(k)) + 1}
	t.arena = append(t.arena, k...)
	t.n++
	return &t.slots[i]
}

// grow doubles the slots, placing every key again.
func (t *keyTable) grow() {
	old := t.slots
	t.slots = make([]keySlot, 2*len(old))
	mask := uint32(len(t.slots) - 1)
	for _, s := range old {
		if s.len1 == 0 {
			continue
		}
		i := s.hash & mask
		for t.slots[i].len1 != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = s
	}
}

// each calls f with every key's slot, in no particular order.
func (t *keyTable) each(f func(s *keySlot)) {
	for i := range t.slots {
		if t.slots[i].len1 != 0 {
			f(&t.slots[i])
		}
	}
}
