package policy

import (
	"strings"
	"testing"
)

func TestSandboxKnobs(t *testing.T) {
	global := func(text string) ScopeFile {
		return ScopeFile{Scope: ScopeGlobal, Path: "/g.json", Trusted: true, Exists: true, File: ParseFile("/g.json", []byte(text))}
	}
	project := func(text string) ScopeFile {
		return ScopeFile{Scope: ScopeProject, Path: "/p/.toolgate/config.json", Exists: true, File: ParseFile("/p/.toolgate/config.json", []byte(text))}
	}
	managed := func(text string) ScopeFile {
		return ScopeFile{Scope: "managed", Path: "/etc/toolgate/managed.json", Trusted: true, Exists: true, File: ParseFile("/etc/toolgate/managed.json", []byte(text))}
	}
	cases := []struct {
		name     string
		files    []ScopeFile
		mode     string
		netOff   bool
		write    []string
		auto     bool
		warnings []string // each must appear in some warning
	}{
		{name: "default", files: []ScopeFile{global(`{}`)}, mode: "off"},
		{name: "global sets every knob", files: []ScopeFile{global(`{"sandbox": "on", "sandboxWrite": ["~/x"], "sandboxNetwork": "off", "sandboxAutoAllow": true}`)},
			mode: "on", netOff: true, write: []string{"~/x"}, auto: true},
		{name: "project raises", files: []ScopeFile{global(`{"sandbox": "on"}`), project(`{"sandbox": "required"}`)}, mode: "required"},
		{name: "project cannot lower", files: []ScopeFile{global(`{"sandbox": "required"}`), project(`{"sandbox": "off"}`)}, mode: "required",
			warnings: []string{"may raise sandbox, never lower it"}},
		{name: "a raise holds over a later global file", files: []ScopeFile{project(`{"sandbox": "on"}`), global(`{"sandbox": "off"}`)}, mode: "on"},
		{name: "project's other knobs ignored", files: []ScopeFile{global(`{}`), project(`{"sandbox": "on", "sandboxWrite": ["/"], "sandboxNetwork": "on", "sandboxAutoAllow": true, "sandboxSockets": ["/run/docker.sock"]}`)},
			mode: "on", warnings: []string{"'sandboxWrite' in a project file is ignored", "'sandboxAutoAllow' in a project file is ignored", "'sandboxSockets' in a project file is ignored", "'sandboxNetwork' in a project file is ignored"}},
		{name: "managed is final", files: []ScopeFile{managed(`{"sandbox": "required", "sandboxNetwork": "off"}`), global(`{"sandbox": "off", "sandboxNetwork": "on"}`)},
			mode: "required", netOff: true, warnings: []string{"'sandbox' is ignored: the managed configuration sets it"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := Compose(tc.files, "/home/u")
			s := p.Sandbox
			if s.Mode != tc.mode || s.NetworkOff != tc.netOff || s.AutoAllow != tc.auto || strings.Join(s.Write, ",") != strings.Join(tc.write, ",") {
				t.Errorf("got %+v", s)
			}
			var all []string
			for _, w := range p.Warnings {
				all = append(all, w.String())
			}
			for _, want := range tc.warnings {
				if !strings.Contains(strings.Join(all, "\n"), want) {
					t.Errorf("no warning %q in %q", want, all)
				}
			}
		})
	}
}

func TestSandboxKnobErrors(t *testing.T) {
	for _, text := range []string{`{"sandbox": "yes"}`, `{"sandbox": true}`, `{"sandboxNetwork": "none"}`, `{"sandboxWrite": "/x"}`, `{"sandboxAutoAllow": "true"}`} {
		f := ParseFile("/g.json", []byte(text))
		if len(f.Errors) == 0 {
			t.Errorf("%s: no error", text)
		}
	}
}
