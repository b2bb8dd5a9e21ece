package shell

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/toolgate/toolgate/internal/e2ecorpus"
)

// corpusCommands are the bash commands of the end-to-end benchmark's
// corpus (its -distinct mode adds "; echo n" to each).
var corpusCommands = e2ecorpus.BashCommands()

// corpusSandbox is the end-to-end benchmark's project layout: the work
// directory and home.
func corpusSandbox(b *testing.B) (work, home string) {
	dir := b.TempDir()
	home, work = filepath.Join(dir, "home"), filepath.Join(dir, "work")
	for p, c := range e2ecorpus.Files(home, work) {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o600); err != nil {
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
