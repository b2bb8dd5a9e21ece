package shell

import (
	"slices"
	"testing"
)

var contexts = []Context{CtxTop, CtxSubshell, CtxGroup, CtxIf, CtxLoop, CtxCase, CtxFunction,
	CtxCmdSubst, CtxProcSubst, CtxAssignment, CtxDeclaration, CtxTest, CtxArithmetic,
	CtxWrapped, CtxPayload, CtxHeredoc}

var floors = []string{"", SentinelOpaque, SentinelIndirection, SentinelDynamic, SentinelUnparseable, SentinelForeign}

// FuzzAnalyze checks that no input makes Analyze panic or break the shape
// of its result, and that inspect visits what syntax.Walk visits. The seeds
// are the table's commands and testdata/fuzz.
func FuzzAnalyze(f *testing.F) {
	fx := newFixture(f)
	for _, r := range analyzeRows {
		f.Add(fx.expand(r.cmd))
	}
	for _, c := range unnamedSeeds {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		if len(cmd) <= MaxCommandBytes {
			checkInspect(t, cmd)
		}
		a := Analyze(cmd, fx.options())
		if a.Unparseable {
			if a.Error == "" || len(a.Units) > 0 || len(a.Paths) > 0 {
				t.Fatalf("unparseable with Error %q, %d units, %d paths", a.Error, len(a.Units), len(a.Paths))
			}
			return
		}
		for _, u := range a.Units {
			if !slices.Contains(contexts, u.Context) || !slices.Contains(floors, u.Floor) {
				t.Fatalf("unit %+v: unknown context or floor", u)
			}
			if u.Floor != "" && !u.ExactSuggestion {
				t.Fatalf("unit %+v: floored but suggested as a pattern", u)
			}
			_, _ = SuggestPattern(u.Text)
		}
		for _, p := range a.Paths {
			if !p.Known && p.Value != "" {
				t.Fatalf("path %+v: unknown with a value", p)
			}
		}
	})
}
