package gates

import (
	"path"
	"strings"
	"testing"
)

// TestCredentialIsItsSplitTwin keeps credential, which walks the path's
// components without splitting it, equal to the plain form that splits.
func TestCredentialIsItsSplitTwin(t *testing.T) {
	twin := func(abs string) bool {
		base := path.Base(abs)
		if base == "auth.json" || strings.HasSuffix(base, ".key") || strings.HasSuffix(base, ".pem") {
			return true
		}
		for _, part := range strings.Split(abs, "/") {
			if part == "sessions" {
				return true
			}
		}
		return false
	}
	for _, abs := range []string{
		"", "/", "sessions", "/sessions", "sessions/", "/a/sessions", "/a/sessions/", "/a/sessions/b.jsonl",
		"/a/sessionsx/b", "/a/xsessions/b", "/a//sessions//b", "/home/u/.pi/agent/auth.json", "/etc/ssl/a.pem",
		"/etc/ssl/a.key", "/home/u/.pi/agent/npm/x/index.js", "/tmp/out1.log", "/a/session/b",
	} {
		if got, want := credential(abs), twin(abs); got != want {
			t.Errorf("credential(%q) = %v, the split twin says %v", abs, got, want)
		}
	}
}
