package protocol

import (
	"bytes"
	"encoding/json"
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
