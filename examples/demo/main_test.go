package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDemoLeavesAVerifiedLog runs the demo as a newcomer does and checks
// that its audit log is where it says and that the commands it prints
// work.
func TestDemoLeavesAVerifiedLog(t *testing.T) {
	var out bytes.Buffer
	tmp, err := run(&out)
	if tmp != "" {
		defer os.RemoveAll(tmp)
	}
	if err != nil {
		t.Fatalf("demo: %v\n%s", err, out.String())
	}
	log := filepath.Join(tmp, "audit.jsonl")
	got := out.String()
	for _, want := range []string{
		"audit log " + log,
		"$ " + filepath.Join(tmp, "toolgate") + " audit verify " + log,
		log + ": 7 records, chain intact",
		"12 cases, 12 passed, 0 failed",
		"→ BLOCK (policy_deny, rule \"rm *\")",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("demo output lacks %q", want)
		}
	}
	if info, err := os.Stat(log); err != nil || info.Size() == 0 {
		t.Errorf("the audit log is not left behind: %v", err)
	}
	if t.Failed() {
		t.Log(got)
	}
}
