package audit

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rs/zerolog"
)

func appendN(t *testing.T, l *Log, n int, tag string) {
	t.Helper()
	for i := 0; i < n; i++ {
		if err := l.Append("decision", func(e *zerolog.Event) { e.Str("toolCallId", tag).Int("i", i) }); err != nil {
			t.Fatal(err)
		}
	}
}

func verifyFile(t *testing.T, path string) (int, *Problem) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return Verify(bytes.NewReader(data))
}

func TestChainVerifiesAndContinuesAcrossOpens(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b", "audit.jsonl")
	l, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	appendN(t, l, 3, "first")
	l.Close()
	info, err := os.Stat(filepath.Dir(path))
	if err != nil || info.Mode().Perm() != 0o700 {
		t.Fatalf("parent dir mode = %v, %v; want 0700", info.Mode().Perm(), err)
	}
	l2, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	appendN(t, l2, 2, "second")
	l2.Close()
	n, p := verifyFile(t, path)
	if p != nil || n != 5 {
		t.Fatalf("verify = %d, %v; want 5 records, no problem", n, p)
	}
	lines := strings.Split(strings.TrimSpace(readFile(t, path)), "\n")
	if !strings.Contains(lines[0], `"seq":1`) || !strings.Contains(lines[0], `"prev":"`+Genesis+`"`) {
		t.Fatalf("first record: %s", lines[0])
	}
	if !strings.HasSuffix(lines[4], `"}`) || !strings.Contains(lines[4], `"seq":5`) {
		t.Fatalf("last record: %s", lines[4])
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestVerifyFindsTampering(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	appendN(t, l, 4, "x")
	l.Close()
	lines := strings.Split(strings.TrimSpace(readFile(t, path)), "\n")
	cases := map[string]struct {
		lines []string
		line  int
	}{
		"edited":         {[]string{lines[0], strings.Replace(lines[1], `"i":1`, `"i":9`, 1), lines[2], lines[3]}, 2},
		"deleted":        {[]string{lines[0], lines[2], lines[3]}, 2},
		"reordered":      {[]string{lines[0], lines[2], lines[1], lines[3]}, 2},
		"truncated head": {[]string{lines[1], lines[2], lines[3]}, 1},
		"hash moved":     {[]string{lines[0], strings.Replace(lines[1], `"toolCallId":"x"`, `"toolCallId":"x","hash":"`+strings.Repeat("1", 64)+`"`, 1), lines[2]}, 2},
		"garbage":        {[]string{lines[0], "not json", lines[2]}, 2},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			n, p := Verify(strings.NewReader(strings.Join(tc.lines, "\n") + "\n"))
			if p == nil || p.Line != tc.line {
				t.Fatalf("problem = %v after %d records, want one at line %d", p, n, tc.line)
			}
		})
	}
	if n, p := Verify(strings.NewReader(strings.Join(lines, "\n") + "\n")); p != nil || n != 4 {
		t.Fatalf("the untouched log fails: %d, %v", n, p)
	}
}

func TestTwoWritersKeepOneChain(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	a, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for _, l := range []*Log{a, b} {
		wg.Add(1)
		go func(l *Log) {
			defer wg.Done()
			appendN(t, l, 50, "w")
		}(l)
	}
	wg.Wait()
	a.Close()
	b.Close()
	if n, p := verifyFile(t, path); p != nil || n != 100 {
		t.Fatalf("verify = %d, %v; want 100 records", n, p)
	}
}

func TestUnwritableLogFailsEveryAppend(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := Open(filepath.Join(blocker, "audit.jsonl")) // a file where a directory should be
	if err == nil {
		t.Fatal("Open succeeded under a regular file")
	}
	if aerr := l.Append("decision", nil); aerr == nil || !strings.Contains(aerr.Error(), blocker) {
		t.Fatalf("Append = %v, want an error naming the path", aerr)
	}
}

func TestOpenRefusesABrokenTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	if err := os.WriteFile(path, []byte("{\"x\":1}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path); err == nil {
		t.Fatal("a log that does not end with a chained record was continued")
	}
}
