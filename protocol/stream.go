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
// (RawParams) and decode them strictly.
type Stream struct {
	in      *bufio.Reader
	out     io.Writer
	closer  io.Closer
	framing Framing

	wmu  sync.Mutex
	wbuf []byte // WriteAll's buffer, under wmu

	seq atomic.Uint64
	raw sync.Map // uint64 → []byte

	onEOF   func()
	eofOnce sync.Once
}

// NewStream reads from in and writes to out. closer (may be nil) is closed by
// Close. onEOF (may be nil) runs once when the input ends, before ReadObject
// reports io.EOF: the connection is still open for writing then, so pending
// requests can be answered.
func NewStream(in io.Reader, out io.Writer, closer io.Closer, framing Framing, onEOF func()) *Stream {
	return &Stream{in: bufio.NewReaderSize(in, 64<<10), out: out, closer: closer, framing: framing, onEOF: onEOF}
}

// RawParams returns (and forgets) the raw params of the request tagged with
// meta; nil when there were none.
func (s *Stream) RawParams(meta *json.RawMessage) []byte {
	if meta == nil {
		return nil
	}
	n, err := strconv.ParseUint(string(*meta), 10, 64)
	if err != nil {
		return nil
	}
	v, ok := s.raw.LoadAndDelete(n)
	if !ok {
		return nil
	}
	return v.([]byte)
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

// ReadObject reads the next valid request or response into v, answering and
// skipping anything else.
func (s *Stream) ReadObject(v any) error {
	for {
		msg, err := s.next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				s.eofOnce.Do(func() {
					if s.onEOF != nil {
						s.onEOF()
					}
				})
			}
			return err
		}
		if msg == nil {
			continue
		}
		out, ok := s.screen(msg)
		if !ok {
			continue
		}
		if err := json.Unmarshal(out, v); err != nil {
			s.replyError(nil, CodeInvalidRequest, "invalid request: "+err.Error())
			continue
		}
		return nil
	}
}

// next returns the next message's bytes, nil for a blank line or a framing
// error already answered.
func (s *Stream) next() ([]byte, error) {
	if s.framing == FramingContentLength {
		return s.nextContentLength()
	}
	line, err := s.readLine()
	if err != nil && len(line) == 0 {
		return nil, err
	}
	line = bytes.TrimRight(line, "\r")
	if len(bytes.TrimSpace(line)) == 0 {
		return nil, nil
	}
	return line, nil
}

func (s *Stream) readLine() ([]byte, error) {
	var buf []byte
	for {
		chunk, err := s.in.ReadSlice('\n')
		if len(buf)+len(chunk) > MaxMessageBytes {
			// Skip to the end of this line, then report it.
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = s.in.ReadSlice('\n')
			}
			s.replyError(nil, CodeParseError, fmt.Sprintf("parse error: message longer than %d bytes", MaxMessageBytes))
			if err != nil {
				return nil, err
			}
			return []byte{}, nil
		}
		buf = append(buf, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			return buf, err
		}
		return bytes.TrimSuffix(buf, []byte("\n")), nil
	}
}

func (s *Stream) nextContentLength() ([]byte, error) {
	length := -1
	sawHeader := false
	for {
		line, err := s.readLine()
		if err != nil && len(line) == 0 {
			return nil, err
		}
		line = bytes.TrimRight(line, "\r")
		if len(line) == 0 {
			if !sawHeader {
				continue
			}
			break
		}
		sawHeader = true
		name, value, ok := strings.Cut(string(line), ":")
		if ok && strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, perr := strconv.Atoi(strings.TrimSpace(value))
			if perr != nil || n < 0 {
				s.replyError(nil, CodeParseError, fmt.Sprintf("parse error: bad Content-Length %q", strings.TrimSpace(value)))
				return nil, nil
			}
			length = n
		}
	}
	if length < 0 {
		s.replyError(nil, CodeParseError, "parse error: header without Content-Length")
		return nil, nil
	}
	if length > MaxMessageBytes {
		if _, err := io.CopyN(io.Discard, s.in, int64(length)); err != nil {
			return nil, err
		}
		s.replyError(nil, CodeParseError, fmt.Sprintf("parse error: message longer than %d bytes", MaxMessageBytes))
		return nil, nil
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(s.in, body); err != nil {
		return nil, io.EOF
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, nil
	}
	return body, nil
}

// screen validates one message and returns the bytes to hand to jsonrpc2.
func (s *Stream) screen(msg []byte) ([]byte, bool) {
	if !json.Valid(msg) {
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
	id, idOK := validID(env["id"])
	if !idOK {
		s.replyError(nil, CodeInvalidRequest, "invalid request: id must be a string or a non-negative integer")
		return nil, false
	}
	if v, ok := env["jsonrpc"]; ok && string(bytes.TrimSpace(v)) != `"2.0"` {
		s.replyError(id, CodeInvalidRequest, `invalid request: jsonrpc must be "2.0"`)
		return nil, false
	}
	method, hasMethod := env["method"]
	if !hasMethod {
		_, hasResult := env["result"]
		_, hasError := env["error"]
		if hasResult != hasError && id != nil {
			return msg, true // a response to one of our requests
		}
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
	// The params stay here (RawParams): jsonrpc2 would decode them into a
	// map and encode them again, which loses repeated keys and costs time.
	if p, ok := env["params"]; ok {
		s.raw.Store(n, []byte(p))
	}
	fmt.Fprintf(&b, `,"meta":%d}`, n)
	return b.Bytes(), true
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
