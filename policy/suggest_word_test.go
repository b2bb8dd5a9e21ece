package policy

import "testing"

func TestNearestWord(t *testing.T) {
	cases := []struct {
		word       string
		candidates []string
		want       string
	}{
		{"alow", States, "allow"},
		{"dney", States, "deny"},
		{"ASK", States, "ask"},
		{"aks", States, "ask"},
		{"denyy", States, "deny"},
		{"allow", States, ""}, // itself: no hint
		{"maybe", States, ""},
		{"raed", KnownSurfaces, "read"},
		{"bsah", KnownSurfaces, "bash"},
		{"extrenal_directory", KnownSurfaces, "external_directory"},
		{"pth", KnownSurfaces, "path"},
		{"context7_search", KnownSurfaces, ""},
		{"permissions", TopLevelKeys, "permission"},
		{"permisson", TopLevelKeys, "permission"},
		{"yolomode", TopLevelKeys, "yoloMode"},
		{"auditlog", TopLevelKeys, "auditLog"},
		{"frobnicate", TopLevelKeys, ""},
		{"", States, ""},
	}
	for _, c := range cases {
		got, ok := NearestWord(c.word, c.candidates)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("NearestWord(%q) = %q, %v; want %q", c.word, got, ok, c.want)
		}
	}
	if got := DidYouMean("alow", States); got != ` (did you mean "allow"?)` {
		t.Errorf("DidYouMean = %q", got)
	}
	if got := DidYouMean("zzz", States); got != "" {
		t.Errorf("DidYouMean(zzz) = %q", got)
	}
}

func TestHintTypo(t *testing.T) {
	cases := []struct{ in, want string }{
		{`invalid state "alow" for bash pattern "git *" (want allow, ask or deny)`,
			`invalid state "alow" (did you mean "allow"?) for bash pattern "git *" (want allow, ask or deny)`},
		{`invalid state "nope" for surface "read" (want allow, ask or deny)`,
			`invalid state "nope" for surface "read" (want allow, ask or deny)`},
		{`Unrecognized config key 'permissions'.`, `Unrecognized config key 'permissions'. (did you mean "permission"?)`},
		{`Unrecognized config key 'zzz'.`, `Unrecognized config key 'zzz'.`},
		{`x (did you mean "allow"?)`, `x (did you mean "allow"?)`},
		{`cannot parse JSONC: invalid character`, `cannot parse JSONC: invalid character`},
	}
	for _, c := range cases {
		if got := HintTypo(c.in); got != c.want {
			t.Errorf("HintTypo(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}
