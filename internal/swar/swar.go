// Package swar looks at eight bytes at a time in one 64-bit word: the
// scans of JSON text that skip what needs no look byte by byte.
package swar

import (
	"encoding/binary"
	"math/bits"
)

// Ones has 1 in every byte; Highs has every byte's high bit.
const (
	Ones  = 0x0101010101010101
	Highs = 0x8080808080808080
)

// HasZero is non-zero exactly when some byte of v is zero. Its flags are
// the high bits of the bytes: every zero byte is flagged, and a byte that
// is not zero is flagged only above one that is (the borrow that flags it
// starts there), so the lowest flag is the first zero byte (First).
func HasZero(v uint64) uint64 { return (v - Ones) &^ v & Highs }

// Below is non-zero when some byte of v is below n (n at most 0x80),
// flagged as HasZero flags: every such byte below 0x80, a byte from 0x80
// up never (its own high bit set aside), and a byte that is not one only
// above one that is.
func Below(v uint64, n byte) uint64 { return (v - uint64(n)*Ones) &^ v & Highs }

// Word is the eight bytes of b from i on, the first the lowest.
func Word(b []byte, i int) uint64 { return binary.LittleEndian.Uint64(b[i:]) }

// First is the place in its word of the byte whose flag is m's lowest.
func First(m uint64) int { return bits.TrailingZeros64(m) >> 3 }
