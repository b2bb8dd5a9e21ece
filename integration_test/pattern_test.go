package integration_test

// The transcript matcher (README.md, the matching operators), kept in step
// with the reference runner's match(): the same operators, checked in the
// same order, failing on the same first mismatch.
//
// One deliberate difference: replay.py compares scalars with Python's ==, so
// a pattern 1 matches true there (bool is an int in Python). Here JSON types
// must agree: numbers compare by value (1 == 1.0), but true is not 1, as
// TRANSCRIPTS.md says ("a scalar: equal").

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// absentValue stands for a key the actual value does not have.
type absentValue struct{}

// match checks actual against pattern. It returns "" on a match, otherwise a
// description of the first mismatch, prefixed with its path ($.a.b[2]). An
// error means the pattern itself is broken (unknown operator, bad operator
// argument); like replay.py, it is raised only when that part of the pattern
// is reached.
func match(pattern, actual any, path string) (string, error) {
	_, isMissing := actual.(absentValue)
	if op, arg, ok := operator(pattern); ok {
		switch op {
		case "$absent":
			if isMissing {
				return "", nil
			}
			return fmt.Sprintf("%s: expected absent, got %s", path, show(actual)), nil
		case "$not":
			r, err := match(arg, actual, path)
			if err != nil {
				return "", err
			}
			if r != "" {
				return "", nil
			}
			return fmt.Sprintf("%s: %s matched forbidden %s", path, show(actual), show(arg)), nil
		case "$oneOf":
			alts, ok := arg.([]any)
			if !ok {
				return "", fmt.Errorf("%s: $oneOf wants an array of patterns, got %s", path, show(arg))
			}
			for _, alt := range alts {
				r, err := match(alt, actual, path)
				if err != nil {
					return "", err
				}
				if r == "" {
					return "", nil
				}
			}
			return fmt.Sprintf("%s: %s not one of %s", path, show(actual), show(arg)), nil
		}
		if isMissing {
			return path + ": missing", nil
		}
		switch op {
		case "$any":
			return "", nil
		case "$regex":
			s, ok := actual.(string)
			if !ok {
				return fmt.Sprintf("%s: %s is not a string (for /%v/)", path, show(actual), arg), nil
			}
			src, ok := arg.(string)
			if !ok {
				return "", fmt.Errorf("%s: $regex wants a string, got %s", path, show(arg))
			}
			re, err := regexp.Compile("(?s)" + src)
			if err != nil {
				return "", fmt.Errorf("%s: $regex: %v", path, err)
			}
			if re.MatchString(s) {
				return "", nil
			}
			return fmt.Sprintf("%s: %s !~ /%s/", path, show(actual), src), nil
		case "$contains":
			s, ok := actual.(string)
			if !ok {
				return fmt.Sprintf("%s: %s is not a string (for $contains %s)", path, show(actual), show(arg)), nil
			}
			sub, ok := arg.(string)
			if !ok {
				return "", fmt.Errorf("%s: $contains wants a string, got %s", path, show(arg))
			}
			if strings.Contains(s, sub) {
				return "", nil
			}
			return fmt.Sprintf("%s: %s does not contain %s", path, show(actual), show(arg)), nil
		case "$len":
			want, ok := arg.(json.Number)
			if !ok {
				return "", fmt.Errorf("%s: $len wants a number, got %s", path, show(arg))
			}
			n, ok := length(actual)
			if !ok {
				return fmt.Sprintf("%s: %s has no length (want %s)", path, show(actual), want), nil
			}
			if numEqual(json.Number(strconv.Itoa(n)), want) {
				return "", nil
			}
			return fmt.Sprintf("%s: len %d != %s", path, n, want), nil
		case "$includes":
			elems, ok := actual.([]any)
			if !ok {
				return fmt.Sprintf("%s: %s is not an array", path, show(actual)), nil
			}
			for i, e := range elems {
				r, err := match(arg, e, fmt.Sprintf("%s[%d]", path, i))
				if err != nil {
					return "", err
				}
				if r == "" {
					return "", nil
				}
			}
			return fmt.Sprintf("%s: no element matches %s", path, show(arg)), nil
		}
		return "", fmt.Errorf("%s: unknown operator %s", path, op)
	}
	if isMissing {
		return path + ": missing", nil
	}
	switch p := pattern.(type) {
	case *object:
		a, ok := actual.(*object)
		if !ok {
			return fmt.Sprintf("%s: expected object, got %s", path, show(actual)), nil
		}
		for _, k := range p.keys {
			v, ok := a.get(k)
			if !ok {
				v = absentValue{}
			}
			r, err := match(p.vals[k], v, path+"."+k)
			if err != nil || r != "" {
				return r, err
			}
		}
		return "", nil
	case []any:
		a, ok := actual.([]any)
		if !ok || len(a) != len(p) {
			return fmt.Sprintf("%s: expected array of %d, got %s", path, len(p), show(actual)), nil
		}
		for i := range p {
			r, err := match(p[i], a[i], fmt.Sprintf("%s[%d]", path, i))
			if err != nil || r != "" {
				return r, err
			}
		}
		return "", nil
	}
	if scalarEqual(pattern, actual) {
		return "", nil
	}
	return fmt.Sprintf("%s: expected %s, got %s", path, show(pattern), show(actual)), nil
}

// operator recognises an operator object: exactly one key, starting with $.
func operator(pattern any) (op string, arg any, ok bool) {
	o, isObj := pattern.(*object)
	if !isObj || len(o.keys) != 1 || !strings.HasPrefix(o.keys[0], "$") {
		return "", nil, false
	}
	return o.keys[0], o.vals[o.keys[0]], true
}

// length is Python's len(): code points of a string, elements of an array,
// keys of an object.
func length(v any) (int, bool) {
	switch x := v.(type) {
	case string:
		return utf8.RuneCountInString(x), true
	case []any:
		return len(x), true
	case *object:
		return len(x.keys), true
	}
	return 0, false
}

func scalarEqual(pattern, actual any) bool {
	switch p := pattern.(type) {
	case nil:
		return actual == nil
	case bool:
		a, ok := actual.(bool)
		return ok && a == p
	case string:
		a, ok := actual.(string)
		return ok && a == p
	case json.Number:
		a, ok := actual.(json.Number)
		return ok && numEqual(p, a)
	}
	return false
}
