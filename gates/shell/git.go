package shell

import (
	"slices"
	"strings"
)

// git: global options come first. -c and --config-env let configuration
// run any program, and --git-dir and --exec-path point git at another
// repository's configuration or programs: they floor git, and a -c value
// that is a program is analyzed as code. With global options the
// subcommand is also a unit of its own without them ("git -C . push" is
// matched as "git push"), run in the directory -C names, resolved as git
// resolves it (physically, symlinks followed).
func (a *analyzer) git(i int, c cmd, sc *scope) {
	args := c.args()
	dirs := sc.dirs
	k := 0
	for k < len(args) && args[k].known && strings.HasPrefix(args[k].value, "-") {
		n, floor := a.gitOption(args, k, &dirs, sc)
		if floor {
			a.setFloor(i, SentinelIndirection)
		}
		k += n
	}
	if k > 0 && k < len(args) {
		sub := append([]field{c.fields[0]}, args[k:]...)
		sc.withDirs(dirs, func() { a.run(c.with(sub, CtxWrapped), sc) })
		return
	}
	a.gitSubcommand(i, args[k:], c, sc)
}

// gitOption reads the global option at args[k] and returns the words it
// used and whether it floors git.
func (a *analyzer) gitOption(args []field, k int, dirs *[]string, sc *scope) (int, bool) {
	v := args[k].value
	name, _, hasValue := strings.Cut(v, "=")
	next := func() (field, int) {
		if hasValue {
			return args[k].cut(len(name) + 1), 1
		}
		if k+1 < len(args) {
			return args[k+1], 2
		}
		return field{}, 1
	}
	switch name {
	case "-C":
		f, n := next()
		if n == 2 {
			a.readPath(f, sc, isFile)
			*dirs = a.physicalChdir(*dirs, f)
		}
		return n, false
	case "-c":
		f, n := next()
		if n == 2 || hasValue {
			a.gitConfigValue(f, sc)
		}
		return n, true
	case "--config-env":
		_, n := next()
		return n, true
	case "--exec-path":
		return 1, hasValue
	case "--git-dir":
		f, n := next()
		a.readPath(f, sc, isFile)
		return n, true
	case "--work-tree":
		f, n := next()
		a.readPath(f, sc, isFile)
		return n, false
	case "--namespace", "--super-prefix", "--list-cmds", "--attr-source":
		_, n := next()
		return n, false
	}
	return 1, false
}

// withDirsChdir is chdir from the directories dirs rather than the scope's.
func (sc *scope) withDirsChdir(dirs []string, target field) []string {
	var out []string
	sc.withDirs(dirs, func() { out = sc.chdir(target) })
	return out
}

// gitConfigValue analyzes one KEY=VALUE given to git -c (or clone -c): a
// value that git runs as a program is code.
func (a *analyzer) gitConfigValue(f field, sc *scope) {
	if !f.known {
		return
	}
	key, value, _ := strings.Cut(f.value, "=")
	if code, ok := gitConfigCode(key, value); ok {
		a.payload(code, sc, false)
	}
}

// gitConfigCode returns the shell code a configuration value makes git
// run, if the key is one whose value is a program.
func gitConfigCode(key, value string) (string, bool) {
	section, name := gitKeyParts(key)
	switch {
	case section == "alias" || section == "credential" && name == "helper":
		code, ok := strings.CutPrefix(value, "!")
		return code, ok
	case gitPathKey(section, name), section == "protocol", section == "url", section == "safe":
		return "", false // a path or a URL, not code
	case gitProgramKey(section, name):
		if value == "" || value == "true" || value == "false" {
			return "", false
		}
		return value, true
	}
	return "", false
}

// gitKeyParts splits a configuration key into its section and its last
// part, lower-cased ("diff.pdf.textconv" → "diff", "textconv").
func gitKeyParts(key string) (section, name string) {
	key = strings.ToLower(key)
	section, rest, _ := strings.Cut(key, ".")
	if j := strings.LastIndexByte(rest, '.'); j >= 0 {
		rest = rest[j+1:]
	}
	return section, rest
}

// gitProgramKey reports whether a configuration key makes a later git
// command run a program of the value's choosing (or code it points to).
func gitProgramKey(section, name string) bool {
	if gitPathKey(section, name) {
		return true
	}
	switch section {
	case "alias", "pager":
		return true
	case "core":
		return name == "pager" || name == "sshcommand" || name == "fsmonitor" || name == "editor" ||
			name == "askpass" || name == "gitproxy"
	case "sequence":
		return name == "editor"
	case "diff":
		return name == "external" || name == "textconv" || name == "command"
	case "merge":
		return name == "driver"
	case "filter":
		return name == "clean" || name == "smudge" || name == "process"
	case "difftool", "mergetool", "browser", "man":
		return name == "cmd" || name == "path"
	case "gpg":
		return name == "program"
	case "credential":
		return name == "helper"
	case "remote":
		return name == "uploadpack" || name == "receivepack" || name == "vcs"
	case "uploadpack":
		return name == "packobjectshook"
	case "sendemail":
		return name == "sendmailcmd" || name == "tocmd" || name == "cccmd" || name == "headercmd" || name == "smtpserver"
	case "instaweb":
		return name == "httpd" || name == "browser"
	case "web":
		return name == "browser"
	case "safe": // trusting another's repository runs its configuration and hooks
		return name == "directory" || name == "barerepository"
	case "protocol": // protocol.ext.allow lets ext:: URLs run commands
		return name == "allow"
	case "submodule": // submodule.<name>.update = !command runs on git submodule update
		return name == "update"
	case "url": // url.<ext::…>.insteadOf rewrites a URL into one
		return name == "insteadof" || name == "pushinsteadof"
	}
	return false
}

// gitPathKey reports keys whose value names a file or directory of code or
// configuration (hooks, included configuration, templates).
func gitPathKey(section, name string) bool {
	switch section {
	case "core":
		return name == "hookspath" || name == "attributesfile" || name == "worktree"
	case "include", "includeif":
		return name == "path"
	case "init":
		return name == "templatedir"
	}
	return false
}

// gitSub describes a git subcommand's own options.
type gitSub struct {
	opts     opts
	code     []string // values are shell code git runs (difftool -x, --upload-pack)
	runs     []string // options that run a program git chooses (grep -O)
	text     []string // values are text, never paths (log -G, commit -m)
	files    []string // values name files
	config   []string // KEY=VALUE for the new repository (clone -c)
	template []string // template directories, whose hooks git installs
	patterns int      // leading operands that are patterns, unless -e/-f is given
	scripts  []string // options that give the pattern (grep -e)
	floor    bool     // the subcommand runs programs of its own choosing
}

// Options of the revision and diff machinery shared by log, show, diff
// and friends: the values of these are text (regular expressions, dates,
// formats), except the files listed.
var (
	revText = []string{"-G", "-S", "-I", "-n", "--grep", "--author", "--committer", "--format",
		"--pretty", "--since", "--until", "--after", "--before", "--date", "--max-count", "--skip",
		"--grep-reflog", "--diff-filter", "--word-diff-regex", "--ignore-matching-lines",
		"--encoding", "--min-parents", "--max-parents", "--decorate-refs", "--decorate-refs-exclude",
		"--exclude", "--glob", "--find-object", "--src-prefix", "--dst-prefix", "--line-prefix",
		"--abbrev", "--notes", "--since-as-filter", "--color-moved", "--anchored", "--submodule"}
	revFiles = []string{"-O", "--output", "--orderfile", "--rotate-to", "--skip-to"}
	revOpts  = opts{arg: "GSILnO", long: []string{"--grep", "--author", "--committer", "--since",
		"--until", "--after", "--before", "--max-count", "--skip", "--grep-reflog", "--diff-filter",
		"--word-diff-regex", "--ignore-matching-lines", "--encoding", "--min-parents", "--max-parents",
		"--exclude", "--glob", "--find-object", "--output", "--orderfile", "--rotate-to", "--skip-to",
		"--anchored", "--src-prefix", "--dst-prefix", "--line-prefix"}}
	revSub = gitSub{opts: revOpts, text: revText, files: revFiles}
)

var gitSubs = map[string]gitSub{
	"log": revSub, "show": revSub, "diff": revSub, "whatchanged": revSub, "shortlog": revSub,
	"rev-list": revSub, "format-patch": revSub, "range-diff": revSub, "diff-tree": revSub,
	"diff-files": revSub, "diff-index": revSub,
	"difftool": {opts: opts{arg: revOpts.arg + "xt", long: append(slices.Clone(revOpts.long), "--extcmd", "--tool")},
		code: []string{"-x", "--extcmd"}, text: append(slices.Clone(revText), "-t", "--tool"), files: revFiles},
	"blame": {opts: opts{arg: "LS", long: []string{"--contents", "--date", "--ignore-rev", "--ignore-revs-file"}},
		text: []string{"-L", "--date", "--ignore-rev"}, files: []string{"-S", "--contents", "--ignore-revs-file"}},
	"grep": {opts: opts{arg: "efABCm", optional: "O", long: []string{"--max-depth", "--threads",
		"--context", "--after-context", "--before-context", "--max-count", "--regexp", "--file"}},
		runs: []string{"-O", "--open-files-in-pager"},
		text: []string{"-e", "--regexp", "-A", "-B", "-C", "-m", "--max-depth", "--threads", "--context",
			"--after-context", "--before-context", "--max-count"},
		files: []string{"-f", "--file"}, patterns: 1, scripts: []string{"-e", "--regexp", "-f", "--file"}},
	"commit": {opts: opts{arg: "mFtcC", optional: "S", long: []string{"--message", "--file", "--template",
		"--author", "--date", "--fixup", "--squash", "--trailer", "--reuse-message", "--reedit-message", "--cleanup"}},
		text: []string{"-m", "--message", "-c", "-C", "--author", "--date", "--fixup", "--squash", "--trailer",
			"--reuse-message", "--reedit-message", "--cleanup", "-S", "--gpg-sign"},
		files: []string{"-F", "--file", "-t", "--template"}},
	"tag":   {opts: opts{arg: "mFu"}, text: []string{"-m", "--message", "-u", "--local-user"}, files: []string{"-F", "--file"}},
	"merge": {opts: opts{arg: "msFX"}, text: []string{"-m", "-s", "--strategy", "-X", "--strategy-option"}, files: []string{"-F", "--file"}},
	"fetch": {opts: opts{long: []string{"--upload-pack", "--depth", "--deepen", "--shallow-since",
		"--shallow-exclude", "--refmap", "--server-option"}}, code: []string{"--upload-pack"}},
	"pull": {opts: opts{long: []string{"--upload-pack", "--depth", "--strategy", "--strategy-option"}},
		code: []string{"--upload-pack"}},
	"ls-remote": {opts: opts{arg: "u", long: []string{"--upload-pack", "--sort", "--server-option"}},
		code: []string{"-u", "--upload-pack"}},
	"clone": {opts: opts{arg: "uobjc", long: []string{"--upload-pack", "--template", "--config",
		"--origin", "--branch", "--depth", "--reference", "--reference-if-able", "--separate-git-dir",
		"--filter", "--shallow-since", "--shallow-exclude", "--jobs", "--server-option", "--bundle-uri"}},
		code: []string{"-u", "--upload-pack"}, config: []string{"-c", "--config"}, template: []string{"--template"},
		text:  []string{"-o", "--origin", "-b", "--branch", "--depth", "--filter", "-j", "--jobs"},
		files: []string{"--reference", "--reference-if-able", "--separate-git-dir"}},
	"init": {opts: opts{long: []string{"--template", "--separate-git-dir", "--object-format", "--initial-branch"}},
		template: []string{"--template"}, files: []string{"--separate-git-dir"}},
	"push": {opts: opts{arg: "o", long: []string{"--receive-pack", "--exec", "--push-option", "--repo"}},
		code: []string{"--receive-pack", "--exec"}, text: []string{"-o", "--push-option"}},
	"send-pack":  {opts: opts{long: []string{"--receive-pack", "--exec"}}, code: []string{"--receive-pack", "--exec"}},
	"fetch-pack": {opts: opts{long: []string{"--upload-pack", "--exec"}}, code: []string{"--upload-pack", "--exec"}},
	"archive": {opts: opts{arg: "o", long: []string{"--exec", "--remote", "--output", "--prefix", "--format"}},
		code: []string{"--exec"}, text: []string{"--remote", "--prefix", "--format"}, files: []string{"-o", "--output"}},
	"rebase": {opts: opts{arg: "xsSXo", long: []string{"--exec", "--strategy", "--onto",
		"--strategy-option", "--gpg-sign"}}, code: []string{"-x", "--exec"},
		text: []string{"-s", "--strategy", "--onto", "-X", "--strategy-option"}},
	"send-email": {opts: opts{long: []string{"--sendmail-cmd", "--to-cmd", "--cc-cmd", "--header-cmd", "--smtp-server"}},
		code: []string{"--sendmail-cmd", "--to-cmd", "--cc-cmd", "--header-cmd", "--smtp-server"}},
	"daemon":        {opts: opts{long: []string{"--access-hook"}}, code: []string{"--access-hook"}},
	"instaweb":      {floor: true},
	"web--browse":   {floor: true},
	"filter-branch": {floor: true},
}

// gitSubcommand handles a subcommand's own options: those that run a
// program floor git (their literal value is analyzed as code), those whose
// value is text are no path words, and the rest are classified as usual.
func (a *analyzer) gitSubcommand(i int, args []field, c cmd, sc *scope) {
	if len(args) == 0 {
		return
	}
	rest := args[1:]
	for _, f := range rest {
		if f.known && strings.HasPrefix(f.value, "ext::") { // a remote helper that runs a command
			a.setFloor(i, SentinelIndirection)
		}
	}
	if gitWritesConfig(args[0].value, rest) {
		a.writesByDesign(".git/config", sc)
	}
	switch args[0].value {
	case "config":
		a.gitConfig(i, rest, sc)
		return
	case "submodule":
		if j := slices.IndexFunc(rest, func(f field) bool { return f.value == "foreach" }); j >= 0 {
			a.setFloor(i, SentinelIndirection)
			run := rest[j+1:]
			for len(run) > 0 && strings.HasPrefix(run[0].value, "-") {
				run = run[1:]
			}
			a.payload(joinText(run), sc, false)
			return
		}
	case "bisect":
		if len(rest) > 1 && rest[0].value == "run" {
			a.setFloor(i, SentinelIndirection)
			a.run(c.with(rest[1:], CtxWrapped), sc)
			return
		}
	}
	spec, ok := gitSubs[args[0].value]
	if !ok {
		a.argPaths(rest, sc)
		return
	}
	if spec.floor {
		a.setFloor(i, SentinelIndirection)
	}
	a.gitArgs(i, spec, rest, sc)
}

// gitArgs classifies a subcommand's words by its spec. git permutes
// options and operands; after "--" every word is an operand.
func (a *analyzer) gitArgs(i int, spec gitSub, args []field, sc *scope) {
	var operands []field
	patterns := spec.patterns
	for k := 0; k < len(args); {
		f := args[k]
		if isDashDash(f) {
			for _, g := range args[k+1:] {
				a.pathWord(g, sc, maybeOperand)
			}
			break
		}
		list, next, ok := readOption(spec.opts, args, k, nil)
		if !ok {
			operands = append(operands, f)
			k++
			continue
		}
		valued := false
		for _, o := range list {
			valued = valued || o.has
			if slices.Contains(spec.scripts, o.name) {
				patterns = 0
			}
			a.gitOpt(i, spec, o, sc)
		}
		if !valued && !slices.ContainsFunc(list, func(o option) bool { return slices.Contains(spec.runs, o.name) }) {
			a.pathWord(f, sc, maybeFile) // a value glued to an option not in the table
		}
		k = next
	}
	for j, f := range operands {
		if j >= patterns {
			a.pathWord(f, sc, maybeFile)
		}
	}
}

func (a *analyzer) gitOpt(i int, spec gitSub, o option, sc *scope) {
	switch {
	case slices.Contains(spec.code, o.name):
		a.setFloor(i, SentinelIndirection)
		if o.has {
			a.payload(o.value.text, sc, false)
		}
	case slices.Contains(spec.runs, o.name):
		a.setFloor(i, SentinelIndirection)
		if o.has {
			a.payload(o.value.text, sc, false)
		}
	case slices.Contains(spec.template, o.name):
		a.setFloor(i, SentinelArming)
		if o.has {
			a.pathWord(o.value, sc, isFile)
		}
	case slices.Contains(spec.config, o.name):
		if o.has && o.value.known {
			key, _, _ := strings.Cut(o.value.value, "=")
			if gitProgramKey(gitKeyParts(key)) {
				a.setFloor(i, SentinelArming)
			}
			a.gitConfigValue(o.value, sc)
		} else if o.has {
			a.setFloor(i, SentinelArming)
		}
	case !o.has:
	case o.name == "-L":
		// -L start,end:file and -L :funcname:file name a file last.
		if j := strings.LastIndexByte(o.value.value, ':'); o.value.known && j >= 0 {
			a.pathWord(o.value.cut(j+1), sc, maybeFile)
		}
	case slices.Contains(spec.text, o.name):
	case slices.Contains(spec.files, o.name):
		a.pathWord(o.value, sc, isFile)
	default:
		a.pathWord(o.value, sc, maybeFile)
	}
}

// gitConfig floors a git config command that sets a key whose value makes
// later git commands run a program (alias.*, core.pager, core.fsmonitor,
// core.sshCommand, core.hooksPath …), or opens the file in an editor:
// arming, asked like a change of toolgate's own files (SentinelArming).
func (a *analyzer) gitConfig(i int, args []field, sc *scope) {
	list, operands := scanArgs(gitConfigOpts, args)
	setting, editing, reading, renaming := false, false, false, false
	for _, o := range list {
		switch o.name {
		case "-f", "--file":
			if o.has {
				a.pathWord(o.value, sc, isFile)
			}
		case "--add", "--replace-all":
			setting = true
		case "-e", "--edit":
			editing = true
		case "--rename-section":
			setting, renaming = true, true
		case "--get", "--get-all", "--get-regexp", "--get-urlmatch", "--get-color", "--get-colorbool",
			"-l", "--list", "--unset", "--unset-all", "--remove-section", "--show-origin", "--show-scope":
			reading = true
		}
	}
	if len(operands) > 0 && operands[0].known {
		switch operands[0].value {
		case "set":
			setting, operands = true, operands[1:]
		case "edit":
			editing = true
		case "rename-section":
			setting, renaming, operands = true, true, operands[1:]
		case "get", "list", "unset", "remove-section":
			reading = true
		}
	}
	if !editing && !reading && (setting || len(operands) >= 2) &&
		!slices.ContainsFunc(list, func(o option) bool { return gitConfigElsewhere[o.name] }) {
		// It sets a key of the repository's own configuration.
		a.writesByDesign(".git/config", sc)
	}
	switch {
	case editing:
		a.setFloor(i, SentinelArming)
		return
	case reading || len(operands) == 0 || (!setting && len(operands) < 2):
		return
	case !operands[0].known || (renaming && len(operands) > 1 && !operands[1].known):
		a.setFloor(i, SentinelArming) // a key only known at run time
		return
	case renaming:
		if len(operands) > 1 && gitProgramSection(operands[1].value) {
			a.setFloor(i, SentinelArming)
		}
		return
	}
	key := operands[0].value
	if !gitProgramKey(gitKeyParts(key)) {
		return
	}
	a.setFloor(i, SentinelArming)
	if len(operands) > 1 && operands[1].known {
		if code, ok := gitConfigCode(key, operands[1].value); ok {
			a.payload(code, sc, false)
		}
	}
}

// gitProgramSection reports whether a section renamed into place may hold
// keys that run programs (git config --rename-section x alias).
func gitProgramSection(name string) bool {
	section, _, _ := strings.Cut(strings.ToLower(name), ".")
	switch section {
	case "alias", "pager", "core", "include", "includeif", "filter", "diff", "merge", "credential",
		"protocol", "url", "difftool", "mergetool", "sequence", "gpg", "remote", "sendemail", "uploadpack":
		return true
	}
	return false
}

var gitConfigOpts = opts{arg: "f", long: []string{"--file", "--blob", "--type", "--default", "--comment",
	"--value", "--get-color"}}

// gitConfigElsewhere are git config's options that set another file than
// the repository's own configuration.
var gitConfigElsewhere = map[string]bool{"--global": true, "--system": true, "-f": true, "--file": true, "--blob": true, "--worktree": true}

// gitWritesConfig reports whether a git subcommand writes the repository's
// configuration (.git/config) by design: a remote added, renamed, removed
// or pointed elsewhere, an upstream set, a submodule registered (git
// config itself is gitConfig's).
func gitWritesConfig(sub string, args []field) bool {
	op := ""
	has := func(names ...string) bool {
		for _, f := range args {
			for _, n := range names {
				if f.value == n || strings.HasPrefix(f.value, n+"=") {
					return true
				}
			}
		}
		return false
	}
	for _, f := range args {
		if !strings.HasPrefix(f.value, "-") {
			op = f.value
			break
		}
	}
	switch sub {
	case "remote":
		return slices.Contains([]string{"add", "rename", "rm", "remove", "set-url", "set-branches"}, op)
	case "push":
		return has("-u", "--set-upstream")
	case "branch":
		return has("-u", "--set-upstream-to", "--unset-upstream", "-m", "-M", "--move")
	case "submodule":
		return slices.Contains([]string{"init", "add", "deinit", "set-branch", "set-url", "sync"}, op) || op == "update" && has("--init")
	}
	return false
}

// writesByDesign records a file the command writes by design (relative to
// each effective directory): a path word the gates see only for a call
// that runs confined (PathWord.ByDesign).
func (a *analyzer) writesByDesign(value string, sc *scope) {
	for _, d := range sc.dirs {
		a.addPath(PathWord{Raw: value, Value: value, Known: true, Dir: d, Write: true, ByDesign: true})
	}
}
