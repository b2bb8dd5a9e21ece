package e2ecorpus

import (
	"encoding/json"
	"testing"
)

// TestFreshCallsNeverRepeat: the fresh corpus is what its name says.
func TestFreshCallsNeverRepeat(t *testing.T) {
	seen := map[string]int{}
	for n := range 100000 {
		b, err := json.Marshal(FreshCall(n))
		if err != nil {
			t.Fatal(err)
		}
		if m, ok := seen[string(b)]; ok {
			t.Fatalf("call %d repeats call %d: %s", n, m, b)
		}
		seen[string(b)] = n
	}
}

// TestFreshCallSized: a sized call is the fresh call with its write's or
// edit's text of about the size asked for, and the sized corpus never
// repeats either.
func TestFreshCallSized(t *testing.T) {
	seen := map[string]int{}
	sized := 0
	for n := range 5000 {
		plain, _ := json.Marshal(FreshCall(n))
		if b, _ := json.Marshal(FreshCallSized(n, 0)); string(b) != string(plain) {
			t.Fatalf("call %d of size 0 is %s, not FreshCall's %s", n, b, plain)
		}
		call := FreshCallSized(n, 4096)
		b, _ := json.Marshal(call)
		if m, ok := seen[string(b)]; ok {
			t.Fatalf("sized call %d repeats call %d", n, m)
		}
		seen[string(b)] = n
		in := call["input"].(map[string]any)
		var text int
		for _, k := range []string{"content", "oldText", "newText"} {
			if s, ok := in[k].(string); ok {
				text += len(s)
			}
		}
		switch call["toolName"] {
		case "write", "edit":
			sized++
			if text < 4096 || text > 4096+400 {
				t.Fatalf("sized %s %d carries %d bytes of text, want about 4096", call["toolName"], n, text)
			}
		default:
			if string(b) != string(plain) {
				t.Fatalf("sized call %d (%s) changed: %s", n, call["toolName"], b)
			}
		}
	}
	if sized < 500 {
		t.Fatalf("only %d writes and edits in 5,000 calls", sized)
	}
}
