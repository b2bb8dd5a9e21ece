package hook

import (
	"encoding/json"
	"fmt"

	"github.com/toolgate/toolgate/gates"
	"github.com/toolgate/toolgate/protocol"
)

// Explain decides one call as a dry run (the check method) without a
// connection: what `toolgate explain` prints.
func Explain(opts Options, tool string, input json.RawMessage, agent string) (protocol.CheckResult, error) {
	s := New(opts)
	s.st.agentName = agent
	params := map[string]any{"toolCallId": "explain", "toolName": tool, "input": input}
	raw, err := json.Marshal(params)
	if err != nil {
		return protocol.CheckResult{}, err
	}
	gc, _, err := s.decodeCall(raw)
	if err != nil {
		return protocol.CheckResult{}, fmt.Errorf("the call cannot be read: %w", err)
	}
	req := gates.Request{Call: gc.call, Gates: gates.ToolGates, Resolver: resolver{p: gc.policy}}
	return gates.Check(req), nil
}

// PolicySources lists the policy files a session in cwd would read.
func PolicySources(opts Options) protocol.PolicyInfo {
	s := New(opts)
	return s.policyInfo(s.currentPolicy())
}
