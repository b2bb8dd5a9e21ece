package policy

import (
	"strings"
	"testing"
)

func TestAddRules(t *testing.T) {
	adds := []Addition{{"bash", "git push *", Allow}, {"read", "/p/docs/*", Allow}}
	cases := []struct {
		name, in, want string
	}{
		{"comments, order and a comment at the end of the last line are kept",
			"// mine\n{\n  \"permission\": {\n    \"*\": \"ask\",\n    \"bash\": {\n      \"*\": \"ask\",\n      \"rm *\": \"deny\" // never\n    } /* after */\n  }\n}\n",
			"// mine\n{\n  \"permission\": {\n    \"*\": \"ask\",\n    \"bash\": {\n      \"*\": \"ask\",\n      \"rm *\": \"deny\", // never\n      \"git push *\": \"allow\"\n    }, /* after */\n    \"read\": {\n      \"/p/docs/*\": \"allow\"\n    }\n  }\n}\n"},
		{"trailing commas and tabs",
			"{\n\t\"permission\": {\n\t\t\"bash\": {\n\t\t\t\"*\": \"ask\",\n\t\t},\n\t},\n}\n",
			"{\n\t\"permission\": {\n\t\t\"bash\": {\n\t\t\t\"*\": \"ask\",\n\t\t\t\"git push *\": \"allow\",\n\t\t},\n\t\t\"read\": {\n\t\t\t\"/p/docs/*\": \"allow\"\n\t\t},\n\t},\n}\n"},
		{"a shorthand surface becomes a map that keeps its state as \"*\"",
			"{\"permission\": {\"bash\": \"ask\", \"read\": \"ask\"}}",
			"{\"permission\": {\"bash\": {\"*\": \"ask\", \"git push *\": \"allow\"}, \"read\": {\"*\": \"ask\", \"/p/docs/*\": \"allow\"}}}"},
		{"an existing ask pattern is changed in place",
			"{\"permission\": {\"bash\": {\"git push *\": \"ask\", \"*\": \"ask\"}, \"read\": {}}}",
			"{\"permission\": {\"bash\": {\"git push *\": \"allow\", \"*\": \"ask\"}, \"read\": {\"/p/docs/*\": \"allow\"}}}"},
		{"no permission key", "{\n  \"yoloMode\": false\n}\n",
			"{\n  \"yoloMode\": false,\n  \"permission\": {\n    \"bash\": {\n      \"git push *\": \"allow\"\n    },\n    \"read\": {\n      \"/p/docs/*\": \"allow\"\n    }\n  }\n}\n"},
		{"an empty file", "", "{\n  \"permission\": {\n    \"bash\": {\n      \"git push *\": \"allow\"\n    },\n    \"read\": {\n      \"/p/docs/*\": \"allow\"\n    }\n  }\n}\n"},
	}
	for _, c := range cases {
		got, err := AddRules([]byte(c.in), adds)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if string(got) != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
		f := ParseFile("x.json", got)
		if len(f.Errors) > 0 {
			t.Errorf("%s: the result does not parse: %v", c.name, f.Errors)
		}
	}
	// The added rule is the last of its surface: it wins over the older ones.
	got, _ := AddRules([]byte(`{"permission": {"bash": {"*": "ask", "git *": "ask"}}}`), adds[:1])
	p := Compose([]ScopeFile{{Scope: ScopeGlobal, Path: "x.json", Trusted: true, Exists: true, File: ParseFile("x.json", got)}}, "/home/u")
	if res := p.Resolve(Query{Surface: "bash", Values: []string{"git push origin main"}}); res.Action != Allow || res.Rule.Pattern != "git push *" {
		t.Errorf("the added rule does not decide: %+v", res)
	}
	for _, bad := range []string{
		`{"permission": {"bash": {"git push *": "deny"}}}`,
		`{"permission": {"bash": {"git push *": {"action": "deny", "reason": "no"}}}}`,
		`{"permission": []}`,
		`[1]`,
		`{"permission": {"bash": 3}}`,
		`{"permission": {`,
	} {
		if out, err := AddRules([]byte(bad), adds[:1]); err == nil {
			t.Errorf("AddRules(%s) = %s, want an error", bad, out)
		} else if strings.Contains(bad, "deny") && !strings.Contains(err.Error(), "never changes a deny") {
			t.Errorf("AddRules(%s): %v", bad, err)
		}
	}
}
