package shell

import "testing"

func TestSuggestPattern(t *testing.T) {
	for _, tc := range []struct{ unit, want string }{
		// Anchor §11.9 #118 and #119.
		{"git status --short", "git status *"},
		{"npm run build", "npm run build*"},
		{"ls", "ls"},
		{"  git log  ", "git log*"},
		{"rm -rf node_modules", "rm *"},
		{"docker compose up --build", "docker compose up *"},
		{"# description\nrm -rf ./build; echo done", "rm *"},
		// Anchor §5.5 and conformance 26.
		{"git status", "git status*"},
		{"git checkout main", "git checkout *"},
		{"mytool --verbose run", "mytool *"},
		{"git commit -m wip", "git commit *"},
		// Arity table rows of each length.
		{"make test", "make *"},
		{"cat a b", "cat *"},
		{"npm install left-pad", "npm install *"},
		{"npx tsc --noEmit", "npx tsc *"},
		{"bun add zod", "bun add *"},
		{"bun add", "bun add*"},
		{"pnpm dlx create-vite app", "pnpm dlx create-vite *"},
		{"go run ./cmd/x -v", "go run ./cmd/x *"},
		{"go test ./...", "go test *"},
		{"go vet", "go vet*"},
		{"uv pip install x", "uv pip install *"},
		{"aws s3 ls s3://b", "aws s3 ls *"},
		{"aws s3 ls", "aws s3 ls*"},
		{"gh pr view 12", "gh pr view *"},
		{"kubectl get pods -A", "kubectl get *"},
		{"docker image prune -f", "docker image prune *"},
		{"terraform plan -out x", "terraform plan *"},
		{"apt-get install -y curl", "apt-get install *"},
		// Unknown commands have arity 1; keys are matched case-insensitively.
		{"mytool", "mytool"},
		{"mytool run", "mytool *"},
		{"GIT status --short", "GIT status *"},
		{"Npm Run build x", "Npm Run build *"},
		// Blank and comment-only text.
		{"", ""},
		{"   ", ""},
		{"# only a comment", ""},
		{"# a\n# b\nls -la", "ls *"},
		{"ls -la\n# trailing", "ls *"},
	} {
		if got := SuggestPattern(tc.unit); got != tc.want {
			t.Errorf("SuggestPattern(%q) = %q, want %q", tc.unit, got, tc.want)
		}
	}
}
