package swar

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// TestFlags: for words of every byte value in every place, among bytes of
// their own kind or random, HasZero and Below flag every byte they are
// about, and their lowest flag is the first such byte.
func TestFlags(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	check := func(w [8]byte, n byte) {
		x := binary.LittleEndian.Uint64(w[:])
		firstZero, firstBelow := -1, -1
		for i := 7; i >= 0; i-- {
			if w[i] == 0 {
				firstZero = i
			}
			if w[i] < n {
				firstBelow = i
			}
		}
		for _, c := range []struct {
			m     uint64
			first int
			what  string
		}{{HasZero(x), firstZero, "HasZero"}, {Below(x, n), firstBelow, "Below"}} {
			if (c.m != 0) != (c.first >= 0) || c.m != 0 && First(c.m) != c.first {
				t.Fatalf("%s of % x (n %#x) = %#x: the first such byte is at %d", c.what, w, n, c.m, c.first)
			}
		}
	}
	for v := 0; v < 256; v++ {
		for at := 0; at < 8; at++ {
			for _, fill := range []byte{0, 1, 0x1f, 0x20, 0x7f, 0x80, 0xff, 'a'} {
				var w [8]byte
				for i := range w {
					w[i] = fill
				}
				w[at] = byte(v)
				for _, n := range []byte{1, 0x20, 0x80} {
					check(w, n)
				}
			}
		}
	}
	for range 200000 {
		var w [8]byte
		for i := range w {
			w[i] = []byte{0, 1, 2, 0x1f, 0x20, 0x21, 0x7f, 0x80, 0x81, 0xff, byte(r.IntN(256))}[r.IntN(11)]
		}
		check(w, []byte{1, 0x20, 0x80}[r.IntN(3)])
	}
}
