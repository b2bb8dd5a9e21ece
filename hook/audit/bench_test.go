package audit

import (
	"path/filepath"
	"testing"

	"github.com/rs/zerolog"
)

// benchTrace is a decision's trace as the record carries it (RawJSON).
var benchTrace = []byte(`[{"gate":"protected","applied":false,"note":"no protected path"},{"gate":"external_directory","applied":false},` +
	`{"gate":"tool","applied":true,"surface":"bash","value":"git status","state":"allow","resolution":"rule","matchedPattern":"git status",` +
	`"origin":{"scope":"global","path":"/home/u/.pi/agent/extensions/pi-permission-system/config.json","line":12},"command":"git status","forms":["git status"]}]`)

var benchInput = []byte(`{"command":"git status","timeout":120}`)

func benchFields(e *Enc) {
	e.Str("sessionId", "session-1").Str("toolCallId", "call-000123").Str("toolName", "bash").Str("action", "allow").
		Str("resolution", "rule").Str("gate", "tool").Str("surface", "bash").Str("value", "git status").Str("state", "allow").
		Str("matchedPattern", "git status").RawJSON("trace", benchTrace).Str("cwd", "/home/u/work/project").RawJSON("input", benchInput)
}

func benchZerolog(e *zerolog.Event) {
	e.Str("sessionId", "session-1").Str("toolCallId", "call-000123").Str("toolName", "bash").Str("action", "allow").
		Str("resolution", "rule").Str("gate", "tool").Str("surface", "bash").Str("value", "git status").Str("state", "allow").
		Str("matchedPattern", "git status").RawJSON("trace", benchTrace).Str("cwd", "/home/u/work/project").RawJSON("input", benchInput)
}

func benchLog(b *testing.B) *Log {
	l, err := Open(filepath.Join(b.TempDir(), "audit.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { l.Close() })
	b.ReportAllocs()
	return l
}

// BenchmarkAppend is one decision record (its fields appended with Enc),
// written to a log with every system call a record costs.
func BenchmarkAppend(b *testing.B) {
	l := benchLog(b)
	for b.Loop() {
		if err := l.AppendEnc("decision", benchFields); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAppendZerolog is the same record with its fields written by
// zerolog (Append: the API of Fields).
func BenchmarkAppendZerolog(b *testing.B) {
	l := benchLog(b)
	for b.Loop() {
		if err := l.Append("decision", benchZerolog); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAppendNoWrite is BenchmarkAppend without the write of the
// record (the lock, the stat and the head stay): what the record costs
// besides its write.
func BenchmarkAppendNoWrite(b *testing.B) {
	l := benchLog(b)
	if err := l.AppendEnc("decision", benchFields); err != nil { // a log that is not empty
		b.Fatal(err)
	}
	l.write = func(p []byte) (int, error) { return len(p), nil }
	size := l.size // the file's, which no record changes
	for b.Loop() {
		if err := l.AppendEnc("decision", benchFields); err != nil {
			b.Fatal(err)
		}
		l.size = size // else the next record takes the file for cut short
	}
}
