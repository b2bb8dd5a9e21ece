// Package integration_test is the outside view of toolgate: it builds the
// binary and replays the transcripts under testdata/ against it, with the
// semantics of the transcript format (README.md) and the project's reference runner
// (its copy of the format and the runner sit outside the repository).
package integration_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
)

const (
	testdataDir = "testdata"
	skipFile    = "testdata/SKIP"
	// maxParallel bounds the transcripts that run at once, so CI's two cores
	// are not overloaded and timing-sensitive steps keep their margins.
	maxParallel = 4
	// binEnv names a prebuilt plugin binary to test instead of building one.
	binEnv = "TOOLGATE_IT_BIN"
)

// The plugin binary under test, built once by TestMain. A build failure is
// kept, not fatal, so that the tests that do not need the binary still run;
// TestTranscripts fails with it.
var (
	pluginBin string
	buildErr  error
)

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	if bin := os.Getenv(binEnv); bin != "" {
		pluginBin, buildErr = filepath.Abs(bin)
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "toolgate-it-bin-")
	if err != nil {
		buildErr = err
		return m.Run()
	}
	defer os.RemoveAll(dir)
	pluginBin, buildErr = buildPlugin(dir)
	return m.Run()
}

// buildPlugin builds the module's main package (the repository root, one
// directory up from this package) into dir.
func buildPlugin(dir string) (string, error) {
	root, err := filepath.Abs("..")
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		return "", fmt.Errorf("module root not found beside the test package: %v", err)
	}
	bin := filepath.Join(dir, "toolgate")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	cmd := exec.Command("go", "build", "-o", bin, "github.com/toolgate/toolgate")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0") // static, as the README builds it
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build -o %s github.com/toolgate/toolgate (in %s): %v\n%s", bin, root, err, out)
	}
	return bin, nil
}

// recordBuildInputs makes go test's result cache depend on what the binary
// is built from. The cache key covers the environment variables and files the
// test process reads while tests run (not in TestMain before m.Run, and not
// the compiler's reads in the go build child), so without this a change to
// the plugin's code could be answered with a stale cached "ok".
func recordBuildInputs() {
	if bin := os.Getenv(binEnv); bin != "" {
		_, _ = os.Stat(bin)
		return
	}
	root, err := filepath.Abs("..")
	if err != nil {
		return
	}
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		_, _ = os.Stat(p)
		return nil
	})
}

// TestTranscripts replays every testdata/**/*.jsonl as a subtest named by
// its path relative to testdata/.
func TestTranscripts(t *testing.T) {
	recordBuildInputs()
	files, err := findTranscripts(testdataDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no transcripts under %s", testdataDir)
	}
	skips, err := readSkipFile(skipFile)
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, f := range files {
		known[f] = true
	}
	for _, s := range skips {
		if !known[s.path] {
			t.Errorf("%s:%d: %s is not a transcript under %s (stale entry?)", skipFile, s.line, s.path, testdataDir)
		}
	}
	if buildErr != nil {
		t.Fatalf("cannot build the plugin:\n%v", buildErr)
	}
	sem := make(chan struct{}, maxParallel)
	for _, rel := range files {
		t.Run(rel, func(t *testing.T) {
			if s, ok := skips[rel]; ok {
				t.Skipf("listed in %s: %s", skipFile, s.reason)
			}
			t.Parallel()
			sem <- struct{}{}
			defer func() { <-sem }()
			file := filepath.Join(testdataDir, filepath.FromSlash(rel))
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if err := replay(pluginBin, filepath.ToSlash(file), data); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// findTranscripts lists *.jsonl under dir, recursively, as slash-separated
// paths relative to dir, sorted.
func findTranscripts(dir string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(d.Name(), ".jsonl") {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		files = append(files, filepath.ToSlash(rel))
		return nil
	})
	sort.Strings(files)
	return files, err
}

type skipEntry struct {
	path, reason string
	line         int
}

// readSkipFile reads testdata/SKIP: "relative/path.jsonl: reason" per line,
// # comments and blank lines ignored. A missing file skips nothing.
func readSkipFile(path string) (map[string]skipEntry, error) {
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return map[string]skipEntry{}, nil
	}
	if err != nil {
		return nil, err
	}
	return parseSkips(path, data)
}

func parseSkips(name string, data []byte) (map[string]skipEntry, error) {
	skips := map[string]skipEntry{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.Index(line, ".jsonl:")
		if i < 0 {
			return nil, fmt.Errorf("%s:%d: want \"relative/path.jsonl: reason\", got %q", name, n, line)
		}
		e := skipEntry{path: strings.TrimSpace(line[:i+len(".jsonl")]), reason: strings.TrimSpace(line[i+len(".jsonl:"):]), line: n}
		if e.reason == "" {
			return nil, fmt.Errorf("%s:%d: %s has no reason", name, n, e.path)
		}
		if _, dup := skips[e.path]; dup {
			return nil, fmt.Errorf("%s:%d: %s is listed twice", name, n, e.path)
		}
		skips[e.path] = e
	}
	return skips, sc.Err()
}

// TestConformanceCopyInSync checks that testdata/conformance/ is a
// byte-identical copy of a conformance suite kept elsewhere, named by
// TOOLGATE_CONFORMANCE_SUITE (its folder); without it there is nothing to
// compare, and the test says so.
func TestConformanceCopyInSync(t *testing.T) {
	shared := os.Getenv("TOOLGATE_CONFORMANCE_SUITE")
	if shared == "" {
		t.Skip("TOOLGATE_CONFORMANCE_SUITE names no conformance suite to compare testdata/conformance/ with")
	}
	local := filepath.Join(testdataDir, "conformance")
	if fi, err := os.Stat(shared); err != nil || !fi.IsDir() {
		t.Fatalf("TOOLGATE_CONFORMANCE_SUITE=%s: not a folder (%v)", shared, err)
	}
	sharedFiles, err := listFiles(shared)
	if err != nil {
		t.Fatal(err)
	}
	if len(sharedFiles) == 0 {
		t.Fatalf("%s holds no files", shared)
	}
	for _, rel := range sharedFiles {
		want, err := os.ReadFile(filepath.Join(shared, rel))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(local, rel))
		if err != nil {
			t.Errorf("%s: missing from %s (copy it from %s)", rel, local, shared)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: %s differs from %s (copy it again)", rel, filepath.Join(local, rel), filepath.Join(shared, rel))
		}
	}
	localFiles, err := listFiles(local)
	if err != nil {
		t.Fatal(err)
	}
	inShared := map[string]bool{}
	for _, rel := range sharedFiles {
		inShared[rel] = true
	}
	for _, rel := range localFiles {
		if !inShared[rel] {
			t.Errorf("%s: in %s but not in %s (removed upstream? own transcripts belong elsewhere under %s)", rel, local, shared, testdataDir)
		}
	}
}

// listFiles lists the regular files under dir as paths relative to it.
func listFiles(dir string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		files = append(files, rel)
		return err
	})
	return files, err
}
