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
