package protocol

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

// readAll reads every object the stream yields from input and returns them
// with what the stream itself wrote back (error responses).
func readAll(t *testing.T, input string, framing Framing) ([]map[string]any, []map[string]any, int) {
	t.Helper()
	var out bytes.Buffer
	eofs := 0
	s := NewStream(strings.NewReader(input), &out, nil, framing, func() { eofs++ })
	var got []map[string]any
	for {
		var m map[string]any
		err := s.ReadObject(&m)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("ReadObject: %v", err)
		}
		got = append(got, m)
	}
	return got, decodeFrames(t, out.String(), framing), eofs
}

func decodeFrames(t *testing.T, s string, framing Framing) []map[string]any {
	t.Helper()
	var msgs []map[string]any
	if framing == FramingContentLength {
		for s != "" {
			i := strings.Index(s, "\r\n\r\n")
			if i < 0 {
				t.Fatalf("frame without header end: %q", s)
			}
			var n int
			if _, err := fmtSscanf(s[:i], &n); err != nil {
				t.Fatalf("bad header %q: %v", s[:i], err)
			}
			body := s[i+4 : i+4+n]
			s = s[i+4+n:]
			var m map[string]any
			if err := json.Unmarshal([]byte(body), &m); err != nil {
				t.Fatalf("bad body %q", body)
			}
			msgs = append(msgs, m)
		}
		return msgs
	}
	for _, line := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("the stream wrote a non-JSON line %q", line)
		}
		msgs = append(msgs, m)
	}
	return msgs
}

func errorCode(m map[string]any) float64 {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return c
}

// TestStreamResultAndError: an answer with both result and error reaches
// the waiting request as an error.
func TestStreamResultAndError(t *testing.T) {
	got, written, _ := readAll(t, `{"jsonrpc":"2.0","id":"tg-1","result":{"choice":"allow_once"},"error":{"code":1,"message":"x"}}`+"\n", FramingNewline)
	if len(written) != 0 || len(got) != 1 {
		t.Fatalf("written %v, passed %v: want one message passed and nothing written", written, got)
	}
	if got[0]["id"] != "tg-1" || errorCode(got[0]) != CodeInvalidRequest || got[0]["result"] != nil {
		t.Fatalf("passed %v, want an error response to tg-1", got[0])
	}
}

func TestStreamNewline(t *testing.T) {
	cases := []struct {
		name      string
		input     string
		objects   int
		errCodes  []float64
		errIDNull bool
	}{
		{"one request", `{"jsonrpc":"2.0","id":1,"method":"x"}` + "\n", 1, nil, false},
		{"crlf and blank lines", "\n\r\n" + `{"jsonrpc":"2.0","id":1,"method":"x"}` + "\r\n\r\n", 1, nil, false},
		{"not json keeps serving", "nope\n" + `{"jsonrpc":"2.0","id":2,"method":"x"}` + "\n", 1, []float64{CodeParseError}, true},
		{"truncated object is one bad line", `{"jsonrpc":"2.0","id":77,"method":"x","params":{` + "\n" + `{"jsonrpc":"2.0","id":3,"method":"x"}` + "\n", 1, []float64{CodeParseError}, true},
		{"batch refused", `[{"jsonrpc":"2.0","id":9,"method":"shutdown"}]` + "\n", 0, []float64{CodeInvalidRequest}, true},
		{"scalar refused", "42\n", 0, []float64{CodeInvalidRequest}, true},
		{"object that is neither", `{"jsonrpc":"2.0","id":5}` + "\n", 0, []float64{CodeInvalidRequest}, false},
		{"method not a string", `{"jsonrpc":"2.0","id":5,"method":7}` + "\n", 0, []float64{CodeInvalidRequest}, false},
		{"bad id type", `{"jsonrpc":"2.0","id":{"a":1},"method":"x"}` + "\n", 0, []float64{CodeInvalidRequest}, true},
		{"negative id", `{"jsonrpc":"2.0","id":-1,"method":"x"}` + "\n", 0, []float64{CodeInvalidRequest}, true},
		{"wrong version", `{"jsonrpc":"1.0","id":1,"method":"x"}` + "\n", 0, []float64{CodeInvalidRequest}, false},
		{"response passes", `{"jsonrpc":"2.0","id":"tg-1","result":{"choice":"deny"}}` + "\n", 1, nil, false},
		{"error response passes", `{"jsonrpc":"2.0","id":"tg-1","error":{"code":1,"message":"no"}}` + "\n", 1, nil, false},
		// A response is never answered (docs/protocol.md), whatever its id.
		{"response with null id gets no reply", `{"jsonrpc":"2.0","id":null,"result":{"choice":"deny"}}` + "\n", 0, nil, false},
		{"error response with null id gets no reply", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}` + "\n", 0, nil, false},
		{"response without id gets no reply", `{"jsonrpc":"2.0","result":1}` + "\n", 0, nil, false},
		{"response with a negative id gets no reply", `{"jsonrpc":"2.0","id":-4,"result":1}` + "\n", 0, nil, false},
		{"response with an object id gets no reply", `{"jsonrpc":"2.0","id":{"a":1},"error":{}}` + "\n", 0, nil, false},
		// Both result and error: the request it answers fails now (an
		// error response passed on, never a reply), not at its timeout.
		{"response with result and error fails its request", `{"jsonrpc":"2.0","id":"tg-1","result":1,"error":{}}` + "\n", 1, nil, false},
		{"response with a miscased key gets no reply", `{"jsonrpc":"2.0","id":"tg-1","Result":{"choice":"allow_once"}}` + "\n", 0, nil, false},
		// Keys are exact: a near miss of an envelope key is refused by id.
		{"miscased method refused", `{"jsonrpc":"2.0","id":4,"Method":"tool_call"}` + "\n", 0, []float64{CodeInvalidRequest}, false},
		{"miscased params refused", `{"jsonrpc":"2.0","id":4,"method":"tool_call","Params":{}}` + "\n", 0, []float64{CodeInvalidRequest}, false},
		{"miscased id refused", `{"jsonrpc":"2.0","ID":4,"method":"tool_call"}` + "\n", 0, []float64{CodeInvalidRequest}, true},
		{"last line without newline", `{"jsonrpc":"2.0","id":1,"method":"x"}`, 1, nil, false},
		// Invalid UTF-8 inside a string reaches the handler, which knows the
		// id: a tool_call then blocks with invalid_request.
		{"invalid utf8 in a string reaches the handler", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":{\"a\":\"\xff\"}}\n", 1, nil, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, written, eofs := readAll(t, tc.input, FramingNewline)
			if len(got) != tc.objects {
				t.Errorf("objects = %d, want %d (%v)", len(got), tc.objects, got)
			}
			if len(written) != len(tc.errCodes) {
				t.Fatalf("error responses = %v, want codes %v", written, tc.errCodes)
			}
			for i, code := range tc.errCodes {
				if errorCode(written[i]) != code {
					t.Errorf("error %d code = %v, want %v", i, errorCode(written[i]), code)
				}
				if id, ok := written[i]["id"]; !ok || (tc.errIDNull && id != nil) {
					t.Errorf("error %d id = %v (present %v), want null", i, id, ok)
				}
				if written[i]["jsonrpc"] != "2.0" {
					t.Errorf("error %d without jsonrpc 2.0: %v", i, written[i])
				}
			}
			if eofs != 1 {
				t.Errorf("onEOF ran %d times, want 1", eofs)
			}
		})
	}
}

func TestStreamKeepsRawParams(t *testing.T) {
	input := `{"jsonrpc":"2.0","id":6,"method":"tool_call","params":{"input":{"command":"ls","command":"rm -rf /"}}}` + "\n"
	var out bytes.Buffer
	s := NewStream(strings.NewReader(input), &out, nil, FramingNewline, nil)
	var m struct {
		Meta *json.RawMessage `json:"meta"`
	}
	if err := s.ReadObject(&m); err != nil {
		t.Fatal(err)
	}
	raw := s.RawParams(m.Meta)
	if !strings.Contains(string(raw), `"command":"ls","command":"rm -rf /"`) {
		t.Fatalf("raw params lost the repeated key: %s", raw)
	}
	if again := s.RawParams(m.Meta); again != nil {
		t.Fatalf("raw params handed out twice: %s", again)
	}
}

func TestStreamContentLength(t *testing.T) {
	body := `{"jsonrpc":"2.0","id":1,"method":"x"}`
	input := "Content-Length: " + itoa(len(body)) + "\r\n\r\n" + body +
		"Content-Length: 3\r\n\r\nnop" +
		"Content-Length: " + itoa(len(body)) + "\r\nContent-Type: application/json\r\n\r\n" + body
	got, written, _ := readAll(t, input, FramingContentLength)
	if len(got) != 2 {
		t.Fatalf("objects = %d, want 2", len(got))
	}
	if len(written) != 1 || errorCode(written[0]) != CodeParseError {
		t.Fatalf("written = %v, want one -32700", written)
	}
}

// A request whose id can be read is handed on with its params refused
// when they are too deep or too long, so that it is answered by its id.
func TestStreamRefusedParamsKeepTheID(t *testing.T) {
	deep := strings.Repeat(`{"a":`, 20000) + "1" + strings.Repeat("}", 20000)
	long := `"` + strings.Repeat("x", MaxMessageBytes) + `"`
	cases := []struct{ name, input, why string }{
		{"too deep, id first", `{"jsonrpc":"2.0","id":7,"method":"tool_call","params":` + deep + "}\n", "nested"},
		{"too deep, id last", `{"jsonrpc":"2.0","method":"tool_call","params":` + deep + `,"id":"x7"}` + "\n", "nested"},
		{"too long", `{"jsonrpc":"2.0","id":7,"method":"tool_call","params":{"toolCallId":"c","input":{"command":` + long + "}}}\n", "longer"},
		{"too long string params, id last", `{"jsonrpc":"2.0","method":"tool_call","params":` + long + `,"id":8}`, "longer"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			s := NewStream(strings.NewReader(tc.input), &out, nil, FramingNewline, nil)
			var m struct {
				ID     any              `json:"id"`
				Method string           `json:"method"`
				Meta   *json.RawMessage `json:"meta"`
			}
			if err := s.ReadObject(&m); err != nil {
				t.Fatalf("ReadObject: %v (wrote %q)", err, out.String())
			}
			if m.ID == nil || m.Method != "tool_call" {
				t.Fatalf("got id %v method %q, want the request's", m.ID, m.Method)
			}
			raw, err := s.Params(m.Meta)
			var perr *ParamsError
			if raw != nil || !errors.As(err, &perr) || !strings.Contains(perr.Reason, tc.why) {
				t.Fatalf("params = %d bytes, err %v; want refused (%s)", len(raw), err, tc.why)
			}
			if out.Len() != 0 {
				t.Fatalf("the stream answered itself: %q", out.String())
			}
		})
	}
	// Without a readable id it stays a parse error with id null.
	for _, input := range []string{
		`{"jsonrpc":"2.0","method":"tool_call","params":` + deep + "}\n",
		`{"jsonrpc":"2.0","id":` + deep + `,"method":"tool_call"}` + "\n",
		`{"jsonrpc":"2.0","method":"tool_call","params":` + long + "}\n",
	} {
		got, written, _ := readAll(t, input, FramingNewline)
		if len(got) != 0 || len(written) != 1 || errorCode(written[0]) != CodeParseError || written[0]["id"] != nil {
			t.Errorf("%.60s…: objects %v, written %v; want one -32700 with id null", input, got, written)
		}
	}
}

// Every Content-Length header toolgate cannot use is answered -32700 as soon
// as it is read (the next frame is not written yet), and the stream then
// serves the next frame: it never waits for the body it refused.
func TestStreamContentLengthRecovers(t *testing.T) {
	good := `{"jsonrpc":"2.0","id":1,"method":"x"}`
	goodFrame := "Content-Length: " + itoa(len(good)) + "\r\n\r\n" + good
	cases := []struct{ name, bad string }{
		{"not a number", "Content-Length: abc\r\n\r\n{\"a\":1}"},
		{"number with junk", "Content-Length: 12x\r\n\r\n"},
		{"negative", "Content-Length: -5\r\n\r\n{}"},
		{"overflowing", "Content-Length: 99999999999999999999999999\r\n\r\n{}"},
		{"missing", "Content-Type: application/json\r\n\r\n{\"a\":1}"},
		{"zero", "Content-Length: 0\r\n\r\n"},
		{"beyond the limit", "Content-Length: " + itoa(MaxMessageBytes+1) + "\r\n\r\n" + strings.Repeat("x", 5000)},
		{"far beyond the limit", "Content-Length: 9223372036854775807\r\n\r\n{"},
		{"twice", "Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}"},
		{"not a header", `{"jsonrpc":"2.0","id":9,"method":"x"}` + "\r\n"},
		{"header line too long", "X-Junk: " + strings.Repeat("y", 10000) + "\r\n\r\n"},
		{"empty value", "Content-Length:\r\n\r\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			s := NewStream(inR, outW, nil, FramingContentLength, nil)
			objs := make(chan map[string]any)
			go func() {
				defer close(objs)
				for {
					var m map[string]any
					if err := s.ReadObject(&m); err != nil {
						return
					}
					objs <- m
				}
			}()
			go func() { _, _ = io.WriteString(inW, tc.bad) }()
			frame := readFrame(t, outR)
			if errorCode(frame) != CodeParseError || frame["id"] != nil {
				t.Fatalf("answer = %v, want -32700 with id null", frame)
			}
			go func() { _, _ = io.WriteString(inW, goodFrame); inW.Close() }()
			m, ok := <-objs
			if !ok || m["method"] != "x" {
				t.Fatalf("next frame = %v, want the good request", m)
			}
			if _, more := <-objs; more {
				t.Fatal("more than one object")
			}
		})
	}
}

// readFrame reads one Content-Length frame the stream wrote.
func readFrame(t *testing.T, r io.Reader) map[string]any {
	t.Helper()
	br := bufio.NewReader(r)
	var n int
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("reading a frame: %v", err)
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		if _, err := fmtSscanf(line, &n); err != nil {
			t.Fatalf("bad header %q", line)
		}
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(br, body); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("bad body %q", body)
	}
	return m
}

// The reader holds at most the limit of requests: the next one is read only
// when one is released.
func TestStreamLimitInFlight(t *testing.T) {
	var in strings.Builder
	for i := 0; i < 5; i++ {
		in.WriteString(`{"jsonrpc":"2.0","id":` + itoa(i) + `,"method":"x"}` + "\n")
		in.WriteString(`{"jsonrpc":"2.0","method":"note"}` + "\n") // a notification holds no slot
	}
	s := NewStream(strings.NewReader(in.String()), io.Discard, nil, FramingNewline, nil)
	s.LimitInFlight(2)
	read := func() map[string]any {
		var m map[string]any
		if err := s.ReadObject(&m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	read() // request 0
	read() // notification
	read() // request 1: both slots held now
	got := make(chan map[string]any)
	go func() { got <- read() }()
	s.WaitQuiet(0, time.Hour, nil) // the reader waits: for a slot, as its input is all buffered
	select {
	case m := <-got:
		t.Fatalf("read %v with every slot held", m)
	default:
	}
	s.Release()
	if m := <-got; m["method"] != "note" {
		t.Fatalf("after a release read %v, want the notification", m)
	}
}

func TestWriteObjectFraming(t *testing.T) {
	var out bytes.Buffer
	s := NewStream(strings.NewReader(""), &out, nil, FramingContentLength, nil)
	if err := s.WriteObject(map[string]int{"a": 1}); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "Content-Length: 7\r\n\r\n{\"a\":1}" {
		t.Fatalf("frame = %q", got)
	}
	out.Reset()
	s = NewStream(strings.NewReader(""), &out, nil, FramingNewline, nil)
	_ = s.WriteObject(map[string]int{"a": 1})
	if got := out.String(); got != "{\"a\":1}\n" {
		t.Fatalf("line = %q", got)
	}
}

func FuzzStream(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"x"}` + "\n",
		"nope\n\r\n[1]\n42\n",
		`{"jsonrpc":"2.0","id":"a","result":null}` + "\n",
		`{"id":{"x":1},"method":"m"}` + "\n",
		"Content-Length: 2\r\n\r\n{}",
	} {
		f.Add(seed, false)
		f.Add(seed, true)
	}
	f.Fuzz(func(t *testing.T, input string, cl bool) {
		framing := FramingNewline
		if cl {
			framing = FramingContentLength
		}
		var out bytes.Buffer
		s := NewStream(strings.NewReader(input), &out, nil, framing, nil)
		for i := 0; i < 1000; i++ {
			var m map[string]any
			if err := s.ReadObject(&m); err != nil {
				break
			}
			if m == nil {
				t.Fatalf("ReadObject returned nil without error")
			}
		}
		if framing == FramingNewline {
			for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
				if line != "" && !json.Valid([]byte(line)) {
					t.Fatalf("stream wrote invalid JSON %q", line)
				}
			}
		}
	})
}

// A top-level string too long for the skeleton is never read as an id.
func TestSkeletonDropsLongStrings(t *testing.T) {
	long := strings.Repeat("x", MaxMessageBytes)
	input := `{"jsonrpc":"2.0","method":"tool_call","id":"` + strings.Repeat("i", 2000) + `","params":"` + long + `"}` + "\n"
	got, written, _ := readAll(t, input, FramingNewline)
	if len(got) != 0 || len(written) != 1 || written[0]["id"] != nil {
		t.Fatalf("objects %v, written %v; want one error with id null", got, written)
	}
}

// WaitQuiet returns once the reader waits for input and none came for the
// quiet period; false when stopped first; and at the latest after longest,
// even while the host never pauses.
func TestWaitQuiet(t *testing.T) {
	inR, inW := io.Pipe()
	s := NewStream(inR, io.Discard, nil, FramingNewline, nil)
	got := make(chan struct{}, 1000)
	go func() {
		for {
			var m map[string]any
			if s.ReadObject(&m) != nil {
				return
			}
			got <- struct{}{}
		}
	}()
	req := `{"jsonrpc":"2.0","method":"note"}` + "\n"
	io.WriteString(inW, req)
	<-got
	if !s.WaitQuiet(10*time.Millisecond, time.Hour, nil) {
		t.Fatal("WaitQuiet failed with nothing to stop it")
	}
	stop := make(chan struct{})
	close(stop)
	if s.WaitQuiet(time.Hour, time.Hour, stop) {
		t.Fatal("WaitQuiet did not stop")
	}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			default:
				io.WriteString(inW, req)
				<-got
			}
		}
	}()
	if !s.WaitQuiet(time.Hour, 50*time.Millisecond, nil) {
		t.Fatal("WaitQuiet did not give up waiting")
	}
	close(done)
	inW.Close()
}
