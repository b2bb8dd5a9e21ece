package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// maxDepth bounds the nesting of params toolgate reads.
const maxDepth = 256

// checkUnambiguous rejects params that the host could read differently
// from toolgate: invalid UTF-8, and any key repeated in one object, exactly
// or in another letter case (SPEC §3). It walks the raw bytes, because a
// decoded map has already dropped the repeats.
func checkUnambiguous(raw []byte) error {
	if !utf8.Valid(raw) {
		return errors.New("the params are not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return walkValue(dec, "params", 0)
}

func walkValue(dec *json.Decoder, where string, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("%s is nested more than %d levels deep", where, maxDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("%s ends early", where)
		}
		return fmt.Errorf("%s: %v", where, err)
	}
	switch tok {
	case json.Delim('{'):
		seen := map[string]string{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return fmt.Errorf("%s: %v", where, err)
			}
			k, _ := kt.(string)
			fold := strings.ToLower(k)
			if prev, dup := seen[fold]; dup {
				if prev == k {
					return fmt.Errorf("key %q appears twice in %s", k, where)
				}
				return fmt.Errorf("keys %q and %q both appear in %s", prev, k, where)
			}
			seen[fold] = k
			if err := walkValue(dec, where+"."+k, depth+1); err != nil {
				return err
			}
		}
		_, err = dec.Token() // '}'
		return err
	case json.Delim('['):
		for i := 0; dec.More(); i++ {
			if err := walkValue(dec, fmt.Sprintf("%s[%d]", where, i), depth+1); err != nil {
				return err
			}
		}
		_, err = dec.Token() // ']'
		return err
	}
	return nil
}

// fieldError names a field of the wrong type.
type fieldError struct {
	field, want string
	got         any
}

func (e *fieldError) Error() string {
	return fmt.Sprintf("%s must be %s, not %s", e.field, e.want, jsonKind(e.got))
}

func jsonKind(v any) string {
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

// object is a decoded JSON object with typed, optional accessors.
type object map[string]any

func (o object) str(field, where string) (string, bool, error) {
	v, ok := o[field]
	if !ok {
		return "", false, nil
	}
	s, isStr := v.(string)
	if !isStr {
		return "", false, &fieldError{where + field, "a string", v}
	}
	return s, true, nil
}

func (o object) boolean(field, where string) (*bool, error) {
	v, ok := o[field]
	if !ok {
		return nil, nil
	}
	b, isBool := v.(bool)
	if !isBool {
		return nil, &fieldError{where + field, "a boolean", v}
	}
	return &b, nil
}

func (o object) obj(field, where string) (object, bool, error) {
	v, ok := o[field]
	if !ok {
		return nil, false, nil
	}
	m, isObj := v.(map[string]any)
	if !isObj {
		return nil, false, &fieldError{where + field, "an object", v}
	}
	return object(m), true, nil
}

func decodeObject(raw []byte) (object, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, errors.New("params are missing")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("params: %v", err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, &fieldError{"params", "an object", v}
	}
	return object(m), nil
}
