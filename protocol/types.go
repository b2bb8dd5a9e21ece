// Package protocol holds the wire types of docs/protocol.md (JSON-RPC 2.0 between
// an agent host and toolgate), the error codes, and the line framing. It
// imports nothing of toolgate's own but the engine's vocabulary (verdict),
// which it carries as it is.
package protocol

import (
	"encoding/json"

	"github.com/toolgate/toolgate/verdict"
)

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
	// Confines says the host runs an allowed bash call's confine.command
	// in place of the model's command: an addition to
	// docs/protocol.md.
	Confines *bool `json:"confines"`
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
	// Trusted is present for project-scope files: the person trusted this
	// exact content.
	Trusted *bool `json:"trusted,omitempty"`
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
	Sources     []Source     `json:"sources"`
	Warnings    []Warning    `json:"warnings"`
	Confinement *Confinement `json:"confinement,omitempty"`
}

// Confinement is policy.confinement: what confinement can do
// here. Available is true when protected paths are enforced by the kernel
// (Landlock ABI 2 or later, user and mount namespaces); Missing says in
// words what is not there and what that leaves open.
type Confinement struct {
	Mode        string   `json:"mode"`
	Available   bool     `json:"available"`
	LandlockABI int      `json:"landlockABI"`
	Namespaces  bool     `json:"namespaces"`
	Missing     []string `json:"missing"`
}

// ResSandboxUnavailable is the resolution of a bash call blocked because
// the policy requires confinement that this machine or host cannot give.
const ResSandboxUnavailable = "sandbox_unavailable"

// ResSandboxAutoAllowed is the resolution of a bash call that only the
// fallback asked about, run without a prompt because it runs confined
// ("sandboxAutoAllow").
const ResSandboxAutoAllowed = "sandbox_auto_allowed"

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

// PromptResult is the host's answer to prompt.
type PromptResult struct {
	Choice string `json:"choice"`
	Reason string `json:"reason,omitempty"`
}

// The engine's vocabulary (package verdict), which this protocol carries
// as it is.
const (
	GateSkillRead             = verdict.GateSkillRead
	GateExternalDirectory     = verdict.GateExternalDirectory
	GateBashExternalDirectory = verdict.GateBashExternalDirectory
	GateBashPath              = verdict.GateBashPath
	GateTool                  = verdict.GateTool
	GateSkillInput            = verdict.GateSkillInput

	ResPolicyAllow             = verdict.ResPolicyAllow
	ResPolicyDeny              = verdict.ResPolicyDeny
	ResSessionApproved         = verdict.ResSessionApproved
	ResUserApproved            = verdict.ResUserApproved
	ResUserApprovedForSession  = verdict.ResUserApprovedForSession
	ResUserDenied              = verdict.ResUserDenied
	ResConfirmationUnavailable = verdict.ResConfirmationUnavailable
	ResPromptFailed            = verdict.ResPromptFailed
	ResAutoApproved            = verdict.ResAutoApproved
	ResInfrastructureAutoAllow = verdict.ResInfrastructureAutoAllow
	ResGateError               = verdict.ResGateError
	ResInvalidRequest          = verdict.ResInvalidRequest

	ActionAllow    = verdict.ActionAllow
	ActionBlock    = verdict.ActionBlock
	ActionContinue = verdict.ActionContinue

	ChoiceAllowOnce      = verdict.ChoiceAllowOnce
	ChoiceAllowSession   = verdict.ChoiceAllowSession
	ChoiceDeny           = verdict.ChoiceDeny
	ChoiceDenyWithReason = verdict.ChoiceDenyWithReason
)

type (
	Skill          = verdict.Skill
	Origin         = verdict.Origin
	Decision       = verdict.Decision
	TraceEntry     = verdict.TraceEntry
	ToolCallResult = verdict.ToolCallResult
	Confine        = verdict.Confine
	CheckResult    = verdict.CheckResult
	PromptOption   = verdict.PromptOption
	SessionPattern = verdict.SessionPattern
	PromptParams   = verdict.PromptParams
	DecisionParams = verdict.DecisionParams
)
