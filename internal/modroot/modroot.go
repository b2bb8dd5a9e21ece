// Package modroot finds the repository a command is run from, for the
// commands that build toolgate from its source (the demo, the end-to-end
// benchmark).
package modroot

import (
	"errors"
	"os"
	"path/filepath"
)

// Find returns the nearest directory at or above the working directory
// that holds go.mod.
func Find() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("go.mod not found: run this from inside the toolgate checkout")
		}
		dir = parent
	}
}
