package policy

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// A project's policy files come with the repository, so they are trusted
// to loosen anything only once the person has trusted their exact content
// the trust store, a global file that no project can name,
// records each trusted file's project root, its path in the root, its real
// path and the SHA-256 of the bytes toolgate parsed. An edit untrusts it.

// TrustStorePath is the trust store: configHome/toolgate/trusted.json,
// configHome defaulting to home/.config.
func TrustStorePath(configHome, home string) string {
	if configHome == "" {
		configHome = filepath.Join(home, ".config")
	}
	return filepath.Join(configHome, "toolgate", "trusted.json")
}

// TrustEntry is one trusted project file.
type TrustEntry struct {
	// Root is the project root's real path.
	Root string `json:"root"`
	// Path is the file's path inside Root, slash-separated.
	Path string `json:"path"`
	// RealPath is the file's real path (Root joined with Path: a file
	// reached through a symbolic link is never trusted).
	RealPath string `json:"realPath"`
	// SHA256 is the hex SHA-256 of the file's exact bytes.
	SHA256 string `json:"sha256"`
	// TrustedAt is when the person trusted it (RFC 3339), for --list.
	TrustedAt string `json:"trustedAt,omitempty"`
}

// TrustStore is the content of the trust store.
type TrustStore struct {
	Version int          `json:"version"`
	Files   []TrustEntry `json:"files"`
}

// ParseTrustStore reads the trust store's text; an error names what is
// wrong (a broken store trusts nothing).
func ParseTrustStore(data []byte) (*TrustStore, error) {
	var t TrustStore
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&t); err != nil {
		return nil, fmt.Errorf("the trust store is not valid: %v", err)
	}
	if t.Version != 1 {
		return nil, fmt.Errorf("the trust store has version %d (want 1)", t.Version)
	}
	for i, e := range t.Files {
		if !filepath.IsAbs(e.Root) || !filepath.IsAbs(e.RealPath) || e.Path == "" || len(e.SHA256) != 64 {
			return nil, fmt.Errorf("the trust store's entry %d is incomplete (root, path, realPath and sha256 are required)", i+1)
		}
	}
	return &t, nil
}

// Trusts reports whether the store trusts the file rel of the project
// root (a real path) whose real path is real and whose bytes hash to sum.
func (t *TrustStore) Trusts(root, rel, real, sum string) bool {
	if t == nil {
		return false
	}
	for _, e := range t.Files {
		if e.Root == root && e.Path == rel && e.RealPath == real && e.SHA256 == sum {
			return true
		}
	}
	return false
}

// Trust records f (replacing what the store held for the same file).
func (t *TrustStore) Trust(f TrustEntry) {
	t.Version = 1
	out := t.Files[:0]
	for _, e := range t.Files {
		if !(e.Root == f.Root && e.Path == f.Path) {
			out = append(out, e)
		}
	}
	if f.TrustedAt == "" {
		f.TrustedAt = time.Now().UTC().Format(time.RFC3339)
	}
	t.Files = append(out, f)
}

// Revoke forgets every file of the project root; it returns how many.
func (t *TrustStore) Revoke(root string) int {
	out := t.Files[:0]
	n := 0
	for _, e := range t.Files {
		if e.Root == root {
			n++
			continue
		}
		out = append(out, e)
	}
	t.Files = out
	return n
}

// LoadTrustStore reads the store at path: an empty store when it does not
// exist, an error when it cannot be read or parsed (ReadFile's rules: a
// regular file of bounded size).
func LoadTrustStore(path string) (*TrustStore, error) {
	data, err := ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &TrustStore{Version: 1}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	t, err := ParseTrustStore(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// SaveTrustStore writes t to path atomically (mode 0600, folders 0700).
func SaveTrustStore(path string, t *TrustStore) error {
	t.Version = 1
	if t.Files == nil {
		t.Files = []TrustEntry{}
	}
	data, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".trusted-*.json")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// ContentHash is the hex SHA-256 of data, as the trust store records it.
func ContentHash(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// ProjectFileIdentity is what the trust store matches of a project file:
// the project root's real path, the file's path in it, and its real path.
// ok is false when the file can never be trusted: it is a symbolic link,
// or its real path is not the root's real path joined with its path in the
// root (a link on the way, or outside the project).
func ProjectFileIdentity(cwd, path string) (root, rel, real string, ok bool) {
	root, err := filepath.EvalSymlinks(cwd)
	if err != nil {
		return "", "", "", false
	}
	r, err := filepath.Rel(cwd, path)
	if err != nil || r == ".." || strings.HasPrefix(r, "../") {
		return "", "", "", false
	}
	rel = filepath.ToSlash(r)
	if info, err := os.Lstat(path); err != nil || info.Mode()&fs.ModeSymlink != 0 {
		return root, rel, "", false
	}
	real, err = filepath.EvalSymlinks(path)
	if err != nil || real != filepath.Join(root, r) {
		return root, rel, real, false
	}
	return root, rel, real, true
}
