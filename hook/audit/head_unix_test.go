//go:build unix

package audit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A store into the mapping of a head file cut to nothing faults; the fault
// is caught, and write makes the file whole again with pwrite.
func TestHeadStoreFaultIsCaught(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	h := openHead(path)
	defer h.close()
	rec := appendHead(nil, 7, []byte(strings.Repeat("c", 64)))
	h.write(rec)
	if h.m != nil {
		t.Fatal("the head file was mapped at its first write")
	}
	h.write(rec)
	if h.m == nil {
		t.Fatal("the head file was not mapped at its second write")
	}
	if !h.store(rec) {
		t.Fatal("a store into a whole head failed")
	}
	if err := os.Truncate(HeadPath(path), 0); err != nil {
		t.Fatal(err)
	}
	if h.store(rec) {
		t.Fatal("a store into a head file cut to nothing succeeded")
	}
	rec2 := appendHead(nil, 8, []byte(strings.Repeat("d", 64)))
	h.write(rec2)
	if b, _ := os.ReadFile(HeadPath(path)); string(b) != string(rec2) {
		t.Fatalf("head file = %q, want %q", b, rec2)
	}
	if err := os.Truncate(HeadPath(path), 40); err != nil {
		t.Fatal(err)
	}
	if h.store(rec) {
		t.Fatal("a store into a head file cut short succeeded")
	}
}
