package shell

import (
	"fmt"
	"slices"
	"testing"
)

// TestVersionedNamesOfEveryKind: every command toolgate reads apart (its
// kinds and programs), named with a version ("hash3", "python3.12",
// "enable0"), is analyzed without a panic whatever follows it, and the
// loaders and the builtins that take code to run later keep their floor
// under such a name: "hash2 -p FILE NAME" is read as hash is, the
// stricter reading. (Found by FuzzAnalyze: "hash0"
// was read as hash by its kind and then looked up by its own name.)
func TestVersionedNamesOfEveryKind(t *testing.T) {
	var names []string
	for n := range commandKinds() {
		names = append(names, n)
	}
	for n := range programs() {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range slices.Compact(names) {
		for _, version := range []string{"0", "3", "3.12"} {
			for _, rest := range []string{"", " -p /tmp/x ls", " -f lib.so x", " -e 'print 1' file", " a b c", " --help", " -c 'ls'", " --", " -"} {
				cmd := n + version + rest
				func() {
					defer func() {
						if p := recover(); p != nil {
							t.Errorf("%q: panic: %v", cmd, p)
						}
					}()
					Analyze(cmd, Options{Cwd: "/tmp", Home: "/home/u"})
				}()
			}
		}
	}
	for _, c := range []struct{ cmd, floor string }{
		{"hash2 -p /tmp/evil ls", SentinelIndirection},
		{"enable3 -f /tmp/evil.so ls", SentinelOpaque},
		{"mapfile2 -C 'touch x' -c 1 arr", SentinelOpaque},
		{"complete4 -C 'touch x' git", SentinelOpaque},
	} {
		a := Analyze(c.cmd, Options{Cwd: "/tmp", Home: "/home/u"})
		var floors []string
		for _, u := range a.Units {
			floors = append(floors, u.Floor)
		}
		if !slices.Contains(floors, c.floor) {
			t.Errorf("%q: floors %s, want %s", c.cmd, fmt.Sprint(floors), c.floor)
		}
	}
}
