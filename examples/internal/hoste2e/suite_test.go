package hoste2e

import (
	"fmt"
	"maps"
	"path/filepath"
	"testing"
)

// failures records a helper's failures instead of failing the test.
type failures struct {
	testing.TB
	errs  []string
	fatal bool
}

func (f *failures) Errorf(format string, args ...any) {
	f.errs = append(f.errs, fmt.Sprintf(format, args...))
}

// Fatalf records and stops the helper's goroutine, as testing's does.
func (f *failures) Fatalf(format string, args ...any) {
	f.errs = append(f.errs, fmt.Sprintf(format, args...))
	f.fatal = true
	panic(f)
}

func (f *failures) run(fn func()) {
	defer func() {
		if r := recover(); r != nil && r != f {
			panic(r)
		}
	}()
	fn()
}

func TestDecisions(t *testing.T) {
	log := filepath.Join(t.TempDir(), "audit.jsonl")
	WriteFile(t, log, `{"event":"start","host":"other"}
{"event":"decision","host":"h","toolName":"bash","action":"allow","input":{"command":"touch a"}}
{"event":"decision","host":"h","toolName":"read","action":"deny","input":{"path":"x.env"}}
{"event":"decision","host":"other","toolName":"bash","action":"deny","input":{"command":"touch b"}}
`)
	f := &failures{TB: t}
	var got map[string]string
	f.run(func() { got = Decisions(f, log, "h") })
	want := map[string]string{"touch a": "allow", "read": "deny", "touch b": "deny"}
	if !maps.Equal(got, want) {
		t.Errorf("Decisions = %v, want %v", got, want)
	}
	if len(f.errs) != 1 || f.fatal {
		t.Errorf("want one error, for the record of the other host; got %q (fatal %t)", f.errs, f.fatal)
	}

	WriteFile(t, log, "{\"event\":\"decision\"}\nnot json\n")
	f = &failures{TB: t}
	f.run(func() { Decisions(f, log, "h") })
	if !f.fatal {
		t.Errorf("a line that is not JSON did not stop the test: %q", f.errs)
	}
}

func TestRanAndBlocked(t *testing.T) {
	dir := t.TempDir()
	WriteFile(t, filepath.Join(dir, "ran.txt"), "")
	results := []string{"denied: e2e reason", "add an allow rule"}
	for _, c := range []struct {
		name string
		fn   func(testing.TB)
		fail bool
	}{
		{"ran", func(t testing.TB) { Ran(t, dir, "ran.txt", results) }, false},
		{"did not run", func(t testing.TB) { Ran(t, dir, "missing.txt", results) }, true},
		{"blocked with every reason", func(t testing.TB) { Blocked(t, dir, "missing.txt", results, "e2e reason", "allow rule") }, false},
		{"blocked without a reason", func(t testing.TB) { Blocked(t, dir, "missing.txt", results, "e2e reason", "--no-ask") }, true},
		{"ran although blocked", func(t testing.TB) { Blocked(t, dir, "ran.txt", results) }, true},
	} {
		f := &failures{TB: t}
		f.run(func() { c.fn(f) })
		if f.fatal != c.fail {
			t.Errorf("%s: failed = %t, want %t (%q)", c.name, f.fatal, c.fail, f.errs)
		}
	}
}
