package gates

import (
	"strings"
	"testing"
)

// TestArmingLowerIsToLower: armingClean lower-cases an ASCII path in a
// buffer of its own, and any other with strings.ToLower; it answers as the
// plain twin (armingPathPlain, strings.ToLower of every path) for paths
// in lower case, in upper case, longer than the buffer, and not ASCII.
func TestArmingLowerIsToLower(t *testing.T) {
	long := "/home/Ann/" + strings.Repeat("Deep/", 60)
	paths := []string{
		"/home/ann/.bashrc", "/home/Ann/.BASHRC", "/HOME/ANN/.GIT/HOOKS/PRE-COMMIT", "/w/Proj/.git/config",
		"/w/Proj/.Git/Config", "/ETC/PROFILE", "/w/.HUSKY/pre-push", "/w/x.GIT/Hooks/post-merge",
		"/w/Ärger/.bashrc", "/w/İ/.Bashrc", "/w/\u212a/.profile", "/w/ß/.zshrc",
		long + ".bashrc", long + "x.txt", long + ".git/hooks/x", strings.ToUpper(long) + ".BASHRC",
		"/w/src/Main.go", "/w/src/main.go", "relative/Dir/.envrc", "",
	}
	for _, p := range paths {
		for _, isDir := range []bool{false, true} {
			d := func() bool { return isDir }
			if got, want := armingPath(p, d), armingPathPlain(p, d); got != want {
				t.Errorf("armingPath(%q, dir %v) = %v, plain %v", p, isDir, got, want)
			}
		}
	}
	var buf [256]byte
	for _, s := range []string{"", "abc", "ABC", "/Home/ANN/x", strings.Repeat("A", 256), strings.Repeat("A", 257), "Ä", "aÄ"} {
		n, ok := lowerASCIIInto(&buf, s)
		switch {
		case !ok:
			if isASCII(s) && len(s) <= 256 {
				t.Errorf("%q: not lowered in the buffer", s)
			}
		case n == 0:
			if strings.ToLower(s) != s {
				t.Errorf("%q: said lower case already", s)
			}
		case string(buf[:n]) != strings.ToLower(s):
			t.Errorf("%q: lowered to %q, want %q", s, buf[:n], strings.ToLower(s))
		}
	}
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
