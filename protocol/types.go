// Package protocol holds the wire types of PROTOCOL.md (JSON-RPC 2.0 between
// an agent host and toolgate), the error codes, and the line framing. It
// imports nothing of toolgate's own.
package protocol

import "encoding/json"

// Version is the protocol version toolgate speaks.
const Version = 1

// Method names.
const (
	MethodInitialize       = "initialize"
	MethodToolCall         = "tool_call"
	MethodInput            = "input"
	MethodCheck            = "check"
	MethodSessionApprovals = "session/approvals"
	MethodPolicyReload     = "policy/reload"
	MethodShutdown         = "shutdown"
	MethodPrompt           = "prompt"   // plugin → host request
	MethodDecision         = "decision" // plugin → host notification
)

// JSON-RPC error codes.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
)

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

// HostInfo names the host for the audit log.
type HostInfo struct {
	Name    string `json:"name,omitempty"`
	Version string `json:"version,omitempty"`
}

// InitializeParams are the params of initialize.
type InitializeParams struct {
	ProtocolVersion    int       `json:"protocolVersion"`
	Cwd                string    `json:"cwd"`
	HasUI              *bool     `json:"hasUI"`
	AgentName          *string   `json:"agentName"`
	SessionID          *string   `json:"sessionId"`
	Skills             []Skill   `json:"skills"`
	MCPServers         []string  `json:"mcpServers"`
	InfrastructureDirs []string  `json:"infrastructureDirs"`
	ProjectTrusted     *bool     `json:"projectTrusted"`
	Host               *HostInfo `json:"host"`
}

// ServerInfo names toolgate in the initialize result.
type ServerInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Source is one policy file toolgate looked for.
type Source struct {
	Scope  string `json:"scope"`
	Path   string `json:"path"`
	Exists bool   `json:"exists"`
	Loaded bool   `json:"loaded"`
}

// Warning is a problem with the policy (or advice about it).
type Warning struct {
	Path    string `json:"path,omitempty"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
	Message string `json:"message"`
}

// PolicyInfo is initialize.result.policy and the policy/reload result.
type PolicyInfo struct {
	Sources  []Source  `json:"sources"`
	Warnings []Warning `json:"warnings"`
}

// InitializeResult is the result of initialize.
type InitializeResult struct {
	ProtocolVersion int        `json:"protocolVersion"`
	ServerInfo      ServerInfo `json:"serverInfo"`
	Policy          PolicyInfo `json:"policy"`
}

// ToolCallParams are the params of tool_call and check. Input is kept raw:
// it is decoded strictly by the server (duplicate keys, types).
type ToolCallParams struct {
	ToolCallID string          `json:"toolCallId"`
	ToolName   string          `json:"toolName"`
	Input      json.RawMessage `json:"input"`
	AgentName  *string         `json:"agentName,omitempty"`
	Cwd        *string         `json:"cwd,omitempty"`
	HasUI      *bool           `json:"hasUI,omitempty"`
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
}

// CheckResult is the result of check.
type CheckResult struct {
	State    string       `json:"state"`
	Decision *Decision    `json:"decision"`
	Trace    []TraceEntry `json:"trace"`
	// Reason is what a block (deny) would say, or what a prompt (ask)
	// would ask; absent for allow. An addition to PROTOCOL.md.
	Reason string `json:"reason,omitempty"`
}

// InputParams are the params of input.
type InputParams struct {
	Text      string  `json:"text"`
	Source    string  `json:"source,omitempty"`
	AgentName *string `json:"agentName,omitempty"`
}

// SessionRule is one recorded session approval.
type SessionRule struct {
	Surface string `json:"surface"`
	Pattern string `json:"pattern"`
	Action  string `json:"action"`
	// Exact is true when the pattern is matched literally (a unit that held
	// a * or ?), never as a wildcard.
	Exact bool `json:"exact,omitempty"`
}

// SessionApprovalsResult is the result of session/approvals.
type SessionApprovalsResult struct {
	Rules []SessionRule `json:"rules"`
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

// PromptResult is the host's answer to prompt.
type PromptResult struct {
	Choice string `json:"choice"`
	Reason string `json:"reason,omitempty"`
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
