package gates

import (
	"context"
	"testing"

	"github.com/toolgate/toolgate/policy"
	"github.com/toolgate/toolgate/verdict"
)

// sharedRefs reports what MatchedPattern and Origin report, for every
// kind of descriptor and every trace, and shares the trace's values only
// when they are the same.
func TestSharedRefsAreTheDescriptors(t *testing.T) {
	rule := &policy.Rule{Pattern: "git *", Origin: policy.Origin{Scope: policy.ScopeGlobal, Path: "/p", Line: 3}}
	other := &policy.Rule{Pattern: "git *", Origin: policy.Origin{Scope: policy.ScopeGlobal, Path: "/p", Line: 4}}
	fallback := &policy.Rule{Pattern: "*", Layer: policy.LayerFallback, Origin: policy.Origin{Scope: policy.ScopeBuiltin}}
	descs := []Descriptor{{}, {Rule: rule}, {Rule: other}, {Rule: fallback}, {Sentinel: "(protected)"}, {Sentinel: "(x)", Rule: rule}}
	for i, d := range descs {
		o := Outcome{Gate: verdict.GateTool, Kind: Checked, D: d}
		traces := [][]verdict.TraceEntry{nil, {{Gate: "other", Applied: true}}, {{Gate: verdict.GateTool}}}
		for _, td := range descs {
			traces = append(traces, []verdict.TraceEntry{{Gate: "x", Applied: true}, {Gate: verdict.GateTool, Applied: true, MatchedPattern: td.MatchedPattern(), Origin: td.Origin()}})
		}
		for j, trace := range traces {
			p, or := sharedRefs(&o, trace)
			wp, wo := d.MatchedPattern(), d.Origin()
			if (p == nil) != (wp == nil) || p != nil && *p != *wp || (or == nil) != (wo == nil) || or != nil && *or != *wo {
				t.Fatalf("descriptor %d, trace %d: %v %v, want %v %v", i, j, p, or, wp, wo)
			}
			if len(trace) == 2 {
				te := trace[1]
				if p != nil && te.MatchedPattern != nil && *p == *te.MatchedPattern && p != te.MatchedPattern {
					t.Errorf("descriptor %d, trace %d: the same pattern is not shared", i, j)
				}
				if p != nil && p == te.MatchedPattern && *p != *wp || or != nil && or == te.Origin && *or != *wo {
					t.Errorf("descriptor %d, trace %d: another value is shared", i, j)
				}
			}
		}
	}
}

type nopReporter struct{}

func (nopReporter) Notify(verdict.DecisionParams) {}
func (nopReporter) Audit(AuditRecord) error       { return nil }

// BenchmarkRunEvaluated is Run of outcomes already evaluated (the
// runner's own work: trace, decision, record, notifications; the
// reporter does nothing).
func BenchmarkRunEvaluated(b *testing.B) {
	r := rule(policy.Allow, "git *")
	gs := []Gate{fixed("skill_read", NotApplied, 0, nil), fixed("external_directory", Checked, policy.Allow, r),
		fixed("bash_path", NotApplied, 0, nil), fixed("tool", Checked, policy.Allow, r)}
	req := Request{Call: &Call{ToolCallID: "c1", ToolName: "bash"}, Gates: gs}
	outcomes, _, err := Evaluate(req)
	if err != nil {
		b.Fatal(err)
	}
	req.Evaluated = outcomes
	rn := &Runner{Prompter: nil, Session: nil, Reporter: nopReporter{}}
	b.ReportAllocs()
	for b.Loop() {
		if res := rn.Run(context.Background(), req); res.Action != verdict.ActionAllow {
			b.Fatal(res.Action)
		}
	}
}
