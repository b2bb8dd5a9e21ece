package policy

import (
	"reflect"
	"testing"
)

// TestExportKnob: the export knob is read as written (headers in file
// order, a trailing slash of the endpoint dropped), a later global file
// replaces an earlier one's, and a project file's is ignored with a
// warning naming its line.
func TestExportKnob(t *testing.T) {
	g := scopeFile(t, ScopeGlobal, `{"export": {"otlp": {"endpoint": "https://otel.example:4318/base/",
		"headers": {"authorization": "Bearer x", "X-Team": "infra"}}}}`)
	p := composeOK(t, g)
	want := &Export{OTLP: OTLPExport{Endpoint: "https://otel.example:4318/base",
		Headers: []Header{{"authorization", "Bearer x"}, {"X-Team", "infra"}}}}
	if !reflect.DeepEqual(p.Export, want) {
		t.Fatalf("export = %+v, want %+v", p.Export, want)
	}
	extra := scopeFileAt(t, ScopeGlobal, "/cfg/extra.json", `{"export": {"otlp": {"endpoint": "http://127.0.0.1:4318"}}}`)
	if p := composeOK(t, g, extra); p.Export == nil || p.Export.OTLP.Endpoint != "http://127.0.0.1:4318" || p.Export.OTLP.Headers != nil {
		t.Errorf("a later --config file's export does not replace the global one: %+v", p.Export)
	}
	proj := scopeFile(t, ScopeProject, "{\n \"export\": {\"otlp\": {\"endpoint\": \"http://evil.example\"}}}")
	p = composeOK(t, g, proj)
	if !reflect.DeepEqual(p.Export, want) {
		t.Errorf("a project file changed the export: %+v", p.Export)
	}
	if !hasWarning(p, "/cfg/project.json", 2, 2, "'export' in a project file is ignored") {
		t.Errorf("no warning for the project file's export: %v", p.Warnings)
	}
	if p := composeOK(t, proj); p.Export != nil {
		t.Errorf("a project file alone set the export: %+v", p.Export)
	}
	if p := composeOK(t, scopeFile(t, ScopeGlobal, `{}`)); p.Export != nil {
		t.Errorf("export without a knob: %+v", p.Export)
	}
}
