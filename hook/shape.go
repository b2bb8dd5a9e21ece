package hook

import (
	"fmt"
	"strings"

	"github.com/toolgate/toolgate/internal/jsonobj"
	"github.com/toolgate/toolgate/policy"
)

// Input shape: a call whose input lacks the field its tool acts
// on, or carries it with the wrong type, is never decided as if the field
// were empty: it blocks as invalid_request with a reason naming the field.

// pathAliases are the names hosts give a path-bearing tool's path; each is
// read as "path".
var pathAliases = [...]string{"file_path", "filePath"}

// requiredField is the field tool acts on and must carry ("" for none):
// bash runs its command, read/write/edit act on their path. grep, find and
// ls without a path act on the working directory; MCP calls without a
// target ask for the status; other tools are judged on
// their name.
func requiredField(tool string) string {
	switch tool {
	case "bash":
		return "command"
	case "read", "write", "edit":
		return "path"
	}
	return ""
}

// readPathAliases renames a host's alias of "path" to "path" in input,
// for every tool that is no shell, MCP or skill call; an alias beside the
// field (or beside another alias) is an invalid request: the host may act
// on either.
func readPathAliases(tool string, input jsonobj.Object, pol *policy.Policy) error {
	switch tool {
	case "bash", "mcp", "skill":
		return nil
	}
	if _, ok := pol.ShellTools[tool]; ok {
		return nil
	}
	found := ""
	if _, ok := input["path"]; ok {
		found = "path"
	}
	for _, alias := range pathAliases {
		v, ok := input[alias]
		if !ok {
			continue
		}
		if found != "" {
			return fmt.Errorf("input has both %s and %s: the host may act on either", found, alias)
		}
		found = alias
		delete(input, alias)
		input["path"] = v
	}
	return nil
}

// checkInputShape reports the required field tool's input lacks, or
// carries empty where emptiness would be read as "nothing" (a path of
// only spaces).
func checkInputShape(tool string, input jsonobj.Object) error {
	field := requiredField(tool)
	if field == "" {
		return nil
	}
	v, ok := input[field]
	if !ok {
		return fmt.Errorf("input.%s is missing: %s acts on its %s, and a call without it is not decided as if it were empty", field, tool, field)
	}
	s, isStr := v.(string)
	if !isStr {
		return &jsonobj.FieldError{Field: "input." + field, Want: "a string", Got: v}
	}
	if field == "path" && strings.TrimSpace(s) == "" {
		return fmt.Errorf("input.path is empty: %s acts on a path", tool)
	}
	return nil
}
