// Package audit writes toolgate's tamper-evident audit log: one JSON line
// per record, written with zerolog, appended and flushed before the answer
// it records is sent, and chained by SHA-256 so that an edited, reordered or
// deleted line is detectable (SPEC §5).
//
// Chain: every record has "seq" (1, 2, … within the file), "prev" (the
// previous record's hash, 64 zeros for the first) and, always last,
// "hash": the hex SHA-256 of prev followed by the record's bytes up to (not
// including) its `,"hash":"…"` suffix, with a closing brace in its place.
package audit

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	json "github.com/goccy/go-json"
	"github.com/rs/zerolog"
)

// Genesis is the prev of the first record of a file.
var Genesis = strings.Repeat("0", 64)

// Log is an append-only, hash-chained audit log.
type Log struct {
	mu   sync.Mutex
	path string
	f    *os.File
	err  error // set when the log could not be opened: every append fails

	seq  uint64
	prev string
	size int64 // the file size after our last write, to notice other writers

	// buf and line are reused from record to record (under mu).
	buf  bytes.Buffer
	line []byte
}

// Open opens (creating it and its parent directories, mode 0700) the log at
// path and continues its chain. A log that cannot be opened is returned
// with the error too: its Append always fails, so calls block.
func Open(path string) (*Log, error) {
	l := &Log{path: path, prev: Genesis}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		l.err = fmt.Errorf("cannot create the directory of the audit log %s: %w", path, err)
		return l, l.err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		l.err = fmt.Errorf("cannot open the audit log %s: %w", path, err)
		return l, l.err
	}
	l.f = f
	if err := l.lock(); err != nil {
		l.err = fmt.Errorf("cannot lock the audit log %s: %w", path, err)
		return l, l.err
	}
	defer l.unlock()
	if err := l.resync(); err != nil {
		l.err = err
		return l, err
	}
	return l, nil
}

// Path is the log's file.
func (l *Log) Path() string { return l.path }

// Err is the error that keeps the log from being written, if any.
func (l *Log) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// resync reads the file's last record to continue its chain (another
// process may have appended since our last write).
func (l *Log) resync() error {
	info, err := l.f.Stat()
	if err != nil {
		return fmt.Errorf("cannot stat the audit log %s: %w", l.path, err)
	}
	if info.Size() == l.size && l.size != 0 {
		return nil
	}
	seq, hash, err := lastRecord(l.path)
	if err != nil {
		return err
	}
	l.seq, l.prev, l.size = seq, hash, info.Size()
	return nil
}

// lastRecord returns the seq and hash of the file's last record (0 and
// Genesis for an empty file).
func lastRecord(path string) (uint64, string, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, "", fmt.Errorf("cannot read the audit log %s: %w", path, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return 0, "", err
	}
	const tail = 1 << 20
	off := info.Size() - tail
	if off < 0 {
		off = 0
	}
	buf, err := io.ReadAll(io.NewSectionReader(f, off, info.Size()-off))
	if err != nil {
		return 0, "", err
	}
	lines := bytes.Split(bytes.TrimRight(buf, "\n"), []byte("\n"))
	last := lines[len(lines)-1]
	if len(bytes.TrimSpace(last)) == 0 {
		return 0, Genesis, nil
	}
	var rec struct {
		Seq  uint64 `json:"seq"`
		Hash string `json:"hash"`
	}
	if err := json.Unmarshal(last, &rec); err != nil || len(rec.Hash) != 64 {
		return 0, "", fmt.Errorf("the audit log %s does not end with a chained record; move it aside to start a new one", path)
	}
	return rec.Seq, rec.Hash, nil
}

// Fields is one record's content; the log adds time, seq, prev and hash.
type Fields func(e *zerolog.Event)

// Append writes one record built by fill and flushes it to the file. It
// returns only when the record is in the file (or failed to get there).
func (l *Log) Append(event string, fill Fields) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return l.err
	}
	if err := l.lock(); err != nil {
		return fmt.Errorf("cannot lock the audit log %s: %w", l.path, err)
	}
	defer l.unlock()
	if err := l.resync(); err != nil {
		return err
	}
	if l.buf.Cap() > maxKeptLine {
		l.buf = bytes.Buffer{}
	}
	l.buf.Reset()
	lg := zerolog.New(&l.buf)
	e := lg.Log().
		Str("time", time.Now().UTC().Format(time.RFC3339Nano)).
		Uint64("seq", l.seq+1).
		Str("event", event)
	if fill != nil {
		fill(e)
	}
	e.Str("prev", l.prev).Send()
	body := bytes.TrimRight(l.buf.Bytes(), "\n")
	if len(body) < 2 || body[len(body)-1] != '}' {
		return errors.New("audit record could not be encoded")
	}
	hash := Hash(l.prev, body)
	line := append(l.line[:0], body[:len(body)-1]...)
	line = append(line, `,"hash":"`...)
	line = append(line, hash...)
	line = append(line, "\"}\n"...)
	if cap(line) <= maxKeptLine {
		l.line = line
	}
	n, err := l.f.Write(line)
	if err != nil {
		return fmt.Errorf("cannot write the audit log %s: %w", l.path, err)
	}
	if n != len(line) {
		return fmt.Errorf("cannot write the audit log %s: short write", l.path)
	}
	l.seq++
	l.prev = hash
	l.size += int64(n)
	return nil
}

// maxKeptLine is the longest record buffer kept for the next record.
const maxKeptLine = 64 << 10

// Hash is the chain hash of a record body (its JSON without the hash field)
// after prev.
func Hash(prev string, body []byte) string {
	h := sha256.New()
	h.Write([]byte(prev))
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

// Close flushes and closes the log.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Sync()
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	if l.err == nil {
		l.err = errors.New("the audit log is closed")
	}
	return err
}

// Problem is the first place the chain of a log breaks.
type Problem struct {
	Line    int
	Message string
}

func (p *Problem) Error() string { return fmt.Sprintf("line %d: %s", p.Line, p.Message) }

// Verify checks the chain of the log read from r: every line a record,
// seq counting from 1, prev equal to the previous hash, hash correct. It
// returns the number of records and the first problem, if any.
func Verify(r io.Reader) (int, *Problem) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	prev := Genesis
	n := 0
	for line := 1; sc.Scan(); line++ {
		b := sc.Bytes()
		if len(bytes.TrimSpace(b)) == 0 {
			return n, &Problem{line, "empty line"}
		}
		var rec struct {
			Seq  *uint64 `json:"seq"`
			Prev *string `json:"prev"`
			Hash *string `json:"hash"`
		}
		if err := json.Unmarshal(b, &rec); err != nil {
			return n, &Problem{line, "not a JSON record: " + err.Error()}
		}
		if rec.Seq == nil || rec.Prev == nil || rec.Hash == nil {
			return n, &Problem{line, "record without seq, prev or hash"}
		}
		if *rec.Seq != uint64(n+1) {
			return n, &Problem{line, fmt.Sprintf("seq is %d, want %d (a record was removed, added or moved)", *rec.Seq, n+1)}
		}
		if *rec.Prev != prev {
			return n, &Problem{line, "prev does not match the previous record's hash (a record was removed, added or moved)"}
		}
		suffix := []byte(`,"hash":"` + *rec.Hash + `"}`)
		if !bytes.HasSuffix(b, suffix) {
			return n, &Problem{line, "hash is not the record's last field"}
		}
		body := append(append([]byte(nil), b[:len(b)-len(suffix)]...), '}')
		if Hash(prev, body) != *rec.Hash {
			return n, &Problem{line, "hash does not match the record (the record was edited)"}
		}
		prev = *rec.Hash
		n++
	}
	if err := sc.Err(); err != nil {
		return n, &Problem{n + 1, "cannot read: " + err.Error()}
	}
	return n, nil
}
