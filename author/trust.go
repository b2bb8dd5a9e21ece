package author

import (
	"path/filepath"

	"github.com/toolgate/toolgate/policy"
)

// ProjectFiles are the project policy files of a session at loc (its Cwd),
// each with what it would loosen once trusted.
func ProjectFiles(loc policy.Locations) []policy.ProjectFile {
	return policy.NewOneShotLoader().ProjectFiles(loc)
}

// TrustFiles records the exact content of files as trusted in ts and saves
// it as the trust store at store.
func TrustFiles(store string, ts *policy.TrustStore, files []policy.ProjectFile) error {
	for _, f := range files {
		ts.Trust(policy.TrustEntry{Root: f.Root, Path: f.Rel, RealPath: f.Real, SHA256: f.SHA256})
	}
	return policy.SaveTrustStore(store, ts)
}

// Revoke forgets the trust of the project files of the folder dir in the
// trust store at store. root is the folder as the store names it (its
// real path), n the files forgotten.
func Revoke(store, dir string) (root string, n int, err error) {
	ts, err := policy.LoadTrustStore(store)
	if err != nil {
		return "", 0, err
	}
	if root, err = filepath.EvalSymlinks(dir); err != nil {
		root = dir
	}
	n = ts.Revoke(root)
	return root, n, policy.SaveTrustStore(store, ts)
}

// Trusted is one file of the trust store and its state now.
type Trusted struct {
	policy.TrustEntry
	// State is "as trusted", or why the file is not trusted any more.
	State string
}

// TrustList is the trust store at store, saying of each file whether it
// is still as it was trusted.
func TrustList(store string) ([]Trusted, error) {
	ts, err := policy.LoadTrustStore(store)
	if err != nil {
		return nil, err
	}
	out := make([]Trusted, 0, len(ts.Files))
	for _, e := range ts.Files {
		state := "as trusted"
		switch data, err := policy.ReadFile(e.RealPath); {
		case err != nil:
			state = "cannot be read: " + err.Error()
		case policy.ContentHash(data) != e.SHA256:
			state = "changed since: not trusted until trusted again"
		}
		out = append(out, Trusted{TrustEntry: e, State: state})
	}
	return out, nil
}
