package hook

import (
	"fmt"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/protocol"
)

// The end of input ends the session like shutdown: every request read
// before it is answered, whatever method it is and however long it takes
// (policy/reload reads every file again), not only the calls.
func TestEveryRequestReadBeforeTheEndIsAnswered(t *testing.T) {
	dir := t.TempDir()
	var lines [][]byte
	methods := []string{"policy/reload", "session/approvals", "no/such/method", "policy/reload"}
	for i, m := range methods {
		lines = append(lines, []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q}`, i+1, m)))
	}
	for round := range 20 { // the answers raced the end of input
		out, _, _ := wireSession(t, dir, protocol.FramingNewline, false, lines)
		for i := range methods {
			if !strings.Contains(string(out), fmt.Sprintf(`"id":%d,`, i+1)) {
				t.Fatalf("round %d: no answer to %s (id %d):\n%s", round, methods[i], i+1, out)
			}
		}
	}
}
