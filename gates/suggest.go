package gates

import (
	"github.com/toolgate/toolgate/gates/shell"
	"github.com/toolgate/toolgate/policy"
	"github.com/toolgate/toolgate/verdict"
)

// UnitDecision is one command unit of a shell call decided on its own, with
// the pattern "allow for this session" records for it.
type UnitDecision struct {
	Unit    shell.Unit
	State   policy.Action
	Pattern verdict.SessionPattern
}

// ShellUnits decides every unit of c's shell command on its own, as the
// tool gate does before it keeps the most restrictive one; nil when the
// call has no shell command, or one that cannot be parsed or has no units.
// toolgate suggest uses it to learn a rule for each unit a person approved.
func ShellUnits(c *Call, r Resolver) []UnitDecision {
	if c.Shell == nil || c.Shell.Analysis.Unparseable {
		return nil
	}
	var out []UnitDecision
	for _, u := range c.Shell.Analysis.Units {
		o := bashUnit(c.Memo, u, r)
		d := UnitDecision{Unit: u, State: o.D.State}
		if len(o.D.SessionPatterns) > 0 {
			d.Pattern = o.D.SessionPatterns[0]
		}
		out = append(out, d)
	}
	return out
}
