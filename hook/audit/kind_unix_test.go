//go:build unix

package audit

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A log that is not a regular file once links are followed — a FIFO, a
// link to /dev/null, a directory — is refused at Open and on every reopen:
// its records would be lost (or, a FIFO, block toolgate while it holds the
// log's lock). Every Append then fails with an error naming the file.
func TestLogMustBeARegularFile(t *testing.T) {
	type place func(t *testing.T, path string)
	fifo := func(t *testing.T, path string) {
		if err := syscall.Mkfifo(path, 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
	}
	devNull := func(t *testing.T, path string) {
		if err := os.Symlink("/dev/null", path); err != nil {
			t.Fatal(err)
		}
	}
	dir := func(t *testing.T, path string) {
		if err := os.Mkdir(path, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	cases := map[string]struct {
		place place
		kind  string
	}{
		"fifo":              {fifo, "named pipe"},
		"link to /dev/null": {devNull, "character device"},
		"directory":         {dir, "directory"},
	}
	within := func(t *testing.T, what string, f func()) {
		t.Helper()
		done := make(chan struct{})
		go func() { f(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("%s hangs", what)
		}
	}
	for name, c := range cases {
		t.Run("at start, "+name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "audit.jsonl")
			c.place(t, path)
			var l *Log
			var err error
			within(t, "Open", func() { l, err = Open(path) })
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), c.kind) {
				t.Fatalf("Open = %v, want an error naming %s and saying it is a %s", err, path, c.kind)
			}
			within(t, "Append", func() { err = l.Append("decision", nil) })
			if err == nil || !strings.Contains(err.Error(), path) {
				t.Fatalf("Append = %v, want an error naming %s", err, path)
			}
		})
		t.Run("on reopen, "+name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "audit.jsonl")
			l := openLog(t, path)
			if err := l.Append("decision", nil); err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			c.place(t, path)
			for i := range 3 { // and it stays refused
				var err error
				within(t, "Append", func() { err = l.Append("decision", nil) })
				if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), c.kind) {
					t.Fatalf("Append %d after the log became a %s = %v, want an error naming it", i, c.kind, err)
				}
			}
		})
	}
}
