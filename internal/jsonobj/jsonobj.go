// Package jsonobj reads decoded JSON objects with typed, optional
// accessors whose errors name the field and what it holds.
package jsonobj

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

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
