package hook

import (
	"github.com/toolgate/toolgate/internal/jsonobj"

	"github.com/toolgate/toolgate/hook/hosts"

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
func opencodeCalls(name string, raw json.RawMessage) ([]hosts.Call, error) {
	if name == "" {
		return nil, fmt.Errorf("the call has no tool name")
	}
	input, err := objectInput(name, raw)
	if err != nil {
		return nil, err
	}
	one := func(ec hosts.Call) ([]hosts.Call, error) { return []hosts.Call{ec}, nil }
	if t, ok := opencodeFileTools[name]; ok {
		if err := renameField(input, name, "filePath", "path"); err != nil {
			return nil, err
		}
		return one(hosts.Call{Tool: t, Input: input})
	}
	switch name {
	case "bash":
		wd, _, err := jsonobj.Object(input).Str("workdir", "input.")
		if err != nil {
			return nil, err
		}
		return one(hosts.Call{Tool: "bash", Input: map[string]any{"command": input["command"]}, Workdir: wd})
	case "glob":
		return one(hosts.Call{Tool: "find", Input: input})
	case "grep":
		if err := renameField(input, name, "include", "glob"); err != nil {
			return nil, err
		}
		return one(hosts.Call{Tool: "grep", Input: input})
	case "list":
		return one(hosts.Call{Tool: "ls", Input: input})
	case "skill":
		return one(hosts.Call{Tool: "skill", Input: input})
	case "apply_patch", "patch":
		text, err := hosts.PatchText(name, input, "patchText")
		if err != nil {
			return nil, err
		}
		return hosts.PatchCalls(name, text)
	}
	return one(hosts.Call{Tool: name, Input: input})
}
