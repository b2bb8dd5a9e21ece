package main

import (
	"fmt"
	"io"
	"os"

	"github.com/toolgate/toolgate/author"
	"github.com/toolgate/toolgate/hook/audit"
)

// readAuditLog reads the recorded calls of the audit log at path for the
// tools that learn from one (replay, suggest, test --from-audit). Only a
// log toolgate wrote, whose chain holds, is read: a file that is not one
// (or no file at all), or one edited since, is an error that says so
// (exit 2), never "0 calls"; an empty file is a log without records. A log whose tail its head file says was cut
// off is read, with a note on stderr.
func readAuditLog(cmd, path string, stderr io.Writer) ([]author.Recorded, bool) {
	fail := func(format string, args ...any) ([]author.Recorded, bool) {
		fmt.Fprintf(stderr, "toolgate %s: %s: %s\n", cmd, path, fmt.Sprintf(format, args...))
		return nil, false
	}
	info, err := os.Stat(path)
	if err != nil {
		return fail("cannot read it: %v", err)
	}
	if !info.Mode().IsRegular() {
		return fail("not a regular file (%s), so not an audit log", info.Mode().Type())
	}
	rep, err := audit.VerifyFile(path)
	switch {
	case err != nil:
		return fail("cannot read it: %v", err)
	case rep.Problem != nil && rep.Records == 0 && !audit.IsChainProblem(rep.Problem):
		return fail("not an audit log toolgate wrote (line %d: %s)", rep.Problem.Line, rep.Problem.Message)
	case rep.Problem != nil:
		return fail("its chain is broken at line %d: %s (%d records before it verified; see toolgate audit verify %s)",
			rep.Problem.Line, rep.Problem.Message, rep.Records, path)
	case rep.HeadProblem != "":
		fmt.Fprintf(stderr, "toolgate %s: note: %s: %s\n", cmd, path, rep.HeadProblem)
	}
	f, err := os.Open(path)
	if err != nil {
		return fail("cannot read it: %v", err)
	}
	defer f.Close()
	recs, err := author.ReadRecorded(f)
	if err != nil {
		return fail("cannot read it: %v", err)
	}
	return recs, true
}
