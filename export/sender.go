// Package export sends the audit log's records to an organization's
// OpenTelemetry collector over OTLP/HTTP. The audit log
// is the spool: a cursor beside it (<log>.export.cursor) says what the
// collector acknowledged, and whatever follows it is sent, in order, in
// batches, until it is acknowledged (delivery at least once; each record
// carries the log's id, its seq and its hash, so that a collector can drop
// a duplicate). One sender per log at a time holds <log>.export.lock: the
// long-lived server (Run), or for hook-per-call hosts a detached
// `toolgate export --drain` (Drain) that a hook starts after it answered
// (StartDrain). Nothing here is on the path of an answer.
package export

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
	"google.golang.org/protobuf/proto"

	collogspb "go.opentelemetry.io/proto/slim/otlp/collector/logs/v1"
	commonpb "go.opentelemetry.io/proto/slim/otlp/common/v1"
	logspb "go.opentelemetry.io/proto/slim/otlp/logs/v1"
	resourcepb "go.opentelemetry.io/proto/slim/otlp/resource/v1"

	"github.com/toolgate/toolgate/hook/audit"
	"github.com/toolgate/toolgate/policy"
)

// Appender writes a record to the audit log through its normal writer
// (chained like every other): *audit.Log.
type Appender interface {
	Append(event string, fill audit.Fields) error
}

// Options configure a sender of one log.
type Options struct {
	Log      string // the audit log
	Endpoint string // the collector's base URL; records go to Endpoint/v1/logs
	Headers  []policy.Header
	// Appender writes the sender's own records (export_gap,
	// export_failed); nil: the log is opened for each of them.
	Appender Appender
	Client   *http.Client   // default: one with RequestTimeout
	Logger   zerolog.Logger // stderr diagnostics
	HostName string         // host.name; default os.Hostname
	Version  string         // service.version

	// Zero values take the defaults below.
	BatchRecords   int
	BatchBytes     int
	RequestTimeout time.Duration
	MinBackoff     time.Duration
	MaxBackoff     time.Duration
	// MaxRetryAfter bounds how long a collector's Retry-After is obeyed.
	MaxRetryAfter time.Duration
	// Poll is how often Run looks for records other processes appended.
	Poll time.Duration
}

// Defaults of Options.
const (
	DefaultBatchRecords   = 256
	DefaultBatchBytes     = 512 << 10
	DefaultRequestTimeout = 10 * time.Second
	DefaultMinBackoff     = 500 * time.Millisecond
	DefaultMaxBackoff     = 30 * time.Second
	DefaultMaxRetryAfter  = 10 * time.Minute
	DefaultPoll           = 250 * time.Millisecond
)

// FromPolicy is the options of a policy's export of the log at path; false
// when the policy exports nothing.
func FromPolicy(p *policy.Policy, log string) (Options, bool) {
	if p == nil || p.Export == nil || p.Export.OTLP.Endpoint == "" {
		return Options{}, false
	}
	return Options{Log: log, Endpoint: p.Export.OTLP.Endpoint, Headers: p.Export.OTLP.Headers}, true
}

// Sender sends one log's records. Its methods are for one goroutine.
type Sender struct {
	o       Options
	url     string
	rand    *rand.Rand
	backoff time.Duration // the next wait after a failure
	warned  bool          // the outage was said on stderr
	down    atomic.Bool   // the last attempt failed
	// wait waits d or until ctx ends (tests see what is waited).
	wait func(ctx context.Context, d time.Duration) error
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// orDefault sets *v to def when it is not above zero: an option left
// unset (or set to nonsense) takes its default.
func orDefault[T ~int | ~int64](v *T, def T) {
	if *v <= 0 {
		*v = def
	}
}

// New returns a sender with o's defaults filled in.
func New(o Options) *Sender {
	orDefault(&o.BatchRecords, DefaultBatchRecords)
	orDefault(&o.BatchBytes, DefaultBatchBytes)
	orDefault(&o.RequestTimeout, DefaultRequestTimeout)
	orDefault(&o.MinBackoff, DefaultMinBackoff)
	orDefault(&o.MaxBackoff, DefaultMaxBackoff)
	orDefault(&o.MaxRetryAfter, DefaultMaxRetryAfter)
	orDefault(&o.Poll, DefaultPoll)
	if o.Client == nil {
		// A redirect is not followed: a 301 or 302 would turn the POST
		// into a GET whose 200 acknowledges nothing.
		o.Client = &http.Client{Timeout: o.RequestTimeout, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	if o.HostName == "" {
		o.HostName, _ = os.Hostname()
	}
	return &Sender{o: o, url: strings.TrimRight(o.Endpoint, "/") + "/v1/logs",
		rand: rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(os.Getpid()))), backoff: o.MinBackoff, wait: sleep}
}

// ErrBusy is Drain's answer when another sender holds the log's lock.
var ErrBusy = errors.New("another sender holds the export lock")

// Result is what a Drain did.
type Result struct {
	Sent     int // records acknowledged
	Rejected int // of them, rejected by the collector (partial_success)
	Gap      bool
	// Pending is true when records were left behind the cursor (the
	// context ended first).
	Pending bool
	seen    seen
}

// Drain sends what the log holds past the cursor, then returns: nil once
// everything read is acknowledged, ErrBusy when another sender holds the
// lock, ctx's error when it ended first (an outage then stays in the
// cursor, with the time the next attempt may be made). Failed sends are
// retried with back-off until ctx ends. After it lets the lock go it looks
// once more: a record appended by a process that saw the lock held (and so
// started no sender) is sent by this one.
func (s *Sender) Drain(ctx context.Context) (Result, error) {
	var total Result
	for {
		r, err := s.drainLocked(ctx)
		total.Sent += r.Sent
		total.Rejected += r.Rejected
		total.Gap = total.Gap || r.Gap
		total.Pending, total.seen = r.Pending, r.seen
		if err != nil {
			return total, err
		}
		// What the round saw last, against what the path holds now: a
		// record appended since goes out in another round. (A torn end
		// that was there already is no reason: the writer cuts it.)
		info, err := os.Stat(s.o.Log)
		if err != nil {
			return total, nil
		}
		if dev, ino := fileIdentity(info); r.seen.size == info.Size() && r.seen.dev == dev && r.seen.ino == ino {
			return total, nil
		}
	}
}

// seen is a log file as a round of Drain last read it.
type seen struct {
	dev, ino uint64
	size     int64
}

// drainLocked is one Drain under the lock.
func (s *Sender) drainLocked(ctx context.Context) (Result, error) {
	lf, err := os.OpenFile(LockPath(s.o.Log), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return Result{}, fmt.Errorf("cannot open the export lock: %w", err)
	}
	defer lf.Close()
	ok, err := tryLock(lf)
	if err != nil {
		return Result{}, fmt.Errorf("cannot lock %s: %w", LockPath(s.o.Log), err)
	}
	if !ok {
		return Result{}, ErrBusy
	}
	defer unlock(lf)
	return s.send(ctx)
}

// send is the work under the lock: the cursor checked against the log,
// then batches until the end of what the log holds.
func (s *Sender) send(ctx context.Context) (Result, error) {
	var res Result
	f, err := os.Open(s.o.Log)
	if errors.Is(err, os.ErrNotExist) {
		return res, nil // nothing written yet (or deleted: the writer starts it again)
	}
	if err != nil {
		return res, fmt.Errorf("cannot read the audit log: %w", err)
	}
	defer f.Close()
	c, cerr := ReadCursor(s.o.Log)
	if cerr != nil {
		s.o.Logger.Warn().Err(cerr).Msg("export: starting again from the log's first record")
	}
	c, gap, err := s.check(f, c)
	if err != nil || c == nil {
		return res, err
	}
	if gap {
		res.Gap = true
		// The gap record went into the log by its writer, which may have
		// started a new file: the new cursor is of what the path names now.
		f.Close()
		if f, err = os.Open(s.o.Log); err != nil {
			return res, fmt.Errorf("cannot read the audit log: %w", err)
		}
		outage := c.Outage
		if c, _, err = s.check(f, nil); err != nil || c == nil {
			return res, err
		}
		if outage != nil {
			c.Outage = outage
			if err := writeCursor(s.o.Log, c); err != nil {
				return res, err
			}
		}
	}
	for {
		if err := ctx.Err(); err != nil {
			res.Pending = true
			return res, err
		}
		// The size before the read: whatever is appended after it makes
		// Drain look again.
		var before seen
		if info, err := f.Stat(); err == nil {
			dev, ino := fileIdentity(info)
			before = seen{dev: dev, ino: ino, size: info.Size()}
		}
		lines, err := readLines(f, c.Offset, s.o.BatchRecords, s.o.BatchBytes)
		if err != nil {
			return res, fmt.Errorf("cannot read the audit log: %w", err)
		}
		if len(lines) == 0 {
			res.seen = before
			return res, nil
		}
		rejected, err := s.deliver(ctx, c, lines)
		if err != nil {
			res.Pending = true
			return res, err
		}
		last := lines[len(lines)-1]
		c.Offset, c.Seq, c.Hash = last.end, 0, ""
		if _, seq, hash := logRecord(last, c.LogID, time.Time{}); seq != 0 {
			c.Seq, c.Hash = seq, hash
		}
		c.Sent += uint64(len(lines))
		c.Rejected += uint64(rejected)
		res.Sent += len(lines)
		res.Rejected += rejected
		// An outage that ended is recorded before the cursor forgets it
		// (one that cannot be recorded now is recorded later).
		if c.Outage != nil && s.recordOutage(c.Outage) {
			c.Outage = nil
		}
		if err := writeCursor(s.o.Log, c); err != nil {
			return res, err
		}
	}
}

// check returns the cursor to go on from for the log open as f. Without
// a cursor (c nil) it is a new one from the log's first record (nil while
// the log has no complete record). With one, it is c when c is this log's
// and what it acknowledged is still there; otherwise one export_gap record
// that says what happened is appended to the log and gap is true: the
// caller then makes a new cursor of the log as the path names it now.
func (s *Sender) check(f *os.File, c *Cursor) (_ *Cursor, gap bool, _ error) {
	info, err := f.Stat()
	if err != nil {
		return nil, false, err
	}
	dev, ino := fileIdentity(info)
	first, err := firstHash(f)
	if err != nil {
		return nil, false, err
	}
	if c == nil {
		if first == "" {
			return nil, false, nil
		}
		n := &Cursor{Device: dev, Inode: ino, First: first, LogID: LogID(dev, ino, first)}
		return n, false, writeCursor(s.o.Log, n)
	}
	why := ""
	switch {
	case c.Device != dev || c.Inode != ino:
		why = "the audit log was replaced"
	case first != c.First:
		why = "the audit log was rewritten from its first record"
	case info.Size() < c.Offset:
		why = fmt.Sprintf("the audit log was cut short (to %d bytes; %d had been sent)", info.Size(), c.Offset)
	case c.Offset > 0 && c.Hash != "" && hashEndingAt(f, c.Offset) != c.Hash:
		why = "the audit log was rewritten: the last record sent is no longer where it was"
	}
	if why == "" {
		return c, false, nil
	}
	a := s.o.Appender
	if a == nil {
		l, err := audit.Open(s.o.Log)
		if err != nil {
			return nil, false, fmt.Errorf("cannot record the export gap: %w", err)
		}
		defer l.Close()
		a = l
	}
	if err := a.Append("export_gap", func(e *zerolog.Event) {
		e.Str("reason", why+"; export starts again from its first record, and records sent from before may be missing or sent again").
			Str("previousLogId", c.LogID).Uint64("previousSeq", c.Seq).Str("previousHash", c.Hash).Int64("previousOffset", c.Offset)
	}); err != nil {
		return nil, false, fmt.Errorf("cannot record the export gap: %w", err)
	}
	s.o.Logger.Warn().Str("log", s.o.Log).Msg("export: " + why + "; starting a new cursor")
	return c, true, nil // the caller makes the new cursor of the log with the gap record
}

// deliver sends lines (one batch) until the collector acknowledges them,
// retrying with back-off; it returns the number of records the collector
// said it rejected. A batch the collector refuses as malformed or too large
// is split, and a single record it refuses so is counted rejected and
// skipped (it would be refused forever).
func (s *Sender) deliver(ctx context.Context, c *Cursor, lines []line) (int, error) {
	for {
		rejected, retry, perm, err := s.post(ctx, c.LogID, lines)
		if err == nil {
			s.backoff = s.o.MinBackoff
			s.warned = false
			s.down.Store(false)
			return rejected, nil
		}
		if perm {
			if len(lines) == 1 {
				s.o.Logger.Warn().Err(err).Msg("export: the collector refused a record; it is counted rejected and skipped")
				return 1, nil
			}
			half := len(lines) / 2
			a, err := s.deliver(ctx, c, lines[:half])
			if err != nil {
				return 0, err
			}
			b, err := s.deliver(ctx, c, lines[half:])
			return a + b, err
		}
		if err := s.failed(ctx, c, err, retry); err != nil {
			return 0, err
		}
	}
}

// failed counts one failed attempt into the cursor's outage, persists it,
// and waits the back-off (or the collector's Retry-After, whichever is
// longer), or until ctx ends.
func (s *Sender) failed(ctx context.Context, c *Cursor, cause error, retryAfter time.Duration) error {
	now := time.Now()
	if o := c.Outage; o != nil && !s.down.Load() && s.backoff == s.o.MinBackoff {
		// An outage that earlier processes saw goes on: its back-off
		// does not start again from the shortest (many short-lived
		// drains would otherwise press a collector that is down).
		s.backoff = min(s.o.MinBackoff<<min(o.Attempts, 16), s.o.MaxBackoff)
	}
	wait := s.backoff
	wait += time.Duration(s.rand.Int64N(int64(wait)/5 + 1)) // jitter, up to a fifth more
	if retryAfter > wait {
		wait = min(retryAfter, s.o.MaxRetryAfter)
	}
	s.backoff = min(2*s.backoff, s.o.MaxBackoff)
	s.down.Store(true)
	o := c.Outage
	if o == nil {
		o = &Outage{Since: now.UTC(), FirstError: cause.Error()}
		c.Outage = o
	}
	o.Attempts++
	o.LastError = cause.Error()
	o.RetryAt = now.Add(wait).UTC()
	if !s.warned {
		s.warned = true
		s.o.Logger.Warn().Err(cause).Str("endpoint", s.o.Endpoint).Msg("export: the collector cannot be reached; records wait in the audit log")
	}
	if err := writeCursor(s.o.Log, c); err != nil {
		s.o.Logger.Warn().Err(err).Msg("export")
	}
	return s.wait(ctx, wait)
}

// recordOutage writes the one record of an outage that ended; false when
// it could not.
func (s *Sender) recordOutage(o *Outage) bool {
	a := s.o.Appender
	if a == nil {
		l, err := audit.Open(s.o.Log)
		if err != nil {
			s.o.Logger.Warn().Err(err).Msg("export: cannot record the outage")
			return false
		}
		defer l.Close()
		a = l
	}
	until := time.Now().UTC()
	if err := a.Append("export_failed", func(e *zerolog.Event) {
		e.Str("reason", fmt.Sprintf("the collector could not be reached from %s to %s (%d failed attempts); the records of that time waited in the audit log and were sent after it",
			o.Since.Format(time.RFC3339), until.Format(time.RFC3339), o.Attempts)).
			Str("endpoint", s.o.Endpoint).Str("since", o.Since.Format(time.RFC3339Nano)).Str("until", until.Format(time.RFC3339Nano)).
			Int("failedAttempts", o.Attempts).Str("firstError", o.FirstError).Str("lastError", o.LastError)
	}); err != nil {
		s.o.Logger.Warn().Err(err).Msg("export: cannot record the outage")
		return false
	}
	return true
}

// post sends one batch. err is nil when the collector acknowledged it
// (rejected: how many records it said it rejected); otherwise perm says
// that sending the same batch again cannot succeed (400, 413), and retry
// is the collector's Retry-After.
func (s *Sender) post(ctx context.Context, logID string, lines []line) (rejected int, retry time.Duration, perm bool, err error) {
	now := time.Now()
	recs := make([]*logspb.LogRecord, len(lines))
	for i, l := range lines {
		recs[i], _, _ = logRecord(l, logID, now)
	}
	req := &collogspb.ExportLogsServiceRequest{ResourceLogs: []*logspb.ResourceLogs{{
		Resource: &resourcepb.Resource{Attributes: resourceAttrs(s.o.HostName, s.o.Version)},
		ScopeLogs: []*logspb.ScopeLogs{{
			Scope:      &commonpb.InstrumentationScope{Name: "toolgate.audit", Version: s.o.Version},
			LogRecords: recs,
		}},
	}}}
	body, err := proto.Marshal(req)
	if err != nil {
		return 0, 0, true, err
	}
	rctx, cancel := context.WithTimeout(ctx, s.o.RequestTimeout)
	defer cancel()
	hr, err := http.NewRequestWithContext(rctx, http.MethodPost, s.url, bytes.NewReader(body))
	if err != nil {
		return 0, 0, false, err
	}
	hr.Header.Set("Content-Type", "application/x-protobuf")
	hr.Header.Set("User-Agent", "toolgate/"+s.o.Version)
	for _, h := range s.o.Headers {
		hr.Header.Set(h.Name, h.Value)
	}
	resp, err := s.o.Client.Do(hr)
	if err != nil {
		return 0, 0, false, err
	}
	defer resp.Body.Close()
	data, rerr := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	switch code := resp.StatusCode; {
	case code >= 200 && code < 300:
		if rerr != nil {
			// The answer was cut: whether it was acknowledged is not
			// known, so the batch is sent again (at least once).
			return 0, 0, false, fmt.Errorf("reading the collector's answer: %w", rerr)
		}
		// Only an OTLP answer acknowledges: a proxy's or a web server's
		// 200 page is no collector's (the records are kept and sent again).
		var out collogspb.ExportLogsServiceResponse
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/x-protobuf") || proto.Unmarshal(data, &out) != nil {
			return 0, 0, false, fmt.Errorf("the endpoint answered %s with %q, not an OTLP response", resp.Status, ct)
		}
		if ps := out.GetPartialSuccess(); ps != nil && ps.RejectedLogRecords > 0 {
			n := int(min(ps.RejectedLogRecords, int64(len(lines))))
			s.o.Logger.Warn().Int("rejected", n).Str("message", ps.ErrorMessage).Msg("export: the collector rejected records; they are counted and skipped")
			return n, 0, false, nil
		}
		return 0, 0, false, nil
	case code == http.StatusBadRequest || code == http.StatusRequestEntityTooLarge:
		return 0, 0, true, fmt.Errorf("the collector answered %s: %s", resp.Status, statusText(data))
	default:
		// 429 and 5xx as OTLP says; and anything else (401, 403, 404, a
		// redirect) is a collector or configuration to fix, not records
		// to drop: kept and tried again.
		return 0, retryAfter(resp.Header.Get("Retry-After"), now), false, fmt.Errorf("the collector answered %s: %s", resp.Status, statusText(data))
	}
}

// statusText is a short text of an error answer's body (a google.rpc.Status
// in protobuf, or text).
func statusText(b []byte) string {
	b = bytes.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, b)
	if len(b) > 200 {
		b = append(b[:200], "…"...)
	}
	return strings.TrimSpace(string(b))
}

// retryAfter reads a Retry-After header: seconds, or an HTTP date.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// Runner is a sender that runs in the background of a long-lived process.
type Runner struct {
	s      *Sender
	cancel context.CancelFunc
	stop   chan struct{}
	done   chan struct{}
	once   sync.Once
}

// Start runs a sender of o in the background until Stop: it sends what
// the log holds, then looks again every Poll: a stat of the log, and a
// round only when the log changed since the last one. While another
// process holds the lock, it only looks.
func Start(o Options) *Runner {
	ctx, cancel := context.WithCancel(context.Background())
	r := &Runner{s: New(o), cancel: cancel, stop: make(chan struct{}), done: make(chan struct{})}
	// A back-off ends when the process does: what waits is in the log.
	r.s.wait = func(ctx context.Context, d time.Duration) error {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-r.stop:
			return errStopping
		case <-t.C:
			return nil
		}
	}
	go r.run(ctx)
	return r
}

var errStopping = errors.New("the sender is stopping")

func (r *Runner) run(ctx context.Context) {
	defer close(r.done)
	t := time.NewTicker(r.s.o.Poll)
	defer t.Stop()
	var last seen
	var lastErr string
	round := func() {
		// A fault of the sender never takes the gates' process with it:
		// it is said, and the next round tries again.
		defer func() {
			if p := recover(); p != nil {
				r.s.o.Logger.Error().Str("panic", fmt.Sprint(p)).Msg("export: internal error in the sender")
				last = seen{}
			}
		}()
		res, err := r.s.Drain(ctx)
		last = res.seen
		if err == nil || errors.Is(err, ErrBusy) || errors.Is(err, errStopping) || ctx.Err() != nil {
			lastErr = ""
			if errors.Is(err, ErrBusy) {
				last = seen{} // look again at the next tick
			}
			return
		}
		if err.Error() != lastErr { // said once, not every Poll
			lastErr = err.Error()
			r.s.o.Logger.Warn().Err(err).Msg("export")
		}
		last = seen{}
	}
	round()
	for {
		select {
		case <-ctx.Done():
			return
		case <-r.stop:
			if !r.s.down.Load() {
				round() // the last records, until Stop's grace ends
			}
			return
		case <-t.C:
		}
		if info, err := os.Stat(r.s.o.Log); err == nil && last.size != 0 {
			if dev, ino := fileIdentity(info); (seen{dev: dev, ino: ino, size: info.Size()}) == last {
				continue // nothing appended since the last round
			}
		}
		round()
	}
}

// Stop ends the sender, giving what the log holds up to grace to be
// acknowledged (a batch cut off is sent again by the next sender); none
// while the collector is failing: the records wait for the next sender.
func (r *Runner) Stop(grace time.Duration) {
	r.once.Do(func() {
		if r.s.down.Load() {
			grace = 0
		}
		close(r.stop)
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case <-r.done:
		case <-t.C:
		}
		r.cancel()
		<-r.done
	})
}
