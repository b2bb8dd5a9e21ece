package shell

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// corpusCommands are the bash commands of e2ebench's corpus (its -distinct
// mode adds "; echo n" to each).
var corpusCommands = []string{
	"git status",
	"cd web && npm run lint -- --fix",
	`for f in src/*.ts; do wc -l "$f"; done`,
	"tar czf /tmp/b.tgz src",
	"cat ~/.ssh/config",
	"git log --oneline -n 20 | head -5",
	"npm test 2>&1 | tail -20",
	"ls -la src > /tmp/listing.txt",
	`grep -rn "TODO" src | wc -l`,
	"git diff --stat HEAD~1",
	"make build && ./scripts/release.sh",
	"echo done",
}

// corpusSandbox is e2ebench's project layout: the work directory and home.
func corpusSandbox(b *testing.B) (work, home string) {
	dir := b.TempDir()
	home, work = filepath.Join(dir, "home"), filepath.Join(dir, "work")
	for _, p := range []string{
		filepath.Join(home, ".ssh", "config"),
		filepath.Join(work, "src", "index.ts"),
		filepath.Join(work, "src", "util.ts"),
		filepath.Join(work, "web", "package.json"),
		filepath.Join(work, "README.md"),
		filepath.Join(work, ".env"),
		filepath.Join(work, "docs", "guide", "a.md"),
		filepath.Join(work, "scripts", "release.sh"),
		filepath.Join(work, "test", "util.test.ts"),
		filepath.Join(work, "node_modules", ".keep"),
		filepath.Join(work, "build", "out", "app.js"),
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x\n"), 0o600); err != nil {
			b.Fatal(err)
		}
	}
	return work, home
}

// BenchmarkAnalyzeCorpus is an uncached analysis (recorded, as Cache makes
// it) of each corpus command made distinct with "; echo n".
func BenchmarkAnalyzeCorpus(b *testing.B) {
	toolgateRuntime(b)
	work, home := corpusSandbox(b)
	opt := Options{Cwd: work, Home: home}
	for i, c := range corpusCommands {
		b.Run(strconv.Itoa(i), func(b *testing.B) {
			n := 0
			for b.Loop() {
				n++
				var reads []fsRead
				analyzeRecorded(c+"; echo "+strconv.Itoa(n), opt, &reads)
			}
		})
	}
}

// BenchmarkAnalyzeCorpusAll is the whole corpus per iteration.
func BenchmarkAnalyzeCorpusAll(b *testing.B) {
	toolgateRuntime(b)
	work, home := corpusSandbox(b)
	opt := Options{Cwd: work, Home: home}
	n := 0
	for b.Loop() {
		for _, c := range corpusCommands {
			n++
			var reads []fsRead
			analyzeRecorded(c+"; echo "+strconv.Itoa(n), opt, &reads)
		}
	}
}
