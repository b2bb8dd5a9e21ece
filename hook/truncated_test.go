package hook

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	goccy "github.com/goccy/go-json"
)

// TestTruncatedInputIsTheMap: what the audit log records of an input
// longer than maxAuditInput, by hand, is what goccy/go-json's (and
// encoding/json's) Marshal writes of the map it was before, for inputs of
// every kind of byte cut anywhere (a rune cut in two by the bound
// included); and boundedInput gives it for exactly those inputs.
func TestTruncatedInputIsTheMap(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	truncated := 0
	for i := range 3000 {
		var b strings.Builder
		b.WriteString(`{"content":"`)
		for b.Len() < maxAuditInput-8+r.IntN(40) {
			b.WriteString(nasty(r))
		}
		if i%3 == 0 {
			b.WriteString(strings.Repeat("é", 1+r.IntN(3))) // a rune across the bound now and then
		}
		for n := r.IntN(200); n > 0; n-- {
			b.WriteString(nasty(r))
		}
		b.WriteString(`"}`)
		raw := []byte(b.String())
		got := boundedInput(raw)
		if len(raw) <= maxAuditInput {
			if _, ok := got.(json.RawMessage); !ok {
				t.Fatalf("an input of %d bytes recorded as %T", len(raw), got)
			}
			continue
		}
		truncated++
		ti, ok := got.(truncatedInput)
		if !ok {
			t.Fatalf("an input of %d bytes recorded as %T", len(raw), got)
		}
		old := map[string]any{"truncated": true, "bytes": len(raw), "head": string(raw[:maxAuditInput])}
		want, err := goccy.Marshal(old)
		if err != nil {
			t.Fatal(err)
		}
		if std, _ := json.Marshal(old); string(std) != string(want) {
			t.Fatalf("the marshalers disagree: %s / %s", std, want)
		}
		if out := ti.appendTo(nil); string(out) != string(want) {
			t.Fatalf("truncated input written as\n%s\nMarshal writes\n%s", out, want)
		}
		if out, err := goccy.Marshal(ti); err != nil || string(out) != string(want) {
			t.Fatalf("Marshal of the truncated input writes %s (%v), want %s", out, err, want)
		}
	}
	if truncated < 1000 {
		t.Fatalf("only %d of the inputs were over the bound", truncated)
	}
}
