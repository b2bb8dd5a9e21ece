package shell

import (
	"path"
	"slices"
	"strconv"
	"strings"
)

// Patches (patch, git apply, git am) and git work trees: see unnamed.go.

// patchCandidates are the places a patch's name may land when the strip
// count is not known: as written, without its first component (git's
// a/ and b/), and its base name (patch without -p).
func patchCandidates(names []string, strip int) []string {
	if strip >= 0 {
		return stripNames(names, strip)
	}
	out := make([]string, 0, 3*len(names))
	for _, n := range names {
		out = append(out, n)
		out = append(out, stripNames([]string{n}, 1)...)
		out = append(out, path.Base(n))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// patch [-pN] [-d DIR] [-i FILE] [< FILE]: the files the patch names,
// below DIR. With an original-file operand, or -o, only the named file is
// written; --dry-run writes none.
func patchWrites(a *analyzer, c cmd, sc *scope) {
	args := c.args()
	strip := -1
	d := here
	var input *field
	unsure := false
	for k := 0; k < len(args); k++ {
		f := args[k]
		v := f.value
		value := func(n int) (field, bool) { // the value glued after n bytes, or the next word
			if len(v) > n {
				return sc.expandTilde(f.cut(n)), true
			}
			if k+1 < len(args) {
				k++
				return args[k], true
			}
			return field{}, false
		}
		switch {
		case openWord(f):
			unsure = true
		case !f.known || len(v) < 2 || v[0] != '-':
			return // an original file: the patch goes to it alone
		case v == "--":
			if k+1 < len(args) {
				return
			}
		case v == "--dry-run" || v == "-o" || strings.HasPrefix(v, "--output") || strings.HasPrefix(v, "-o"):
			return
		case strings.HasPrefix(v, "--strip="):
			n, err := strconv.Atoi(v[len("--strip="):])
			if err != nil {
				unsure = true
			}
			strip = n
		case strings.HasPrefix(v, "-p"):
			if s, ok := value(2); ok {
				n, err := strconv.Atoi(s.value)
				if err != nil || !s.known {
					unsure = true
				}
				strip = n
			}
		case strings.HasPrefix(v, "--directory="):
			d = destOf(sc.expandTilde(f.cut(len("--directory="))))
		case strings.HasPrefix(v, "-d"):
			if s, ok := value(2); ok {
				d = destOf(s)
			}
		case strings.HasPrefix(v, "--input="):
			in := sc.expandTilde(f.cut(len("--input=")))
			input = &in
		case strings.HasPrefix(v, "-i"):
			if s, ok := value(2); ok {
				input = &s
			}
		case len(v) == 2 && strings.IndexByte("DBYzVrFgx", v[1]) >= 0:
			k++ // a short option whose value is the next word
		}
	}
	var names []string
	listed := false
	if !unsure {
		switch {
		case input != nil:
			names, listed = a.listNames(opPatch, *input, sc)
		default:
			if in, ok := a.stdinFile(c, sc); ok {
				names, listed = a.listNames(opPatch, in, sc)
			}
		}
	}
	if !listed {
		a.writesInto(d, sc)
		return
	}
	a.writesNames(d, patchCandidates(names, strip), sc)
}

// gitTreeSubs are the git subcommands that write the work tree.
var gitTreeSubs = map[string]bool{
	"checkout": true, "restore": true, "checkout-index": true, "reset": true, "stash": true,
	"switch": true, "merge": true, "pull": true, "read-tree": true, "cherry-pick": true,
	"revert": true, "rebase": true, "am": true, "apply": true,
}

// gitTreeWrites: with --work-tree, --git-dir, GIT_WORK_TREE or GIT_DIR, a
// subcommand that updates the work tree writes below a directory the
// repository does not pick (the work tree named, or the directory git runs
// in): anything below it. Without them git writes its own work tree, never
// its .git, except what a patch names (git apply, git am) and
// checkout-index --prefix.
func gitTreeWrites(a *analyzer, c cmd, sc *scope) {
	args := c.args()
	var tree *dest
	gitDir := false
	dirs := sc.dirs
	k := 0
	for k < len(args) && args[k].known && strings.HasPrefix(args[k].value, "-") {
		v := args[k].value
		name, _, hasValue := strings.Cut(v, "=")
		val := func() (field, bool) {
			if hasValue {
				return sc.expandTilde(args[k].cut(len(name) + 1)), true
			}
			if k+1 < len(args) {
				k++
				return args[k], true
			}
			return field{}, false
		}
		switch name {
		case "-C":
			if f, ok := val(); ok {
				dirs = a.physicalChdir(dirs, f)
			}
		case "-c", "--config-env", "--namespace", "--super-prefix", "--attr-source":
			val()
		case "--work-tree":
			if f, ok := val(); ok {
				t := destOf(f)
				tree = &t
			}
		case "--git-dir":
			val()
			gitDir = true
		}
		k++
	}
	if k >= len(args) || !args[k].known {
		return
	}
	sub, rest := args[k].value, args[k+1:]
	global := k > 0
	for _, name := range [...]string{"GIT_DIR", "GIT_WORK_TREE"} {
		switch {
		case slices.Contains(c.env, name):
			t := dest{raw: "$" + name} // set for this command: its value is not followed
			tree = &t
		case tree == nil:
			// Set earlier in the script (exported or not: either way
			// only more is judged): GIT_DIR's work tree is where git
			// runs, GIT_WORK_TREE's is its value.
			v, ok := sc.vars.get(name)
			switch {
			case ok && name == "GIT_DIR":
				tree = &here
			case ok:
				tree = &dest{raw: "$" + name, value: v, known: v != ""}
			case sc.facts.noVars || sc.facts.assigns[name] > 0:
				tree = &dest{raw: "$" + name} // assigned in a way not followed (export X=…, read X)
			}
		}
	}
	sc.withDirs(dirs, func() {
		if (tree != nil || gitDir) && gitWritesTree(sub, rest) {
			if tree == nil {
				tree = &here // --git-dir alone: the work tree is where git runs
			}
			a.writesInto(*tree, sc)
		}
		if sub == "checkout-index" {
			a.checkoutIndexPrefix(rest, sc)
		}
		if (sub == "apply" || sub == "am") && !global {
			a.gitPatchWrites(sub, rest, c, sc)
		}
	})
}

// gitWritesTree reports whether a subcommand with these words updates the
// work tree.
func gitWritesTree(sub string, rest []field) bool {
	if !gitTreeSubs[sub] {
		return false
	}
	// may: a word only known at run time could be one of names; has: a
	// word known now is one.
	may := func(names ...string) bool {
		return slices.ContainsFunc(rest, func(f field) bool { return !f.known || slices.Contains(names, f.value) })
	}
	has := func(names ...string) bool {
		return slices.ContainsFunc(rest, func(f field) bool { return f.known && slices.Contains(names, f.value) })
	}
	switch sub {
	case "reset":
		return may("--hard", "--merge", "--keep")
	case "restore":
		return !has("--staged", "-S") || may("--worktree", "-W")
	case "stash":
		return !has("list", "show")
	case "read-tree":
		return may("-u", "--reset")
	case "apply":
		return !has("--cached", "--check", "--stat", "--numstat", "--summary") || may("--index", "--apply")
	}
	return true
}

// checkoutIndexPrefix: git checkout-index --prefix=P writes each file at
// P followed by its name: below P's directory.
func (a *analyzer) checkoutIndexPrefix(rest []field, sc *scope) {
	for _, f := range rest {
		if !f.known || !strings.HasPrefix(f.value, "--prefix=") {
			continue
		}
		p := sc.expandTilde(f.cut(len("--prefix=")))
		if !p.known {
			a.writesInto(dest{raw: p.raw}, sc)
			continue
		}
		dir := p.value[:strings.LastIndexByte(p.value, '/')+1]
		if dir == "" {
			dir = "."
		}
		a.writesInto(dest{raw: p.raw, value: dir, known: true}, sc)
	}
}

// gitPatchWrites: git apply PATCH… and git am MBOX… write the files their
// patches name (-p1 unless -pN, below --directory); a patch on stdin, or
// one that cannot be listed, writes anywhere in the work tree.
func (a *analyzer) gitPatchWrites(sub string, rest []field, c cmd, sc *scope) {
	if sub == "apply" && !gitWritesTree(sub, rest) {
		return
	}
	strip := 1
	d := here
	var files []field
	listed, unsure := true, false
	var names []string
	for k := 0; k < len(rest); k++ {
		f := rest[k]
		v := f.value
		switch {
		case openWord(f):
			unsure = true
		case !f.known || !strings.HasPrefix(v, "-") || v == "-":
			files = append(files, f)
		case strings.HasPrefix(v, "-p"):
			n, err := strconv.Atoi(v[2:])
			if err != nil {
				unsure = true
			}
			strip = n
		case strings.HasPrefix(v, "--directory="):
			d = destOf(sc.expandTilde(f.cut(len("--directory="))))
		case v == "--directory" && k+1 < len(rest):
			k++
			d = destOf(rest[k])
		}
	}
	if len(files) == 0 {
		in, ok := a.stdinFile(c, sc)
		if !ok {
			listed = false
		} else {
			files = append(files, in)
		}
	}
	for _, f := range files {
		if !listed || unsure {
			break
		}
		n, ok := a.listNames(opPatch, f, sc)
		listed = ok
		names = append(names, n...)
	}
	if !listed || unsure {
		a.writesInto(d, sc)
		return
	}
	a.writesNames(d, stripNames(names, strip), sc)
}
