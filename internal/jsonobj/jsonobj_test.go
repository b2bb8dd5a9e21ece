package jsonobj

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestCheckUnambiguous(t *testing.T) {
	cases := []struct {
		raw  string
		want string // "" = accepted
	}{
		{`{"toolCallId":"c","input":{"command":"ls"}}`, ""},
		{`{"input":{"command":"ls","command":"rm -rf /"}}`, "appears twice"},
		{`{"input":{"command":"ls","Command":"rm -rf /"}}`, "both appear"},
		{`{"input":{"command":"ls","comm\u0061nd":"rm"}}`, "appears twice"},
		{`{"toolName":"bash","toolName":"read"}`, "appears twice"},
		{`{"a":[{"k":1},{"k":2}]}`, ""},
		{`{"a":[{"k":1,"K":2}]}`, "both appear"},
		{`{"a":"x\"y","b":"\\"}`, ""},
		{"{\"a\":\"\xff\"}", "UTF-8"},
		{`{"a":` + strings.Repeat("[", 300) + strings.Repeat("]", 300) + `}`, "nested"},
		{`{"a":1`, "end"},
		{`{"a" 1}`, "':'"},
		{`{"a":1 "b":2}`, "','"},
		{`[1,2,3]`, ""},
	}
	for _, tc := range cases {
		_, err := CheckUnambiguous([]byte(tc.raw))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: rejected: %v", tc.raw, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want one mentioning %q", tc.raw, err, tc.want)
		}
	}
}

// refDuplicate is the reference: encoding/json's tokenizer, which unescapes
// keys itself.
func refDuplicate(raw []byte) (bool, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	var walk func(depth int) (bool, error)
	walk = func(depth int) (bool, error) {
		tok, err := dec.Token()
		if err != nil {
			return false, err
		}
		switch tok {
		case json.Delim('{'):
			seen := map[string]bool{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return false, err
				}
				k := strings.ToLower(strings.ToUpper(kt.(string)))
				if seen[k] {
					return true, nil
				}
				seen[k] = true
				if dup, err := walk(depth + 1); dup || err != nil {
					return dup, err
				}
			}
			_, err = dec.Token()
			return false, err
		case json.Delim('['):
			for dec.More() {
				if dup, err := walk(depth + 1); dup || err != nil {
					return dup, err
				}
			}
			_, err = dec.Token()
			return false, err
		}
		return false, nil
	}
	dup, err := walk(0)
	if err == nil {
		if _, extra := dec.Token(); !errors.Is(extra, io.EOF) {
			err = errors.New("trailing data")
		}
	}
	return dup, err
}

func FuzzCheckUnambiguous(f *testing.F) {
	for _, s := range []string{`{"a":1,"A":2}`, `{"a":{"b":[1,{"c":"\u0063"}]}}`, `{"x":"\\","y":"\""}`, `[{"k":1},{"k":1}]`, `{"comm\u0061nd":1,"command":2}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			_, _ = CheckUnambiguous(raw) // must not panic
			return
		}
		_, err := CheckUnambiguous(raw)
		dup, rerr := refDuplicate(raw)
		if rerr != nil {
			return
		}
		if dup && err == nil {
			t.Fatalf("%q: the reference finds a repeated key, the scanner accepts", raw)
		}
		if !dup && err != nil && !strings.Contains(err.Error(), "nested") && !strings.Contains(err.Error(), "UTF-8") {
			t.Fatalf("%q: scanner rejects (%v), the reference accepts", raw, err)
		}
	})
}

func TestInputSpan(t *testing.T) {
	in, err := CheckUnambiguous([]byte(`{"toolCallId":"c","input": {"command":"ls","x":[1,{"input":2}]} ,"hasUI":true}`))
	if err != nil || string(in) != `{"command":"ls","x":[1,{"input":2}]}` {
		t.Fatalf("input span = %q, %v", in, err)
	}
}
