// Package audit writes toolgate's tamper-evident audit log: one JSON line
// per record, appended and flushed before the answer it records is sent,
// and chained by SHA-256 so that an edited, reordered or deleted line is
// detectable.
//
// Format: a record is the line zerolog writes for Log().Str("time",
// RFC 3339 nano, UTC).Uint64("seq", …).Str("event", …), the record's
// fields, Str("prev", …) — zerolog is the definition of the format (its
// field order, its escaping); Enc builds the same bytes directly, in one
// reused buffer (enc_test.go compares the two).
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
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/toolgate/toolgate/internal/filekind"

	json "github.com/goccy/go-json"
	"github.com/rs/zerolog"
)

// Genesis is the prev of the first record of a file.
var Genesis = strings.Repeat("0", 64)

// Log is an append-only, hash-chained audit log that heals itself, never
// silently:
//
//   - a record whose write failed part way (disk full, file size limit) is
//     cut back at once, so the next call succeeds as soon as there is room;
//     a later successful record says how many writes failed;
//   - a torn or blank tail found in the file (a crash, another writer) is
//     cut back to the last complete record, and a "log_repaired" record
//     says what was cut;
//   - a log deleted or replaced while open is noticed at the next record
//     (the path no longer names the open file) and started again by path
//     with a "log_restarted" record naming the previous seq and hash;
//   - beside the log, <log>.head holds the last record's seq and hash
//     (rewritten in place after every record, through a shared mapping of
//     the file where that is safe), so that `audit verify` can
//     tell a cut-off tail. It shows accidents and careless edits, not a
//     determined editor: whoever can rewrite the log can rewrite the head.
//
// Every record is on disk before Append returns, and processes sharing a log
// keep one chain (flock). A record costs flock, a look that tells that the
// path still names the open file, whatever was renamed on the way to it,
// and whether another writer appended (its size), the write, and unlock.
// The look is a stat of the path (on Linux a statx that asks for nothing
// else, see statMask) at the first record and whenever something on the
// way changed; on Linux, from the third record on while nothing did, an
// epoll_wait that finds nothing ready and an lseek to the end of the file
// (see pathWatch): two calls that together cost about a third of the statx.
type Log struct {
	mu   sync.Mutex
	path string
	f    *os.File
	id   fileID    // of f: a stat of path must still name it
	head *headFile // <path>.head; nil when it cannot be opened
	err  error     // set when the log could not be opened: every append fails

	seq  uint64
	prev [64]byte // the last record's hash (hex)
	size int64    // the file size after our last write, to notice other writers

	failed    int    // writes that failed since the last record
	failedErr string // the first of them
	restart   *restart

	// write writes one record (the file's Write; a test may fail it).
	write func(b []byte) (int, error)

	// enc (the record being built), sha and sum are reused from record to
	// record (under mu).
	enc Enc
	sha hash.Hash
	sum [sha256.Size]byte
	hb  [headSize]byte
	// tail is the buffer resync reads the end of the file into.
	tail []byte

	// watch answers a record's question whether path still names f
	// without a look up of the path, while nothing on the way changed
	// (Linux: inotify, see pathWatch).
	watch pathWatch
}

// HeadPath is the head file of the log at path.
func HeadPath(path string) string { return path + ".head" }

// headSize is the fixed size of the head record: "%020d %64s\n".
const headSize = 20 + 1 + 64 + 1

// Open opens (creating it and its parent directories, mode 0700) the log at
// path and continues its chain, cutting a torn tail back first. A log that
// cannot be opened is returned with the error too: its Append always fails,
// so calls block.
func Open(path string) (*Log, error) {
	l := &Log{path: path, sha: sha256.New(), watch: newPathWatch()}
	copy(l.prev[:], Genesis)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		l.err = fmt.Errorf("cannot create the directory of the audit log %s: %w", path, err)
		return l, l.err
	}
	if err := l.open(); err != nil {
		l.err = err
		return l, err
	}
	defer l.unlock()
	if err := l.resync(l.size); err != nil {
		l.err = err
		return l, err
	}
	return l, nil
}

// open opens the file at path and locks it, so that path names the locked
// file (another process may replace it meanwhile).
func (l *Log) open() error {
	for try := 0; ; try++ {
		if info, err := os.Stat(l.path); err == nil {
			if err := regular(info); err != nil {
				return fmt.Errorf("cannot open the audit log %s: %w", l.path, err)
			}
		}
		// Without blocking: a FIFO put there after the stat cannot hang
		// the open; it is refused by its descriptor below.
		f, err := os.OpenFile(l.path, os.O_RDWR|os.O_APPEND|os.O_CREATE|openNoBlock, 0o600)
		if err != nil {
			return fmt.Errorf("cannot open the audit log %s: %w", l.path, err)
		}
		if info, err := f.Stat(); err != nil || regular(info) != nil {
			f.Close()
			if err == nil {
				err = regular(info)
			}
			return fmt.Errorf("cannot open the audit log %s: %w", l.path, err)
		}
		l.f, l.write = f, f.Write
		if err := l.lock(); err != nil {
			f.Close()
			l.f = nil
			return fmt.Errorf("cannot lock the audit log %s: %w", l.path, err)
		}
		mine, err1 := fstatID(f)
		named, _, err2 := statPath(l.path)
		if err1 == nil && err2 == nil && mine.same(named) {
			l.id, l.size = mine, -1 // -1: read the tail
			if l.head != nil {
				l.head.close()
			}
			l.head = openHead(l.path)
			return nil
		}
		l.unlock()
		f.Close()
		l.f = nil
		if try == 3 {
			return fmt.Errorf("cannot open the audit log %s: it keeps being replaced", l.path)
		}
	}
}

// regular says why info (a stat that followed links) is not a regular
// file, or nil. Only a regular file keeps records: a FIFO would block a
// record's write while the log's lock is held, a device (a link to
// /dev/null) would lose every record.
func regular(info fs.FileInfo) error {
	if kind := filekind.Of(info.Mode()); kind != "" {
		return fmt.Errorf("it is %s, not a regular file, so no record could be kept in it", kind)
	}
	return nil
}

// Path is the log's file.
func (l *Log) Path() string { return l.path }

// Err is the error that keeps the log from being written, if any.
func (l *Log) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// restart is a log that must be started again by path, and why.
type restart struct {
	why  string
	seq  uint64
	hash string
}

// current checks, under the lock, that path still names the open file, and
// starts the log again by path when it does not (or when an earlier try
// failed: l.f is nil). It returns the file's size.
func (l *Log) current() (int64, error) {
	if l.f != nil {
		if l.watch.unchanged() {
			if size, err := seekEnd(l.f.Fd()); err == nil {
				return size, nil
			}
			l.watch.disarm()
		}
		named, size, err := statPath(l.path)
		if err == nil && named.same(l.id) {
			if l.watch.want() {
				l.watch.arm(l.path, l.id)
			}
			return size, nil
		}
		l.watch.disarm()
		why := "the audit log was replaced while toolgate had it open"
		if errors.Is(err, os.ErrNotExist) {
			why = "the audit log was deleted while toolgate had it open"
		} else if err != nil {
			return 0, fmt.Errorf("cannot stat the audit log %s: %w", l.path, err)
		}
		if l.restart == nil {
			l.restart = &restart{why: why, seq: l.seq, hash: string(l.prev[:])}
		}
		l.unlock()
		l.f.Close()
		l.f = nil
	}
	if err := os.MkdirAll(filepath.Dir(l.path), 0o700); err != nil {
		return 0, fmt.Errorf("cannot create the directory of the audit log %s again: %w", l.path, err)
	}
	if err := l.open(); err != nil {
		return 0, err
	}
	if err := l.resync(-1); err != nil {
		return 0, err
	}
	if r := l.restart; r != nil {
		if err := l.record("log_restarted", func(e *Enc) {
			e.Str("reason", r.why+"; it is started again here").Uint64("previousSeq", r.seq).Str("previousHash", r.hash)
		}); err != nil {
			return 0, err
		}
		l.restart = nil
	}
	return l.size, nil
}

// resync continues the chain from the file (size: its size now, -1 when
// unknown): another process may have appended since our last write. A torn
// or blank tail is cut back to the last complete record, and the cut is
// recorded; a file that shrank under us is recorded too.
func (l *Log) resync(size int64) error {
	if size == l.size && l.size > 0 {
		return nil
	}
	if size < 0 {
		info, err := l.f.Stat()
		if err != nil {
			return fmt.Errorf("cannot stat the audit log %s: %w", l.path, err)
		}
		size = info.Size()
	}
	shrank := l.size > 0 && size < l.size
	prevSeq, prevHash := l.seq, string(l.prev[:])
	seq, hash, keep, err := lastRecord(l.f, l.path, size, &l.tail)
	if err != nil {
		return err
	}
	cut := []byte(nil)
	if keep < size {
		cut = make([]byte, min(size-keep, 200))
		_, _ = l.f.ReadAt(cut, keep)
		if err := l.f.Truncate(keep); err != nil {
			return fmt.Errorf("cannot cut the torn end of the audit log %s: %w", l.path, err)
		}
	}
	l.seq, l.size = seq, keep
	copy(l.prev[:], hash)
	if cut != nil {
		reason := "a partial record at the end of the log was cut off"
		if len(bytes.TrimSpace(cut)) == 0 {
			reason = "blank lines at the end of the log were cut off"
		}
		if err := l.record("log_repaired", func(e *Enc) {
			e.Str("reason", reason).Int64("cutBytes", size-keep).Str("cut", string(cut))
		}); err != nil {
			return err
		}
	}
	if shrank && seq < prevSeq {
		if err := l.record("log_restarted", func(e *Enc) {
			e.Str("reason", "the audit log was cut short while toolgate had it open; it goes on from its last record").
				Uint64("previousSeq", prevSeq).Str("previousHash", prevHash)
		}); err != nil {
			return err
		}
	}
	return nil
}

// lastRecord returns the seq and hash of the last complete record of f
// (0 and Genesis when there is none) and the size up to the end of that
// record's line: anything after it is a torn record or blank lines. A last
// complete line that is not a chained record is an error: that is not a
// torn write, and toolgate does not cut what it cannot explain.
//
// It reads the end of the file, 16 KiB first (a record is about a KiB), and
// four times more each time the last line does not start in what it read,
// up to 1 MiB: a line longer than that is an error too. Its plain twin
// reads the last MiB at once (lastRecordWhole in the test);
// TestLastRecordReadsAsTheWholeTail keeps them equal.
//
// scratch, when not nil, is a buffer of the first window's size to read it
// into (the log's, reused from resync to resync).
func lastRecord(f *os.File, path string, size int64, scratch *[]byte) (uint64, string, int64, error) {
	const tail = 1 << 20
	for window := int64(firstWindow); ; window = min(4*window, tail) {
		var buf []byte
		if scratch != nil && window == firstWindow {
			if *scratch == nil {
				*scratch = make([]byte, firstWindow)
			}
			buf = *scratch
		}
		seq, hash, keep, more, err := lastRecordIn(f, path, size, window, buf)
		if !more {
			return seq, hash, keep, err
		}
		if window == tail {
			return 0, "", 0, fmt.Errorf("the audit log %s ends with a line longer than %d bytes; move it aside to start a new one", path, tail)
		}
	}
}

// firstWindow is the first window lastRecord reads.
const firstWindow = 16 << 10

// lastRecordIn is lastRecord from the last window bytes of the file (read
// into buf when it is that long); more when the last complete line (or the
// end of the file's torn tail) does not start in them.
func lastRecordIn(f *os.File, path string, size, window int64, buf []byte) (seq uint64, hash string, keep int64, more bool, err error) {
	off := max(size-window, 0)
	if int64(len(buf)) >= size-off {
		buf = buf[:size-off]
	} else {
		buf = make([]byte, size-off)
	}
	if _, err := f.ReadAt(buf, off); err != nil && !errors.Is(err, io.EOF) {
		return 0, "", 0, false, fmt.Errorf("cannot read the audit log %s: %w", path, err)
	}
	end := bytes.LastIndexByte(buf, '\n') // buf[end+1:] is torn
	for end >= 0 {
		start := bytes.LastIndexByte(buf[:end], '\n') + 1
		if start == 0 && off > 0 {
			return 0, "", 0, true, nil
		}
		line := buf[start:end]
		if len(bytes.TrimSpace(line)) == 0 {
			end = start - 1 // a blank line: cut it too
			continue
		}
		var rec struct {
			Seq  uint64 `json:"seq"`
			Hash string `json:"hash"`
		}
		if err := json.Unmarshal(line, &rec); err != nil || len(rec.Hash) != 64 {
			return 0, "", 0, false, fmt.Errorf("the audit log %s does not end with a chained record; move it aside to start a new one", path)
		}
		return rec.Seq, rec.Hash, off + int64(end) + 1, false, nil
	}
	if off > 0 {
		return 0, "", 0, true, nil
	}
	return 0, Genesis, 0, false, nil
}

// Fields is one record's content, written with zerolog; the log adds
// time, seq, prev and hash.
type Fields func(e *zerolog.Event)

// Append writes one record built by fill and flushes it to the file. It
// returns only when the record is in the file (or failed to get there).
func (l *Log) Append(event string, fill Fields) error {
	if fill == nil {
		return l.AppendEnc(event, nil)
	}
	return l.AppendEnc(event, func(e *Enc) { e.zerolog(fill) })
}

// zerolog appends the fields that fill writes with zerolog.
func (e *Enc) zerolog(fill Fields) {
	var buf bytes.Buffer
	lg := zerolog.New(&buf)
	ev := lg.Log()
	fill(ev)
	ev.Send()
	b := bytes.TrimRight(buf.Bytes(), "\n")
	if len(b) > 2 && b[0] == '{' && b[len(b)-1] == '}' {
		e.b = append(append(e.b, ','), b[1:len(b)-1]...)
	}
}

// AppendEnc is Append of a record whose fields fill appends with Enc (the
// bytes zerolog would write, built directly).
func (l *Log) AppendEnc(event string, fill func(e *Enc)) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return l.err
	}
	if l.f != nil {
		if err := l.lock(); err != nil {
			return fmt.Errorf("cannot lock the audit log %s: %w", l.path, err)
		}
	}
	size, err := l.current()
	if err != nil {
		if l.f != nil {
			l.unlock()
		}
		return err
	}
	defer l.unlock()
	if err := l.resync(size); err != nil {
		return err
	}
	if l.failed > 0 {
		n, first := l.failed, l.failedErr
		if err := l.record("log_write_failed", func(e *Enc) {
			e.Int("failedWrites", n).Str("firstError", first).Str("reason", "records could not be written, so their calls were blocked")
		}); err != nil {
			return err
		}
		l.failed, l.failedErr = 0, ""
	}
	return l.record(event, fill)
}

// record builds, writes and chains one record; the lock is held. A write
// that fails part way is cut back at once, so nothing torn stays behind.
//
// The record is what zerolog wrote for Log().Str("time", …).Uint64("seq",
// …).Str("event", …), the fields, then Str("prev", …).Send(), built in one
// reused buffer; its hash goes in the same buffer, so the line is written
// from where it was built.
func (l *Log) record(event string, fill func(e *Enc)) error {
	if cap(l.enc.b) > maxKeptLine {
		l.enc.b = nil
	}
	b := append(l.enc.b[:0], `{"time":"`...)
	b = appendTime(b, time.Now())
	b = append(b, `","seq":`...)
	b = strconv.AppendUint(b, l.seq+1, 10)
	b = append(b, `,"event":`...)
	l.enc.b = AppendZerologString(b, event)
	if fill != nil {
		fill(&l.enc)
	}
	b = append(l.enc.b, `,"prev":"`...)
	b = append(b, l.prev[:]...)
	b = append(b, '"', '}')
	l.sha.Reset()
	l.sha.Write(l.prev[:])
	l.sha.Write(b)
	sum := l.sha.Sum(l.sum[:0])
	b = append(b[:len(b)-1], `,"hash":"`...)
	at := len(b)
	b = hex.AppendEncode(b, sum)
	b = append(b, "\"}\n"...)
	l.enc.b = b
	n, err := l.write(b)
	if err == nil && n != len(b) {
		err = io.ErrShortWrite
	}
	if err != nil {
		if l.failed == 0 {
			l.failedErr = err.Error()
		}
		l.failed++
		if n > 0 {
			if terr := l.f.Truncate(l.size); terr != nil {
				l.size = -1 // the next record reads the tail and cuts it
			}
		}
		return fmt.Errorf("cannot write the audit log %s: %w", l.path, err)
	}
	l.seq++
	copy(l.prev[:], b[at:at+64])
	l.size += int64(n)
	l.writeHead()
	return nil
}

// appendTime appends t in UTC as t.UTC().AppendFormat(b, time.RFC3339Nano)
// does (trailing zeros of the fraction dropped, and the dot with them when
// it is zero), for the years 0 to 9999; other years are left to
// AppendFormat. AppendFormat is its plain twin;
// TestAppendTimeIsRFC3339Nano keeps them equal.
func appendTime(b []byte, t time.Time) []byte {
	t = t.UTC()
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		return t.AppendFormat(b, time.RFC3339Nano)
	}
	hour, minute, sec := t.Clock()
	b = append(b, byte('0'+year/1000), byte('0'+year/100%10), byte('0'+year/10%10), byte('0'+year%10), '-',
		byte('0'+month/10), byte('0'+month%10), '-', byte('0'+day/10), byte('0'+day%10), 'T',
		byte('0'+hour/10), byte('0'+hour%10), ':', byte('0'+minute/10), byte('0'+minute%10), ':',
		byte('0'+sec/10), byte('0'+sec%10))
	if ns := t.Nanosecond(); ns != 0 {
		var frac [10]byte
		frac[0] = '.'
		for i := 9; i >= 1; i-- {
			frac[i] = byte('0' + ns%10)
			ns /= 10
		}
		n := 10
		for frac[n-1] == '0' {
			n--
		}
		b = append(b, frac[:n]...)
	}
	return append(b, 'Z')
}

// writeHead rewrites the head file in place (a fixed size, which needs no
// new disk space: a pwrite the first time, then a store into the file's
// shared mapping, see headFile). It is best effort: the log is the record,
// the head only lets verify see a cut-off tail.
func (l *Log) writeHead() {
	if l.head == nil {
		return
	}
	if rec := appendHead(l.hb[:0], l.seq, l.prev[:]); len(rec) == headSize {
		l.head.write(rec)
	}
}

// appendHead appends the head record of seq and hash: fmt's "%020d %s\n".
// fmt is its plain twin; TestAppendHeadIsTheFmtRecord keeps them equal.
func appendHead(b []byte, seq uint64, hash []byte) []byte {
	var d [20]byte
	n := strconv.AppendUint(d[:0], seq, 10)
	for i := len(n); i < 20; i++ {
		b = append(b, '0')
	}
	b = append(append(b, n...), ' ')
	return append(append(b, hash...), '\n')
}

// Head is what a head file says: the last record's seq and hash.
type Head struct {
	Seq  uint64
	Hash string
}

// ReadHead reads the head file of the log at path; nil, nil when there is
// none.
func ReadHead(path string) (*Head, error) {
	b, err := os.ReadFile(HeadPath(path))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if len(b) == 0 {
		return nil, nil // created, never written
	}
	var h Head
	if len(b) != headSize || b[headSize-1] != '\n' {
		return nil, fmt.Errorf("the head file %s is not a head record", HeadPath(path))
	}
	if _, err := fmt.Sscanf(string(b), "%d %s\n", &h.Seq, &h.Hash); err != nil || len(h.Hash) != 64 {
		return nil, fmt.Errorf("the head file %s is not a head record", HeadPath(path))
	}
	return &h, nil
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
	l.watch.close()
	if l.head != nil {
		l.head.close()
		l.head = nil
	}
	if l.err == nil {
		l.err = errors.New("the audit log is closed")
	}
	if l.f == nil {
		return nil
	}
	err := l.f.Sync()
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	return err
}

// Problem is the first place the chain of a log breaks.
type Problem struct {
	Line    int
	Message string
	// record is true when the line is a record of the format (seq, prev
	// and hash) that does not chain: an edited log, not another file.
	record bool
}

// IsChainProblem reports whether p is about a record of the format that
// does not chain (a log edited, reordered or cut), not a line that is no
// record at all (a file that is not an audit log).
func IsChainProblem(p *Problem) bool { return p != nil && p.record }

func (p *Problem) Error() string { return fmt.Sprintf("line %d: %s", p.Line, p.Message) }

// Verify checks the chain of the log read from r: every line a record,
// seq counting from 1, prev equal to the previous hash, hash correct. It
// returns the number of records and the first problem, if any.
func Verify(r io.Reader) (int, *Problem) {
	n, _, p := verify(r)
	return n, p
}

func verify(r io.Reader) (int, string, *Problem) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	prev := Genesis
	n := 0
	for line := 1; sc.Scan(); line++ {
		b := sc.Bytes()
		if len(bytes.TrimSpace(b)) == 0 {
			return n, prev, &Problem{line, "empty line", false}
		}
		var rec struct {
			Seq  *uint64 `json:"seq"`
			Prev *string `json:"prev"`
			Hash *string `json:"hash"`
		}
		if err := json.Unmarshal(b, &rec); err != nil {
			return n, prev, &Problem{line, "not a JSON record: " + err.Error(), false}
		}
		if rec.Seq == nil || rec.Prev == nil || rec.Hash == nil {
			return n, prev, &Problem{line, "record without seq, prev or hash", false}
		}
		if *rec.Seq != uint64(n+1) {
			return n, prev, &Problem{line, fmt.Sprintf("seq is %d, want %d (a record was removed, added or moved)", *rec.Seq, n+1), true}
		}
		if *rec.Prev != prev {
			return n, prev, &Problem{line, "prev does not match the previous record's hash (a record was removed, added or moved)", true}
		}
		suffix := []byte(`,"hash":"` + *rec.Hash + `"}`)
		if !bytes.HasSuffix(b, suffix) {
			return n, prev, &Problem{line, "hash is not the record's last field", true}
		}
		body := append(append([]byte(nil), b[:len(b)-len(suffix)]...), '}')
		if Hash(prev, body) != *rec.Hash {
			return n, prev, &Problem{line, "hash does not match the record (the record was edited)", true}
		}
		prev = *rec.Hash
		n++
	}
	if err := sc.Err(); err != nil {
		return n, prev, &Problem{n + 1, "cannot read: " + err.Error(), false}
	}
	return n, prev, nil
}

// Report is what VerifyFile found.
type Report struct {
	Records int
	Problem *Problem // the chain breaks here; nil when it holds
	// Head is the head file's record (nil without one); HeadProblem says
	// how the log disagrees with it: a cut-off tail, another last record.
	Head        *Head
	HeadProblem string
	// HeadNote is a disagreement that is no fault: the head lags by a
	// record when a process died between writing a record and its head.
	HeadNote string
}

// OK reports whether the log verified.
func (r Report) OK() bool { return r.Problem == nil && r.HeadProblem == "" }

// VerifyFile checks the log at path (Verify) and compares its end with its
// head file, which shows a tail cut off after the last record was written.
func VerifyFile(path string) (Report, error) {
	f, err := os.Open(path)
	if err != nil {
		return Report{}, err
	}
	defer f.Close()
	var r Report
	var last string
	r.Records, last, r.Problem = verify(f)
	h, err := ReadHead(path)
	if err != nil {
		r.HeadProblem = err.Error()
		return r, nil
	}
	r.Head = h
	if h == nil || r.Problem != nil {
		return r, nil
	}
	n := uint64(r.Records)
	switch {
	case h.Seq > n:
		r.HeadProblem = fmt.Sprintf("the log ends at record %d, but its head file says record %d was written: the tail was cut off", n, h.Seq)
	case h.Seq == n && h.Hash != last:
		r.HeadProblem = fmt.Sprintf("the last record (%d) is not the one the head file names", n)
	case h.Seq < n:
		r.HeadNote = fmt.Sprintf("the head file names record %d of %d (a writer stopped between a record and its head, or wrote without one)", h.Seq, n)
	}
	return r, nil
}
