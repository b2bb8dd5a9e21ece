package audit

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

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

// noWatch keeps l's records looking at the path (statx), as before the
// watch: what the watch saves.
func noWatch(l *Log) { l.watch.close(); l.watch.skip = 1 << 60 }

// BenchmarkAppendPath is BenchmarkAppend with every record looking up the
// path (no watch).
func BenchmarkAppendPath(b *testing.B) {
	l := benchLog(b)
	noWatch(l)
	for b.Loop() {
		if err := l.AppendEnc("decision", benchFields); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAppendPingPong is one record after a round trip through two
// pipes with another goroutine (as the serve loop reads a call and writes
// an answer between records, so caches are colder than in a loop); med-ns
// is the median time of the record alone. /path is without the watch.
func BenchmarkAppendPingPong(b *testing.B) {
	for _, watched := range []bool{true, false} {
		name := "watch"
		if !watched {
			name = "path"
		}
		b.Run(name, func(b *testing.B) {
			l := benchLog(b)
			if !watched {
				noWatch(l)
			}
			pingPong(b, func() {
				if err := l.AppendEnc("decision", benchFields); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// pingPong runs op after a round trip through two pipes with another
// goroutine and reports the median time of op.
func pingPong(b *testing.B, op func()) {
	r1, w1, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	r2, w2, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	defer r2.Close()
	go func() {
		defer w2.Close()
		var c [1]byte
		for {
			if _, err := r1.Read(c[:]); err != nil {
				return
			}
			w2.Write(c[:])
		}
	}()
	defer w1.Close()
	var c [1]byte
	var ds []time.Duration
	for b.Loop() {
		w1.Write(c[:])
		r2.Read(c[:])
		t := time.Now()
		op()
		ds = append(ds, time.Since(t))
	}
	slices.Sort(ds)
	b.ReportMetric(float64(ds[len(ds)/2]), "med-ns")
}

// BenchmarkAppendTwoWriters is a record of one of two logs writing in
// turn to one file of 2 MiB (two sessions sharing the log): every record
// finds the other's record after its own and reads the tail to continue
// the chain from it.
func BenchmarkAppendTwoWriters(b *testing.B) {
	a := benchLog(b)
	for a.size < 2<<20 {
		if err := a.AppendEnc("decision", benchFields); err != nil {
			b.Fatal(err)
		}
	}
	c, err := Open(a.Path())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ls := []*Log{a, c}
	i := 0
	for b.Loop() {
		if err := ls[i%2].AppendEnc("decision", benchFields); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
