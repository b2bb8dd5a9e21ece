package shell

import (
	"fmt"
	"slices"
	"strings"
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

// TestVersionedNameIsReadAsItsFamily: a command named with a version
// ("gawk5", "eval3", "rsync2") is read as its family (familyProgram): the same
// units, floors, contexts and path words, with arguments that make each
// family's handler look (code, scripts, options that take files).
// Before, the kind came from the family but the handlers looked the name
// up as written: "gawk5 -e 'BEGIN{system(\"touch x\")}'" ran code the
// analysis never saw. Not compared: "time", a keyword that bash parses
// itself while time5 is a command (its reading has more units, not
// fewer), and the builtins that assign variables, which the pre-pass
// knows by their exact names.
func TestVersionedNameIsReadAsItsFamily(t *testing.T) {
	shape := func(a Analysis, name string) string {
		var out []string
		for _, u := range a.Units {
			text := u.Text
			if strings.HasPrefix(text, name) {
				text = "NAME" + text[len(name):]
			}
			out = append(out, fmt.Sprintf("%s|%s|%v", text, u.Floor, u.Context))
		}
		slices.Sort(out)
		var paths []string
		for _, p := range a.Paths {
			paths = append(paths, fmt.Sprintf("%s/%v", p.Raw, p.Write))
		}
		return strings.Join(out, " ; ") + " paths " + strings.Join(paths, " ")
	}
	rests := []string{"", " -e 'BEGIN{system(\"touch x\")}'", " -c 'touch x'", " -C 'touch x' arr", " -exec touch {} +",
		" touch x", " -p /tmp/x ls", " --pre ./evil x", " -i 's/a/b/' f", " 'e touch x' f", " 'BEGIN{system(\"touch x\")}'",
		" -e 'system \"touch x\"'", " -f /tmp/lib.so x", " a /etc/x", " -a src/ host:/x"}
	compared := 0
	for name := range commandKinds() {
		if name == "time" || assigningBuiltins[name] != nil || versionless(name+"5") != name {
			continue
		}
		for _, rest := range rests {
			plain := shape(Analyze(name+rest, Options{Cwd: "/tmp/w", Home: "/home/u"}), name)
			versioned := shape(Analyze(name+"5"+rest, Options{Cwd: "/tmp/w", Home: "/home/u"}), name+"5")
			if plain != versioned {
				t.Errorf("%s%s is read as\n  %s\nbut %s5%s as\n  %s", name, rest, plain, name, rest, versioned)
			}
			compared++
		}
	}
	if compared < 1000 {
		t.Fatalf("only %d commands compared", compared)
	}
}
