package shell

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
)

// Listing an archive or a patch before the command runs (writes
// the command line does not name): only the archive's own bytes are read,
// within a size and entry budget, and nothing it names is looked up on the
// disk. An archive that cannot be listed so (compressed in a way the
// standard library cannot read, too large, with links or names that climb
// out, unreadable) has no list, and its destination is judged as a whole.
const (
	maxListedEntries = 4096    // names of one archive or patch
	maxTarBytes      = 2 << 20 // bytes of a compressed tar read to list it, and of a patch
	maxTarStream     = 16 << 20
	maxZipBytes      = 1 << 30 // only its directory is read, of at most maxListedEntries entries
)

var errUnlisted = errors.New("not listed")

// regularFile opens p when it is a regular file (following links): a
// FIFO or a device would block or never end.
func regularFile(p string) (*os.File, int64, error) {
	info, err := os.Stat(p)
	if err != nil {
		return nil, 0, err
	}
	if !info.Mode().IsRegular() {
		return nil, 0, errUnlisted
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, 0, err
	}
	return f, info.Size(), nil
}

// listArchive returns the names an archive file writes when extracted, in
// the archive's spelling (cleaned, no leading "/" or "./"); ok is false
// when they cannot be known cheaply and safely.
func listArchive(p string) (names []string, ok bool) {
	f, size, err := regularFile(p)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	var magic [6]byte
	n, _ := io.ReadFull(f, magic[:])
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, false
	}
	switch m := magic[:n]; {
	case bytes.HasPrefix(m, []byte("PK\x03\x04")) || bytes.HasPrefix(m, []byte("PK\x05\x06")):
		return listZip(f, size)
	case bytes.HasPrefix(m, []byte{0x1f, 0x8b}):
		if size > maxTarBytes {
			return nil, false
		}
		z, err := gzip.NewReader(io.LimitReader(f, maxTarBytes))
		if err != nil {
			return nil, false
		}
		return listTar(io.LimitReader(z, maxTarStream))
	case bytes.HasPrefix(m, []byte("BZh")):
		if size > maxTarBytes {
			return nil, false
		}
		return listTar(io.LimitReader(bzip2.NewReader(io.LimitReader(f, maxTarBytes)), maxTarStream))
	}
	// An uncompressed tar of any size: its headers are read, its data
	// skipped (tar.Reader seeks over it).
	return listTar(f)
}

func listTar(r io.Reader) ([]string, bool) {
	tr := tar.NewReader(r)
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return names, len(names) > 0
		}
		if err != nil || len(names) >= maxListedEntries {
			return nil, false
		}
		switch h.Typeflag {
		case tar.TypeReg, tar.TypeRegA, tar.TypeDir, tar.TypeGNUSparse:
		default:
			return nil, false // links, devices, FIFOs: what they write is not the name
		}
		name, ok := entryName(h.Name)
		if !ok {
			return nil, false
		}
		if name != "" {
			names = append(names, name)
		}
	}
}

func listZip(f *os.File, size int64) ([]string, bool) {
	if size > maxZipBytes || !fewZipEntries(f, size) {
		return nil, false
	}
	zr, err := zip.NewReader(f, size)
	if err != nil || len(zr.File) > maxListedEntries {
		return nil, false
	}
	names := make([]string, 0, len(zr.File))
	for _, e := range zr.File {
		if m := e.Mode(); m&fs.ModeSymlink != 0 || m&(fs.ModeDevice|fs.ModeNamedPipe|fs.ModeSocket) != 0 {
			return nil, false
		}
		name, ok := entryName(strings.ReplaceAll(e.Name, "\\", "/"))
		if !ok {
			return nil, false
		}
		if name != "" {
			names = append(names, name)
		}
	}
	return names, len(names) > 0
}

// fewZipEntries reads a zip's end of central directory record and
// reports whether it counts at most maxListedEntries entries, so that the
// directory is not parsed when it is large (a zip64 archive, whose count
// is elsewhere, is not listed).
func fewZipEntries(f *os.File, size int64) bool {
	const eocd = 22
	tail := int64(eocd + 65535) // the record and the longest comment
	if tail > size {
		tail = size
	}
	buf := make([]byte, tail)
	if _, err := f.ReadAt(buf, size-tail); err != nil && err != io.EOF {
		return false
	}
	i := bytes.LastIndex(buf, []byte("PK\x05\x06"))
	if i < 0 || len(buf)-i < eocd {
		return false
	}
	total := int(buf[i+10]) | int(buf[i+11])<<8
	return total != 0xffff && total <= maxListedEntries
}

// entryName cleans an archive member's name as an extractor places it
// under its destination: leading "/" and "./" go; a name with ".." or a
// control character is refused (ok false): where it lands depends on the
// extractor's options.
func entryName(name string) (string, bool) {
	if name == "" || strings.ContainsAny(name, "\x00\r\n") {
		return "", false
	}
	for _, part := range strings.Split(name, "/") {
		if part == ".." {
			return "", false
		}
	}
	clean := strings.TrimLeft(path.Clean("/"+name), "/")
	return clean, true
}

// listPatch returns the file names a patch names (old and new, as
// written, before any -p strip); ok is false when it names none or cannot
// be read within the budget.
func listPatch(p string) ([]string, bool) {
	f, size, err := regularFile(p)
	if err != nil || size > maxTarBytes {
		return nil, false
	}
	defer f.Close()
	return patchNames(io.LimitReader(f, maxTarBytes))
}

// patchNames reads the names of a unified, context or git patch (an mbox
// of them too): "--- a/x", "+++ b/x", "*** x", "Index: x", "diff --git
// a/x b/y", "rename to y", "copy to y".
func patchNames(r io.Reader) ([]string, bool) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	var names []string
	add := func(n string) bool {
		n = strings.TrimSpace(n)
		if i := strings.IndexByte(n, '\t'); i >= 0 {
			n = n[:i] // a timestamp follows a tab
		}
		if len(n) > 1 && n[0] == '"' && n[len(n)-1] == '"' {
			n = n[1 : len(n)-1] // git quotes names with unusual characters
		}
		if n == "" || n == "/dev/null" {
			return true
		}
		if len(names) >= maxListedEntries || strings.ContainsAny(n, "\x00\r") || strings.Contains(n, "\\") {
			return false
		}
		names = append(names, n)
		return true
	}
	ok := true
	for ok && sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "+++ "), strings.HasPrefix(line, "--- "):
			// A removed line "-- x" reads so too: one name more is
			// only more to check.
			ok = add(line[4:])
		case strings.HasPrefix(line, "*** ") && !strings.HasSuffix(line, " ****"):
			ok = add(line[4:])
		case strings.HasPrefix(line, "Index: "):
			ok = add(line[len("Index: "):])
		case strings.HasPrefix(line, "rename to "), strings.HasPrefix(line, "copy to "):
			_, n, _ := strings.Cut(line, " to ")
			ok = add(n)
		case strings.HasPrefix(line, "diff --git "):
			for _, n := range strings.Fields(line[len("diff --git "):]) {
				if ok = add(n); !ok {
					break
				}
			}
		}
	}
	if sc.Err() != nil || !ok {
		return nil, false
	}
	return names, len(names) > 0
}
