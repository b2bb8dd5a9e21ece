package shell

import "strings"

// SuggestPattern returns the "allow for this session" pattern for a unit's
// text, from the arity table of the original extension's behavior: the command's meaningful prefix
// followed by " *" ("git status --short" → "git status *"; "npm run build"
// → "npm run build *", which also matches the bare prefix). A star is never
// glued to a word ("npm i*" would cover "npm install evil"). A single word
// is suggested as itself. An interpreter never gets "X *", which would
// cover any code given with -c or -e: it gets its script or module
// ("python3 -m pytest *", "node script.js *"), or, when there is none (code
// in an argument, on stdin, options first), exact is true and the unit is
// to be recorded as an exact rule.
func SuggestPattern(unitText string) (pattern string, exact bool) {
	text := stripComments(unitText)
	tokens := strings.Fields(text)
	switch len(tokens) {
	case 0:
		return "", false
	case 1:
		if interpreter(tokens[0]) != "" {
			return text, true
		}
		return tokens[0], false
	}
	n := min(arityOf(tokens), len(tokens))
	// An interpreter as the command or run by it ("uv run python -c …",
	// "npx tsx -e …", "bundle exec ruby …") decides the pattern.
	for i := 0; i < n; i++ {
		if kind := interpreter(tokens[i]); kind != "" {
			if p, ok := interpreterPattern(kind, tokens[i:]); ok {
				return strings.Join(append(tokens[:i:i], p), " "), false
			}
			return text, true
		}
	}
	return strings.Join(tokens[:n], " ") + " *", false
}

// RunsCode reports whether a unit runs code it is given (an interpreter
// or shell as its command): its arguments and input are code, not data.
func RunsCode(unitText string) bool {
	tokens := strings.Fields(stripComments(unitText))
	return len(tokens) > 0 && interpreter(tokens[0]) != ""
}

// interpreter classifies a command name (its base name) that runs code
// given to it: "python", "runtime" (deno, bun: subcommands), "code" (awk:
// the program is an argument) or "script" (the others); "" when it is not
// an interpreter.
func interpreter(name string) string {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	switch {
	case name == "python" || name == "pypy" || name == "pypy3" ||
		(strings.HasPrefix(name, "python") && strings.Trim(name[len("python"):], "0123456789.") == ""):
		return "python"
	}
	switch name {
	case "deno", "bun":
		return "runtime"
	case "awk", "gawk", "mawk", "nawk", "busybox":
		return "code"
	case "tsx", "ts-node", "zx", "esno", "vite-node", "node", "nodejs", "ruby", "perl", "php", "lua", "luajit", "Rscript", "tclsh", "osascript", "pwsh",
		"sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "csh", "tcsh", "ash", "elvish", "nu", "xonsh":
		return "script"
	}
	return ""
}

// evalWords are subcommands of a runtime that run code from an argument
// or from stdin.
var evalWords = map[string]bool{"eval": true, "repl": true, "x": true, "exec": true, "-": true}

// interpreterPattern is the session pattern for an interpreter that runs a
// named script or module; ok is false when the unit runs code that is not
// a file, or options come first (they may give code: -c, -e, --eval, -p,
// -r …), or it cannot tell. Words after the script are its own arguments.
func interpreterPattern(kind string, tokens []string) (string, bool) {
	if len(tokens) < 2 {
		return "", false // the bare interpreter reads its code from stdin
	}
	switch kind {
	case "code":
		return "", false
	case "runtime":
		// deno run x.ts, bun add zod, deno task build: the arity table's
		// prefix, which names the script, package or task; "bun x PKG"
		// runs whatever a registry serves, and options first hide what runs.
		n := min(arityOf(tokens), len(tokens))
		for _, t := range tokens[1:n] {
			if strings.HasPrefix(t, "-") || evalWords[t] || !scriptFile(t) && strings.ContainsAny(t, "*?[$`'\"\\(){};|&<>") {
				return "", false
			}
		}
		return strings.Join(tokens[:n], " ") + " *", true
	case "python":
		if len(tokens) >= 3 && tokens[1] == "-m" && moduleName(tokens[2]) {
			return strings.Join(tokens[:3], " ") + " *", true
		}
	}
	if !scriptFile(tokens[1]) {
		return "", false
	}
	return strings.Join(tokens[:2], " ") + " *", true
}

// scriptFile reports whether a word names a script file: a path or a name
// with a script extension, not an option, with no wildcard.
func scriptFile(w string) bool {
	if strings.HasPrefix(w, "-") || strings.ContainsAny(w, "*?[$`'\"\\(){};|&<>") {
		return false
	}
	if strings.Contains(w, "/") {
		return true
	}
	for _, ext := range []string{".py", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".tsx", ".jsx", ".rb", ".pl", ".pm",
		".php", ".lua", ".sh", ".bash", ".zsh", ".r", ".R", ".tcl", ".ps1", ".fish"} {
		if strings.HasSuffix(w, ext) && len(w) > len(ext) {
			return true
		}
	}
	return false
}

// moduleName reports whether a word is a dotted Python module name.
func moduleName(w string) bool {
	if w == "" || strings.HasPrefix(w, ".") || strings.HasSuffix(w, ".") {
		return false
	}
	for _, r := range w {
		if !(r == '_' || r == '.' || r == '-' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')) {
			return false
		}
	}
	return true
}

// stripComments drops full-line # comments and trims the rest.
func stripComments(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	kept := lines[:0]
	for _, l := range lines {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") {
			kept = append(kept, l)
		}
	}
	return strings.TrimSpace(strings.Join(kept, "\n"))
}

// arityOf looks the longest known prefix of tokens up in the arity table;
// unknown commands have arity 1.
func arityOf(tokens []string) int {
	for n := min(len(tokens), maxArityKey); n > 0; n-- {
		if a, ok := arity[strings.ToLower(strings.Join(tokens[:n], " "))]; ok {
			return a
		}
	}
	return 1
}

const maxArityKey = 2 // words in the longest key of the table

// arity is the number of tokens in a command's meaningful prefix (the original extension's behavior
// , v20 table).
var arity = map[string]int{
	// 1
	"make": 1, "ls": 1, "ll": 1, "la": 1, "cat": 1, "less": 1, "more": 1, "head": 1,
	"tail": 1, "grep": 1, "rg": 1, "ag": 1, "find": 1, "touch": 1, "mkdir": 1, "rm": 1,
	"cp": 1, "mv": 1, "ln": 1, "chmod": 1, "chown": 1, "du": 1, "df": 1, "echo": 1,
	"printf": 1, "diff": 1, "patch": 1, "wc": 1, "sort": 1, "uniq": 1, "awk": 1, "sed": 1,
	"tar": 1, "zip": 1, "unzip": 1, "curl": 1, "wget": 1, "ssh": 1, "scp": 1, "rsync": 1,
	"ping": 1, "kill": 1, "killall": 1, "pkill": 1,

	// 2
	"git": 2, "hg": 2, "svn": 2, "npm": 2, "npx": 2, "pnpm": 2, "yarn": 2, "bun": 2,
	"deno": 2, "pip": 2, "pip3": 2, "uv": 2, "cargo": 2, "go": 2, "bundle": 2,
	"docker": 2, "podman": 2, "kubectl": 2, "helm": 2, "gh": 2, "fly": 2, "vercel": 2,
	"wrangler": 2, "bazel": 2, "terraform": 2, "tofu": 2, "pulumi": 2, "systemctl": 2,
	"service": 2, "brew": 2, "apt": 2, "apt-get": 2, "yum": 2, "dnf": 2, "bun add": 2,

	// 3
	"npm run": 3, "npm exec": 3, "pnpm run": 3, "pnpm exec": 3, "pnpm dlx": 3,
	"yarn run": 3, "bun run": 3, "bun x": 3, "deno run": 3, "deno task": 3,
	"deno compile": 3, "uv run": 3, "uv pip": 3, "go run": 3, "bundle exec": 3,
	"docker compose": 3, "docker container": 3, "docker image": 3, "docker network": 3,
	"docker volume": 3, "podman compose": 3, "aws": 3, "az": 3, "gcloud": 3,
	"gh pr": 3, "gh issue": 3, "gh repo": 3,
}
