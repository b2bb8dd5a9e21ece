package policy

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestKeyTableIsMap: a keyTable answers as a map[string]span under the
// same puts, through its growth from 16 slots to thousands: the empty key,
// keys that are prefixes of others, repeated keys, keys never put.
func TestKeyTableIsMap(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{0, 1, 11, 12, 13, 100, 5000} {
		var tab keyTable
		want := map[string]span{}
		keys := []string{"", "a", "ab", "abc", "é", "/srv/data1/", "git"}
		for i := range n {
			keys = append(keys, fmt.Sprintf("k%d", r.IntN(2*n+1)), fmt.Sprintf("tool%d", i))
		}
		for _, k := range keys[:min(len(keys), 2*n+1)] {
			s := tab.slot(k)
			s.sp.n++
			s.sp.off = int32(len(k))
			w := want[k]
			w.n++
			w.off = int32(len(k))
			want[k] = w
		}
		for _, k := range append(keys, "never", "k-1", "tool") {
			if got := tab.get(k); got != want[k] {
				t.Fatalf("%d keys: get(%q) = %+v, the map has %+v", n, k, got, want[k])
			}
		}
		seen := map[string]bool{}
		tab.each(func(s *keySlot) {
			k := tab.key(s)
			if seen[k] {
				t.Fatalf("%d keys: %q listed twice", n, k)
			}
			seen[k] = true
			if s.sp != want[k] {
				t.Fatalf("%d keys: %q listed with %+v, the map has %+v", n, k, s.sp, want[k])
			}
		})
		if len(seen) != len(want) || tab.n != len(want) {
			t.Fatalf("%d keys: %d listed, %d counted, the map has %d", n, len(seen), tab.n, len(want))
		}
	}
}
