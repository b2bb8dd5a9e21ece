// Package jsonobj reads decoded JSON objects with typed, optional
// accessors whose errors name the field and what it holds.
package jsonobj

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	gojson "github.com/goccy/go-json"
)

// FieldError names a field of the wrong type.
type FieldError struct {
	Field, Want string
	Got         any
}

func (e *FieldError) Error() string {
	return fmt.Sprintf("%s must be %s, not %s", e.Field, e.Want, Kind(e.Got))
}

// Kind names the JSON kind of a decoded value, as an error says it.
func Kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number, float64:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "an unknown value"
}

// Object is a decoded JSON object with typed, optional accessors.
type Object map[string]any

// Str is the string field (false when absent); another kind is an error
// naming where+field.
func (o Object) Str(field, where string) (string, bool, error) {
	v, ok := o[field]
	if !ok {
		return "", false, nil
	}
	s, isStr := v.(string)
	if !isStr {
		return "", false, &FieldError{where + field, "a string", v}
	}
	return s, true, nil
}

// Bool is the boolean field (nil when absent).
func (o Object) Bool(field, where string) (*bool, error) {
	v, ok := o[field]
	if !ok {
		return nil, nil
	}
	b, isBool := v.(bool)
	if !isBool {
		return nil, &FieldError{where + field, "a boolean", v}
	}
	return &b, nil
}

// Obj is the object field (false when absent).
func (o Object) Obj(field, where string) (Object, bool, error) {
	v, ok := o[field]
	if !ok {
		return nil, false, nil
	}
	m, isObj := v.(map[string]any)
	if !isObj {
		return nil, false, &FieldError{where + field, "an object", v}
	}
	return Object(m), true, nil
}

// Decode decodes raw as one JSON object, numbers kept as json.Number.
func Decode(raw []byte) (Object, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, errors.New("params are missing")
	}
	dec := gojson.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("params: %v", err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, &FieldError{"params", "an object", v}
	}
	return Object(m), nil
}

// maxDepth bounds the nesting of params toolgate reads.
const maxDepth = 256

// CheckUnambiguous rejects params that the host could read differently
// from toolgate: invalid UTF-8, and any key repeated in one object, exactly
// or in another letter case. It scans the raw bytes, because a
// decoded map has already dropped the repeats; keys are compared after
// unescaping, so "comm\u0061nd" is "command".
//
// It also returns the raw bytes of the top-level "input" value (nil when
// absent), which the audit log keeps as sent.
func CheckUnambiguous(raw []byte) ([]byte, error) {
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
