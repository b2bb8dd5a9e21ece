package textdiff

import "testing"

func TestUnified(t *testing.T) {
	cases := []struct{ a, b, want string }{
		{"x\n", "x\n", ""},
		{"a\nb\nc\n", "a\nb\nB\nc\n", "--- A\n+++ B\n@@ -1,3 +1,4 @@\n a\n b\n+B\n c\n"},
		{"1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\n5\n6\n7\n8\nx\n9\n", "--- A\n+++ B\n@@ -6,4 +6,5 @@\n 6\n 7\n 8\n+x\n 9\n"},
		{"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", "0\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\nz\n",
			"--- A\n+++ B\n@@ -1,3 +1,4 @@\n+0\n 1\n 2\n 3\n@@ -8,3 +9,4 @@\n 8\n 9\n 10\n+z\n"},
		{"a\nold\nc\n", "a\nnew\nc\n", "--- A\n+++ B\n@@ -1,3 +1,3 @@\n a\n-old\n+new\n c\n"},
		{"", "a\n", "--- A\n+++ B\n@@ -1,0 +1,1 @@\n+a\n"},
	}
	for _, c := range cases {
		if got := Unified(c.a, c.b, "A", "B"); got != c.want {
			t.Errorf("Unified(%q, %q)\n got %q\nwant %q", c.a, c.b, got, c.want)
		}
	}
}
