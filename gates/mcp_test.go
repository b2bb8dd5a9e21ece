package gates

import (
	"strings"
	"testing"

	"github.com/toolgate/toolgate/policy"
)

// TestMCPTargets covers every MCP row of the original extension's behavior and the examples of
// the original extension's behavior
func TestMCPTargets(t *testing.T) {
	exa := []string{"exa"}
	for _, c := range []struct {
		name    string
		input   map[string]any
		servers []string
		want    string // comma-separated
	}{
		// The original extension's MCP target examples.
		{"qualified tool", map[string]any{"tool": "exa:search"}, nil, "exa_search,exa:search,exa,search,mcp_call,mcp"},
		{"tool with server", map[string]any{"tool": "search", "server": "exa"}, nil, "exa_search,exa:search,exa,search,mcp_call,mcp"},
		{"suffix heuristic", map[string]any{"tool": "get_code_context_exa"}, exa, "exa_get_code_context_exa,exa:get_code_context_exa,exa,get_code_context_exa,mcp_call,mcp"},
		{"no suffix: prefix only", map[string]any{"tool": "exa_search"}, exa, "exa_search,mcp_call,mcp"},
		{"describe with server", map[string]any{"describe": "exa:web_search_exa", "server": "exa"}, nil, "exa_web_search_exa,exa:web_search_exa,exa,web_search_exa,mcp_describe,mcp"},
		{"empty input", map[string]any{}, nil, "mcp_status,mcp"},
		{"nil input", nil, nil, "mcp_status,mcp"},
		{"unrelated input", map[string]any{"unrelated": 1}, nil, "mcp_status,mcp"},
		// The original extension's MCP rows.
		{"row 45", map[string]any{"tool": "research:query-docs"}, nil, "research_query-docs,research:query-docs,research,query-docs,mcp_call,mcp"},
		{"row 46", map[string]any{"tool": "research:resolve-context"}, nil, "research_resolve-context,research:resolve-context,research,resolve-context,mcp_call,mcp"},
		{"row 47", map[string]any{"tool": "search:provider"}, nil, "search_provider,search:provider,search,provider,mcp_call,mcp"},
		{"row 48", map[string]any{"tool": "get_code_context_exa"}, exa, "exa_get_code_context_exa,exa:get_code_context_exa,exa,get_code_context_exa,mcp_call,mcp"},
		{"row 49 (server not configured)", map[string]any{"tool": "some_tool_legacy-server"}, nil, "some_tool_legacy-server,mcp_call,mcp"},
		{"row 50", map[string]any{"describe": "exa:web_search_exa", "server": "exa"}, exa, "exa_web_search_exa,exa:web_search_exa,exa,web_search_exa,mcp_describe,mcp"},
		{"row 51/52 web_search_exa", map[string]any{"tool": "web_search_exa"}, exa, "exa_web_search_exa,exa:web_search_exa,exa,web_search_exa,mcp_call,mcp"},
		{"row 52 other_exa", map[string]any{"tool": "other_exa"}, exa, "exa_other_exa,exa:other_exa,exa,other_exa,mcp_call,mcp"},
		{"row 53", map[string]any{}, exa, "mcp_status,mcp"},
		{"row 54", map[string]any{"connect": "exa"}, exa, "mcp_connect_exa,exa,mcp_connect,mcp"},
		{"row 57", map[string]any{"tool": "exa:search"}, exa, "exa_search,exa:search,exa,search,mcp_call,mcp"},
		// Branches and their order.
		{"search with server", map[string]any{"search": "foo", "server": "exa"}, nil, "mcp_server_exa,exa,foo,mcp_search,mcp"},
		{"search alone", map[string]any{"search": "foo"}, nil, "foo,mcp_search,mcp"},
		{"server alone", map[string]any{"server": "exa"}, nil, "mcp_server_exa,exa,mcp_list,mcp"},
		{"describe without server", map[string]any{"describe": "web_search_exa"}, exa, "exa_web_search_exa,exa:web_search_exa,exa,web_search_exa,mcp_describe,mcp"},
		{"tool beats connect", map[string]any{"tool": "x", "connect": "y"}, nil, "x,mcp_call,mcp"},
		{"connect beats describe", map[string]any{"connect": "c", "describe": "d", "search": "s"}, nil, "mcp_connect_c,c,mcp_connect,mcp"},
		{"describe beats search", map[string]any{"describe": "d", "search": "s"}, nil, "d,mcp_describe,mcp"},
		// Field reading.
		{"trimmed", map[string]any{"tool": "  exa:search  "}, nil, "exa_search,exa:search,exa,search,mcp_call,mcp"},
		{"blank tool is absent", map[string]any{"tool": "   ", "server": "exa"}, nil, "mcp_server_exa,exa,mcp_list,mcp"},
		{"non-string tool is absent", map[string]any{"tool": 5}, nil, "mcp_status,mcp"},
		// Tool-reference parsing.
		{"colon first is not qualified", map[string]any{"tool": ":search"}, nil, ":search,mcp_call,mcp"},
		{"colon last is not qualified", map[string]any{"tool": "exa:"}, nil, "exa:,mcp_call,mcp"},
		{"halves are trimmed", map[string]any{"tool": "exa : search"}, nil, "exa_search,exa:search,exa,search,exa : search,mcp_call,mcp"},
		{"blank half is not qualified", map[string]any{"tool": " :x"}, nil, ":x,mcp_call,mcp"},
		{"split at the first colon", map[string]any{"tool": "a:b:c"}, nil, "a_b:c,a:b:c,a,b:c,mcp_call,mcp"},
		{"server hint wins over the qualifier", map[string]any{"tool": "other:search", "server": "exa"}, nil, "exa_search,exa:search,exa,search,other:search,mcp_call,mcp"},
		{"servers longest first", map[string]any{"tool": "search_web_exa"}, []string{"exa", "web_exa"}, "web_exa_search_web_exa,web_exa:search_web_exa,web_exa,exa_search_web_exa,exa:search_web_exa,exa,search_web_exa,mcp_call,mcp"},
		{"tool starting with the server is not derived", map[string]any{"tool": "exa_foo_exa"}, exa, "exa_foo_exa,mcp_call,mcp"},
		{"empty server name ignored", map[string]any{"tool": "x_"}, []string{""}, "x_,mcp_call,mcp"},
		{"heuristic needs the underscore", map[string]any{"tool": "fooexa"}, exa, "fooexa,mcp_call,mcp"},
		// De-duplication keeps the first occurrence.
		{"dedupe", map[string]any{"tool": "exa", "server": "exa"}, nil, "exa_exa,exa:exa,exa,mcp_call,mcp"},
		{"dedupe mcp", map[string]any{"connect": "mcp"}, nil, "mcp_connect_mcp,mcp,mcp_connect"},
	} {
		servers := append([]string(nil), c.servers...)
		got := strings.Join(MCPTargets(c.input, c.servers), ",")
		if got != c.want {
			t.Errorf("%s: MCPTargets(%v, %v) =\n  %s\nwant\n  %s", c.name, c.input, c.servers, got, c.want)
		}
		if strings.Join(servers, ",") != strings.Join(c.servers, ",") {
			t.Errorf("%s: MCPTargets reordered the caller's server list: %v", c.name, c.servers)
		}
	}
}

// TestMCPRowsResolve runs the original extension's behavior rows end to end: targets derived
// here, decided by the policy with FirstCandidate.
func TestMCPRowsResolve(t *testing.T) {
	compose := func(t *testing.T, global, agent string) *policy.Policy {
		t.Helper()
		files := []policy.ScopeFile{{Scope: policy.ScopeGlobal, Path: "/g.json", Trusted: true, Exists: true, File: policy.ParseFile("/g.json", []byte(global))}}
		if agent != "" {
			files = append(files, policy.ScopeFile{Scope: policy.ScopeAgent, Path: "/a.json", Trusted: true, Exists: true, File: policy.ParseFile("/a.json", []byte(agent))})
		}
		for _, f := range files {
			if len(f.File.Errors) > 0 {
				t.Fatalf("policy does not parse: %v", f.File.Errors)
			}
		}
		return policy.Compose(files, "/home/u")
	}
	research := `{"permission": {"mcp": {"*": "deny", "research_*": "ask", "research_query-*": "allow"}}}`
	for _, c := range []struct {
		name         string
		global       string
		agent        string
		servers      []string
		input        map[string]any
		action       policy.Action
		pattern      string // "" for the fallback
		layer        policy.Layer
		target       string
		wantFallback bool
	}{
		{"row 45", research, "", nil, map[string]any{"tool": "research:query-docs"}, policy.Allow, "research_query-*", policy.LayerConfig, "research_query-docs", false},
		{"row 46", research, "", nil, map[string]any{"tool": "research:resolve-context"}, policy.Ask, "research_*", policy.LayerConfig, "research_resolve-context", false},
		{"row 47", research, "", nil, map[string]any{"tool": "search:provider"}, policy.Deny, "*", policy.LayerConfig, "search_provider", false},
		{"row 48", `{"permission": {"mcp": {"exa_*": "deny", "exa_get_code_context_exa": "allow"}}}`, "", []string{"exa"}, map[string]any{"tool": "get_code_context_exa"}, policy.Allow, "exa_get_code_context_exa", policy.LayerConfig, "exa_get_code_context_exa", false},
		{"row 49", `{"permission": {"mcp": {"legacy-server_*": "allow"}}}`, "", nil, map[string]any{"tool": "some_tool_legacy-server"}, policy.Ask, "*", policy.LayerFallback, "some_tool_legacy-server", true},
		{"row 50", `{"permission": {"mcp": {"exa_*": "deny", "exa_web_search_exa": "allow"}}}`, "", []string{"exa"}, map[string]any{"describe": "exa:web_search_exa", "server": "exa"}, policy.Allow, "exa_web_search_exa", policy.LayerConfig, "exa_web_search_exa", false},
		{"row 51", `{}`, `{"permission": {"mcp": {"*": "allow", "exa_web_search_exa": "deny"}}}`, []string{"exa"}, map[string]any{"tool": "web_search_exa"}, policy.Deny, "exa_web_search_exa", policy.LayerConfig, "exa_web_search_exa", false},
		{"row 52 allow", `{}`, `{"permission": {"mcp": {"*": "deny", "exa_web_search_exa": "allow"}}}`, []string{"exa"}, map[string]any{"tool": "web_search_exa"}, policy.Allow, "exa_web_search_exa", policy.LayerConfig, "exa_web_search_exa", false},
		{"row 52 deny", `{}`, `{"permission": {"mcp": {"*": "deny", "exa_web_search_exa": "allow"}}}`, []string{"exa"}, map[string]any{"tool": "other_exa"}, policy.Deny, "*", policy.LayerConfig, "exa_other_exa", false},
		{"row 27", `{"permission": {"*": "deny"}}`, `{"permission": {"mcp": "allow"}}`, nil, map[string]any{"tool": "exa:web_search_exa"}, policy.Allow, "*", policy.LayerConfig, "exa_web_search_exa", false},
		{"row 53", `{}`, "", nil, map[string]any{}, policy.Ask, "*", policy.LayerFallback, "mcp_status", true},
		{"row 54", `{"permission": {"*": "ask", "mcp": {"exa:*": "allow"}}}`, "", nil, map[string]any{"connect": "exa"}, policy.Allow, "mcp_connect", policy.LayerBaseline, "mcp_connect", false},
		{"row 55", `{"permission": {"*": "ask", "mcp": {"exa:*": "allow"}}}`, "", nil, map[string]any{}, policy.Allow, "mcp_status", policy.LayerBaseline, "mcp_status", false},
		{"row 56", `{"permission": {"*": "ask", "mcp": {"*": "ask", "exa:*": "allow"}}}`, "", nil, map[string]any{}, policy.Ask, "*", policy.LayerConfig, "mcp_status", false},
		// Anchor row 57 asked (first candidate); candidates are forms of one
		// target, so the later server rule wins.
		{"row 57", `{"permission": {"mcp": {"*": "ask", "exa": "allow"}}}`, "", nil, map[string]any{"tool": "exa:search"}, policy.Allow, "exa", policy.LayerConfig, "exa", false},
		{"catch-all then delete deny", `{"permission": {"mcp": {"*": "ask", "github:delete_repo": "deny"}}}`, "", nil, map[string]any{"tool": "github:delete_repo"}, policy.Deny, "github:delete_repo", policy.LayerConfig, "github:delete_repo", false},
		{"catch-all then delete deny, server field", `{"permission": {"mcp": {"*": "ask", "github:delete_repo": "deny"}}}`, "", nil, map[string]any{"tool": "delete_repo", "server": "github"}, policy.Deny, "github:delete_repo", policy.LayerConfig, "github:delete_repo", false},
		{"catch-all then server deny", `{"permission": {"mcp": {"*": "allow", "github_*": "ask", "github": "deny"}}}`, "", nil, map[string]any{"tool": "github:list"}, policy.Deny, "github", policy.LayerConfig, "github", false},
		{"catch-all then other server", `{"permission": {"mcp": {"*": "ask", "github:delete_repo": "deny"}}}`, "", nil, map[string]any{"tool": "github:list_repos"}, policy.Ask, "*", policy.LayerConfig, "github_list_repos", false},
		{"suffix heuristic form", `{"permission": {"mcp": {"*": "allow", "exa:*": "deny"}}}`, "", []string{"exa"}, map[string]any{"tool": "web_search_exa"}, policy.Deny, "exa:*", policy.LayerConfig, "exa:web_search_exa", false},
	} {
		p := compose(t, c.global, c.agent)
		res := p.Resolve(policy.Query{Surface: "mcp", Values: MCPTargets(c.input, c.servers), FirstCandidate: true})
		if res.Action != c.action || res.Rule.Pattern != c.pattern || res.Rule.Layer != c.layer || res.Value != c.target || res.Rule.IsFallback() != c.wantFallback {
			t.Errorf("%s: %v by %q (layer %d) target %q, want %v by %q (layer %d) target %q",
				c.name, res.Action, res.Rule.Pattern, res.Rule.Layer, res.Value, c.action, c.pattern, c.layer, c.target)
		}
	}
}

// A tool named with its server's prefix is also read as that server's
// tool, which only adds restriction: a github:delete_repo deny holds for
// {tool: "github_delete_repo"} (server given or configured), an allow of
// github:delete_repo is not widened to it, and other tools stay as they
// were.
func TestMCPPrefixedForms(t *testing.T) {
	s := newSandbox(t)
	deny := `{"permission": {"*": "ask", "mcp": {"*": "allow", "github:delete_repo": "deny"}}}`
	allow := `{"permission": {"*": "ask", "mcp": {"*": "ask", "github:delete_repo": "allow"}}}`
	rows := []struct {
		policy  string
		input   map[string]any
		servers []string
		want    policy.Action
	}{
		{deny, map[string]any{"tool": "github_delete_repo", "server": "github"}, nil, policy.Deny},
		{deny, map[string]any{"tool": "github_delete_repo"}, []string{"github"}, policy.Deny},
		{deny, map[string]any{"tool": "github:github_delete_repo"}, nil, policy.Deny},
		{deny, map[string]any{"tool": "github_list_repos", "server": "github"}, nil, policy.Allow},
		{deny, map[string]any{"tool": "github_delete_repo"}, nil, policy.Allow}, // no server known: no prefix to strip
		{allow, map[string]any{"tool": "github_delete_repo", "server": "github"}, nil, policy.Ask},
		{allow, map[string]any{"tool": "delete_repo", "server": "github"}, nil, policy.Allow},
	}
	for _, r := range rows {
		c := s.call("mcp", r.input)
		c.MCPServers = r.servers
		o := Tool(c, compose(t, s.home, r.policy))
		if o.D.State != r.want {
			t.Errorf("%v (servers %v): %s, want %s", r.input, r.servers, o.D.State, r.want)
		}
	}
}
