package protocol

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
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
