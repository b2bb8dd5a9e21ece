package shell

import "strings"

// Everyday commands that name a protected file without changing it: the
// words of these are read, not written (issue 23.7).

// gitIndexOnly reports whether a git subcommand with these words changes
// only the index (and the repository), never the files it names: git add
// .npmrc stages the file as it is; git rm --cached, git restore --staged
// (without --worktree), git reset without --hard/--merge/--keep, git
// update-index and git commit leave the work tree alone. A word only known at run time
// could be an option that writes: then it is no index-only command.
func gitIndexOnly(sub string, rest []field) bool {
	has := func(names ...string) bool {
		for _, f := range rest {
			if f.known && f.value == "--" {
				return false
			}
			for _, n := range names {
				if f.known && (f.value == n || strings.HasPrefix(f.value, n+"=")) {
					return true
				}
			}
		}
		return false
	}
	for _, f := range rest {
		if !f.known {
			return false
		}
	}
	switch sub {
	case "add", "stage":
		return !has("--interactive", "-i", "--patch", "-p", "--edit", "-e") // these open an editor or a pager
	case "rm":
		return has("--cached")
	case "restore":
		return (has("--staged") || hasShortCluster(rest, 'S')) && !has("--worktree") && !hasShortCluster(rest, 'W') &&
			!has("--patch", "-p")
	case "reset":
		return !has("--hard", "--merge", "--keep", "--patch", "-p")
	case "update-index", "commit":
		return true // git commit F stages and commits F as it is
	}
	return false
}

// hasShortCluster reports whether a word before "--" is a short option
// cluster holding letter (-S, -SW).
func hasShortCluster(rest []field, letter byte) bool {
	for _, f := range rest {
		v := f.value
		if v == "--" {
			return false
		}
		if len(v) > 1 && v[0] == '-' && v[1] != '-' && strings.IndexByte(v[1:], letter) >= 0 {
			return true
		}
	}
	return false
}

// findReadOnly reports whether find only reads: no action that deletes,
// writes a file or runs a command (-delete, -fprint…, -fls, -exec…,
// -ok…), and no word only known at run time that could be one.
func findReadOnly(args []field) bool {
	for _, f := range args {
		if !f.known {
			return false
		}
		switch f.value {
		case "-delete", "-fprint", "-fprint0", "-fprintf", "-fls", "-exec", "-execdir", "-ok", "-okdir":
			return false
		}
	}
	return true
}
