package protocol

import (
	"bytes"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"unicode/utf8"

	gojson "github.com/goccy/go-json"
)

// randString is a string of the kinds of bytes an answer can carry: plain
// text, every control character, HTML-significant and JSON-significant
// characters, U+2028/U+2029, other runes, and invalid UTF-8.
func randString(r *rand.Rand) string {
	if r.Intn(5) == 0 {
		return ""
	}
	pieces := []string{"a", "git status", " ", "/tmp/x", "<", ">", "&", `"`, `\`, "/", "\u2028", "\u2029",
		"é", "日本", "\U0001F600", "\x7f", "\xff", "\xc3", "\xed\xa0\x80", "\ufffd", "\u00a0", "'"}
	var b strings.Builder
	for n := r.Intn(8); n >= 0; n-- {
		if r.Intn(4) == 0 {
			b.WriteByte(byte(r.Intn(0x20)))
			continue
		}
		b.WriteString(pieces[r.Intn(len(pieces))])
	}
	return b.String()
}

func randOrigin(r *rand.Rand) *Origin {
	if r.Intn(2) == 0 {
		return nil
	}
	lines := []int{0, 1, 42, -3, 1 << 40}
	return &Origin{Scope: randString(r), Path: randString(r), Line: lines[r.Intn(len(lines))]}
}

func randPattern(r *rand.Rand) *string {
	if r.Intn(2) == 0 {
		return nil
	}
	s := randString(r)
	return &s
}

func randResult(r *rand.Rand) ToolCallResult {
	res := ToolCallResult{Action: randString(r), Reason: randString(r)}
	if r.Intn(4) != 0 {
		res.Decision = &Decision{Gate: randString(r), Surface: randString(r), Value: randString(r), State: randString(r),
			Resolution: randString(r), MatchedPattern: randPattern(r), Origin: randOrigin(r), Reason: randString(r)}
	}
	switch r.Intn(4) {
	case 0:
	case 1:
		res.Trace = []TraceEntry{} // empty: omitted like nil
	default:
		for n := r.Intn(6); n >= 0; n-- {
			e := TraceEntry{Gate: randString(r), Applied: r.Intn(2) == 0, Surface: randString(r), Value: randString(r),
				State: randString(r), Resolution: randString(r), MatchedPattern: randPattern(r), Origin: randOrigin(r),
				Command: randString(r), Note: randString(r)}
			// The deciding entry's origin is often the decision's (the
			// same value, or a copy of it), which the encoder copies.
			if res.Decision != nil && res.Decision.Origin != nil {
				switch r.Intn(3) {
				case 1:
					e.Origin = res.Decision.Origin
				case 2:
					o := *res.Decision.Origin
					e.Origin = &o
				}
			}
			switch r.Intn(3) {
			case 1:
				e.Forms = []string{}
			case 2:
				for m := r.Intn(4); m >= 0; m-- {
					e.Forms = append(e.Forms, randString(r))
				}
			}
			res.Trace = append(res.Trace, e)
		}
	}
	if r.Intn(3) == 0 {
		res.Confine = &Confine{Command: randString(r)}
	}
	return res
}

func randDecision(r *rand.Rand) DecisionParams {
	return DecisionParams{ToolCallID: randString(r), Gate: randString(r), Surface: randString(r), Value: randString(r),
		Result: randString(r), State: randString(r), Resolution: randString(r), MatchedPattern: randPattern(r),
		Origin: randOrigin(r), AgentName: randString(r)}
}

// TestAppendStringMatchesEncoder holds AppendString to the JSON encoder
// the answers were written with (goccy/go-json), byte for byte.
func TestAppendStringMatchesEncoder(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	check := func(s string) {
		want, err := gojson.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("AppendString(%q) = %s, want %s", s, got, want)
		}
	}
	for c := 0; c < 256; c++ {
		check(string([]byte{byte(c)}))
		check("x" + string([]byte{byte(c)}) + "y")
	}
	for _, s := range []string{"\u2028", "\u2029", "a\u2028b", "\xe2\x80", "\xe2\x80\xa8\xe2", "\U0010FFFF", "\xf4\x90\x80\x80"} {
		check(s)
	}
	// Every byte at every place of strings around the 8-byte scan's
	// words, among plain bytes, and pairs of them.
	plain := "abcdefghijklmnopqrstuvwxyz0123456789 /'~"
	for n := 1; n <= 26; n++ {
		for at := 0; at < n; at++ {
			for c := 0; c < 256; c++ {
				b := []byte(plain[:n])
				b[at] = byte(c)
				check(string(b))
				if at+1 < n {
					b[at+1] = byte(255 - c)
					check(string(b))
				}
			}
		}
	}
	for i := 0; i < 5000; i++ {
		check(randString(r))
	}
	for i := 0; i < 2000; i++ {
		b := make([]byte, r.Intn(12))
		r.Read(b)
		check(string(b))
	}
}

// TestAppendToolCallAnswerMatchesFrame: the hand-written answer is the
// bytes Frame writes (by reflection) for the same notifications and
// result, in both framings.
func TestAppendToolCallAnswerMatchesFrame(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	ids := [][]byte{[]byte(`1`), []byte(`0`), []byte(`18446744073709551615`), []byte(`"c-1"`), []byte(`""`)}
	for _, framing := range []Framing{FramingNewline, FramingContentLength} {
		s := NewStream(strings.NewReader(""), &bytes.Buffer{}, nil, framing, nil)
		for i := 0; i < 3000; i++ {
			res := randResult(r)
			var notes []DecisionParams
			for n := r.Intn(3); n > 0; n-- {
				notes = append(notes, randDecision(r))
			}
			id := ids[r.Intn(len(ids))]
			var msgs []any
			for _, d := range notes {
				msgs = append(msgs, Notification(MethodDecision, d))
			}
			want, err := s.Frame(append(msgs, Result(gojson.RawMessage(id), res))...)
			if err != nil {
				t.Fatal(err)
			}
			prefix := []byte("kept")
			got := s.AppendToolCallAnswer(append([]byte(nil), prefix...), id, notes, &res)
			if !bytes.HasPrefix(got, prefix) || !bytes.Equal(got[len(prefix):], want) {
				t.Fatalf("framing %d, answer differs:\n got %q\nwant %q", framing, got, want)
			}
			if !utf8.Valid(got) {
				t.Fatalf("answer is not valid UTF-8: %q", got)
			}
		}
	}
}

func BenchmarkAppendToolCallAnswer(b *testing.B) {
	r := rand.New(rand.NewSource(3))
	res := randResult(r)
	notes := []DecisionParams{randDecision(r)}
	s := NewStream(strings.NewReader(""), &bytes.Buffer{}, nil, FramingNewline, nil)
	b.Run("appenders", func(b *testing.B) {
		b.ReportAllocs()
		var buf []byte
		for i := 0; i < b.N; i++ {
			buf = s.AppendToolCallAnswer(buf[:0], []byte(`7`), notes, &res)
		}
	})
	b.Run("reflection", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			_, _ = s.Frame(Notification(MethodDecision, notes[0]), Result(gojson.RawMessage(`7`), res))
		}
	})
}

// BenchmarkAppendTypicalAnswer is the answer to an allowed `git status`
// with its decision notification.
func BenchmarkAppendTypicalAnswer(b *testing.B) {
	pat := "git status"
	origin := &Origin{Scope: "global", Path: "/home/user/.pi/agent/extensions/pi-permission-system/config.json", Line: 1}
	res := ToolCallResult{Action: "allow", Decision: &Decision{Gate: "tool", Surface: "bash", Value: "git status", State: "allow",
		Resolution: "policy_allow", MatchedPattern: &pat, Origin: origin},
		Trace: []TraceEntry{{Gate: "skill_read"}, {Gate: "external_directory"},
			{Gate: "bash_external_directory", Note: "no path outside the working directory"},
			{Gate: "bash_path", Note: "no path rule matches"},
			{Gate: "tool", Applied: true, Surface: "bash", Value: "git status", State: "allow", Resolution: "policy_allow",
				MatchedPattern: &pat, Origin: origin, Command: "git status"}}}
	notes := []DecisionParams{{ToolCallID: "call-17", Gate: "tool", Surface: "bash", Value: "git status", Result: "allow",
		State: "allow", Resolution: "policy_allow", MatchedPattern: &pat, Origin: origin}}
	s := NewStream(strings.NewReader(""), &bytes.Buffer{}, nil, FramingNewline, nil)
	b.Run("appenders", func(b *testing.B) {
		b.ReportAllocs()
		var buf []byte
		for i := 0; i < b.N; i++ {
			buf = s.AppendToolCallAnswer(buf[:0], []byte(`17`), notes, &res)
		}
	})
	b.Run("reflection", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			_, _ = s.Frame(Notification(MethodDecision, notes[0]), Result(gojson.RawMessage(`17`), res))
		}
	})
	// kept: the parts the same for every call encoded once, only the ids
	// per call (the fast path's answer of a remembered evaluation).
	b.Run("kept", func(b *testing.B) {
		kept := [][]byte{append(AppendDecisionParamsAfterID(nil, &notes[0]), '}')}
		result := append(AppendToolCallResult([]byte(`,"result":`), &res), '}')
		if got, want := s.AppendKeptAnswer(nil, []byte(`17`), "call-17", kept, result), s.AppendToolCallAnswer(nil, []byte(`17`), notes, &res); !bytes.Equal(got, want) {
			b.Fatalf("kept %s, want %s", got, want)
		}
		b.ReportAllocs()
		var buf []byte
		for i := 0; i < b.N; i++ {
			buf = s.AppendKeptAnswer(buf[:0], []byte(`17`), "call-17", kept, result)
		}
	})
}

func BenchmarkAppendString(b *testing.B) {
	for _, s := range []string{"allow", "policy_allow", "/home/user/.pi/agent/extensions/pi-permission-system/config.json",
		"toolgate: the command is allowed by the rule git * of the global policy, so it runs"} {
		b.Run(fmt.Sprint(len(s)), func(b *testing.B) {
			var buf []byte
			for i := 0; i < b.N; i++ {
				buf = AppendString(buf[:0], s)
			}
		})
	}
}
