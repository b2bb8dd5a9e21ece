package shell

import "strings"

// SuggestPattern returns the "allow for this session" pattern for a unit's
// text, from the arity table of anchor §5.5: the command's meaningful prefix
// followed by " *" ("git status --short" → "git status *"), or the whole
// text followed by "*" when the prefix is all of it ("npm run build" →
// "npm run build*"). A single word is suggested as itself.
func SuggestPattern(unitText string) string {
	text := stripComments(unitText)
	tokens := strings.Fields(text)
	switch len(tokens) {
	case 0:
		return ""
	case 1:
		return tokens[0]
	}
	n := min(arityOf(tokens), len(tokens))
	if n == len(tokens) {
		return text + "*"
	}
	return strings.Join(tokens[:n], " ") + " *"
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

// arity is the number of tokens in a command's meaningful prefix (anchor
// §5.5, v20 table).
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
