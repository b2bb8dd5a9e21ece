// Package schemas holds the JSON Schema of toolgate's policy file, for
// editors ("$schema": ".../config.schema.json").
package schemas

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/tailscale/hujson"

	"github.com/toolgate/toolgate/policy"
)

func compile(t *testing.T) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	sch, err := c.Compile("config.schema.json")
	if err != nil {
		t.Fatalf("the schema does not compile: %v", err)
	}
	return sch
}

func load(t *testing.T, data []byte) any {
	t.Helper()
	std, err := hujson.Standardize(data)
	if err != nil {
		t.Fatalf("not JSONC: %v", err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(std))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestExamplesValidate: every example policy passes the schema, and toolgate
// itself accepts it too.
func TestExamplesValidate(t *testing.T) {
	sch := compile(t)
	files, _ := filepath.Glob("../examples/*.jsonc")
	more, _ := filepath.Glob("../examples/*/*.jsonc")
	files = append(files, more...)
	if len(files) == 0 {
		t.Fatal("no example policies found")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(load(t, data)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
		if pf := policy.ParseFile(f, data); len(pf.Errors)+len(pf.Problems) > 0 {
			t.Errorf("%s: toolgate rejects it: %v %v", f, pf.Errors, pf.Problems)
		}
	}
}

// TestSchemaAgreesWithParser: documents the schema refuses are refused by
// toolgate too, and the other way round.
func TestSchemaAgreesWithParser(t *testing.T) {
	sch := compile(t)
	cases := []struct {
		doc   string
		valid bool
	}{
		{`{"permission": {"*": "ask", "bash": {"git *": "allow"}}}`, true},
		{`{"permission": {"read": {"*.pem": {"action": "deny", "reason": "keys"}}}}`, true},
		{`{"permission": {"bash": {"git *": "alow"}}}`, false},
		{`{"permissions": {}}`, false},
		{`{"permission": {"bash": {"x": {"action": "allow"}}}}`, false},
		{`{"permission": {"bash": {"x": {"action": "deny", "reason": 42}}}}`, false},
		{`{"permission": {"bash": {"x": {"action": "deny", "extra": 1}}}}`, false},
		{`{"yoloMode": "yes"}`, false},
		{`{"promptTimeoutMs": 0}`, false},
		{`{"promptTimeoutMs": 300, "auditLog": "/tmp/a.jsonl"}`, true},
		{`{"shellTools": {"exec_command": {"commandArgument": "cmd", "workdirArgument": "cwd"}}}`, true},
		{`{"shellTools": {"exec_command": {"workdirArgument": "cwd"}}}`, false},
		{`{"defaultPolicy": {"tools": "ask"}, "bash": {"rm *": "deny"}}`, true},
		{`{"permission": {"": "ask"}}`, false},
		{`{"permission": {"bash": {"action": "deny", "reason": "no shell"}}}`, true},
		{`{"permission": {"bash": {"action": "alow", "reason": "no shell"}}}`, false},
	}
	for _, c := range cases {
		var doc any
		if err := json.Unmarshal([]byte(c.doc), &doc); err != nil {
			t.Fatal(err)
		}
		schemaOK := sch.Validate(load(t, []byte(c.doc))) == nil
		// A bad entry does not reject the file (it denies), but
		// it is an error all the same: validate reports it.
		pf := policy.ParseFile("/x.json", []byte(c.doc))
		parserOK := len(pf.Errors)+len(pf.Problems) == 0
		if schemaOK != c.valid || parserOK != c.valid {
			t.Errorf("%s: schema valid=%v, toolgate valid=%v, want %v", c.doc, schemaOK, parserOK, c.valid)
		}
	}
}
