package onceseen

import (
	"fmt"
	"hash/maphash"
	"testing"
)

// slotOf is the slot the table keeps key in.
func slotOf(key []byte) uint64 { return (maphash.Bytes(seed, key) | 1) & (Slots - 1) }

// TestAgainOnTheSecondSighting: a key is seen again exactly when no key
// noted after it took its slot; seen again, it is forgotten.
func TestAgainOnTheSecondSighting(t *testing.T) {
	var tb Table
	var keys [][]byte
	for i := range 3 * Slots {
		keys = append(keys, []byte(fmt.Sprint("key ", i)))
	}
	last := map[uint64]int{} // slot → the last key noted in it
	for i, k := range keys {
		if tb.Again(k) {
			t.Fatalf("%s: seen again at its first sighting", k)
		}
		last[slotOf(k)] = i
	}
	// The last key of each slot first (a miss notes its key, which would
	// displace the last one), then the displaced ones.
	again, displaced := 0, 0
	for i, k := range keys {
		if last[slotOf(k)] != i {
			continue
		}
		again++
		if !tb.Again(k) {
			t.Fatalf("%s: not seen again, though no key took its slot", k)
		}
		if tb.Again(k) {
			t.Fatalf("%s: still noted after it was seen again", k)
		}
	}
	for i, k := range keys {
		if last[slotOf(k)] == i {
			continue
		}
		displaced++
		if tb.Again(k) {
			t.Fatalf("%s: seen again, though %s took its slot", k, keys[last[slotOf(k)]])
		}
	}
	if again == 0 || displaced == 0 {
		t.Fatalf("%d keys seen again, %d displaced: the test covers neither case", again, displaced)
	}
}

// TestAgainHashIsAgain: a key hashed with NewHash is the key Again sees.
func TestAgainHashIsAgain(t *testing.T) {
	var tb Table
	for i := range 100 {
		key := fmt.Sprint("key ", i)
		h := NewHash()
		h.WriteString(key)
		if tb.AgainHash(h.Sum64()) {
			t.Fatalf("%s: seen again at its first sighting", key)
		}
		if !tb.Again([]byte(key)) {
			t.Fatalf("%s: noted by AgainHash, not seen again by Again", key)
		}
	}
}
