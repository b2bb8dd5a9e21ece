package hook

import "github.com/toolgate/toolgate/hook/hosts"

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
	calls:           hosts.OpencodeCalls,
	values:          protocolHostValues[HostOpenCode],
	projectSettings: []string{".opencode"},
	userSettings:    []string{".config/opencode"},
}
