package gates

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/policy"
	"github.com/toolgate/toolgate/verdict"
)

type fakePrompter struct {
	answer Answer
	asked  []verdict.PromptParams
}

func (f *fakePrompter) Ask(_ context.Context, p verdict.PromptParams) Answer {
	f.asked = append(f.asked, p)
	return f.answer
}

type fakeRecorder struct{ recorded []verdict.SessionPattern }

func (f *fakeRecorder) Record(ps []verdict.SessionPattern) { f.recorded = append(f.recorded, ps...) }

type fakeReporter struct {
	events   []string // "audit:<event>" and "notify:<gate>" in order
	auditErr error
	records  []AuditRecord
	notes    []verdict.DecisionParams
}

func (f *fakeReporter) Notify(d verdict.DecisionParams) {
	f.events = append(f.events, "notify:"+d.Gate)
	f.notes = append(f.notes, d)
}

func (f *fakeReporter) Audit(r AuditRecord) error {
	f.events = append(f.events, "audit:"+r.Event)
	f.records = append(f.records, r)
	return f.auditErr
}

func rule(action policy.Action, pattern string) *policy.Rule {
	r := policy.NewRule("bash", pattern, action, policy.LayerConfig, policy.Origin{Scope: policy.ScopeGlobal, Path: "/g.json", Line: 3}, "")
	return &r
}

func fixed(id string, kind Kind, state policy.Action, r *policy.Rule) Gate {
	return Gate{ID: id, Check: func(*Call, Resolver) Outcome {
		if kind == NotApplied {
			return Outcome{}
		}
		return Outcome{Kind: kind, D: Descriptor{Surface: "bash", Value: id + "-value", State: state, Rule: r,
			SessionPatterns: []verdict.SessionPattern{{Surface: "bash", Pattern: id + " *"}},
			Text:            Texts{Deny: id + " denied", Unavailable: id + " unavailable", UserDenied: id + " user-denied"}}}
	}}
}

func run(t *testing.T, gs []Gate, hasUI bool, p *fakePrompter, rep *fakeReporter) (verdict.ToolCallResult, *fakeRecorder) {
	t.Helper()
	rec := &fakeRecorder{}
	rn := &Runner{Prompter: p, Session: rec, Reporter: rep}
	res := rn.Run(context.Background(), Request{Call: &Call{ToolCallID: "c1", ToolName: "bash"}, Gates: gs, HasUI: hasUI})
	return res, rec
}

func TestRunnerDenyBeatsAskWithoutPrompting(t *testing.T) {
	p, rep := &fakePrompter{answer: Answer{Choice: verdict.ChoiceAllowOnce}}, &fakeReporter{}
	res, _ := run(t, []Gate{fixed("a", Checked, policy.Ask, rule(policy.Ask, "x")), fixed("b", Checked, policy.Deny, rule(policy.Deny, "y"))}, true, p, rep)
	if res.Action != verdict.ActionBlock || res.Decision.Gate != "b" || res.Decision.Resolution != verdict.ResPolicyDeny {
		t.Fatalf("got %+v / %+v", res, res.Decision)
	}
	if len(p.asked) != 0 {
		t.Fatalf("prompted %d times, want none", len(p.asked))
	}
	if got := strings.Join(rep.events, ","); got != "audit:decision,notify:b" {
		t.Fatalf("side effects = %s", got)
	}
	if res.Reason != "b denied" {
		t.Fatalf("reason = %q", res.Reason)
	}
}

func TestRunnerAskResolutions(t *testing.T) {
	cases := []struct {
		name       string
		hasUI      bool
		answer     Answer
		action     string
		resolution string
		reason     string
		recorded   int
	}{
		{"no UI", false, Answer{}, verdict.ActionBlock, verdict.ResConfirmationUnavailable, "a unavailable", 0},
		{"allow once", true, Answer{Choice: verdict.ChoiceAllowOnce}, verdict.ActionAllow, verdict.ResUserApproved, "", 0},
		{"allow session", true, Answer{Choice: verdict.ChoiceAllowSession}, verdict.ActionAllow, verdict.ResUserApprovedForSession, "", 1},
		{"deny", true, Answer{Choice: verdict.ChoiceDeny}, verdict.ActionBlock, verdict.ResUserDenied, "a user-denied", 0},
		{"deny with reason", true, Answer{Choice: verdict.ChoiceDenyWithReason, Reason: "frozen"}, verdict.ActionBlock, verdict.ResUserDenied, "a user-denied Reason: frozen", 0},
		{"failed", true, Answer{Failed: "no answer within 1s"}, verdict.ActionBlock, verdict.ResPromptFailed, "no answer within 1s", 0},
		{"unknown choice", true, Answer{Choice: "maybe"}, verdict.ActionBlock, verdict.ResPromptFailed, "maybe", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, rep := &fakePrompter{answer: tc.answer}, &fakeReporter{}
			res, rec := run(t, []Gate{fixed("a", Checked, policy.Ask, rule(policy.Ask, "x"))}, tc.hasUI, p, rep)
			if res.Action != tc.action || res.Decision.Resolution != tc.resolution {
				t.Fatalf("got %s/%s, want %s/%s", res.Action, res.Decision.Resolution, tc.action, tc.resolution)
			}
			if res.Decision.State != "ask" {
				t.Fatalf("state = %s, want ask (the state before the prompt)", res.Decision.State)
			}
			if !strings.Contains(res.Reason, tc.reason) {
				t.Fatalf("reason %q does not contain %q", res.Reason, tc.reason)
			}
			if len(rec.recorded) != tc.recorded {
				t.Fatalf("recorded %v", rec.recorded)
			}
			if tc.hasUI && len(p.asked) != 1 {
				t.Fatalf("asked %d times", len(p.asked))
			}
			if !tc.hasUI && len(p.asked) != 0 {
				t.Fatalf("prompted without a UI")
			}
		})
	}
}

func TestRunnerPromptOptions(t *testing.T) {
	p, rep := &fakePrompter{answer: Answer{Choice: verdict.ChoiceDeny}}, &fakeReporter{}
	run(t, []Gate{fixed("a", Checked, policy.Ask, rule(policy.Ask, "x"))}, true, p, rep)
	var ids []string
	for _, o := range p.asked[0].Options {
		ids = append(ids, o.ID)
	}
	if got := strings.Join(ids, ","); got != "allow_once,allow_session,deny,deny_with_reason" {
		t.Fatalf("options = %s", got)
	}
	if got := strings.Join(rep.events, ","); got != "audit:prompt,audit:prompt_answer,audit:decision,notify:a" {
		t.Fatalf("side effects = %s", got)
	}
}

func TestRunnerAllowNotifiesEveryDecidedGate(t *testing.T) {
	p, rep := &fakePrompter{}, &fakeReporter{}
	res, _ := run(t, []Gate{
		fixed("a", NotApplied, 0, nil),
		fixed("b", Checked, policy.Allow, rule(policy.Allow, "x")),
		fixed("c", Checked, policy.Allow, rule(policy.Allow, "y")),
	}, true, p, rep)
	if res.Action != verdict.ActionAllow || res.Decision.Gate != "c" || res.Decision.Resolution != verdict.ResPolicyAllow {
		t.Fatalf("got %+v", res.Decision)
	}
	if got := strings.Join(rep.events, ","); got != "audit:decision,notify:b,notify:c" {
		t.Fatalf("side effects = %s", got)
	}
	if len(res.Trace) != 3 || res.Trace[0].Applied || !res.Trace[1].Applied {
		t.Fatalf("trace = %+v", res.Trace)
	}
}

func TestRunnerAuditFailureBlocks(t *testing.T) {
	p, rep := &fakePrompter{}, &fakeReporter{auditErr: errors.New("disk full")}
	res, _ := run(t, []Gate{fixed("a", Checked, policy.Allow, rule(policy.Allow, "x"))}, true, p, rep)
	if res.Action != verdict.ActionBlock || res.Decision.Resolution != verdict.ResGateError || !strings.Contains(res.Reason, "disk full") {
		t.Fatalf("got %+v %q", res.Decision, res.Reason)
	}
	if rep.notes[0].Result != "deny" {
		t.Fatalf("notification after a failed audit says %s", rep.notes[0].Result)
	}
}

func TestRunnerPanicIsGateError(t *testing.T) {
	boom := Gate{ID: "boom", Check: func(*Call, Resolver) Outcome { panic("bad") }}
	p, rep := &fakePrompter{}, &fakeReporter{}
	res, _ := run(t, []Gate{fixed("a", Checked, policy.Allow, rule(policy.Allow, "x")), boom}, true, p, rep)
	if res.Action != verdict.ActionBlock || res.Decision.Resolution != verdict.ResGateError || res.Decision.Gate != "boom" {
		t.Fatalf("got %+v", res.Decision)
	}
	if !strings.Contains(res.Reason, "fail-closed") {
		t.Fatalf("reason = %q", res.Reason)
	}
}

func TestRunnerShutdownBlocks(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rn := &Runner{Prompter: &fakePrompter{}, Session: &fakeRecorder{}, Reporter: &fakeReporter{}}
	res := rn.Run(ctx, Request{Call: &Call{ToolCallID: "c1"}, Gates: []Gate{fixed("a", Checked, policy.Allow, rule(policy.Allow, "x"))}})
	if res.Action != verdict.ActionBlock || !strings.Contains(res.Reason, "shutting down") || res.Decision.Resolution != verdict.ResGateError {
		t.Fatalf("got %+v %q", res.Decision, res.Reason)
	}
}

func TestCheckIsDryRun(t *testing.T) {
	res := Check(Request{Call: &Call{}, Gates: []Gate{
		fixed("a", Checked, policy.Ask, rule(policy.Ask, "x")),
		fixed("b", Checked, policy.Ask, rule(policy.Ask, "y")),
		fixed("c", Checked, policy.Allow, rule(policy.Allow, "z")),
	}})
	if res.State != "ask" || res.Decision.Gate != "a" {
		t.Fatalf("got %s from %s, want ask from the first asking gate", res.State, res.Decision.Gate)
	}
}

func TestRunnerNoDecisionBlocks(t *testing.T) {
	p, rep := &fakePrompter{}, &fakeReporter{}
	res, _ := run(t, []Gate{fixed("a", NotApplied, 0, nil)}, true, p, rep)
	if res.Action != verdict.ActionBlock || res.Decision.Resolution != verdict.ResGateError {
		t.Fatalf("got %+v", res.Decision)
	}
}

// notingResolver is a Resolver whose policy has a broken file.
type notingResolver struct {
	Resolver
	note string
}

func (n notingResolver) BrokenNote() string { return n.note }

// TestRunnerNotesBrokenFile: while a policy file is broken, every prompt
// and block reason says so; an allow says nothing.
func TestRunnerNotesBrokenFile(t *testing.T) {
	const note = " (note: policy file /g.json:2 is broken: x; its rules are not applied, so every allow asks)"
	res := notingResolver{note: note}
	for _, c := range []struct {
		name   string
		state  policy.Action
		hasUI  bool
		answer Answer
		want   string // the reason, or the prompt message with hasUI
	}{
		{"deny", policy.Deny, false, Answer{}, "g denied" + note},
		{"ask without UI", policy.Ask, false, Answer{}, "g unavailable" + note},
		{"prompt", policy.Ask, true, Answer{Choice: verdict.ChoiceDeny}, "g asks" + note},
	} {
		g := Gate{ID: "g", Check: func(*Call, Resolver) Outcome {
			return Outcome{Kind: Checked, D: Descriptor{Surface: "bash", Value: "v", State: c.state, Rule: rule(c.state, "x"),
				Prompt: PromptText{Message: "g asks"}, Text: Texts{Deny: "g denied", Unavailable: "g unavailable", UserDenied: "g user-denied"}}}
		}}
		p := &fakePrompter{answer: c.answer}
		rn := &Runner{Prompter: p, Session: &fakeRecorder{}, Reporter: &fakeReporter{}}
		out := rn.Run(context.Background(), Request{Call: &Call{ToolCallID: "c1", ToolName: "bash"}, Gates: []Gate{g}, HasUI: c.hasUI, Resolver: res})
		got := out.Reason
		if c.hasUI {
			if len(p.asked) != 1 {
				t.Fatalf("%s: asked %d times", c.name, len(p.asked))
			}
			got = p.asked[0].Message
		}
		if got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
		if chk := Check(Request{Call: &Call{ToolCallID: "c1", ToolName: "bash"}, Gates: []Gate{g}, Resolver: res}); !strings.HasSuffix(chk.Reason, note) {
			t.Errorf("%s: check reason %q has no note", c.name, chk.Reason)
		}
	}
	allow := fixed("a", Checked, policy.Allow, rule(policy.Allow, "x"))
	rn := &Runner{Prompter: &fakePrompter{}, Session: &fakeRecorder{}, Reporter: &fakeReporter{}}
	if out := rn.Run(context.Background(), Request{Call: &Call{ToolCallID: "c1", ToolName: "bash"}, Gates: []Gate{allow}, Resolver: res}); out.Action != verdict.ActionAllow || out.Reason != "" {
		t.Errorf("allow: %+v", out)
	}
}

// An answer is applied against the policy of the moment it arrives
// a prompter that swaps the policy while its prompt is open.
type reloadingPrompter struct {
	answer Answer
	asked  []verdict.PromptParams
	onAsk  func(n int) // called with the number of prompts so far
}

func (f *reloadingPrompter) Ask(_ context.Context, p verdict.PromptParams) Answer {
	f.asked = append(f.asked, p)
	if f.onAsk != nil {
		f.onAsk(len(f.asked))
	}
	return f.answer
}

func TestRunnerRedecidesAfterTheAnswer(t *testing.T) {
	s := newSandbox(t)
	before := `{"permission": {"*": "ask", "bash": {"*": "ask", "git *": "allow"}}}`
	cases := []struct {
		name    string
		cmd     string
		after   string // the policy once the prompt is open
		choice  string
		action  string
		res     string
		prompts int
	}{
		{"a deny added while the prompt was open wins", "make deploy", `{"permission": {"bash": {"*": "ask", "make *": "deny"}}}`,
			verdict.ChoiceAllowOnce, verdict.ActionBlock, verdict.ResPolicyDeny, 1},
		{"a deny on another unit wins", "make deploy && git push", `{"permission": {"bash": {"*": "ask", "git push*": "deny"}}}`,
			verdict.ChoiceAllowOnce, verdict.ActionBlock, verdict.ResPolicyDeny, 1},
		{"a deny wins over allow for the session", "make deploy", `{"permission": {"bash": {"*": "ask", "make *": "deny"}}}`,
			verdict.ChoiceAllowSession, verdict.ActionBlock, verdict.ResPolicyDeny, 1},
		{"the same ask is not asked twice", "make deploy", `{"permission": {"*": "ask", "bash": {"*": "ask", "ls": "allow"}}}`,
			verdict.ChoiceAllowOnce, verdict.ActionAllow, verdict.ResUserApproved, 1},
		{"an allow removed: the new ask is put to the person", "make deploy && git push", `{"permission": {"*": "ask"}}`,
			verdict.ChoiceAllowOnce, verdict.ActionAllow, verdict.ResUserApproved, 2},
		{"an unchanged policy asks once", "make deploy", before,
			verdict.ChoiceAllowOnce, verdict.ActionAllow, verdict.ResUserApproved, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			current := compose(t, s.home, before)
			after := compose(t, s.home, tc.after)
			rec := &fakeRecorder{}
			p := &reloadingPrompter{answer: Answer{Choice: tc.choice}, onAsk: func(int) { current = after }}
			rn := &Runner{Prompter: p, Session: rec, Reporter: &fakeReporter{}}
			req := Request{Call: s.bash(tc.cmd), Gates: ToolGates, Resolver: current, HasUI: true,
				Current: func() Resolver { return current }}
			res := rn.Run(context.Background(), req)
			if res.Action != tc.action || res.Decision.Resolution != tc.res || len(p.asked) != tc.prompts {
				t.Fatalf("got %s %s after %d prompts (%s), want %s %s after %d", res.Action, res.Decision.Resolution, len(p.asked), res.Reason, tc.action, tc.res, tc.prompts)
			}
			if tc.prompts == 2 && (strings.Contains(p.asked[0].Message, "'git push'") || !strings.Contains(p.asked[1].Message, "'git push'")) {
				t.Errorf("the second prompt must name the unit that now asks:\n%s\n---\n%s", p.asked[0].Message, p.asked[1].Message)
			}
		})
	}
}

// A policy that changes on every answer cannot keep a call waiting: it
// blocks after a bounded number of rounds.
func TestRunnerRedecideIsBounded(t *testing.T) {
	s := newSandbox(t)
	units := []string{"u0", "u1", "u2", "u3", "u4", "u5", "u6", "u7"}
	policyAsking := func(n int) testResolver {
		// u0..u(n) ask, the others are allowed
		rules := []string{`"*": "ask"`}
		for _, u := range units[n+1:] {
			rules = append(rules, fmt.Sprintf(`"%s": "allow"`, u))
		}
		return compose(t, s.home, `{"permission": {"*": "ask", "bash": {`+strings.Join(rules, ", ")+`}}}`)
	}
	current := policyAsking(0)
	p := &reloadingPrompter{answer: Answer{Choice: verdict.ChoiceAllowOnce}, onAsk: func(n int) { current = policyAsking(n) }}
	rn := &Runner{Prompter: p, Session: &fakeRecorder{}, Reporter: &fakeReporter{}}
	res := rn.Run(context.Background(), Request{Call: s.bash(strings.Join(units, " && ")), Gates: ToolGates, Resolver: current, HasUI: true,
		Current: func() Resolver { return current }})
	if res.Action != verdict.ActionBlock || len(p.asked) != 1+maxRedecide || !strings.Contains(res.Reason, "kept changing") {
		t.Fatalf("got %s after %d prompts: %s", res.Action, len(p.asked), res.Reason)
	}
}

func TestSessionLabelNamesEveryPattern(t *testing.T) {
	for _, tc := range []struct {
		ps   []verdict.SessionPattern
		want string
	}{
		{[]verdict.SessionPattern{{Surface: "bash", Pattern: "git checkout *"}}, `Yes, and allow bash matching 'git checkout *' for this session`},
		{[]verdict.SessionPattern{{Surface: "bash", Pattern: "make *"}, {Surface: "bash", Pattern: "python3 -c x", Exact: true}},
			`Yes, and allow bash matching 'make *', bash exactly 'python3 -c x' for this session`},
		{[]verdict.SessionPattern{{Surface: "acme_deploy", Pattern: "*", Exact: true}}, `Yes, and allow every call of tool 'acme_deploy' for this session`},
		{[]verdict.SessionPattern{{Surface: "bash", Pattern: "echo \x1b[2J\u202e", Exact: true}}, `Yes, and allow bash exactly 'echo \x1b[2J<U+202E>' for this session`},
	} {
		if got := sessionLabel(tc.ps); got != tc.want {
			t.Errorf("sessionLabel(%v) = %q, want %q", tc.ps, got, tc.want)
		}
	}
}
