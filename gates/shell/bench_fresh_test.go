package shell

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/toolgate/toolgate/internal/e2ecorpus"
)

// BenchmarkAnalyzeFresh is an uncached analysis (recorded, as Cache makes
// it) of the bash commands of the fresh corpus (e2ecorpus.FreshCall), in
// its project layout: no command repeats an earlier one.
func BenchmarkAnalyzeFresh(b *testing.B) {
	toolgateRuntime(b)
	work, home := corpusSandbox(b)
	for p, c := range e2ecorpus.FreshFiles(work) {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o600); err != nil {
			b.Fatal(err)
		}
	}
	opt := Options{Cwd: work, Home: home}
	var commands []string
	for n := 0; len(commands) < 200+b.N; n++ {
		if c, ok := e2ecorpus.FreshCall(n)["input"].(map[string]any)["command"].(string); ok {
			commands = append(commands, c)
		}
	}
	for _, c := range commands[:200] {
		var reads []fsRead
		analyzeRecorded(c, opt, &reads)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for _, c := range commands[200:] {
		var reads []fsRead
		analyzeRecorded(c, opt, &reads)
	}
}
