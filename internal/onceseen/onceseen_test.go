package onceseen

import (
	"fmt"
	"testing"
)

func TestAgainOnTheSecondSighting(t *testing.T) {
	var tb Table
	for i := range 100 {
		k := []byte(fmt.Sprint("key ", i))
		if tb.Again(k) {
			t.Fatalf("%s: seen again at its first sighting", k)
		}
	}
	again := 0
	for i := range 100 {
		if tb.Again([]byte(fmt.Sprint("key ", i))) {
			again++
		}
	}
	// 100 keys in 4,096 slots: a displaced key is possible, rare.
	if again < 95 {
		t.Fatalf("only %d of 100 keys seen again", again)
	}
	// Seen again, a key is forgotten: the third sighting is a first one.
	if tb.Again([]byte("key 0")) {
		t.Fatal("a key seen again is still noted")
	}
}

func TestDisplacedKeysAreSeenAfresh(t *testing.T) {
	var tb Table
	for i := range 10 * Slots {
		tb.Again([]byte(fmt.Sprint("k", i)))
	}
	// The first keys were displaced by later ones (at least most of them).
	again := 0
	for i := range 100 {
		if tb.Again([]byte(fmt.Sprint("k", i))) {
			again++
		}
	}
	if again > 10 {
		t.Fatalf("%d of 100 early keys still noted after %d others", again, 10*Slots)
	}
}
