// Package piextension_test runs the pi extension bridge's end-to-end suite
// from `go test ./...`: Node's test runner drives the real pi CLI (the
// pinned dev dependency in package-lock.json) with the bridge loaded, against
// a toolgate binary built from this checkout. See README.md.
package piextension_test

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/toolgate/toolgate/examples/internal/hoste2e"
)

const (
	// suiteTimeout bounds the Node suite (15-25 s on two cores).
	suiteTimeout = 3 * time.Minute
	// pi 0.73.1's engines requirement: node >= 20.6.
	minNodeMajor, minNodeMinor = 20, 6
	// cliPath is pi's entry point in node_modules.
	cliPath = "node_modules/@mariozechner/pi-coding-agent/dist/cli.js"
)

func TestPiExtensionE2E(t *testing.T) {
	s := hoste2e.NewSuite(t, minNodeMajor, minNodeMinor)
	// pi needs neither install scripts nor its optional dependencies (native
	// clipboard and FFI helpers of the interactive UI) in json or rpc mode
	// (installing pi takes 10-25 s on two cores).
	hoste2e.NPMCIOmitOptional(t, s.Dir, s.NPM, cliPath)

	ctx, cancel := context.WithTimeout(t.Context(), suiteTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.Node, "--test", "test/")
	cmd.Dir = s.Dir
	cmd.Env = append(os.Environ(), "TOOLGATE_BIN="+s.Toolgate())
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr // streamed: node's own TAP summary
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("node --test test/ (in %s) failed after %s: %v", s.Dir, time.Since(start).Round(time.Millisecond), err)
	}
	t.Logf("node --test test/ passed in %s", time.Since(start).Round(time.Millisecond))
}
