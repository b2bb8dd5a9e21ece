package shell

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

type tarEntry struct {
	name string
	typ  byte
	link string
}

func tarBytes(t *testing.T, entries ...tarEntry) []byte {
	t.Helper()
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Mode: 0o644, Typeflag: e.typ, Linkname: e.link}
		if e.typ == tar.TypeReg {
			h.Size = 3
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Size > 0 {
			_, _ = tw.Write([]byte("hi\n"))
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func zipBytes(t *testing.T, names ...string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, n := range names {
		if strings.HasPrefix(n, "@") { // a symbolic link
			h := &zip.FileHeader{Name: n[1:]}
			h.SetMode(os.ModeSymlink | 0o777)
			w, err := zw.CreateHeader(h)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = w.Write([]byte("/etc"))
			continue
		}
		w, err := zw.Create(n)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.Write([]byte("hi\n"))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func gzipped(t *testing.T, data []byte) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	_, _ = zw.Write(data)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func manyNames(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("f%d", i)
	}
	return out
}

func manyEntries(n int) []tarEntry {
	out := make([]tarEntry, n)
	for i, name := range manyNames(n) {
		out[i] = tarEntry{name: name, typ: tar.TypeReg}
	}
	return out
}

// TestListArchive: an archive's names are read from its own bytes; one
// with links, names that climb out or a kind the standard library cannot
// read is not listed.
func TestListArchive(t *testing.T) {
	dir := t.TempDir()
	reg := func(n string) tarEntry { return tarEntry{name: n, typ: tar.TypeReg} }
	cases := []struct {
		name  string
		data  []byte
		want  []string
		match bool
	}{
		{"plain tar", tarBytes(t, tarEntry{name: "src/", typ: tar.TypeDir}, reg("src/a.c"), reg("./README")), []string{"src", "src/a.c", "README"}, true},
		{"absolute names lose their slash", tarBytes(t, reg("/etc/x")), []string{"etc/x"}, true},
		{"gzip tar", gzipped(t, tarBytes(t, reg(".git/hooks/pre-commit"))), []string{".git/hooks/pre-commit"}, true},
		{"tar with a symlink", tarBytes(t, tarEntry{name: "l", typ: tar.TypeSymlink, link: ".git/hooks"}, reg("l/pre-commit")), nil, false},
		{"tar with a hard link", tarBytes(t, reg("a"), tarEntry{name: "b", typ: tar.TypeLink, link: "a"}), nil, false},
		{"tar climbing out", tarBytes(t, reg("../x")), nil, false},
		{"zip", zipBytes(t, "a/b.txt", ".envrc"), []string{"a/b.txt", ".envrc"}, true},
		{"zip with a symlink", zipBytes(t, "a", "@l"), nil, false},
		{"zip climbing out", zipBytes(t, "a/../../x"), nil, false},
		{"zip with more entries than are listed", zipBytes(t, manyNames(maxListedEntries+1)...), nil, false},
		{"tar with more entries than are listed", tarBytes(t, manyEntries(maxListedEntries+1)...), nil, false},
		{"not an archive", []byte("just text, long enough to be no tar header at all\n"), nil, false},
		{"empty", nil, nil, false},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, "a"+string(rune('0'+i)))
			if err := os.WriteFile(p, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			got, ok := listArchive(p)
			if ok != tc.match || !slices.Equal(got, tc.want) {
				t.Fatalf("listArchive = %q, %v; want %q, %v", got, ok, tc.want, tc.match)
			}
		})
	}
	t.Run("a FIFO is not opened", func(t *testing.T) {
		p := filepath.Join(dir, "fifo")
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Fatal(err)
		}
		if got, ok := listArchive(p); ok {
			t.Fatalf("listed a FIFO: %q", got)
		}
	})
}

// TestPatchNames: the names a patch touches, in every header it can have.
func TestPatchNames(t *testing.T) {
	cases := []struct {
		patch string
		want  []string
	}{
		{"--- a/x.c\t2024-01-01\n+++ b/x.c\t2024-01-01\n@@ -1 +1 @@\n-a\n+b\n", []string{"a/x.c", "b/x.c"}},
		{"diff --git a/old b/new\nsimilarity index 90%\nrename from old\nrename to .git/hooks/pre-commit\n", []string{"a/old", "b/new", ".git/hooks/pre-commit"}},
		{"*** orig/f\n--- new/f\n***************\n*** 1 ****\n", []string{"orig/f", "new/f"}},
		{"Index: lib/y.go\n===\n--- /dev/null\n+++ lib/y.go\n", []string{"lib/y.go", "lib/y.go"}},
		{"diff --git \"a/sp ace\" \"b/sp ace\"\n", []string{"\"a/sp", "ace\"", "\"b/sp", "ace\""}},
	}
	for _, tc := range cases {
		got, ok := patchNames(strings.NewReader(tc.patch))
		if !ok || !slices.Equal(got, tc.want) {
			t.Errorf("patchNames(%q) = %q, %v; want %q", tc.patch, got, ok, tc.want)
		}
	}
	if got, ok := patchNames(strings.NewReader("no patch here\n")); ok {
		t.Errorf("a text with no header listed %q", got)
	}
}

// unnamedSeeds are commands of every kind of unnamed write, seeds of
// FuzzAnalyze too.
var unnamedSeeds = []string{"tar xvzf a.tgz -C out --strip-components 2", "tar -xf - -C", "tar x",
	"bsdtar -xs ,a,b, -f a.tar", "unzip -d", "unzip a.zip -x b -d o", "cpio -D", "cpio -i --directory=o",
	"7z x", "7z e a.zip -o", "patch -p", "patch -d o -i", "patch --strip=x -i p", "git --work-tree",
	"git --work-tree= checkout", "git -C . --git-dir=x stash pop", "git checkout-index --prefix=",
	"git apply -p", "git am --directory", "cp -t", "cp -r a", "mv -T a b", "rsync -a", "rsync -a : x",
	"GIT_DIR=x git reset --hard", "cp -r $X .", "tar xf $A -C $B", "rsync -a x/ $D"}

// TestUnnamedWrites: per command, the path words it writes that its
// words do not name (Into marks a destination judged whole).
func TestUnnamedWrites(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	reg := func(n string) tarEntry { return tarEntry{name: n, typ: tar.TypeReg} }
	files := map[string][]byte{
		"x.tar":     tarBytes(t, reg("src/a.c"), reg("src/b.c")),
		"x.tgz":     gzipped(t, tarBytes(t, reg("pkg/.envrc"))),
		"x.zip":     zipBytes(t, "lib/z.go"),
		"x.patch":   []byte("--- a/src/a.c\n+++ b/src/a.c\n@@ -1 +1 @@\n-a\n+b\n"),
		"d/sub/f":   []byte("x"),
		"plain.txt": []byte("x"),
	}
	for n, data := range files {
		p := filepath.Join(dir, n)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		command string
		want    []string // Raw=Value, "+" for Into
	}{
		{"tar xf x.tar", []string{"src/a.c=src/a.c", "src/b.c=src/b.c"}},
		{"tar -x -f x.tar -C out", []string{"out/src/a.c=out/src/a.c", "out/src/b.c=out/src/b.c"}},
		{"tar --extract --file x.tar --strip-components=1", []string{"a.c=a.c", "b.c=b.c"}},
		{"tar -xzf x.tgz", []string{"pkg/.envrc=pkg/.envrc"}},
		{"tar xf - < x.tar", []string{"src/a.c=src/a.c", "src/b.c=src/b.c"}},
		{"tar xf missing.tar", []string{".=.+"}},
		{"tar xf x.tar --transform=s/src/.git/", []string{".=.+"}},
		{"tar xf x.tar -P", []string{".=.+"}},
		{"tar -C out -C sub -xf missing.tar", []string{"out=out+", "sub=sub+", "out/sub=out/sub+"}},
		{"tar cf y.tar src", nil},
		{"tar tvf x.tar", nil},
		{"tar xOf x.tar", nil},
		{"tar --to-stdout -xf x.tar", nil},
		{"jar xf x.zip", []string{"lib/z.go=lib/z.go"}},
		{"jar tf x.zip", nil},
		{"ar x lib.a", []string{".=.+"}},
		{"ar -xv lib.a", []string{".=.+"}},
		{"ar t lib.a", nil},
		{"ar p lib.a x.o", nil},
		{"unzip x.zip", []string{"lib/z.go=lib/z.go"}},
		{"unzip -j x.zip -d out", []string{"out/z.go=out/z.go"}},
		{"unzip x", []string{"lib/z.go=lib/z.go"}},
		{"unzip -p x.zip", nil},
		{"cpio -id < a.cpio", []string{".=.+"}},
		{"cpio -pdm out < list", []string{"out=out+"}},
		{"cpio -t < a.cpio", nil},
		{"7z x x.zip -oout", []string{"out/lib/z.go=out/lib/z.go"}},
		{"7z x a.7z", []string{".=.+"}},
		{"7z l a.7z", nil},
		{"patch -p1 < x.patch", []string{"src/a.c=src/a.c"}},
		{"patch -p0 -i x.patch -d out", []string{"out/a/src/a.c=out/a/src/a.c", "out/b/src/a.c=out/b/src/a.c"}},
		{"patch < x.patch", []string{"a.c=a.c", "a/src/a.c=a/src/a.c", "b/src/a.c=b/src/a.c", "src/a.c=src/a.c"}},
		{"patch plain.txt x.patch", nil},
		{"patch --dry-run -p1 < x.patch", nil},
		{"git apply x.patch", []string{"src/a.c=src/a.c"}},
		{"git apply --cached x.patch", nil},
		{"git apply --stat x.patch", nil},
		{"curl -s https://example.com/p | git apply", []string{".=.+"}},
		{"git am < x.patch", []string{"src/a.c=src/a.c"}},
		{"git --work-tree=out checkout HEAD -- .", []string{"out=out+"}},
		{"git --git-dir=other/.git reset --hard", []string{".=.+"}},
		{"git --work-tree=out status", nil},
		{"git --work-tree=out restore --staged x", nil},
		{"git --work-tree=out stash list", nil},
		{"GIT_WORK_TREE=out git checkout .", []string{"$GIT_WORK_TREE=+"}},
		{"GIT_WORK_TREE=out; git checkout .", []string{"$GIT_WORK_TREE=out+"}},
		{"export GIT_WORK_TREE=out; git checkout .", []string{"$GIT_WORK_TREE=+"}},
		{"GIT_DIR=x/.git; export GIT_DIR; git reset --hard", []string{"$GIT_DIR=+"}},
		{"GIT_DIR=x/.git; git reset --hard", []string{".=.+"}},
		{"git checkout-index -a --prefix=out/", []string{"out/=out/+"}},
		{"git checkout main", nil},
		{"cp -r d out", []string{"out/d=out/d+"}},
		{"cp -r d/. out", []string{"out=out+"}},
		{"cp -a d new", []string{"new=new+"}},
		{"cp plain.txt out", []string{"out/plain.txt=out/plain.txt"}},
		{"cp plain.txt new.txt", nil},
		{"mv d out", []string{"out/d=out/d+"}},
		{"rsync -a d/ out", []string{"out=out+"}},
		{"rsync -a d out", []string{"out/d=out/d+"}},
		{"rsync -a d/ host:out", nil},
		{"rsync -a host:d/ out", []string{"out=out+"}},
		{"rsync -n -a d/ out", nil},
	}
	for _, tc := range cases {
		t.Run(tc.command, func(t *testing.T) {
			var got []string
			for _, p := range Analyze(tc.command, Options{Cwd: dir, Home: "/nonexistent-home"}).Paths {
				if !p.Write || (!p.Into && strings.Contains(tc.command, p.Raw)) {
					continue // a word of the command itself
				}
				s := p.Raw + "=" + p.Value
				if p.Into {
					s += "+"
				}
				got = append(got, s)
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}
