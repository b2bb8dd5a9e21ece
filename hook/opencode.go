package hook

import (
	"encoding/json"
	"fmt"
)

// HostOpenCode is the host name the OpenCode plugin
// (examples/opencode-plugin/) sends in initialize.
const HostOpenCode = "opencode"

// protocolHostValues give, for hosts that speak the protocol and name
// themselves in initialize, the value of their own tools that keep their
// host name (their plugin maps the others to toolgate's tools): a rule
// under the tool then matches it, e.g. "webfetch": {"https://evil.example/*": "deny"}.
var protocolHostValues = map[string]map[string]func(map[string]any) string{
	HostOpenCode: {
		"webfetch":   strField("url"),
		"websearch":  strField("query"),
		"codesearch": strField("query"),
	},
}

// opencodeProfile maps OpenCode's own tool calls as its plugin does
// (examples/opencode-plugin/index.ts), for explain and test cases: the
// plugin itself sends toolgate's calls over the protocol.
var opencodeProfile = hostProfile{
	name:            HostOpenCode,
	calls:           opencodeCalls,
	values:          protocolHostValues[HostOpenCode],
	projectSettings: []string{".opencode"},
	userSettings:    []string{".config/opencode"},
}

// opencodeFileTools are OpenCode's tools whose path argument is filePath.
var opencodeFileTools = map[string]string{"read": "read", "write": "write", "edit": "edit", "multiedit": "edit"}

// opencodeCalls turns an OpenCode tool call into the engine calls its
// plugin sends (an MCP tool, which the plugin knows by OpenCode's config,
// keeps its OpenCode name here).
func opencodeCalls(name string, raw json.RawMessage) ([]engineCall, error) {
	if name == "" {
		return nil, fmt.Errorf("the call has no tool name")
	}
	input, err := objectInput(name, raw)
	if err != nil {
		return nil, err
	}
	one := func(ec engineCall) ([]engineCall, error) { return []engineCall{ec}, nil }
	if t, ok := opencodeFileTools[name]; ok {
		if err := renameField(input, name, "filePath", "path"); err != nil {
			return nil, err
		}
		return one(engineCall{Tool: t, Input: input})
	}
	switch name {
	case "bash":
		wd, _, err := object(input).str("workdir", "input.")
		if err != nil {
			return nil, err
		}
		return one(engineCall{Tool: "bash", Input: map[string]any{"command": input["command"]}, Workdir: wd})
	case "glob":
		return one(engineCall{Tool: "find", Input: input})
	case "grep":
		if err := renameField(input, name, "include", "glob"); err != nil {
			return nil, err
		}
		return one(engineCall{Tool: "grep", Input: input})
	case "list":
		return one(engineCall{Tool: "ls", Input: input})
	case "skill":
		return one(engineCall{Tool: "skill", Input: input})
	case "apply_patch", "patch":
		text, err := patchText(name, input, "patchText")
		if err != nil {
			return nil, err
		}
		return patchCalls(name, text)
	}
	return one(engineCall{Tool: name, Input: input})
}
