package audit

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	json "github.com/goccy/go-json"
)

// lastRecordWhole is lastRecord as it was, reading the last MiB at once:
// the reference the windows must agree with.
func lastRecordWhole(f *os.File, path string, size int64) (uint64, string, int64, error) {
	const tail = 1 << 20
	off := max(size-tail, 0)
	buf := make([]byte, size-off)
	if _, err := f.ReadAt(buf, off); err != nil && !errors.Is(err, io.EOF) {
		return 0, "", 0, err
	}
	end := bytes.LastIndexByte(buf, '\n')
	for end >= 0 {
		start := bytes.LastIndexByte(buf[:end], '\n') + 1
		if start == 0 && off > 0 {
			return 0, "", 0, fmt.Errorf("the audit log %s ends with a line longer than %d bytes; move it aside to start a new one", path, tail)
		}
		line := buf[start:end]
		if len(bytes.TrimSpace(line)) == 0 {
			end = start - 1
			continue
		}
		var rec struct {
			Seq  uint64 `json:"seq"`
			Hash string `json:"hash"`
		}
		if err := json.Unmarshal(line, &rec); err != nil || len(rec.Hash) != 64 {
			return 0, "", 0, fmt.Errorf("the audit log %s does not end with a chained record; move it aside to start a new one", path)
		}
		return rec.Seq, rec.Hash, off + int64(end) + 1, nil
	}
	if off > 0 {
		return 0, "", 0, fmt.Errorf("the audit log %s ends with a line longer than %d bytes; move it aside to start a new one", path, tail)
	}
	return 0, Genesis, 0, nil
}

// Differential: over files of records of every size (small, past a
// window, past several, past the last), torn tails and runs of blank lines
// of every length, and foreign last lines, reading the end of the file in
// growing windows finds what reading its last MiB at once finds.
func TestLastRecordReadsAsTheWholeTail(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 10))
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	sizes := []int{0, 10, 900, 15 << 10, 16 << 10, 17 << 10, 70 << 10, 300 << 10, 1<<20 - 100, 1 << 20, 1<<20 + 10}
	pick := func() int { return sizes[rng.IntN(len(sizes))] + rng.IntN(64) }
	rec := func(seq, pad int) string {
		return fmt.Sprintf(`{"seq":%d,"pad":"%s","hash":"%064x"}`+"\n", seq, strings.Repeat("p", pad), seq)
	}
	for i := 0; i < 300; i++ {
		var b strings.Builder
		n := rng.IntN(4)
		for s := 1; s <= n; s++ {
			b.WriteString(rec(s, pick()))
		}
		switch rng.IntN(5) {
		case 1: // torn
			b.WriteString(rec(n+1, pick())[:1+rng.IntN(40)])
		case 2: // torn, long
			b.WriteString(`{"seq":9,"pad":"` + strings.Repeat("t", pick()))
		case 3: // blank lines
			for j := rng.IntN(4); j >= 0; j-- {
				b.WriteString(strings.Repeat(" ", pick()%(40<<10)) + "\n")
			}
		case 4: // a foreign last line
			b.WriteString(strings.Repeat("x", pick()) + "\n")
		}
		must(t, os.WriteFile(path, []byte(b.String()), 0o600))
		f, err := os.Open(path)
		must(t, err)
		size := int64(b.Len())
		var scratch []byte
		if i%2 == 0 {
			scratch = []byte(strings.Repeat("z", firstWindow)) // a buffer with an earlier read in it
		}
		seq, hash, keep, err := lastRecord(f, path, size, &scratch)
		wseq, whash, wkeep, werr := lastRecordWhole(f, path, size)
		f.Close()
		if seq != wseq || hash != whash || keep != wkeep || fmt.Sprint(err) != fmt.Sprint(werr) {
			t.Fatalf("file %d (%d bytes): windows %d %q %d %v; whole tail %d %q %d %v", i, size, seq, hash, keep, err, wseq, whash, wkeep, werr)
		}
	}
}

// BenchmarkOpen is opening a log of 4 MiB and writing one record to it: a
// claude-hook process's audit work.
func BenchmarkOpen(b *testing.B) {
	path := filepath.Join(b.TempDir(), "audit.jsonl")
	l, err := Open(path)
	if err != nil {
		b.Fatal(err)
	}
	for l.size < 4<<20 {
		if err := l.AppendEnc("decision", benchFields); err != nil {
			b.Fatal(err)
		}
	}
	l.Close()
	b.ReportAllocs()
	for b.Loop() {
		l, err := Open(path)
		if err == nil {
			err = l.AppendEnc("decision", benchFields)
		}
		if err != nil {
			b.Fatal(err)
		}
		l.Close()
	}
}
