// Package piextension_test runs the pi extension bridge's end-to-end suite
// from `go test ./...`: Node's test runner drives the real pi CLI (the
// pinned dev dependency in package-lock.json) with the bridge loaded, against
// a toolgate binary built from this checkout. See README.md.
package piextension_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/toolgate/toolgate/examples/internal/hoste2e"
)

const (
	// npmCITimeout bounds installing pi (10-25 s on two cores).
	npmCITimeout = 5 * time.Minute
	// suiteTimeout bounds the Node suite (15-25 s on two cores).
	suiteTimeout = 3 * time.Minute
	// pi 0.73.1's engines requirement: node >= 20.6.
	minNodeMajor, minNodeMinor = 20, 6
)

func TestPiExtensionE2E(t *testing.T) {
	node, npm := hoste2e.RequireNode(t, minNodeMajor, minNodeMinor)

	dir, err := os.Getwd() // go test runs in the package directory
	if err != nil {
		t.Fatal(err)
	}
	root := hoste2e.ModuleRoot(t)
	hoste2e.RecordInputs(t, root)
	bin := filepath.Join(hoste2e.BuildToolgate(t, root), "toolgate")
	installPi(t, dir, npm)

	ctx, cancel := context.WithTimeout(t.Context(), suiteTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "--test", "test/")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TOOLGATE_BIN="+bin)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr // streamed: node's own TAP summary
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("node --test test/ (in %s) failed after %s: %v", dir, time.Since(start).Round(time.Millisecond), err)
	}
	t.Logf("node --test test/ passed in %s", time.Since(start).Round(time.Millisecond))
}

// installPi runs `npm ci` unless node_modules is already installed from the
// current package-lock.json (npm records what it installed in
// node_modules/.package-lock.json).
func installPi(t *testing.T, dir, npm string) {
	t.Helper()
	if upToDate(dir) {
		return
	}
	ctx, cancel := context.WithTimeout(t.Context(), npmCITimeout)
	defer cancel()
	// pi needs neither install scripts nor its optional dependencies (native
	// clipboard and FFI helpers of the interactive UI) in json or rpc mode;
	// --prefer-offline reuses npm's cache without asking the registry again.
	cmd := exec.CommandContext(ctx, npm, "ci", "--ignore-scripts", "--omit=optional", "--prefer-offline", "--no-audit", "--no-fund")
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("npm ci (in %s): %v", dir, err)
	}
	t.Logf("npm ci took %s", time.Since(start).Round(time.Millisecond))
}

func upToDate(dir string) bool {
	installed, err := os.Stat(filepath.Join(dir, "node_modules", ".package-lock.json"))
	if err != nil {
		return false
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@mariozechner", "pi-coding-agent", "dist", "cli.js")); err != nil {
		return false
	}
	for _, f := range []string{"package.json", "package-lock.json"} {
		fi, err := os.Stat(filepath.Join(dir, f))
		if err != nil || fi.ModTime().After(installed.ModTime()) {
			return false
		}
	}
	return true
}
