package shell

import (
	"maps"
	"slices"

	"mvdan.cc/sh/v3/syntax"
)

// scope is what the walk knows at one point of a script: the variables with
// a literal value and the directories the shell may be in.
type scope struct {
	src   string // text of the script walked, for words as written
	depth int    // inline-script nesting
	facts *facts
	vars  *varTable
	// dirs are the possible effective directories, never empty; "" stands
	// for a directory that cannot be known.
	dirs []string
	// injectAt is the offset in src of the first node that may set an
	// injection variable in the shell (noInjection if none): from the
	// statement holding it on, every unit is floored.
	injectAt int
	// segBuf is reused by segs.
	segBuf []seg
}

func (a *analyzer) topScope(src string, f *syntax.File) *scope {
	m := &topScopeMem{}
	vars := &m.vars
	vars.small = m.small[:0]
	vars.log = m.log[:0]
	if a.opt.Home != "" {
		vars.set("HOME", a.opt.Home)
	}
	m.dirs[0] = a.opt.Cwd
	sc := &m.sc
	*sc = scope{src: src, vars: vars, dirs: m.dirs[:]}
	sc.facts, sc.injectAt = a.scan(src, f)
	sc.facts.apply(vars)
	return sc
}

// scan is scan, or the analyzer's stand-in for it (scanWith, set by
// tests that compare it with the passes it replaced).
func (a *analyzer) scan(src string, f *syntax.File) (*facts, int) {
	if a.scanWith != nil {
		return a.scanWith(src, f)
	}
	return scan(src, f)
}

// topScopeMem is what topScope allocates, in one allocation.
type topScopeMem struct {
	sc    scope
	vars  varTable
	dirs  [1]string
	log   [4]varChange
	small [smallVars]varEntry
}

// inline returns the scope an inline script is walked in. Code that runs in
// the current shell (shared) sees and changes the caller's variables and
// directory; a child shell starts from the caller's directory and knows only
// HOME.
func (a *analyzer) inline(sc *scope, src string, f *syntax.File, shared bool) *scope {
	child := &scope{src: src, depth: sc.depth + 1, dirs: sc.dirs}
	child.facts, child.injectAt = a.scan(src, f)
	if shared {
		child.vars = sc.vars
	} else {
		child.vars = &varTable{}
		if home, ok := sc.vars.get("HOME"); ok {
			child.vars.set("HOME", home)
		}
	}
	child.facts.apply(child.vars)
	return child
}

// isolate runs f like a subshell: nothing it changes survives.
func (sc *scope) isolate(f func()) {
	dirs, mark := sc.dirs, sc.vars.mark()
	f()
	sc.dirs = dirs
	sc.vars.rollback(mark)
}

// maybe runs f as code that may or may not run: every variable it assigns
// is unknown afterwards. Directories are the caller's business.
func (sc *scope) maybe(f func()) {
	mark := sc.vars.mark()
	f()
	sc.vars.forget(mark)
}

// withDirs runs f with the effective directories set to dirs.
func (sc *scope) withDirs(dirs []string, f func()) {
	saved := sc.dirs
	sc.dirs = dirs
	f()
	sc.dirs = saved
}

// unknownDir is the directory set of a shell whose directory cannot be known.
var unknownDir = []string{""}

// union returns the directories in a or b, in order, without repeats. Past
// maxDirs the directory is simply unknown.
func union(a, b []string) []string {
	if slices.Equal(a, b) {
		return a
	}
	out := slices.Clone(a)
	for _, d := range b {
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	if len(out) > maxDirs {
		return unknownDir
	}
	return out
}

// varTable holds the variables whose literal value is known, with an undo
// log so that subshells and conditional code can be walked in place.
//
// A command assigns few variables: up to smallVars of them sit in a slice
// searched in order (no map to allocate and hash into for every command);
// past that, all of them move to a map, so a command of thousands of
// assignments costs no more than before.
type varTable struct {
	small []varEntry
	big   map[string]string // nil until more than smallVars are set
	log   []varChange
}

// smallVars is how many variables a varTable holds before it takes a map.
const smallVars = 8

type varEntry struct{ name, value string }

// lookup is the value of name, without logging anything.
func (t *varTable) lookup(name string) (string, bool) {
	if t.big != nil {
		v, ok := t.big[name]
		return v, ok
	}
	for i := range t.small {
		if t.small[i].name == name {
			return t.small[i].value, true
		}
	}
	return "", false
}

// store sets name to value, without logging anything.
func (t *varTable) store(name, value string) {
	if t.big != nil {
		t.big[name] = value
		return
	}
	for i := range t.small {
		if t.small[i].name == name {
			t.small[i].value = value
			return
		}
	}
	if len(t.small) < smallVars {
		t.small = append(t.small, varEntry{name, value})
		return
	}
	t.big = make(map[string]string, 2*smallVars)
	for _, e := range t.small {
		t.big[e.name] = e.value
	}
	t.small = nil
	t.big[name] = value
}

// remove forgets name, without logging anything.
func (t *varTable) remove(name string) {
	if t.big != nil {
		delete(t.big, name)
		return
	}
	for i := range t.small {
		if t.small[i].name == name {
			t.small = slices.Delete(t.small, i, i+1)
			return
		}
	}
}

// names are the names set, sorted.
func (t *varTable) names() []string {
	if t.big != nil {
		return slices.Sorted(maps.Keys(t.big))
	}
	names := make([]string, len(t.small))
	for i, e := range t.small {
		names[i] = e.name
	}
	slices.Sort(names)
	return names
}

type varChange struct {
	name, old string
	had       bool
}

func (t *varTable) get(name string) (string, bool) { return t.lookup(name) }

func (t *varTable) set(name, value string) {
	old, had := t.lookup(name)
	t.log = append(t.log, varChange{name, old, had})
	t.store(name, value)
}

func (t *varTable) unset(name string) {
	old, had := t.lookup(name)
	if !had {
		return
	}
	t.log = append(t.log, varChange{name, old, had})
	t.remove(name)
}

// clear forgets every value, e.g. after eval, which may assign anything.
func (t *varTable) clear() {
	for _, name := range t.names() {
		t.unset(name)
	}
}

func (t *varTable) mark() int { return len(t.log) }

// rollback undoes every change since mark.
func (t *varTable) rollback(mark int) {
	for i := len(t.log) - 1; i >= mark; i-- {
		c := t.log[i]
		if c.had {
			t.store(c.name, c.old)
		} else {
			t.remove(c.name)
		}
	}
	t.log = t.log[:mark]
}

// forget makes every variable changed since mark unknown.
func (t *varTable) forget(mark int) {
	if len(t.log) == mark {
		return
	}
	names := make([]string, 0, len(t.log)-mark)
	for _, c := range t.log[mark:] {
		names = append(names, c.name)
	}
	for _, name := range names {
		t.unset(name)
	}
}
