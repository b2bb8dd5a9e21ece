package gates

import (
	"fmt"
	"strings"

	"github.com/toolgate/toolgate/policy"
	"github.com/toolgate/toolgate/verdict"
)

// InputGates are the gates of an input event.
var InputGates = []Gate{{verdict.GateSkillInput, SkillInput}}

// SkillName returns the skill a "/skill:NAME …" input invokes, if any.
func SkillName(text string) (string, bool) {
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, "/skill:") {
		return "", false
	}
	name := strings.TrimPrefix(t, "/skill:")
	if i := strings.IndexFunc(name, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' }); i >= 0 {
		name = name[:i]
	}
	return name, name != ""
}

// SkillInput checks a "/skill:NAME" input on the skill surface (the design,
// the original extension's behavior). The text is in Input["text"]. Skills get no session option.
func SkillInput(c *Call, r Resolver) Outcome {
	text, _ := c.Input["text"].(string)
	name, ok := SkillName(text)
	if !ok {
		return Outcome{Gate: verdict.GateSkillInput, Note: "not a skill invocation"}
	}
	res := r.Resolve(policy.Query{Surface: "skill", Values: []string{name}})
	o := checked(verdict.GateSkillInput, "skill", name, res)
	fillTexts(&o.D, c.AgentName, "skill "+quote(name), "", "Allow loading this skill?")
	if o.D.State != policy.Allow {
		o.D.Prompt.Message = VisibleText(fmt.Sprintf("The input invokes skill %s. It is asked by %s.\nAllow loading this skill?", quote(name), ruleRef(&o.D)))
	}
	return o
}
