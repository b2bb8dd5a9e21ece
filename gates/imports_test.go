package gates

import (
	"go/build"
	"path/filepath"
	"strings"
	"testing"
)

// The engine decides in its own terms: the gates, the runner and
// everything they import know no host's wire — not the JSON-RPC protocol,
// not a hook's JSON, not the session.
func TestEngineImportsNoWire(t *testing.T) {
	const module = "github.com/toolgate/toolgate/"
	forbidden := []string{module + "protocol", module + "hook", module + "prompt", "github.com/sourcegraph/jsonrpc2"}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var walk func(pkg string, from []string)
	walk = func(pkg string, from []string) {
		if seen[pkg] || !strings.HasPrefix(pkg, module) {
			return
		}
		seen[pkg] = true
		bp, err := build.Import(pkg, root, 0)
		if err != nil {
			t.Fatalf("import %s: %v", pkg, err)
		}
		path := append(from, pkg)
		for _, imp := range bp.Imports {
			for _, bad := range forbidden {
				if imp == bad || strings.HasPrefix(imp, bad+"/") {
					t.Errorf("%s imports %s", strings.Join(path, " → "), imp)
				}
			}
			walk(imp, path)
		}
	}
	walk(module+"gates", nil)
	if len(seen) < 4 {
		t.Fatalf("walked only %v", seen)
	}
}
