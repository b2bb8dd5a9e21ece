package hook

import (
	"github.com/toolgate/toolgate/internal/jsonobj"
	"github.com/toolgate/toolgate/protocol"
)

// callFields are the JSON names of protocol.ToolCallParams' fields (a test
// holds them to the type).
var callFields = [...]string{"toolCallId", "toolName", "input", "agentName", "cwd", "hasUI"}

// checkCallKeys is protocol.CheckKeys of tool_call params along
// protocol.ToolCallParams, without reflection: the first key, in key
// order, that nearly names a field (and is none) is an error. No field of
// ToolCallParams is walked further (strings, a bool and the raw input).
func checkCallKeys(params jsonobj.Object) error {
	var near *protocol.KeyError
	for k := range params {
		exact := false
		for _, f := range callFields {
			if k == f {
				exact = true
				break
			}
		}
		if exact {
			continue
		}
		for _, f := range callFields {
			if protocol.NearKey(k, f) {
				if near == nil || k < near.Key {
					near = &protocol.KeyError{Key: k, Want: f}
				}
				break
			}
		}
	}
	if near != nil {
		return near
	}
	return nil
}
