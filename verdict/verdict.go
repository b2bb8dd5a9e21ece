// Package verdict is the engine's own vocabulary: the gates' ids, the
// resolutions, actions and choices of a decision, and the shapes of a
// decision, its trace, a prompt and a session pattern. The gates and the
// runner decide in these terms and know no host; each host's adapter (the
// JSON-RPC protocol, Claude Code's and Gemini CLI's hook JSON, the OpenCode
// plugin) carries them in its own wire format. It imports nothing.
package verdict

// Gate ids, the same in decision.gate, trace and prompt.gate.
const (
	GateSkillRead             = "skill_read"
	GateExternalDirectory     = "external_directory"
	GateBashExternalDirectory = "bash_external_directory"
	GateBashPath              = "bash_path"
	GateTool                  = "tool"
	GateSkillInput            = "skill_input"
)

// Resolutions of a decision.
const (
	ResPolicyAllow             = "policy_allow"
	ResPolicyDeny              = "policy_deny"
	ResSessionApproved         = "session_approved"
	ResUserApproved            = "user_approved"
	ResUserApprovedForSession  = "user_approved_for_session"
	ResUserDenied              = "user_denied"
	ResConfirmationUnavailable = "confirmation_unavailable"
	ResPromptFailed            = "prompt_failed"
	ResAutoApproved            = "auto_approved"
	ResInfrastructureAutoAllow = "infrastructure_auto_allowed"
	ResGateError               = "gate_error"
	ResInvalidRequest          = "invalid_request"
)

// Actions of a tool_call / input result.
const (
	ActionAllow    = "allow"
	ActionBlock    = "block"
	ActionContinue = "continue"
)

// Prompt choices (also the option ids).
const (
	ChoiceAllowOnce      = "allow_once"
	ChoiceAllowSession   = "allow_session"
	ChoiceDeny           = "deny"
	ChoiceDenyWithReason = "deny_with_reason"
)

// Skill is an active skill: its name and the absolute path of its SKILL.md.
type Skill struct {
	Name string `json:"name"`
	Path string `json:"path"`
}

// Origin says where the deciding rule came from.
type Origin struct {
	Scope string `json:"scope"`
	Path  string `json:"path,omitempty"`
	Line  int    `json:"line,omitempty"`
}

// Decision is the deciding gate's outcome.
type Decision struct {
	Gate           string  `json:"gate"`
	Surface        string  `json:"surface,omitempty"`
	Value          string  `json:"value"`
	State          string  `json:"state"`
	Resolution     string  `json:"resolution,omitempty"`
	MatchedPattern *string `json:"matchedPattern,omitempty"`
	Origin         *Origin `json:"origin,omitempty"`
	Reason         string  `json:"reason,omitempty"`
}

// TraceEntry is one gate's line in the trace. Fields beyond Gate and
// Applied are informative.
type TraceEntry struct {
	Gate           string   `json:"gate"`
	Applied        bool     `json:"applied"`
	Surface        string   `json:"surface,omitempty"`
	Value          string   `json:"value,omitempty"`
	State          string   `json:"state,omitempty"`
	Resolution     string   `json:"resolution,omitempty"`
	MatchedPattern *string  `json:"matchedPattern,omitempty"`
	Origin         *Origin  `json:"origin,omitempty"`
	Command        string   `json:"command,omitempty"`
	Forms          []string `json:"forms,omitempty"`
	Note           string   `json:"note,omitempty"`
}

// ToolCallResult is the result of tool_call (and input, with "continue").
type ToolCallResult struct {
	Action   string       `json:"action"`
	Reason   string       `json:"reason,omitempty"`
	Decision *Decision    `json:"decision,omitempty"`
	Trace    []TraceEntry `json:"trace,omitempty"`
	// Confine is set on an allowed bash call that must run confined
	//, for a host that said at initialize it runs it: an addition to
	// docs/protocol.md.
	Confine *Confine `json:"confine,omitempty"`
}

// Confine is how a host runs an allowed bash call confined: Command in
// place of the model's command (toolgate sandbox with the profile the
// decision wrote and the model's text, base64-encoded).
type Confine struct {
	Command string `json:"command"`
}

// CheckResult is the result of check.
type CheckResult struct {
	State    string       `json:"state"`
	Decision *Decision    `json:"decision"`
	Trace    []TraceEntry `json:"trace"`
	// Reason is what a block (deny) would say, or what a prompt (ask)
	// would ask; absent for allow. An addition to docs/protocol.md.
	Reason string `json:"reason,omitempty"`
}

// PromptOption is one choice offered in a prompt.
type PromptOption struct {
	ID    string `json:"id"`
	Label string `json:"label"`
}

// SessionPattern is what allow_session would record.
type SessionPattern struct {
	Surface string `json:"surface"`
	Pattern string `json:"pattern"`
	Exact   bool   `json:"exact,omitempty"`
}

// PromptParams are the params of the plugin's prompt request.
type PromptParams struct {
	ToolCallID      string           `json:"toolCallId"`
	Gate            string           `json:"gate"`
	Surface         string           `json:"surface"`
	Value           string           `json:"value"`
	Title           string           `json:"title"`
	Message         string           `json:"message"`
	Options         []PromptOption   `json:"options"`
	SessionPatterns []SessionPattern `json:"sessionPatterns,omitempty"`
	TimeoutMs       int64            `json:"timeoutMs,omitempty"`
	// Subject identifies the call the prompt is about (tool, full input,
	// working directory) beyond what the message shows; never sent. Calls
	// in flight share a prompt only when it and every field sent are equal.
	Subject string `json:"-"`
}

// DecisionParams are the params of the decision notification.
type DecisionParams struct {
	ToolCallID     string  `json:"toolCallId"`
	Gate           string  `json:"gate"`
	Surface        string  `json:"surface"`
	Value          string  `json:"value"`
	Result         string  `json:"result"`
	State          string  `json:"state"`
	Resolution     string  `json:"resolution,omitempty"`
	MatchedPattern *string `json:"matchedPattern,omitempty"`
	Origin         *Origin `json:"origin,omitempty"`
	AgentName      string  `json:"agentName,omitempty"`
}
