package protocol

import (
	"strconv"
	"unicode/utf8"

	"github.com/toolgate/toolgate/internal/swar"
)

// Hand-written encoders of a tool_call's answer: the same bytes the JSON
// encoder writes for these types (field order, omitempty, HTML-safe string
// escaping), without reflection. encode_test.go holds them to it.

const hexDigits = "0123456789abcdef"

// Escaping names one way of writing a JSON string. Both ways share one
// escaper (appendEscaped), with a table each (escapings).
type Escaping uint8

const (
	// JSONEscaping is how encoding/json (and goccy/go-json) write a
	// string, the answers' way: '"', '\\', the control characters, '<',
	// '>', '&', U+2028 and U+2029 escaped, invalid UTF-8 as U+FFFD
	// (TestAppendStringMatchesEncoder).
	JSONEscaping Escaping = iota
	// ZerologEscaping is how rs/zerolog writes a string, the audit log's
	// way: '"', '\\', the control characters and DEL escaped, no HTML
	// escapes, U+2028 and U+2029 as they are, invalid UTF-8 as U+FFFD
	// (audit's TestEncWritesWhatZerologWrites).
	ZerologEscaping
)

// escaping is an Escaping's table: the bytes written as they are (none
// from 0x80 up), and whether U+2028 and U+2029 are escaped.
type escaping struct {
	plain    [256]bool
	lineSeps bool
}

// escapings are the tables of JSONEscaping and ZerologEscaping (never
// changed after they are built).
var escapings = func() (t [2]escaping) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[JSONEscaping].plain[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
		t[ZerologEscaping].plain[c] = c != '"' && c != '\\' && c != 0x7f
	}
	t[JSONEscaping].lineSeps = true
	return t
}()

// AppendString appends s as a JSON string, escaped as encoding/json (and
// goccy/go-json) escape it (JSONEscaping).
func AppendString(dst []byte, s string) []byte {
	return appendEscaped(dst, s, &escapings[JSONEscaping])
}

// AppendStringAs appends s as a JSON string escaped the way e says.
func AppendStringAs(dst []byte, s string, e Escaping) []byte {
	return appendEscaped(dst, s, &escapings[e])
}

// appendEscaped appends s as a JSON string escaped as e says. It skips
// plain bytes 8 at a time (plainBlocks), also after each byte it escapes,
// and copies each run of them whole. Its plain twin is the encoders' escaping, a rune at a time
// (goccy/go-json for JSONEscaping, zerolog for ZerologEscaping);
// TestAppendStringMatchesEncoder and audit's TestEncWritesWhatZerologWrites
// and TestZerologStringLongRuns keep them equal.
func appendEscaped(dst []byte, s string, e *escaping) []byte {
	dst = append(dst, '"')
	start, i := 0, 0
	for {
		i += plainBlocks(s[i:])
		for i < len(s) && e.plain[s[i]] {
			i++
		}
		if i == len(s) {
			break
		}
		if b := s[i]; b < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if e.lineSeps && (r == '\u2028' || r == '\u2029') {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// plainBlocks is the length of s's longest prefix of whole 8-byte blocks
// whose bytes are all plain in both Escapings, read a word at a time: a
// block stops it when a byte in it is a control character, '"', '\\',
// '<', '>', '&', DEL or a byte from 0x80 up. It is exact in the direction
// that matters (a byte that is not plain always stops it), so the bytes it
// skips need no look one by one. Its plain twin is the table looked at
// byte by byte; TestAppendStringMatchesEncoder puts every byte at every
// place of those words and keeps the two equal.
func plainBlocks(s string) int {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		t := s[i : i+8] // one bounds check; the compiler reads t as one word
		x := uint64(t[0]) | uint64(t[1])<<8 | uint64(t[2])<<16 | uint64(t[3])<<24 |
			uint64(t[4])<<32 | uint64(t[5])<<40 | uint64(t[6])<<48 | uint64(t[7])<<56
		// A byte below 0x20 (with x's high bits set aside: those count anyway).
		m := x&swar.Highs | swar.Below(x, 0x20)
		// '"' 0x22 and '&' 0x26 differ in bit 2 only, '<' 0x3c and '>' 0x3e in
		// bit 1: a byte is zero after the mask exactly for those.
		m |= swar.HasZero((x ^ 0x22*swar.Ones) &^ (0x04 * swar.Ones))
		m |= swar.HasZero((x ^ 0x3c*swar.Ones) &^ (0x02 * swar.Ones))
		m |= swar.HasZero(x ^ '\\'*swar.Ones)
		m |= swar.HasZero(x ^ 0x7f*swar.Ones)
		if m != 0 {
			break
		}
	}
	return i
}

func appendKey(dst []byte, first *bool, key string) []byte {
	if !*first {
		dst = append(dst, ',')
	}
	*first = false
	dst = append(dst, '"')
	dst = append(dst, key...)
	return append(dst, '"', ':')
}

func appendStrField(dst []byte, first *bool, key, v string, omitEmpty bool) []byte {
	if omitEmpty && v == "" {
		return dst
	}
	return AppendString(appendKey(dst, first, key), v)
}

func appendOrigin(dst []byte, o *Origin) []byte {
	first := true
	dst = append(dst, '{')
	dst = appendStrField(dst, &first, "scope", o.Scope, false)
	dst = appendStrField(dst, &first, "path", o.Path, true)
	if o.Line != 0 {
		dst = strconv.AppendInt(appendKey(dst, &first, "line"), int64(o.Line), 10)
	}
	return append(dst, '}')
}

// knownOrigin is an origin already encoded in the answer, at
// dst[start:end]: a trace entry of the same origin (the deciding gate's)
// copies those bytes rather than escaping the path again. Its plain twin
// is appendOrigin; TestAppendToolCallAnswerMatchesFrame (whose traces often
// share the decision's origin) keeps them equal.
type knownOrigin struct {
	o          *Origin
	start, end int
}

// append appends o, copied from dst when it is the known origin.
func (k *knownOrigin) append(dst []byte, o *Origin) []byte {
	if k.o != nil && (o == k.o || *o == *k.o) {
		return append(dst, dst[k.start:k.end]...)
	}
	return appendOrigin(dst, o)
}

func appendDecision(dst []byte, d *Decision, known *knownOrigin) []byte {
	first := true
	dst = append(dst, '{')
	dst = appendStrField(dst, &first, "gate", d.Gate, false)
	dst = appendStrField(dst, &first, "surface", d.Surface, true)
	dst = appendStrField(dst, &first, "value", d.Value, false)
	dst = appendStrField(dst, &first, "state", d.State, false)
	dst = appendStrField(dst, &first, "resolution", d.Resolution, true)
	if d.MatchedPattern != nil {
		dst = AppendString(appendKey(dst, &first, "matchedPattern"), *d.MatchedPattern)
	}
	if d.Origin != nil {
		dst = appendKey(dst, &first, "origin")
		start := len(dst)
		dst = appendOrigin(dst, d.Origin)
		*known = knownOrigin{o: d.Origin, start: start, end: len(dst)}
	}
	dst = appendStrField(dst, &first, "reason", d.Reason, true)
	return append(dst, '}')
}

func appendTraceEntry(dst []byte, t *TraceEntry, known *knownOrigin) []byte {
	first := true
	dst = append(dst, '{')
	dst = appendStrField(dst, &first, "gate", t.Gate, false)
	dst = appendKey(dst, &first, "applied")
	dst = strconv.AppendBool(dst, t.Applied)
	dst = appendStrField(dst, &first, "surface", t.Surface, true)
	dst = appendStrField(dst, &first, "value", t.Value, true)
	dst = appendStrField(dst, &first, "state", t.State, true)
	dst = appendStrField(dst, &first, "resolution", t.Resolution, true)
	if t.MatchedPattern != nil {
		dst = AppendString(appendKey(dst, &first, "matchedPattern"), *t.MatchedPattern)
	}
	if t.Origin != nil {
		dst = known.append(appendKey(dst, &first, "origin"), t.Origin)
	}
	dst = appendStrField(dst, &first, "command", t.Command, true)
	if len(t.Forms) > 0 {
		dst = append(appendKey(dst, &first, "forms"), '[')
		for i, f := range t.Forms {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendString(dst, f)
		}
		dst = append(dst, ']')
	}
	dst = appendStrField(dst, &first, "note", t.Note, true)
	return append(dst, '}')
}

// AppendToolCallResult appends r as JSON.
func AppendToolCallResult(dst []byte, r *ToolCallResult) []byte {
	return appendToolCallResult(dst, r, nil)
}

// appendToolCallResult is AppendToolCallResult, r's trace copied from
// trace when that is not nil.
func appendToolCallResult(dst []byte, r *ToolCallResult, trace []byte) []byte {
	first := true
	var known knownOrigin
	dst = append(dst, '{')
	dst = appendStrField(dst, &first, "action", r.Action, false)
	dst = appendStrField(dst, &first, "reason", r.Reason, true)
	if r.Decision != nil {
		dst = appendDecision(appendKey(dst, &first, "decision"), r.Decision, &known)
	}
	if len(r.Trace) > 0 && trace != nil {
		dst = append(appendKey(dst, &first, "trace"), trace...)
	} else if len(r.Trace) > 0 {
		dst = append(appendKey(dst, &first, "trace"), '[')
		for i := range r.Trace {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendTraceEntry(dst, &r.Trace[i], &known)
		}
		dst = append(dst, ']')
	}
	if r.Confine != nil {
		dst = append(appendKey(dst, &first, "confine"), `{"command":`...)
		dst = append(AppendString(dst, r.Confine.Command), '}')
	}
	return append(dst, '}')
}

// AppendDecisionParams appends d as JSON.
func AppendDecisionParams(dst []byte, d *DecisionParams) []byte {
	dst = append(dst, `{"toolCallId":`...)
	dst = AppendString(dst, d.ToolCallID)
	return AppendDecisionParamsAfterID(dst, d)
}

// AppendDecisionParamsAfterID appends what AppendDecisionParams appends of
// d after its toolCallId (its first field, never omitted): the rest of
// the object, its closing brace included, which is the same for every
// call decided the same.
func AppendDecisionParamsAfterID(dst []byte, d *DecisionParams) []byte {
	first := false
	dst = appendStrField(dst, &first, "gate", d.Gate, false)
	dst = appendStrField(dst, &first, "surface", d.Surface, false)
	dst = appendStrField(dst, &first, "value", d.Value, false)
	dst = appendStrField(dst, &first, "result", d.Result, false)
	dst = appendStrField(dst, &first, "state", d.State, false)
	dst = appendStrField(dst, &first, "resolution", d.Resolution, true)
	if d.MatchedPattern != nil {
		dst = AppendString(appendKey(dst, &first, "matchedPattern"), *d.MatchedPattern)
	}
	if d.Origin != nil {
		dst = appendOrigin(appendKey(dst, &first, "origin"), d.Origin)
	}
	dst = appendStrField(dst, &first, "agentName", d.AgentName, true)
	return append(dst, '}')
}

// appendFramed appends one message made by body, framed. For
// content-length framing the body is built in place and its header then
// put in front of it.
func (s *Stream) appendFramed(dst []byte, body func([]byte) []byte) []byte {
	if s.framing != FramingContentLength {
		dst = body(dst)
		return append(dst, '\n')
	}
	start := len(dst)
	dst = body(dst)
	n := len(dst) - start
	var h [48]byte
	hdr := append(h[:0], "Content-Length: "...)
	hdr = strconv.AppendInt(hdr, int64(n), 10)
	hdr = append(hdr, "\r\n\r\n"...)
	dst = append(dst, hdr...)
	copy(dst[start+len(hdr):], dst[start:start+n])
	copy(dst[start:], hdr)
	return dst
}

// AppendKeptAnswer appends what AppendToolCallAnswer appends, from the
// parts of it that are the same for every call decided the same, encoded
// before: notes[i] is what AppendDecisionParamsAfterID appends of the
// i-th notification with a '}' after it (its message's end), result is
// `,"result":`, what AppendToolCallResult appends, and '}'. Only the id
// (idJSON, as JSON) and the tool call id are the call's own. Its plain
// twin is AppendToolCallAnswer; hook's TestKeptAnswersAsFresh keeps them
// equal (and hook's keep compares the two before it keeps anything).
func (s *Stream) AppendKeptAnswer(dst []byte, idJSON []byte, toolCallID string, notes [][]byte, result []byte) []byte {
	if len(notes) > 0 {
		var buf [96]byte
		id := AppendString(buf[:0], toolCallID) // escaped once for every notification
		for _, n := range notes {
			dst = s.appendFramed(dst, func(b []byte) []byte {
				b = append(b, `{"jsonrpc":"2.0","method":"decision","params":{"toolCallId":`...)
				b = append(b, id...)
				return append(b, n...)
			})
		}
	}
	return s.appendFramed(dst, func(b []byte) []byte {
		b = append(b, `{"jsonrpc":"2.0","id":`...)
		b = append(b, idJSON...)
		return append(b, result...)
	})
}

// AppendToolCallAnswer appends a tool_call's answer, framed: the decision
// notifications, then the response to the request whose id is idJSON (the
// id as JSON: a number or a string), as Frame writes them. Its plain twin
// is Frame (reflection); TestAppendToolCallAnswerMatchesFrame keeps them
// equal, in both framings.
func (s *Stream) AppendToolCallAnswer(dst []byte, idJSON []byte, notes []DecisionParams, r *ToolCallResult) []byte {
	return s.AppendToolCallAnswerTraced(dst, idJSON, notes, r, nil)
}

// AppendToolCallAnswerTraced is AppendToolCallAnswer with r's trace
// already encoded as AppendToolCallResult encodes it (the JSON array, as
// the audit record of the call wrote it): copied, not encoded again; nil
// encodes it. TestTracedAnswerIsAnswer keeps the two equal.
func (s *Stream) AppendToolCallAnswerTraced(dst []byte, idJSON []byte, notes []DecisionParams, r *ToolCallResult, trace []byte) []byte {
	for i := range notes {
		d := &notes[i]
		dst = s.appendFramed(dst, func(b []byte) []byte {
			b = append(b, `{"jsonrpc":"2.0","method":"decision","params":`...)
			b = AppendDecisionParams(b, d)
			return append(b, '}')
		})
	}
	return s.appendFramed(dst, func(b []byte) []byte {
		b = append(b, `{"jsonrpc":"2.0","id":`...)
		b = append(b, idJSON...)
		b = append(b, `,"result":`...)
		b = appendToolCallResult(b, r, trace)
		return append(b, '}')
	})
}
