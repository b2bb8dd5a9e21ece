package sandbox

import (
	"os"
	"testing"
)

// TestMain lets the test binary be its own confining stage, as toolgate is.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == StageArg {
		StageMain()
	}
	os.Exit(m.Run())
}
