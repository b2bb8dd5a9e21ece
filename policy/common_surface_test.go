package policy

import (
	"sync"
	"testing"
)

// TestCommonSurfacesAreTheCached: commonSurface names each of
// commonSurfaces by its place, and surfaceSet gives for a common surface
// the very list the cache holds (its index and remembered answers), from
// the first call on and from many goroutines at once.
func TestCommonSurfacesAreTheCached(t *testing.T) {
	for i, s := range commonSurfaces {
		if got := commonSurface(s); got != i {
			t.Errorf("commonSurface(%q) = %d, want %d", s, got, i)
		}
	}
	for _, s := range []string{"", "Bash", "bash ", "skill", "webfetch", "external-directory"} {
		if got := commonSurface(s); got != -1 {
			t.Errorf("commonSurface(%q) = %d, want -1", s, got)
		}
	}
	p := global(t, `{"permission": {"bash": {"git *": "allow", "rm *": "deny"}, "read": {"*.env": "deny"}, "path": {"/etc/*": "ask"}}}`)
	surfaces := append(commonSurfaces[:], "skill", "webfetch")
	var wg sync.WaitGroup
	got := make([][]*surfaceRules, 8)
	for g := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, s := range surfaces {
				got[g] = append(got[g], p.surfaceSet(s))
			}
		}()
	}
	wg.Wait()
	for i, s := range surfaces {
		v, ok := p.cache.Load(s)
		if !ok {
			t.Fatalf("%s: not cached", s)
		}
		for g := range got {
			if got[g][i] != v.(*surfaceRules) {
				t.Errorf("%s: goroutine %d got a list the cache does not hold", s, g)
			}
		}
		if again := p.surfaceSet(s); again != v.(*surfaceRules) {
			t.Errorf("%s: a later call got a list the cache does not hold", s)
		}
	}
	if res := p.Resolve(Query{Surface: "bash", Values: []string{"rm -rf x"}, Args: []string{"rm", "-rf", "x"}}); res.Action != Deny {
		t.Errorf("rm -rf x: %v, want deny", res.Action)
	}
}
