package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// NearKey reports whether key would be read as want by a lenient reader:
// the same after folding letter case (as Unicode simple folding does, so
// the Kelvin sign is a k) and dropping '_' and '-' ("Choice", "tool_name"
// for "toolName"). toolgate reads keys exactly; a near miss of a key it
// reads fails closed instead of being ignored.
func NearKey(key, want string) bool {
	i, j := 0, 0
	for {
		for i < len(key) && (key[i] == '_' || key[i] == '-') {
			i++
		}
		for j < len(want) && (want[j] == '_' || want[j] == '-') {
			j++
		}
		if i == len(key) || j == len(want) {
			return i == len(key) && j == len(want)
		}
		a, n := utf8.DecodeRuneInString(key[i:])
		b, m := utf8.DecodeRuneInString(want[j:])
		i, j = i+n, j+m
		if a != b && !foldEqual(a, b) {
			return false
		}
	}
}

func foldEqual(a, b rune) bool {
	for r := unicode.SimpleFold(a); r != a; r = unicode.SimpleFold(r) {
		if r == b {
			return true
		}
	}
	return false
}

// KeyError is a key that nearly names a field toolgate reads (NearKey).
type KeyError struct {
	Where string // where the object is, e.g. "params.skills[0]"; may be empty
	Key   string // the key as sent
	Want  string // the key toolgate reads
}

func (e *KeyError) Error() string {
	at := ""
	if e.Where != "" {
		at = " in " + e.Where
	}
	return fmt.Sprintf("key %q%s is not %q (keys are case-sensitive)", e.Key, at, e.Want)
}

// Unmarshal decodes raw into v exactly: a key that nearly names a field of
// v's type, at any depth (NearKey: "Choice" for "choice"), is an error
// instead of being read as that field the way encoding/json would. Keys
// that name no field are ignored, as before. where names raw in errors.
func Unmarshal(raw []byte, v any, where string) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return err
	}
	if err := CheckKeys(tree, reflect.TypeOf(v), where); err != nil {
		return err
	}
	return json.Unmarshal(raw, v)
}

var rawMessageType = reflect.TypeFor[json.RawMessage]()

// CheckKeys walks a decoded JSON value (objects as map[string]any) along
// the Go type it is read into, and returns the first key, in key order, that
// nearly names a field of a struct there. A json.RawMessage field is not
// walked: whoever reads it checks its keys.
func CheckKeys(v any, t reflect.Type, where string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == rawMessageType {
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			return nil // a wrong type is the decoder's error
		}
		fields := jsonFields(t)
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if ft, ok := fields[k]; ok {
				if err := CheckKeys(m[k], ft, join(where, k)); err != nil {
					return err
				}
				continue
			}
			if want := NearOf(k, fields); want != "" {
				return &KeyError{Where: where, Key: k, Want: want}
			}
		}
	case reflect.Slice, reflect.Array:
		arr, _ := v.([]any)
		for i, e := range arr {
			if err := CheckKeys(e, t.Elem(), fmt.Sprintf("%s[%d]", where, i)); err != nil {
				return err
			}
		}
	case reflect.Map:
		m, _ := v.(map[string]any)
		for k, e := range m {
			if err := CheckKeys(e, t.Elem(), join(where, k)); err != nil {
				return err
			}
		}
	}
	return nil
}

// NearOf returns the field name key nearly names (and is not), or "".
func NearOf[T any](key string, fields map[string]T) string {
	for name := range fields {
		if key != name && NearKey(key, name) {
			return name
		}
	}
	return ""
}

func join(where, key string) string {
	if where == "" {
		return key
	}
	return where + "." + key
}

// jsonFields maps the JSON names of a struct's fields to their types.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := make(map[string]reflect.Type, t.NumField())
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

// JSONFields lists the JSON names of a struct type's fields (for tests
// that walk every type toolgate decodes).
func JSONFields(t reflect.Type) map[string]reflect.Type { return jsonFields(t) }
