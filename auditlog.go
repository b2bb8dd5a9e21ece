package main

import (
	"fmt"
	"io"

	"github.com/toolgate/toolgate/author"
)

// readAuditLog reads the recorded calls of the audit log at path for cmd
// (author.ReadAuditLog), saying on stderr why it cannot, or that its tail
// was cut off.
func readAuditLog(cmd, path string, stderr io.Writer) ([]author.Recorded, bool) {
	recs, note, err := author.ReadAuditLog(path)
	if err != nil {
		fmt.Fprintf(stderr, "toolgate %s: %s: %v\n", cmd, path, err)
		return nil, false
	}
	if note != "" {
		fmt.Fprintf(stderr, "toolgate %s: note: %s: %s\n", cmd, path, note)
	}
	return recs, true
}
