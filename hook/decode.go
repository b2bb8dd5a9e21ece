package hook

import (
	"github.com/toolgate/toolgate/internal/jsonobj"

	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/toolgate/toolgate/protocol"
)

// maxDepth bounds the nesting of params toolgate reads.
const maxDepth = 256

// checkUnambiguous rejects params that the host could read differently
// from toolgate: invalid UTF-8, and any key repeated in one object, exactly
// or in another letter case. It scans the raw bytes, because a
// decoded map has already dropped the repeats; keys are compared after
// unescaping, so "comm\u0061nd" is "command".
//
// It also returns the raw bytes of the top-level "input" value (nil when
// absent), which the audit log keeps as sent.
func checkUnambiguous(raw []byte) ([]byte, error) {
	if !utf8.Valid(raw) {
		return nil, errors.New("the params are not valid UTF-8")
	}
	sc := keyScanner{b: raw}
	sc.ws()
	if err := sc.value("params", 0); err != nil {
		return nil, err
	}
	sc.ws()
	if sc.i != len(sc.b) {
		return nil, errors.New("params: trailing data")
	}
	return sc.input, nil
}

// keyScanner walks JSON text looking only at object keys.
type keyScanner struct {
	b     []byte
	i     int
	input []byte // the top-level "input" value
}

var errTruncated = errors.New("params: unexpected end of JSON")

func (k *keyScanner) ws() {
	for k.i < len(k.b) {
		switch k.b[k.i] {
		case ' ', '\t', '\r', '\n':
			k.i++
		default:
			return
		}
	}
}

func (k *keyScanner) value(where string, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("%s is nested more than %d levels deep", where, maxDepth)
	}
	if k.i >= len(k.b) {
		return errTruncated
	}
	switch k.b[k.i] {
	case '{':
		return k.object(where, depth)
	case '[':
		k.i++
		for n := 0; ; n++ {
			k.ws()
			if k.i >= len(k.b) {
				return errTruncated
			}
			if k.b[k.i] == ']' {
				k.i++
				return nil
			}
			if n > 0 {
				if k.b[k.i] != ',' {
					return fmt.Errorf("%s: expected ',' in array", where)
				}
				k.i++
				k.ws()
			}
			if err := k.value(fmt.Sprintf("%s[%d]", where, n), depth+1); err != nil {
				return err
			}
		}
	case '"':
		_, err := k.str()
		return err
	}
	for k.i < len(k.b) {
		switch k.b[k.i] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return nil
		}
		k.i++
	}
	return nil
}

func (k *keyScanner) object(where string, depth int) error {
	k.i++ // '{'
	var seen map[string]string
	for n := 0; ; n++ {
		k.ws()
		if k.i >= len(k.b) {
			return errTruncated
		}
		if k.b[k.i] == '}' {
			k.i++
			return nil
		}
		if n > 0 {
			if k.b[k.i] != ',' {
				return fmt.Errorf("%s: expected ',' in object", where)
			}
			k.i++
			k.ws()
		}
		key, err := k.str()
		if err != nil {
			return err
		}
		fold := strings.ToLower(strings.ToUpper(key))
		if seen == nil {
			seen = map[string]string{}
		}
		if prev, dup := seen[fold]; dup {
			if prev == key {
				return fmt.Errorf("key %q appears twice in %s", key, where)
			}
			return fmt.Errorf("keys %q and %q both appear in %s", prev, key, where)
		}
		seen[fold] = key
		k.ws()
		if k.i >= len(k.b) || k.b[k.i] != ':' {
			return fmt.Errorf("%s: expected ':' after key %q", where, key)
		}
		k.i++
		k.ws()
		start := k.i
		if err := k.value(where+"."+key, depth+1); err != nil {
			return err
		}
		if depth == 0 && key == "input" {
			k.input = k.b[start:k.i]
		}
	}
}

// str reads a JSON string and returns it unescaped.
func (k *keyScanner) str() (string, error) {
	if k.i >= len(k.b) || k.b[k.i] != '"' {
		return "", errors.New("params: expected a string")
	}
	start := k.i
	escaped := false
	for k.i++; k.i < len(k.b); k.i++ {
		switch k.b[k.i] {
		case '\\':
			escaped = true
			k.i++
		case '"':
			k.i++
			lit := k.b[start:k.i]
			if !escaped {
				return string(lit[1 : len(lit)-1]), nil
			}
			var s string
			if err := json.Unmarshal(lit, &s); err != nil {
				return "", fmt.Errorf("params: bad string %s", lit)
			}
			return s, nil
		}
	}
	return "", errTruncated
}

// callFields are the JSON names of protocol.ToolCallParams' fields (a test
// holds them to the type).
var callFields = [...]string{"toolCallId", "toolName", "input", "agentName", "cwd", "hasUI"}

// checkCallKeys is protocol.CheckKeys of tool_call params along
// protocol.ToolCallParams, without reflection: the first key, in key
// order, that nearly names a field (and is none) is an error. No field of
// ToolCallParams is walked further (strings, a bool and the raw input).
func checkCallKeys(params jsonobj.Object) error {
	var near *protocol.KeyError
	for k := range params {
		exact := false
		for _, f := range callFields {
			if k == f {
				exact = true
				break
			}
		}
		if exact {
			continue
		}
		for _, f := range callFields {
			if protocol.NearKey(k, f) {
				if near == nil || k < near.Key {
					near = &protocol.KeyError{Key: k, Want: f}
				}
				break
			}
		}
	}
	if near != nil {
		return near
	}
	return nil
}
