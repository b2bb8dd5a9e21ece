package policy

import (
	"os"
	"strings"
	"testing"
)

// trustProject trusts every project file of loc as it is now, as `toolgate
// trust --yes` does, in the trust store of loc's config home.
func trustProject(t *testing.T, loc Locations, paths ...string) {
	t.Helper()
	store := TrustStorePath(loc.ConfigHome, loc.Home)
	ts, err := LoadTrustStore(store)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		root, rel, real, ok := ProjectFileIdentity(loc.Cwd, p)
		if !ok {
			t.Fatalf("%s cannot be trusted", p)
		}
		ts.Trust(TrustEntry{Root: root, Path: rel, RealPath: real, SHA256: ContentHash(data)})
	}
	if err := SaveTrustStore(store, ts); err != nil {
		t.Fatal(err)
	}
}

// listed is p.Sources without the locations listed whether or not they
// exist (the managed file, toolgate's own global and project files) when
// they do not: what older tests of the sources compare.
func listed(p *Policy) []Source {
	var out []Source
	for _, s := range p.Sources {
		own := s.Scope == ScopeManaged || strings.HasSuffix(s.Path, "/toolgate/config.json") || strings.HasSuffix(s.Path, "/.toolgate/config.json")
		if own && !s.Exists {
			continue
		}
		out = append(out, s)
	}
	return out
}
