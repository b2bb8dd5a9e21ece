package shell_test

import (
	"fmt"

	"github.com/toolgate/toolgate/gates/shell"
)

func ExampleAnalyze() {
	cmd := `cd src && sudo rm -rf build; bash -c 'cat ~/.ssh/id_rsa' > "$OUT"`
	a := shell.Analyze(cmd, shell.Options{Cwd: "/work/proj", Home: "/home/me"})
	for _, u := range a.Units {
		fmt.Printf("unit %q context=%q floor=%q\n", u.Text, u.Context, u.Floor)
	}
	for _, p := range a.Paths {
		fmt.Printf("path %q value=%q known=%v dir=%q\n", p.Raw, p.Value, p.Known, p.Dir)
	}
	// Output:
	// unit "cd src" context="" floor=""
	// unit "sudo rm -rf build" context="" floor="<indirection-bash-wrapper>"
	// unit "rm -rf build" context="wrapped command" floor=""
	// unit "bash -c cat ~/.ssh/id_rsa" context="" floor="<opaque-bash-wrapper>"
	// unit "cat ~/.ssh/id_rsa" context="inline script" floor=""
	// path "src" value="src" known=true dir="/work/proj"
	// path "$OUT" value="" known=false dir="/work/proj/src"
	// path "~/.ssh/id_rsa" value="/home/me/.ssh/id_rsa" known=true dir="/work/proj/src"
}

func ExampleSuggestPattern() {
	for _, unit := range []string{"git checkout main", "npm run build", "rm -rf node_modules", "ls", "python3 -c 'print(1)'"} {
		p, exact := shell.SuggestPattern(unit)
		fmt.Printf("%s → %s (exact %t)\n", unit, p, exact)
	}
	// Output:
	// git checkout main → git checkout * (exact false)
	// npm run build → npm run build * (exact false)
	// rm -rf node_modules → rm * (exact false)
	// ls → ls (exact false)
	// python3 -c 'print(1)' → python3 -c 'print(1)' (exact true)
}
