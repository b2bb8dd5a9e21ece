package protocol

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

var benchCallLine = []byte(`{"jsonrpc":"2.0","id":17,"method":"tool_call","params":{"toolCallId":"call-17","toolName":"bash","input":{"command":"cd web && npm run lint -- --fix","timeout":120000,"description":"Lint the web app"}}}`)

func BenchmarkDecodeToolCall(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, ok := DecodeToolCall(benchCallLine); !ok {
			b.Fatal("not taken")
		}
	}
}

// BenchmarkScreenToolCall is the general path's first steps for the same
// line: the envelope screen and jsonrpc2's decoding of what it hands on
// (the params are decoded later, twice).
func BenchmarkScreenToolCall(b *testing.B) {
	b.ReportAllocs()
	s := NewStream(bytes.NewReader(nil), &bytes.Buffer{}, nil, FramingNewline, nil)
	for i := 0; i < b.N; i++ {
		out, _ := s.screen(bytes.Clone(benchCallLine))
		var m map[string]json.RawMessage
		if err := json.Unmarshal(out, &m); err != nil {
			b.Fatal(err)
		}
		s.raw.Clear()
	}
}

// TestKnownValuesDecodeAsStrings: a tool name read as a string boxed once
// is the string a decoder reads, wherever it is, and a near miss (escaped,
// longer, shorter, another case, a prefix) is read as any other string.
func TestKnownValuesDecodeAsStrings(t *testing.T) {
	for _, v := range []string{`"bash"`, `"read"`, `"edit"`, `"write"`, `"grep"`, `"find"`, `"ls"`, `"mcp"`, `"skill"`,
		`"b\u0061sh"`, `"bash2"`, `"bas"`, `"Bash"`, `"l"`, `""`, `"skills"`, `"mcp "`, `"writewrite"`, `"\"bash\""`} {
		line := []byte(`{"jsonrpc":"2.0","id":1,"method":"tool_call","params":{"toolCallId":` + v + `,"toolName":` + v +
			`,"input":{"command":` + v + `,"a":[` + v + `,{"b":` + v + `}]}}}`)
		fc, ok := DecodeToolCall(line)
		if !ok {
			t.Fatalf("%s: not taken", v)
		}
		var want struct {
			Params map[string]any `json:"params"`
		}
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.UseNumber()
		if err := dec.Decode(&want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(fc.Params(), want.Params) {
			t.Fatalf("%s: %#v, want %#v", v, fc.Params(), want.Params)
		}
	}
}
