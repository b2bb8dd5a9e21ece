package hosts

import (
	"encoding/json"
	"fmt"

	"github.com/toolgate/toolgate/internal/jsonobj"
)

// opencodeFileTools are OpenCode's tools whose path argument is filePath.
var opencodeFileTools = map[string]string{"read": "read", "write": "write", "edit": "edit", "multiedit": "edit"}

// OpencodeCalls turns an OpenCode tool call into the engine calls its
// plugin sends (an MCP tool, which the plugin knows by OpenCode's config,
// keeps its OpenCode name here).
func OpencodeCalls(name string, raw json.RawMessage) ([]Call, error) {
	if name == "" {
		return nil, fmt.Errorf("the call has no tool name")
	}
	input, err := ObjectInput(name, raw)
	if err != nil {
		return nil, err
	}
	one := func(ec Call) ([]Call, error) { return []Call{ec}, nil }
	if t, ok := opencodeFileTools[name]; ok {
		if err := renameField(input, name, "filePath", "path"); err != nil {
			return nil, err
		}
		return one(Call{Tool: t, Input: input})
	}
	switch name {
	case "bash":
		wd, _, err := jsonobj.Object(input).Str("workdir", "input.")
		if err != nil {
			return nil, err
		}
		return one(Call{Tool: "bash", Input: map[string]any{"command": input["command"]}, Workdir: wd})
	case "glob":
		return one(Call{Tool: "find", Input: input})
	case "grep":
		if err := renameField(input, name, "include", "glob"); err != nil {
			return nil, err
		}
		return one(Call{Tool: "grep", Input: input})
	case "list":
		return one(Call{Tool: "ls", Input: input})
	case "skill":
		return one(Call{Tool: "skill", Input: input})
	case "apply_patch", "patch":
		text, err := PatchText(name, input, "patchText")
		if err != nil {
			return nil, err
		}
		return PatchCalls(name, text)
	}
	return one(Call{Tool: name, Input: input})
}

// OpenCode is the host name the OpenCode plugin
// (examples/opencode-plugin/) sends in initialize.
const OpenCode = "opencode"

// ProtocolHostValues give, for hosts that speak the protocol and name
// themselves in initialize, the value of their own tools that keep their
// host name (their plugin maps the others to toolgate's tools): a rule
// under the tool then matches it, e.g. "webfetch": {"https://evil.example/*": "deny"}.
var ProtocolHostValues = map[string]map[string]func(map[string]any) string{
	OpenCode: {
		"webfetch":   strField("url"),
		"websearch":  strField("query"),
		"codesearch": strField("query"),
	},
}

// OpenCodeProfile maps OpenCode's own tool calls as its plugin does
// (examples/opencode-plugin/index.ts), for explain and test cases: the
// plugin itself sends toolgate's calls over the protocol.
var OpenCodeProfile = Profile{
	Name:            OpenCode,
	Calls:           OpencodeCalls,
	Values:          ProtocolHostValues[OpenCode],
	ProjectSettings: []string{".opencode"},
	UserSettings:    []string{".config/opencode"},
}
