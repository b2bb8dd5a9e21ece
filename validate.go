package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/toolgate/toolgate/policy"
)

// validate parses policy files and prints every error with file:line:col;
// without arguments it checks the effective files of the current directory.
func validate(args []string, stdout, stderr io.Writer) int {
	files := args
	if len(files) == 0 {
		_, agentDir := environment()
		cwd, _ := os.Getwd()
		files = []string{policy.GlobalPath(agentDir), policy.ProjectPath(cwd)}
	}
	bad := false
	for _, path := range files {
		abs, _ := filepath.Abs(path)
		data, err := os.ReadFile(abs)
		if err != nil {
			if len(args) == 0 && os.IsNotExist(err) {
				fmt.Fprintf(stdout, "%s: not present\n", abs)
				continue
			}
			fmt.Fprintf(stdout, "%s: %v\n", abs, err)
			bad = true
			continue
		}
		f := policy.ParseFile(abs, data)
		for _, w := range f.Errors {
			fmt.Fprintln(stdout, w.String())
			bad = true
		}
		if len(f.Errors) == 0 {
			fmt.Fprintf(stdout, "%s: ok\n", abs)
		}
	}
	if bad {
		return 1
	}
	return 0
}
