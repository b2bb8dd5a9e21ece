package shell

import (
	"math/rand/v2"
	"testing"
)

// addAll gives the field that adding each seg in turn with add gives, for
// runs short and long, from an empty field and from one already built.
func TestAddAllIsAdd(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 28))
	word := func() string { return []string{"", "a", "bc", "$x", "~/d", "*"}[rng.IntN(6)] }
	randomSeg := func() seg {
		return seg{raw: word(), text: word(), value: word(), pat: word(), known: rng.IntN(3) > 0,
			lit: rng.IntN(2) == 0, glob: rng.IntN(5) == 0, proc: rng.IntN(9) == 0,
			operand: word(), hasOperand: rng.IntN(4) == 0, pathy: rng.IntN(7) == 0}
	}
	for range 2000 {
		start := field{known: true}
		for range rng.IntN(3) {
			start.add(randomSeg())
		}
		run := make([]seg, rng.IntN(40))
		for i := range run {
			run[i] = randomSeg()
		}
		want, got := start, start
		for _, s := range run {
			want.add(s)
		}
		got.addAll(run)
		if got != want {
			t.Fatalf("addAll of %d segs:\n got %+v\nwant %+v", len(run), got, want)
		}
	}
}
