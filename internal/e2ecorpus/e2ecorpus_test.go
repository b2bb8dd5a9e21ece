package e2ecorpus

import (
	"encoding/json"
	"testing"
)

// TestFreshCallsNeverRepeat: the fresh corpus is what its name says.
func TestFreshCallsNeverRepeat(t *testing.T) {
	seen := map[string]int{}
	for n := range 100000 {
		b, err := json.Marshal(FreshCall(n))
		if err != nil {
			t.Fatal(err)
		}
		if m, ok := seen[string(b)]; ok {
			t.Fatalf("call %d repeats call %d: %s", n, m, b)
		}
		seen[string(b)] = n
	}
}
