package hook

import "testing"

func TestMayMeet(t *testing.T) {
	cases := []struct {
		surface, p, r string
		want          bool
	}{
		{"bash", "git push *", "git push --force *", true}, // options stand anywhere
		{"bash", "git push origin *", "git push --force *", true},
		{"bash", "git status *", "git push *", false},
		{"bash", "git status*", "git statusx *", true},
		{"bash", "npm run build*", "npm *", true},
		{"bash", "make *", "rm -rf *", false},
		{"bash", "make *", "* --force", true},
		{"read", "/p/docs/*", "/p/docs/secret/*", true},
		{"read", "/p/docs/*", "/p/src/*", false},
		{"read", "/p/docs/*", "*.env", true},
		{"read", "/p/docs/*", "docs/private/*", true}, // a relative rule meets the cwd-relative form
		{"read", "/p/docs/a*", "/p/docs/b*", false},
		{"read", "/p/docs/a*", "b*", true},
		{"read", "/p/docs/*", "src/*", true}, // in a session at /p/docs, /p/docs/src/a reads src/a
		{"read", "/p/docs/*", "../*", true},
		{"external_directory", "/other/x/*", "/other/*", true},
		{"mcp", "github:*", "github_delete*", true}, // MCP values have several forms
		{"context7_search", "*", "x", true},
	}
	for _, c := range cases {
		if got := mayMeet(c.surface, c.p, c.r); got != c.want {
			t.Errorf("mayMeet(%s, %q, %q) = %v, want %v", c.surface, c.p, c.r, got, c.want)
		}
	}
}
