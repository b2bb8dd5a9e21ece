package shell

import "testing"

func TestSuggestPattern(t *testing.T) {
	for _, tc := range []struct{ unit, want string }{
		// No glued stars: the bare prefix is matched by the trailing " *".
		{"npm i", "npm i *"},
		{"git status", "git status *"},
		// Interpreters record their script or module, never "X *".
		{"python3 -m pytest -q", "python3 -m pytest *"},
		{"python -m http.server 8000", "python -m http.server *"},
		{"/usr/bin/python3.12 tools/gen.py --all", "/usr/bin/python3.12 tools/gen.py *"},
		{"node script.js --watch", "node script.js *"},
		{"node ./build", "node ./build *"},
		{"ruby bin/rake test", "ruby bin/rake *"},
		{"bash ./configure.sh --prefix=/x", "bash ./configure.sh *"},
		{"deno run main.ts", "deno run main.ts *"},
		{"bun run build.ts --minify", "bun run build.ts *"},
		{"uv run python -m pytest -x", "uv run python -m pytest *"},
		{"npx tsx scripts/gen.ts", "npx tsx scripts/gen.ts *"},
		{"bundle exec ruby bin/x.rb a", "bundle exec ruby bin/x.rb *"},
		// Anchor §11.9 #118 and #119.
		{"git status --short", "git status *"},
		{"npm run build", "npm run build *"},
		{"ls", "ls"},
		{"  git log  ", "git log *"},
		{"rm -rf node_modules", "rm *"},
		{"docker compose up --build", "docker compose up *"},
		{"# description\nrm -rf ./build; echo done", "rm *"},
		// Anchor §5.5 and conformance 26.

		{"git checkout main", "git checkout *"},
		{"mytool --verbose run", "mytool *"},
		{"git commit -m wip", "git commit *"},
		// Arity table rows of each length.
		{"make test", "make *"},
		{"cat a b", "cat *"},
		{"npm install left-pad", "npm install *"},
		{"npx tsc --noEmit", "npx tsc *"},
		{"bun add zod", "bun add *"},
		{"bun add", "bun add *"},
		{"pnpm dlx create-vite app", "pnpm dlx create-vite *"},
		{"go run ./cmd/x -v", "go run ./cmd/x *"},
		{"go test ./...", "go test *"},
		{"go vet", "go vet *"},
		{"uv pip install x", "uv pip install *"},
		{"aws s3 ls s3://b", "aws s3 ls *"},
		{"aws s3 ls", "aws s3 ls *"},
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
		if got, exact := SuggestPattern(tc.unit); got != tc.want || exact {
			t.Errorf("SuggestPattern(%q) = %q (exact %t), want %q", tc.unit, got, exact, tc.want)
		}
	}
}

// An interpreter whose code is not a named file (given with -c/-e, on
// stdin, after options, or a bare interpreter) is recorded exactly.
func TestSuggestPatternInterpretersExact(t *testing.T) {
	for _, unit := range []string{
		"python3 -c print(1)", "python3", "python -", "python3 -u -c x", "python3 -W ignore x.py",
		"node -e require('child_process')", "node --eval x", "node -p 1", "node", "nodejs -e x",
		"ruby -e x", "perl -e system", "perl -E say", "php -r x", "lua -e x", "deno eval x", "bun -e x",
		"bun x cowsay", "sh -c rm", "bash -c x", "zsh -c x", "dash -s", "awk {print} f", "gawk -f p.awk",
		"python3 my script.py", "node $(x).js", "python3 -m", "python3 -m .rel", "Rscript -e x",
		"uv run python -c x", "npx tsx -e x", "npx node -e x", "bundle exec ruby -e x", "pnpm dlx zx -e x", "uv run python", "npx node",
	} {
		got, exact := SuggestPattern(unit)
		if !exact || got != unit {
			t.Errorf("SuggestPattern(%q) = %q (exact %t), want the unit exactly", unit, got, exact)
		}
	}
}
