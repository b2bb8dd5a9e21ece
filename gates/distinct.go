package gates

import "slices"

// distinct collects values in the order first added, without repeats. A
// command may have thousands of units or path words: past a few values it
// keeps an index, so collecting stays linear in their number. Its plain
// twin is the list alone, searched for every value; TestDistinct keeps them
// equal before and after the index.
type distinct[T comparable] struct {
	list []T
	seen map[T]struct{}
}

// distinctIndexAt is how many values are searched in the list before an
// index is kept.
const distinctIndexAt = 16

// add adds v unless it is there already, and reports whether it added it.
func (d *distinct[T]) add(v T) bool {
	switch {
	case d.seen != nil:
		if _, ok := d.seen[v]; ok {
			return false
		}
		d.seen[v] = struct{}{}
	case slices.Contains(d.list, v):
		return false
	case len(d.list) >= distinctIndexAt:
		d.seen = make(map[T]struct{}, 2*len(d.list))
		for _, w := range d.list {
			d.seen[w] = struct{}{}
		}
		d.seen[v] = struct{}{}
	}
	d.list = append(d.list, v)
	return true
}
