package policy

import "fmt"

// Action is a policy state. The zero value is not a valid action.
type Action int

// Actions in order of restrictiveness: a larger value is more restrictive.
const (
	Allow Action = iota + 1
	Ask
	Deny
)

// ParseAction reads "allow", "ask" or "deny".
func ParseAction(s string) (Action, error) {
	switch s {
	case "allow":
		return Allow, nil
	case "ask":
		return Ask, nil
	case "deny":
		return Deny, nil
	}
	return 0, fmt.Errorf("invalid state %q (want allow, ask or deny)", s)
}

func (a Action) String() string {
	switch a {
	case Allow:
		return "allow"
	case Ask:
		return "ask"
	case Deny:
		return "deny"
	}
	return "invalid"
}

// MoreRestrictive reports whether a is strictly more restrictive than b.
func (a Action) MoreRestrictive(b Action) bool { return a > b }
