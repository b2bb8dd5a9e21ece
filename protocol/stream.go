package protocol

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	json "github.com/goccy/go-json"
)

// MaxMessageBytes bounds one incoming message; a longer one is answered
// with -32700 and skipped.
const MaxMessageBytes = 32 << 20

// Framing selects how messages are delimited on the wire.
type Framing int

const (
	// FramingNewline is one JSON object per '\n'-terminated line (default).
	FramingNewline Framing = iota
	// FramingContentLength is LSP-style "Content-Length: N\r\n\r\n" headers.
	FramingContentLength
)

// ParseFraming reads a --framing flag value.
func ParseFraming(s string) (Framing, error) {
	switch s {
	case "", "newline", "line":
		return FramingNewline, nil
	case "content-length":
		return FramingContentLength, nil
	}
	return 0, fmt.Errorf("unknown framing %q (want newline or content-length)", s)
}

// Stream is a jsonrpc2.ObjectStream that survives bad input: a line that is
// not JSON is answered with -32700, a value that is not a request or
// response object with -32600, and reading goes on with the next message.
//
// The standard decoder of jsonrpc2 re-encodes params through a map, which
// loses repeated keys; Stream keeps the raw params of every request and tags
// the request with a "meta" sequence number so the handler can take them
// (Params) and decode them strictly. A request too long or too deep to keep
// is still handed on by its id, with its params refused (ParamsError). The
// top-level keys are read exactly; a response is never answered.
//
// With LimitInFlight, Stream is also the flow control of docs/protocol.md: it
// reads no further while that many requests are held (not Released).
type Stream struct {
	in      *bufio.Reader
	out     io.Writer
	closer  io.Closer
	framing Framing
	resync  bool // content-length framing: skip to the next header

	wmu  sync.Mutex
	wbuf []byte // WriteAll's buffer, under wmu

	seq atomic.Uint64
	raw sync.Map // uint64 → params

	slots chan struct{} // requests held (LimitInFlight); nil: no bound
	park  parking

	onEOF   func()
	eofOnce sync.Once

	fast func(msg []byte) bool // SetFastPath
}

// params are one request's raw params, or why they were refused.
type params struct {
	raw []byte
	err error
}

// ParamsError says why a request's params were not kept (too long, too
// deep): the request is still answered by its id.
type ParamsError struct{ Reason string }

func (e *ParamsError) Error() string { return e.Reason }

// NewStream reads from in and writes to out. closer (may be nil) is closed by
// Close. onEOF (may be nil) runs once when the input ends, before ReadObject
// reports io.EOF: the connection is still open for writing then, so pending
// requests can be answered.
func NewStream(in io.Reader, out io.Writer, closer io.Closer, framing Framing, onEOF func()) *Stream {
	s := &Stream{out: out, closer: closer, framing: framing, onEOF: onEOF}
	s.park = newParking()
	s.in = bufio.NewReaderSize(parkingReader{r: in, p: &s.park}, 64<<10)
	return s
}

// SetFastPath makes ReadObject offer every message to fast first, on the
// reading goroutine, before anything else looks at it. When fast returns
// true it has taken the message over (answered it, or will): the message
// keeps its slot (LimitInFlight) until that answer's Release, and reading
// goes on with the next message. When it returns false the message is
// read as usual. msg is only valid during the call. Call it before the
// first ReadObject.
func (s *Stream) SetFastPath(fast func(msg []byte) bool) { s.fast = fast }

// Params returns (and forgets) the raw params of the request tagged with
// meta (nil when there were none), or a *ParamsError when they were refused.
func (s *Stream) Params(meta *json.RawMessage) ([]byte, error) {
	if meta == nil {
		return nil, nil
	}
	n, err := strconv.ParseUint(string(*meta), 10, 64)
	if err != nil {
		return nil, nil
	}
	v, ok := s.raw.LoadAndDelete(n)
	if !ok {
		return nil, nil
	}
	p := v.(params)
	return p.raw, p.err
}

// RawParams is Params without the refusal.
func (s *Stream) RawParams(meta *json.RawMessage) []byte {
	raw, _ := s.Params(meta)
	return raw
}

// WriteObject writes one message.
func (s *Stream) WriteObject(obj any) error {
	b, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	return s.writeFrame(b)
}

func (s *Stream) writeFrame(b []byte) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_, err := s.out.Write(s.appendFrame(nil, b))
	return err
}

func (s *Stream) appendFrame(dst, b []byte) []byte {
	if s.framing == FramingContentLength {
		dst = fmt.Appendf(dst, "Content-Length: %d\r\n\r\n", len(b))
		return append(dst, b...)
	}
	dst = append(dst, b...)
	return append(dst, '\n')
}

// WriteAll writes several messages in order with one write, so nothing
// comes between them (a call's notifications and then its answer).
func (s *Stream) WriteAll(objs ...any) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	buf := s.wbuf[:0]
	for _, o := range objs {
		b, err := json.Marshal(o)
		if err != nil {
			return err
		}
		buf = s.appendFrame(buf, b)
	}
	if cap(buf) <= maxKeptBuffer {
		s.wbuf = buf // kept for the next answer
	}
	_, err := s.out.Write(buf)
	return err
}

// Frame marshals messages into one framed buffer, for WriteFrame.
func (s *Stream) Frame(objs ...any) ([]byte, error) {
	var buf []byte
	for _, o := range objs {
		b, err := json.Marshal(o)
		if err != nil {
			return nil, err
		}
		buf = s.appendFrame(buf, b)
	}
	return buf, nil
}

// ErrorFrame is the framed error response to request id.
func (s *Stream) ErrorFrame(id any, code int, message string) []byte {
	b, err := s.Frame(errorReply{JSONRPC: "2.0", ID: id, Error: wireError{Code: code, Message: message}})
	if err != nil {
		return nil
	}
	return b
}

// WriteFrame writes a buffer made by Frame with one write.
func (s *Stream) WriteFrame(b []byte) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_, err := s.out.Write(b)
	return err
}

// maxKeptBuffer is the largest write buffer kept between answers.
const maxKeptBuffer = 64 << 10

type response struct {
	JSONRPC string `json:"jsonrpc"`
	ID      any    `json:"id"`
	Result  any    `json:"result"`
}

type errorReply struct {
	JSONRPC string    `json:"jsonrpc"`
	ID      any       `json:"id"`
	Error   wireError `json:"error"`
}

type notification struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

// Result is a response to request ID (marshaled with its MarshalJSON).
func Result(id any, result any) any { return response{JSONRPC: "2.0", ID: id, Result: result} }

// Notification is a notification message.
func Notification(method string, params any) any {
	return notification{JSONRPC: "2.0", Method: method, Params: params}
}

// WriteResult writes the response to request id (its MarshalJSON form).
func (s *Stream) WriteResult(id any, result any) error {
	return s.WriteObject(Result(id, result))
}

// WriteError writes an error response to request id.
func (s *Stream) WriteError(id any, code int, message string) error {
	return s.WriteObject(errorReply{JSONRPC: "2.0", ID: id, Error: wireError{Code: code, Message: message}})
}

// WriteNotification writes a notification.
func (s *Stream) WriteNotification(method string, params any) error {
	return s.WriteObject(Notification(method, params))
}

// Close closes the underlying closer.
func (s *Stream) Close() error {
	if s.closer != nil {
		return s.closer.Close()
	}
	return nil
}

// LimitInFlight bounds the requests handed out and not yet Released: when n
// are held, ReadObject waits for one to be released before it reads on
// (docs/protocol.md, flow control). Call it before the first ReadObject.
func (s *Stream) LimitInFlight(n int) {
	if n > 0 {
		s.slots = make(chan struct{}, n)
	}
}

// Release frees the slot of one request handed out by ReadObject, once its
// answer is written. Responses and notifications hold no slot.
func (s *Stream) Release() {
	if s.slots != nil {
		<-s.slots
	}
}

func (s *Stream) acquire() {
	if s.slots == nil {
		return
	}
	select {
	case s.slots <- struct{}{}:
		return
	default:
	}
	s.park.park()
	s.slots <- struct{}{}
	s.park.unpark()
}

func (s *Stream) release() { s.Release() }

// WaitQuiet waits until the reader has had nothing to read for quiet: it
// has taken every message the host has written so far (it waits in read,
// or for a free slot) and nothing arrived meanwhile. A prompt waits for
// this, so that a shutdown the host already wrote is seen before a person
// is asked (docs/protocol.md: a call that would need a prompt is blocked as
// shutting down). It gives up waiting after longest (a host that never
// pauses must still get its prompts), and returns false when stop is
// closed first.
func (s *Stream) WaitQuiet(quiet, longest time.Duration, stop <-chan struct{}) bool {
	deadline := time.NewTimer(longest)
	defer deadline.Stop()
	for {
		ch, epoch, _ := s.park.state()
		select {
		case <-ch:
		case <-stop:
			return false
		case <-deadline.C:
			return true
		}
		if quiet <= 0 {
			return true
		}
		t := time.NewTimer(quiet)
		select {
		case <-t.C:
		case <-stop:
			t.Stop()
			return false
		case <-deadline.C:
			t.Stop()
			return true
		}
		if _, now, parked := s.park.state(); parked && now == epoch {
			return true
		}
	}
}

// ReadObject reads the next valid request or response into v, answering and
// skipping anything else. With LimitInFlight set it first waits for a free
// slot; a request handed out keeps it until Release.
func (s *Stream) ReadObject(v any) error {
	for {
		s.acquire()
		msg, long, err := s.next()
		if err != nil {
			s.release()
			if errors.Is(err, io.EOF) {
				s.park.end()
				s.eofOnce.Do(func() {
					if s.onEOF != nil {
						s.onEOF()
					}
				})
			}
			return err
		}
		var out []byte
		keep := false
		switch {
		case long != nil:
			out, keep = s.screenSkeleton(long, fmt.Sprintf("the message is longer than %d bytes", MaxMessageBytes),
				fmt.Sprintf("parse error: message longer than %d bytes", MaxMessageBytes))
		case msg != nil:
			if s.fast != nil && s.fast(msg) {
				continue // its slot is freed with its answer
			}
			out, keep = s.screen(bytes.Clone(msg)) // msg may be the reader's buffer
		}
		if out == nil {
			s.release()
			continue
		}
		if err := json.Unmarshal(out, v); err != nil {
			s.release()
			s.replyError(nil, CodeInvalidRequest, "invalid request: "+err.Error())
			continue
		}
		if !keep {
			s.release()
		}
		return nil
	}
}

// next returns the next message's bytes, nil for a blank line or a framing
// error already answered, or the skeleton of a line too long to keep.
func (s *Stream) next() ([]byte, *skeleton, error) {
	if s.framing == FramingContentLength {
		b, err := s.nextContentLength()
		return b, nil, err
	}
	line, long, err := s.readLine()
	if long != nil {
		return nil, long, nil
	}
	if err != nil && len(line) == 0 {
		return nil, nil, err
	}
	line = bytes.TrimRight(line, "\r")
	if len(bytes.TrimSpace(line)) == 0 {
		return nil, nil, nil
	}
	return line, nil, nil
}

// readLine reads one line. A line longer than MaxMessageBytes is not kept:
// it is read through to its end and only its skeleton (the top level, see
// skeleton) comes back, so that a request's id can still be answered.
//
// A line that is whole in the reader's buffer comes back as a slice of that
// buffer, valid until the next read. A longer one is gathered as copies of
// the reader's buffer, joined once at its end: never a growing buffer,
// whose copies would allocate several times the cap for one line, and
// never more than the cap held (what was gathered is fed to the skeleton
// and dropped when the line turns out too long).
func (s *Stream) readLine() ([]byte, *skeleton, error) {
	chunk, err := s.in.ReadSlice('\n')
	if err == nil {
		return chunk[:len(chunk)-1], nil, nil
	}
	var parts [][]byte
	n := 0
	for {
		if n+len(chunk) > MaxMessageBytes {
			sk := &skeleton{}
			for i := range parts {
				sk.feed(parts[i])
				parts[i] = nil
			}
			sk.feed(chunk)
			for errors.Is(err, bufio.ErrBufferFull) {
				chunk, err = s.in.ReadSlice('\n')
				sk.feed(chunk)
			}
			if err != nil && !errors.Is(err, io.EOF) {
				return nil, nil, err
			}
			return nil, sk, nil // at EOF, the next read reports it
		}
		parts = append(parts, bytes.Clone(chunk))
		n += len(chunk)
		if !errors.Is(err, bufio.ErrBufferFull) {
			break
		}
		chunk, err = s.in.ReadSlice('\n')
	}
	buf := make([]byte, 0, n)
	for _, p := range parts {
		buf = append(buf, p...)
	}
	if err != nil {
		return buf, nil, err
	}
	return bytes.TrimSuffix(buf, []byte("\n")), nil, nil
}

// maxHeaderLine bounds one Content-Length framing header line.
const maxHeaderLine = 8 << 10

var errHeaderTooLong = errors.New("header line too long")

// readHeaderLine reads one header line without its "\r\n".
func (s *Stream) readHeaderLine() (string, error) {
	var buf []byte
	for {
		chunk, err := s.in.ReadSlice('\n')
		if len(buf)+len(chunk) > maxHeaderLine {
			return "", errHeaderTooLong // the rest is skipped by the resync
		}
		buf = append(buf, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && (len(buf) == 0 || !errors.Is(err, io.EOF)) {
			return "", err
		}
		if err != nil {
			return "", io.EOF // a header cut off by the end of input
		}
		return strings.TrimRight(string(buf), "\r\n"), nil
	}
}

// nextContentLength reads one LSP-style frame. A header toolgate cannot
// use is answered -32700 at once; then the stream resynchronizes at the
// next "Content-Length:" (seekHeader) and never reads a body it refused.
func (s *Stream) nextContentLength() ([]byte, error) {
	first := ""
	if s.resync {
		if err := s.seekHeader(); err != nil {
			return nil, err
		}
		s.resync = false
		rest, err := s.readHeaderLine()
		if errors.Is(err, errHeaderTooLong) {
			return s.refuse("a header line is too long")
		}
		if err != nil {
			return nil, err
		}
		first = "Content-Length:" + rest
	}
	length := int64(-1)
	sawHeader := false
	for {
		line := first
		if first != "" {
			first = ""
		} else {
			var err error
			line, err = s.readHeaderLine()
			if errors.Is(err, errHeaderTooLong) {
				return s.refuse("a header line is too long")
			}
			if err != nil {
				return nil, err
			}
		}
		if line == "" {
			if !sawHeader {
				continue
			}
			break
		}
		sawHeader = true
		name, value, ok := strings.Cut(line, ":")
		name = strings.TrimRight(name, " \t")
		if !ok || !isToken(name) {
			return s.refuse(fmt.Sprintf("%q is not a header line", truncate(line, 80)))
		}
		if !strings.EqualFold(name, "Content-Length") {
			continue
		}
		if length >= 0 {
			return s.refuse("two Content-Length headers")
		}
		v := strings.TrimSpace(value)
		n, err := strconv.ParseInt(v, 10, 64)
		switch {
		case err != nil:
			return s.refuse(fmt.Sprintf("bad Content-Length %q", truncate(v, 80)))
		case n <= 0:
			return s.refuse(fmt.Sprintf("Content-Length %d is not positive", n))
		case n > MaxMessageBytes:
			return s.refuse(fmt.Sprintf("message longer than %d bytes", MaxMessageBytes))
		}
		length = n
	}
	if length < 0 {
		return s.refuse("header without Content-Length")
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(s.in, body); err != nil {
		return nil, io.EOF
	}
	return body, nil
}

// refuse answers a frame toolgate cannot use and resynchronizes.
func (s *Stream) refuse(why string) ([]byte, error) {
	s.replyError(nil, CodeParseError, "parse error: "+why)
	s.resync = true
	return nil, nil
}

// seekHeader skips input up to and including the next "Content-Length:"
// (in any letter case).
func (s *Stream) seekHeader() error {
	const pat = "content-length:" // no proper prefix is also a suffix
	i := 0
	for {
		c, err := s.in.ReadByte()
		if err != nil {
			return err
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		switch {
		case c == pat[i]:
			i++
			if i == len(pat) {
				return nil
			}
		case c == pat[0]:
			i = 1
		default:
			i = 0
		}
	}
}

func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// maxValidDepth is the nesting at which the JSON decoder gives up.
const maxValidDepth = 10000

// screen validates one message and returns the bytes to hand to jsonrpc2,
// and whether it is a request to be answered (it keeps its slot).
func (s *Stream) screen(msg []byte) ([]byte, bool) {
	if !json.Valid(msg) {
		sk := &skeleton{}
		sk.feed(msg)
		if sk.maxDepth >= maxValidDepth {
			return s.screenSkeleton(sk, fmt.Sprintf("the params are nested more than %d levels deep", maxValidDepth-1),
				"parse error: the message is nested too deep")
		}
		s.replyError(nil, CodeParseError, "parse error: the message is not valid JSON")
		return nil, false
	}
	trimmed := bytes.TrimLeft(msg, " \t\r\n")
	switch {
	case len(trimmed) > 0 && trimmed[0] == '[':
		s.replyError(nil, CodeInvalidRequest, "invalid request: batches are not supported")
		return nil, false
	case len(trimmed) == 0 || trimmed[0] != '{':
		s.replyError(nil, CodeInvalidRequest, "invalid request: not a JSON-RPC object")
		return nil, false
	}
	var env map[string]json.RawMessage
	if err := json.Unmarshal(msg, &env); err != nil {
		s.replyError(nil, CodeInvalidRequest, "invalid request: "+err.Error())
		return nil, false
	}
	return s.envelope(env, nil)
}

// screenSkeleton handles a message toolgate did not keep whole (too long or
// too deep): a request whose id and method can be read from its top level
// is handed on with its params refused (perr), so it is answered by its id
// (a tool_call blocks); a response becomes an error response to its id;
// anything else is a parse error.
func (s *Stream) screenSkeleton(sk *skeleton, why, parseMsg string) ([]byte, bool) {
	if b, ok := sk.bytes(); ok && json.Valid(b) {
		var env map[string]json.RawMessage
		if json.Unmarshal(b, &env) == nil {
			if id, idOK := validID(env["id"]); idOK && id != nil {
				_, hasMethod := env["method"]
				_, hasResult := env["result"]
				_, hasError := env["error"]
				switch {
				case hasMethod:
					return s.envelope(env, &ParamsError{Reason: why})
				case hasResult || hasError:
					b, err := json.Marshal(errorResponse{JSONRPC: "2.0", ID: id, Error: wireError{Code: CodeParseError, Message: why}})
					if err != nil {
						return nil, false
					}
					return b, false
				}
			}
		}
	}
	s.replyError(nil, CodeParseError, parseMsg)
	return nil, false
}

// envelopeKeys are the keys of a JSON-RPC message.
var envelopeKeys = [...]string{"jsonrpc", "id", "method", "params", "result", "error"}

// envelope checks one message's top level and rebuilds it for jsonrpc2 with
// exactly the keys toolgate read. perr, when set, refuses the params.
func (s *Stream) envelope(env map[string]json.RawMessage, perr error) ([]byte, bool) {
	near := ""
	for k := range env {
		for _, want := range envelopeKeys {
			if k != want && NearKey(k, want) {
				near = fmt.Sprintf("key %q is not %q (keys are case-sensitive)", k, want)
			}
		}
	}
	method, hasMethod := env["method"]
	rawID := env["id"]
	if !hasMethod && !strings.Contains(near, `"method"`) {
		_, hasResult := env["result"]
		_, hasError := env["error"]
		if hasResult || hasError || strings.Contains(near, `"result"`) || strings.Contains(near, `"error"`) {
			// A response: never answered (docs/protocol.md). One toolgate cannot
			// match to a request of its own is dropped.
			id, idOK := validID(rawID)
			if idOK && id != nil && hasResult && hasError && near == "" {
				// Both: the answer cannot be read one way. It fails the
				// request it answers now (a prompt blocks), rather than
				// leaving it to time out.
				b, err := json.Marshal(errorResponse{JSONRPC: "2.0", ID: id, Error: wireError{Code: CodeInvalidRequest,
					Message: "invalid response: it has both result and error"}})
				if err != nil {
					return nil, false
				}
				return b, false
			}
			if !idOK || id == nil || hasResult == hasError || near != "" {
				return nil, false
			}
			var b bytes.Buffer
			b.WriteString(`{"jsonrpc":"2.0","id":`)
			b.Write(id)
			if hasResult {
				b.WriteString(`,"result":`)
				b.Write(env["result"])
			} else {
				b.WriteString(`,"error":`)
				b.Write(env["error"])
			}
			b.WriteByte('}')
			return b.Bytes(), false
		}
	}
	id, idOK := validID(rawID)
	if !idOK {
		s.replyError(nil, CodeInvalidRequest, "invalid request: id must be a string or a non-negative integer")
		return nil, false
	}
	if near != "" {
		s.replyError(id, CodeInvalidRequest, "invalid request: "+near)
		return nil, false
	}
	if v, ok := env["jsonrpc"]; ok && string(bytes.TrimSpace(v)) != `"2.0"` {
		s.replyError(id, CodeInvalidRequest, `invalid request: jsonrpc must be "2.0"`)
		return nil, false
	}
	if !hasMethod {
		s.replyError(id, CodeInvalidRequest, "invalid request: neither a request nor a response")
		return nil, false
	}
	var name string
	if err := json.Unmarshal(method, &name); err != nil {
		s.replyError(id, CodeInvalidRequest, "invalid request: method must be a string")
		return nil, false
	}
	n := s.seq.Add(1)
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0","method":`)
	b.Write(method)
	if id != nil {
		b.WriteString(`,"id":`)
		b.Write(id)
	}
	// The params stay here (Params): jsonrpc2 would decode them into a
	// map and encode them again, which loses repeated keys and costs time.
	if perr != nil {
		s.raw.Store(n, params{err: perr})
	} else if p, ok := env["params"]; ok {
		s.raw.Store(n, params{raw: []byte(p)})
	}
	fmt.Fprintf(&b, `,"meta":%d}`, n)
	return b.Bytes(), id != nil
}

// validID accepts an absent or null id (a notification), a string, or a
// non-negative integer. It returns the id's bytes (nil when absent/null).
func validID(raw json.RawMessage) (json.RawMessage, bool) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || string(t) == "null" {
		return nil, true
	}
	switch t[0] {
	case '"':
		return t, true
	case '-':
		return nil, false
	}
	if _, err := strconv.ParseUint(string(t), 10, 64); err != nil {
		return nil, false
	}
	return t, true
}

type wireError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

type errorResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   wireError       `json:"error"`
}

func (s *Stream) replyError(id json.RawMessage, code int, message string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, err := json.Marshal(errorResponse{JSONRPC: "2.0", ID: id, Error: wireError{Code: code, Message: message}})
	if err != nil {
		return
	}
	_ = s.writeFrame(b)
}
