package export

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	json "github.com/goccy/go-json"
	commonpb "go.opentelemetry.io/proto/slim/otlp/common/v1"
	logspb "go.opentelemetry.io/proto/slim/otlp/logs/v1"
)

// maxLine is the longest record line read (the audit log's own bound on
// a last line is 1 MiB); a longer one is sent cut, marked malformed.
const maxLine = 1 << 20

// line is one complete record line read from the log.
type line struct {
	text []byte // without its newline
	end  int64  // the offset just past its newline
}

// record is what the attributes of an exported record are read from.
type record struct {
	Time           string  `json:"time"`
	Seq            uint64  `json:"seq"`
	Event          string  `json:"event"`
	SessionID      string  `json:"sessionId"`
	ToolCallID     string  `json:"toolCallId"`
	Host           string  `json:"host"`
	ToolName       string  `json:"toolName"`
	AgentName      string  `json:"agentName"`
	Action         string  `json:"action"`
	Resolution     string  `json:"resolution"`
	Gate           string  `json:"gate"`
	Surface        string  `json:"surface"`
	State          string  `json:"state"`
	MatchedPattern *string `json:"matchedPattern"`
	Origin         *struct {
		Scope string `json:"scope"`
		Path  string `json:"path"`
		Line  int    `json:"line"`
	} `json:"origin"`
	Hash string `json:"hash"`
}

// readLines reads the complete lines of f from off on, at most max of
// them and about maxBytes (the line that crosses it is read whole): a
// line without its newline yet is left for the next read (it is being
// written, or is a torn end that the writer cuts). A line longer than
// maxLine is kept cut to maxLine (it is sent marked malformed).
func readLines(f *os.File, off int64, max, maxBytes int) ([]line, error) {
	r := bufio.NewReaderSize(io.NewSectionReader(f, off, 1<<62), 64<<10)
	var out []line
	pos, size := off, 0
	for len(out) < max && size < maxBytes {
		b, err := r.ReadSlice('\n')
		n := int64(len(b))
		text := b
		if errors.Is(err, bufio.ErrBufferFull) {
			long := append([]byte(nil), b...)
			for errors.Is(err, bufio.ErrBufferFull) {
				b, err = r.ReadSlice('\n')
				n += int64(len(b))
				if len(long) <= maxLine {
					long = append(long, b...)
				}
			}
			text = long
		}
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		if int64(len(text)) == n {
			text = text[:len(text)-1] // the newline
		} else if len(text) > maxLine {
			text = text[:maxLine]
		}
		pos += n
		out = append(out, line{text: append([]byte(nil), text...), end: pos})
		size += int(n)
	}
	return out, nil
}

// resource is what every exported record shares: the machine and the
// program (OpenTelemetry's semantic conventions).
func resourceAttrs(hostName, version string) []*commonpb.KeyValue {
	attrs := []*commonpb.KeyValue{str("service.name", "toolgate"), str("service.version", version)}
	if hostName != "" {
		attrs = append(attrs, str("host.name", hostName))
	}
	return attrs
}

// logRecord is the OpenTelemetry log record of one audit record: its line
// is the body (a collector can check the chain from it), and what a query
// asks for is an attribute: the log's identity, seq and hash (to drop
// duplicates), the session, agent host, tool, decision and deciding rule.
// A line that is not a record toolgate wrote is sent too, marked
// malformed.
func logRecord(l line, logID string, observed time.Time) (*logspb.LogRecord, uint64, string) {
	lr := &logspb.LogRecord{ObservedTimeUnixNano: uint64(observed.UnixNano()),
		Body: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: string(l.text)}}}
	var r record
	if err := json.Unmarshal(l.text, &r); err != nil || len(r.Hash) != 64 || r.Seq == 0 {
		lr.SeverityNumber, lr.SeverityText = logspb.SeverityNumber_SEVERITY_NUMBER_ERROR, "ERROR"
		lr.Attributes = []*commonpb.KeyValue{str("toolgate.log_id", logID), {Key: "toolgate.malformed", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_BoolValue{BoolValue: true}}}}
		return lr, 0, ""
	}
	if t, err := time.Parse(time.RFC3339Nano, r.Time); err == nil {
		lr.TimeUnixNano = uint64(t.UnixNano())
	}
	lr.EventName = "toolgate." + r.Event
	lr.SeverityNumber, lr.SeverityText = logspb.SeverityNumber_SEVERITY_NUMBER_INFO, "INFO"
	if r.Action == "block" || r.Action == "deny" || r.State == "deny" || warnEvents[r.Event] {
		lr.SeverityNumber, lr.SeverityText = logspb.SeverityNumber_SEVERITY_NUMBER_WARN, "WARN"
	}
	a := new(attrs)
	a.str("toolgate.log_id", logID)
	a.int("toolgate.seq", int64(r.Seq))
	a.str("toolgate.hash", r.Hash)
	a.str("toolgate.event", r.Event)
	for _, kv := range [...]struct{ k, v string }{
		{"session.id", r.SessionID}, {"toolgate.tool_call.id", r.ToolCallID}, {"toolgate.agent_host", r.Host},
		{"toolgate.agent.name", r.AgentName}, {"toolgate.tool.name", r.ToolName}, {"toolgate.decision.action", r.Action},
		{"toolgate.decision.resolution", r.Resolution}, {"toolgate.decision.state", r.State}, {"toolgate.decision.gate", r.Gate},
		{"toolgate.decision.surface", r.Surface},
	} {
		if kv.v != "" {
			a.str(kv.k, kv.v)
		}
	}
	if r.MatchedPattern != nil {
		a.str("toolgate.rule.pattern", *r.MatchedPattern)
	}
	if o := r.Origin; o != nil {
		where := o.Scope
		if o.Path != "" {
			where += " " + o.Path
			if o.Line > 0 {
				where += ":" + strconv.Itoa(o.Line)
			}
		}
		a.str("toolgate.rule.origin", where)
		a.str("toolgate.rule.origin.scope", o.Scope)
		if o.Path != "" {
			a.str("toolgate.rule.origin.path", o.Path)
		}
		if o.Line > 0 {
			a.int("toolgate.rule.origin.line", int64(o.Line))
		}
	}
	lr.Attributes = a.list()
	return lr, r.Seq, r.Hash
}

// maxAttrs is the most attributes logRecord gives a record.
const maxAttrs = 20

// attrs builds a record's attributes in one allocation: the key-values,
// their values and the list pointing at them, rather than three objects
// for each (the sender's largest cost per record, and its garbage).
type attrs struct {
	n    int
	ptr  [maxAttrs]*commonpb.KeyValue
	kv   [maxAttrs]commonpb.KeyValue
	val  [maxAttrs]commonpb.AnyValue
	strs [maxAttrs]commonpb.AnyValue_StringValue
	ints [maxAttrs]commonpb.AnyValue_IntValue
}

func (a *attrs) next(k string) *commonpb.AnyValue {
	i := a.n
	a.n++
	a.kv[i].Key, a.kv[i].Value = k, &a.val[i]
	a.ptr[i] = &a.kv[i]
	return &a.val[i]
}

func (a *attrs) str(k, v string) {
	i := a.n
	a.strs[i].StringValue = v
	a.next(k).Value = &a.strs[i]
}

func (a *attrs) int(k string, v int64) {
	i := a.n
	a.ints[i].IntValue = v
	a.next(k).Value = &a.ints[i]
}

// list is the attributes made; a stays alive as long as they do.
func (a *attrs) list() []*commonpb.KeyValue { return a.ptr[:a.n:a.n] }

// warnEvents are the records that say something went wrong.
var warnEvents = map[string]bool{"policy_warning": true, "log_repaired": true, "log_restarted": true,
	"log_write_failed": true, "export_gap": true, "export_failed": true}

func str(k, v string) *commonpb.KeyValue {
	return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v}}}
}

func integer(k string, v int64) *commonpb.KeyValue {
	return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: v}}}
}

// firstHash is the hash of the log's first record ("" while it has no
// complete first line; an error when that line is no chained record).
func firstHash(f *os.File) (string, error) {
	ls, err := readLines(f, 0, 1, 1)
	if err != nil || len(ls) == 0 {
		return "", err
	}
	var r struct {
		Hash string `json:"hash"`
	}
	if json.Unmarshal(ls[0].text, &r) != nil || len(r.Hash) != 64 {
		return "", fmt.Errorf("the first line of the audit log %s is not a chained record", f.Name())
	}
	return r.Hash, nil
}

// hashEndingAt is the hash of the record whose line ends just before off
// ("" when there is no record line there).
func hashEndingAt(f *os.File, off int64) string {
	for window := int64(8 << 10); ; window *= 8 {
		if h, more := hashEndingIn(f, off, window); !more || window >= maxLine {
			return h
		}
	}
}

// hashEndingIn is hashEndingAt from the last window bytes before off;
// more when the line does not start in them.
func hashEndingIn(f *os.File, off, window int64) (string, bool) {
	start := max(off-window, 0)
	buf := make([]byte, off-start)
	if _, err := f.ReadAt(buf, start); err != nil || len(buf) == 0 || buf[len(buf)-1] != '\n' {
		return "", false
	}
	body := buf[:len(buf)-1]
	i := bytes.LastIndexByte(body, '\n')
	if i < 0 && start > 0 {
		return "", true
	}
	var r struct {
		Hash string `json:"hash"`
	}
	if json.Unmarshal(body[i+1:], &r) != nil {
		return "", false
	}
	return r.Hash, false
}
