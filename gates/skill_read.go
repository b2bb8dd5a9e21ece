package gates

import (
	"fmt"
	"path/filepath"

	"github.com/toolgate/toolgate/gates/paths"
	"github.com/toolgate/toolgate/policy"
	"github.com/toolgate/toolgate/verdict"
)

// SkillRead checks a read of an active skill's SKILL.md, or of a file in its
// folder, on the skill surface with the skill's name. Both
// identities of the path are compared with the skill folder, so a symlink
// cannot hide a skill file.
func SkillRead(c *Call, r Resolver) Outcome {
	if c.ToolName != "read" || len(c.Skills) == 0 {
		return Outcome{Gate: verdict.GateSkillRead}
	}
	p, ok := toolPath(c)
	if !ok {
		return Outcome{Gate: verdict.GateSkillRead}
	}
	skill, found := matchSkill(c, p)
	if !found {
		return Outcome{Gate: verdict.GateSkillRead, Note: "not a skill file"}
	}
	res := r.Resolve(policy.Query{Surface: "skill", Values: []string{skill.Name}})
	o := checked(verdict.GateSkillRead, "skill", skill.Name, res)
	o.D.Forms = allForms(p)
	fillTexts(&o.D, c.AgentName, fmt.Sprintf("skill %s by reading %s%s", quote(skill.Name), quote(p.Input), resolvesTo(p)), "", "Allow this read?")
	return o
}

// matchSkill finds the skill whose SKILL.md is p or whose folder holds p;
// the longest folder wins.
func matchSkill(c *Call, p paths.Path) (verdict.Skill, bool) {
	var best verdict.Skill
	bestLen := -1
	var candidates []string
	for _, q := range withHost(p) {
		candidates = append(candidates, q.Abs)
		if q.Real != "" {
			candidates = append(candidates, q.Real)
		}
	}
	for _, s := range c.Skills {
		if s.Path == "" {
			continue
		}
		file := filepath.Clean(s.Path)
		dir := filepath.Dir(file)
		dirs := []string{dir}
		if real, ok := c.canonicalDir(dir); ok && real != dir {
			dirs = append(dirs, real)
		}
		for _, cand := range candidates {
			for _, d := range dirs {
				if (cand == file || paths.Within(cand, d)) && len(d) > bestLen {
					best, bestLen = s, len(d)
				}
			}
		}
	}
	return best, bestLen >= 0
}
