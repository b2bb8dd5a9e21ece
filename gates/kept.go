package gates

import "sync/atomic"

// Kept is what a host keeps with one remembered evaluation (Evals): a
// value gates never reads (the host's encoding of what Run makes of those
// outcomes), which lives and is dropped with the evaluation, so it is
// keyed by everything the evaluation is (a policy edit, a new session
// approval or a changed file system replaces the evaluation, and with it
// what was kept). Load and Store are safe for concurrent use.
type Kept struct{ v atomic.Value }

// Load returns what was stored, nil if nothing.
func (k *Kept) Load() any { return k.v.Load() }

// Store keeps v (always of the same concrete type).
func (k *Kept) Store(v any) { k.v.Store(v) }

// Kept returns the slot of the remembered evaluation r's outcomes
// (Evaluated) are, given by Evals.Evaluate; nil when they were evaluated
// afresh or r has none.
func (r Request) Kept() *Kept {
	if r.Call == nil || r.Call.remembered == nil {
		return nil
	}
	e := r.Call.remembered
	if len(r.Evaluated) == 0 || len(e.outcomes) != len(r.Evaluated) || &r.Evaluated[0] != &e.outcomes[0] {
		return nil
	}
	return &e.kept
}
