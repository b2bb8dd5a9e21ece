package author

import (
	"fmt"
	"os"

	"github.com/toolgate/toolgate/hook/audit"
)

// ReadAuditLog reads the recorded calls of the audit log at path for the
// tools that learn from one (replay, suggest, test --from-audit). Only a
// log toolgate wrote, whose chain holds, is read: a file that is not one
// (or no file at all), or one edited since, is an error that says so,
// never "0 calls"; an empty file is a log without records. A log whose
// tail its head file says was cut off is read, and note says so.
func ReadAuditLog(path string) (recs []Recorded, note string, err error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, "", fmt.Errorf("cannot read it: %v", err)
	}
	if !info.Mode().IsRegular() {
		return nil, "", fmt.Errorf("not a regular file (%s), so not an audit log", info.Mode().Type())
	}
	rep, err := audit.VerifyFile(path)
	switch {
	case err != nil:
		return nil, "", fmt.Errorf("cannot read it: %v", err)
	case rep.Problem != nil && rep.Records == 0 && !audit.IsChainProblem(rep.Problem):
		return nil, "", fmt.Errorf("not an audit log toolgate wrote (line %d: %s)", rep.Problem.Line, rep.Problem.Message)
	case rep.Problem != nil:
		return nil, "", fmt.Errorf("its chain is broken at line %d: %s (%d records before it verified; see toolgate audit verify %s)",
			rep.Problem.Line, rep.Problem.Message, rep.Records, path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, "", fmt.Errorf("cannot read it: %v", err)
	}
	defer f.Close()
	if recs, err = ReadRecorded(f); err != nil {
		return nil, "", fmt.Errorf("cannot read it: %v", err)
	}
	return recs, rep.HeadProblem, nil
}
