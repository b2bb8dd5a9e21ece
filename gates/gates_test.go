package gates

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/gates/shell"
	"github.com/toolgate/toolgate/policy"
	"github.com/toolgate/toolgate/verdict"
)

// testResolver applies a policy composed from one global file.
type testResolver struct {
	p       *policy.Policy
	session []*policy.Rule
}

func (r testResolver) Resolve(q policy.Query) policy.Result {
	q.Session = r.session
	return r.p.Resolve(q)
}

func (r testResolver) HasExplicitPathRule(a policy.Action) bool { return r.p.HasExplicitPathRule(a) }

func (r testResolver) HasCommandRule(args []string, above policy.Action) bool {
	return r.p.HasCommandRule(args, above)
}

func (r testResolver) HasNarrowRule(surface string, a policy.Action) bool {
	return r.p.HasNarrowRule(surface, a)
}

func compose(t *testing.T, home, global string) testResolver {
	t.Helper()
	f := policy.ParseFile("/g.json", []byte(global))
	if len(f.Errors) > 0 {
		t.Fatalf("policy errors: %v", f.Errors)
	}
	return testResolver{p: policy.Compose([]policy.ScopeFile{{Scope: policy.ScopeGlobal, Path: "/g.json", Trusted: true, Exists: true, File: f}}, home)}
}

// sandbox makes work, home and outside directories (no symlinks of their
// own) and a link work/link → outside.
type sandbox struct{ work, home, outside string }

func newSandbox(t *testing.T) sandbox {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s := sandbox{filepath.Join(root, "work"), filepath.Join(root, "home"), filepath.Join(root, "outside")}
	for _, d := range []string{s.work, s.home, s.outside, filepath.Join(s.work, "src"), filepath.Join(s.home, ".ssh")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(s.work, "src", "a.ts"), filepath.Join(s.work, ".env"), filepath.Join(s.outside, "x.txt"), filepath.Join(s.home, ".ssh", "id_rsa")} {
		if err := os.WriteFile(f, []byte("x\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(s.outside, filepath.Join(s.work, "link")); err != nil {
		t.Fatal(err)
	}
	return s
}

func (s sandbox) call(tool string, input map[string]any) *Call {
	return &Call{ToolCallID: "c", ToolName: tool, Input: input, Cwd: s.work, Home: s.home, AgentDir: filepath.Join(s.home, ".pi", "agent")}
}

func (s sandbox) expand(v string) string {
	return strings.NewReplacer("$WORK", s.work, "$HOME", s.home, "$OUTSIDE", s.outside).Replace(v)
}

func TestToolAndPathGates(t *testing.T) {
	s := newSandbox(t)
	cases := []struct {
		name    string
		policy  string
		gate    func(*Call, Resolver) Outcome
		tool    string
		path    string
		kind    Kind
		state   policy.Action
		surface string
		pattern string // "" means the fallback decided (no pattern)
	}{
		{"read allowed by tool rule", `{"permission": {"*": "ask", "read": "allow"}}`, Tool, "read", "src/a.ts", Checked, policy.Allow, "read", "*"},
		{"read denied by relative pattern", `{"permission": {"read": {"*": "allow", "src/*": "deny"}}}`, Tool, "read", "src/a.ts", Checked, policy.Deny, "read", "src/*"},
		{"absolute pattern matches relative input", `{"permission": {"read": {"*": "ask", "$WORK/*": "allow"}}}`, Tool, "read", "src/a.ts", Checked, policy.Allow, "read", "$WORK/*"},
		{"later rule wins across aliases", `{"permission": {"read": {"*": "ask", "$WORK/*": "allow", "src/*": "deny"}}}`, Tool, "read", "src/a.ts", Checked, policy.Deny, "read", "src/*"},
		{"path surface beats the tool rule", `{"permission": {"read": "allow", "path": {"*.env": "deny"}}}`, Tool, "read", ".env", Checked, policy.Deny, "path", "*.env"},
		{"path rule order matters", `{"permission": {"read": "allow", "path": {"*.env": "deny", "*": "allow"}}}`, Tool, "read", ".env", Checked, policy.Allow, "read", "*"},
		{"symlink real form is denied", `{"permission": {"read": {"*": "allow", "$OUTSIDE/*": "deny"}}}`, Tool, "read", "link/x.txt", Checked, policy.Deny, "read", "$OUTSIDE/*"},
		{"home pattern on ~ input", `{"permission": {"*": "allow", "path": {"~/.ssh/*": "deny"}}}`, Tool, "read", "~/.ssh/id_rsa", Checked, policy.Deny, "path", "~/.ssh/*"},
		{"dir/* covers the directory", `{"permission": {"*": "allow", "path": {"~/.ssh/*": "deny"}}}`, Tool, "grep", "~/.ssh", Checked, policy.Deny, "path", "~/.ssh/*"},
		{"write without rule asks", `{"permission": {"read": "allow"}}`, Tool, "write", "src/a.ts", Checked, policy.Ask, "write", ""},
		{"extension tool on its surface", `{"permission": {"*": "deny", "context7_*": "allow"}}`, Tool, "context7_docs", "", Checked, policy.Allow, "context7_docs", "*"},
		{"extension tool path checked on path", `{"permission": {"*": "allow", "path": {"*.env": "deny"}}}`, Tool, "acme_upload", ".env", Checked, policy.Deny, "path", "*.env"},
		{"own policy file: write floored", `{"permission": {"*": "allow"}}`, Tool, "write", ".pi/extensions/pi-permission-system/config.json", Checked, policy.Ask, "write", SentinelProtected},
		{"own policy file: read allowed", `{"permission": {"*": "allow"}}`, Tool, "read", ".pi/extensions/pi-permission-system/config.json", Checked, policy.Allow, "read", ""},
		{"own policy file: deny kept", `{"permission": {"*": "allow", "write": "deny"}}`, Tool, "write", "$HOME/.pi/agent/agents/x.md", Checked, policy.Deny, "write", "*"},
		{"arming: git config write floored", `{"permission": {"*": "allow"}}`, Tool, "write", ".git/config", Checked, policy.Ask, "write", SentinelArming},
		{"arming: git hook edit floored", `{"permission": {"*": "allow"}}`, Tool, "edit", ".git/hooks/pre-commit", Checked, policy.Ask, "edit", SentinelArming},
		{"arming: bashrc write floored", `{"permission": {"*": "allow"}}`, Tool, "write", "$HOME/.bashrc", Checked, policy.Ask, "write", SentinelArming},
		{"arming: gitconfig write floored", `{"permission": {"*": "allow"}}`, Tool, "write", "~/.gitconfig", Checked, policy.Ask, "write", SentinelArming},
		{"arming: xdg git config floored", `{"permission": {"*": "allow"}}`, Tool, "write", "$HOME/.config/git/config", Checked, policy.Ask, "write", SentinelArming},
		{"arming: envrc floored", `{"permission": {"*": "allow"}}`, Tool, "write", ".envrc", Checked, policy.Ask, "write", SentinelArming},
		{"arming: gitfile floored", `{"permission": {"*": "allow"}}`, Tool, "write", "src/.git", Checked, policy.Ask, "write", SentinelArming},
		{"arming: bare repo hook floored", `{"permission": {"*": "allow"}}`, Tool, "write", "x.git/hooks/post-update", Checked, policy.Ask, "write", SentinelArming},
		{"arming: submodule hook floored", `{"permission": {"*": "allow"}}`, Tool, "write", ".git/modules/sub/hooks/post-checkout", Checked, policy.Ask, "write", SentinelArming},
		{"arming: worktree hook floored", `{"permission": {"*": "allow"}}`, Tool, "write", ".git/worktrees/w/hooks/pre-commit", Checked, policy.Ask, "write", SentinelArming},
		{"arming: a program on the PATH floored", `{"permission": {"*": "allow"}}`, Tool, "write", "~/.local/bin/git", Checked, policy.Ask, "write", SentinelArming},
		{"arming: a system PATH directory floored", `{"permission": {"*": "allow"}}`, Tool, "write", "/usr/local/bin/ls", Checked, policy.Ask, "write", SentinelArming},
		{"arming: a project bin directory is none", `{"permission": {"*": "allow"}}`, Tool, "write", "bin/build.sh", Checked, policy.Allow, "write", ""},
		{"arming: hooks outside .git is no hook", `{"permission": {"*": "allow"}}`, Tool, "write", "src/hooks/useThing.ts", Checked, policy.Allow, "write", ""},
		{"arming: extension tool floored", `{"permission": {"*": "allow"}}`, Tool, "acme_upload", "$HOME/.zshrc", Checked, policy.Ask, "acme_upload", SentinelArming},
		{"arming: letter case does not matter", `{"permission": {"*": "allow"}}`, Tool, "write", ".GIT/Hooks/pre-commit", Checked, policy.Ask, "write", SentinelArming},
		{"arming: read allowed", `{"permission": {"*": "allow"}}`, Tool, "read", ".git/config", Checked, policy.Allow, "read", ""},
		{"arming: deny kept", `{"permission": {"*": "allow", "write": "deny"}}`, Tool, "write", ".git/config", Checked, policy.Deny, "write", "*"},
		{"arming: ordinary write allowed", `{"permission": {"*": "allow"}}`, Tool, "write", "src/config.ts", Checked, policy.Allow, "write", ""},
		{"arming: git info exclude allowed", `{"permission": {"*": "allow"}}`, Tool, "write", ".git/info/exclude", Checked, policy.Allow, "write", ""},
		{"inside path: no external gate", `{"permission": {"external_directory": "deny"}}`, ExternalDirectory, "read", "src/a.ts", NotApplied, 0, "", ""},
		{"outside path asks", `{"permission": {"external_directory": "ask"}}`, ExternalDirectory, "read", "$OUTSIDE/x.txt", Checked, policy.Ask, "external_directory", "*"},
		{"symlink leads outside", `{"permission": {"external_directory": "deny"}}`, ExternalDirectory, "write", "link/new.txt", Checked, policy.Deny, "external_directory", "*"},
		{"dotdot leads outside", `{"permission": {"external_directory": "deny"}}`, ExternalDirectory, "read", "src/../../outside/x.txt", Checked, policy.Deny, "external_directory", "*"},
		{"dev null is never outside", `{"permission": {"external_directory": "deny"}}`, ExternalDirectory, "write", "/dev/null", NotApplied, 0, "", ""},
		{"dev urandom is outside", `{"permission": {"external_directory": "deny"}}`, ExternalDirectory, "read", "/dev/urandom", Checked, policy.Deny, "external_directory", "*"},
		{"agent dir read is infrastructure", `{"permission": {"external_directory": "deny"}}`, ExternalDirectory, "read", "$HOME/.pi/agent/docs/x.md", Bypass, policy.Allow, "read", ""},
		{"agent dir write is not", `{"permission": {"external_directory": "deny"}}`, ExternalDirectory, "write", "$HOME/.pi/agent/docs/x.md", Checked, policy.Deny, "external_directory", "*"},
		{"credentials are never infrastructure", `{"permission": {"external_directory": "deny"}}`, ExternalDirectory, "read", "$HOME/.pi/agent/auth.json", Checked, policy.Deny, "external_directory", "*"},
		{"other sessions are never infrastructure", `{"permission": {"external_directory": "deny"}}`, ExternalDirectory, "read", "$HOME/.pi/agent/sessions/x.jsonl", Checked, policy.Deny, "external_directory", "*"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := compose(t, s.home, s.expand(tc.policy))
			input := map[string]any{}
			if tc.path != "" {
				input["path"] = s.expand(tc.path)
			}
			o := tc.gate(s.call(tc.tool, input), r)
			if o.Kind != tc.kind {
				t.Fatalf("kind = %v, want %v (%+v)", o.Kind, tc.kind, o)
			}
			if tc.kind == NotApplied {
				return
			}
			if o.D.State != tc.state || o.D.Surface != tc.surface {
				t.Fatalf("got %s on %s, want %s on %s", o.D.State, o.D.Surface, tc.state, tc.surface)
			}
			if tc.kind == Bypass {
				return
			}
			mp := o.D.MatchedPattern()
			switch {
			case tc.pattern == "" && mp != nil:
				t.Fatalf("matched %q, want the fallback", *mp)
			case tc.pattern != "" && (mp == nil || *mp != s.expand(tc.pattern)):
				t.Fatalf("matched %v, want %q", mp, s.expand(tc.pattern))
			}
			if o.D.State != policy.Allow && (o.D.Text.Deny == "" || o.D.Prompt.Message == "") {
				t.Fatalf("descriptor without texts: %+v", o.D)
			}
		})
	}
}

func TestSessionPatternsPerSurface(t *testing.T) {
	s := newSandbox(t)
	r := compose(t, s.home, `{"permission": {"*": "ask"}}`)
	sp := func(surface, pattern string, exact bool) []verdict.SessionPattern {
		return []verdict.SessionPattern{{Surface: surface, Pattern: pattern, Exact: exact}}
	}
	cases := []struct {
		gate  func(*Call, Resolver) Outcome
		tool  string
		input map[string]any
		want  []verdict.SessionPattern // nil: no session option
	}{
		{Tool, "edit", map[string]any{"path": "src/a.ts"}, sp("edit", s.work+"/src/*", false)},
		{Tool, "write", map[string]any{"path": "index.html"}, sp("write", s.work+"/*", false)},
		{ExternalDirectory, "read", map[string]any{"path": s.outside + "/x.txt"}, sp("external_directory", s.outside+"/*", false)},
		// A path holding a wildcard character is recorded exactly (issue 11 item 4).
		{ExternalDirectory, "read", map[string]any{"path": s.outside + "/*"}, sp("external_directory", s.outside+"/*", true)},
		{ExternalDirectory, "read", map[string]any{"path": s.outside + "/a?b"}, sp("external_directory", s.outside+"/a?b", true)},
		{ExternalDirectory, "read", map[string]any{"path": s.outside + "/[ab]/x"}, sp("external_directory", s.outside+"/[ab]/x", true)},
		{Tool, "write", map[string]any{"path": "src/*.ts"}, sp("write", s.work+"/src/*.ts", true)},
		// Never a pattern covering "/" or the parent of home.
		{ExternalDirectory, "read", map[string]any{"path": "/etc"}, sp("external_directory", "/etc", true)},
		{ExternalDirectory, "read", map[string]any{"path": "/etc/"}, sp("external_directory", "/etc", true)},
		{ExternalDirectory, "read", map[string]any{"path": s.home}, sp("external_directory", s.home, true)},
		{ExternalDirectory, "read", map[string]any{"path": "~/.bashrc"}, sp("external_directory", s.home+"/*", false)},
		// MCP: the server's own form, never a prefix or a catch-all.
		{Tool, "mcp", map[string]any{"tool": "exa:search"}, sp("mcp", "exa:*", false)},
		{Tool, "mcp", map[string]any{"tool": "search", "server": "github"}, sp("mcp", "github:*", false)},
		{Tool, "mcp", map[string]any{"tool": "create_issue"}, sp("mcp", "create_issue", true)},
		{Tool, "mcp", map[string]any{"tool": "gh*:x"}, sp("mcp", "gh*:x", true)},
		{Tool, "mcp", map[string]any{"connect": "docs"}, sp("mcp", "mcp_connect_docs", true)},
		{Tool, "mcp", map[string]any{"describe": "github:x"}, nil},
		{Tool, "mcp", map[string]any{"search": "issue"}, nil},
		{Tool, "mcp", map[string]any{"server": "github"}, nil},
		{Tool, "mcp", map[string]any{}, nil},
		// Extension tools: the tool itself, exactly; never a gate surface.
		{Tool, "acme_deploy", map[string]any{}, sp("acme_deploy", "*", true)},
		{Tool, "acme_*", map[string]any{}, sp("acme_*", "*", true)},
		{Tool, "external_directory", map[string]any{}, nil},
		{Tool, "path", map[string]any{}, nil},
		{Tool, "mcp_", map[string]any{}, sp("mcp_", "*", true)},
		{Tool, "*", map[string]any{}, nil},
		{Tool, "read", map[string]any{}, nil},
	}
	for _, tc := range cases {
		o := tc.gate(s.call(tc.tool, tc.input), r)
		if !slices.Equal(o.D.SessionPatterns, tc.want) {
			t.Errorf("%s %v: session patterns %v, want %v", tc.tool, tc.input, o.D.SessionPatterns, tc.want)
		}
	}
	if o := Tool(s.call("skill", map[string]any{"name": "x"}), r); len(o.D.SessionPatterns) != 0 {
		t.Errorf("skills get no session option, got %v", o.D.SessionPatterns)
	}
}

// A recorded session pattern never covers what its prompt did not name:
// recorded as a session rule, it leaves the look-alike targets asking.
func TestSessionPatternsNeverBroader(t *testing.T) {
	s := newSandbox(t)
	base := compose(t, s.home, `{"permission": {"*": "ask"}}`)
	cases := []struct {
		approve, other *Call
	}{
		{s.call("mcp", map[string]any{"tool": "github:create_issue"}), s.call("mcp", map[string]any{"tool": "github_enterprise:create_issue"})},
		{s.call("mcp", map[string]any{"connect": "docs"}), s.call("mcp", map[string]any{"tool": "github:delete_repo"})},
		{s.call("mcp", map[string]any{"connect": "docs"}), s.call("mcp", map[string]any{"connect": "docs2"})},
		{s.call("read", map[string]any{"path": s.outside + "/*"}), s.call("read", map[string]any{"path": s.outside + "/x.txt"})},
		{s.call("read", map[string]any{"path": "/etc"}), s.call("read", map[string]any{"path": "/usr/x"})},
		{s.call("read", map[string]any{"path": s.home}), s.call("read", map[string]any{"path": "/home/other/x"})},
		{s.call("acme_*", map[string]any{}), s.call("acme_deploy", map[string]any{})},
		{s.call("acme", map[string]any{}), s.call("acme2", map[string]any{})},
	}
	for _, tc := range cases {
		gate := Tool
		if tc.approve.ToolName == "read" {
			gate = ExternalDirectory
		}
		o := gate(tc.approve, base)
		if len(o.D.SessionPatterns) == 0 {
			t.Errorf("%s %v: no session option", tc.approve.ToolName, tc.approve.Input)
			continue
		}
		var session []*policy.Rule
		for _, p := range o.D.SessionPatterns {
			r := policy.NewRuleFrom(policy.Rule{Surface: p.Surface, Pattern: p.Pattern, Action: policy.Allow, Layer: policy.LayerSession,
				Origin: policy.Origin{Scope: policy.ScopeSession}, Exact: p.Exact}, s.home)
			session = append(session, &r)
		}
		r := testResolver{p: base.p, session: session}
		if again := gate(tc.approve, r); again.D.State != policy.Allow {
			t.Errorf("%s %v: the approval does not cover the call itself (%v)", tc.approve.ToolName, tc.approve.Input, o.D.SessionPatterns)
		}
		if other := gate(tc.other, r); other.D.State == policy.Allow {
			t.Errorf("approving %s %v (%v) also allows %s %v", tc.approve.ToolName, tc.approve.Input, o.D.SessionPatterns, tc.other.ToolName, tc.other.Input)
		}
	}
}

func TestSkillGates(t *testing.T) {
	s := newSandbox(t)
	skillDir := filepath.Join(s.work, ".pi", "skills", "my-skill")
	if err := os.MkdirAll(skillDir, 0o755); err != nil {
		t.Fatal(err)
	}
	r := compose(t, s.home, `{"permission": {"*": "allow", "skill": {"*": "ask", "my-skill": "deny", "helper": "allow"}}}`)
	c := s.call("read", map[string]any{"path": ".pi/skills/my-skill/scripts/x.sh"})
	c.Skills = []verdict.Skill{{Name: "my-skill", Path: filepath.Join(skillDir, "SKILL.md")}}
	if o := SkillRead(c, r); o.Kind != Checked || o.D.State != policy.Deny || o.D.Value != "my-skill" {
		t.Fatalf("skill read: %+v", o)
	}
	c.Input["path"] = "README.md"
	if o := SkillRead(c, r); o.Kind != NotApplied {
		t.Fatalf("README is not a skill file: %+v", o)
	}
	for text, want := range map[string]policy.Action{"/skill:my-skill go": policy.Deny, "/skill:helper x": policy.Allow, "/skill:other": policy.Ask} {
		o := SkillInput(&Call{Input: map[string]any{"text": text}}, r)
		if o.Kind != Checked || o.D.State != want {
			t.Errorf("%q: %+v, want %s", text, o, want)
		}
	}
	for _, text := range []string{"plain text", "/skill:", "  /skillx"} {
		if o := SkillInput(&Call{Input: map[string]any{"text": text}}, r); o.Kind != NotApplied {
			t.Errorf("%q is not a skill invocation: %+v", text, o)
		}
	}
}

// The bash path gates read the analysis's path words; these rows give the
// words directly so that the gate logic is tested on its own.
func TestBashPathGates(t *testing.T) {
	s := newSandbox(t)
	word := func(raw string) shell.PathWord {
		return shell.PathWord{Raw: raw, Value: s.expand(raw), Known: true, Dir: s.work}
	}
	write := func(raw string) shell.PathWord {
		w := word(raw)
		w.Write = true
		return w
	}
	cases := []struct {
		name    string
		policy  string
		words   []shell.PathWord
		gate    func(*Call, Resolver) Outcome
		kind    Kind
		state   policy.Action
		pattern string
	}{
		{"env file denied on path", `{"permission": {"*": "allow", "path": {"*.env": "deny"}}}`, []shell.PathWord{word(".env")}, BashPath, Checked, policy.Deny, "*.env"},
		{"no explicit path rule", `{"permission": {"*": "allow"}}`, []shell.PathWord{word("README.md")}, BashPath, NotApplied, 0, ""},
		{"unknown word asks when path denies something", `{"permission": {"*": "allow", "path": {"*.env": "deny"}}}`, []shell.PathWord{{Raw: "$F/x"}}, BashPath, Checked, policy.Ask, SentinelUnknownPath},
		{"unknown word is silent without path rules", `{"permission": {"*": "allow"}}`, []shell.PathWord{{Raw: "$F/x"}}, BashPath, NotApplied, 0, ""},
		{"outside path asks", `{"permission": {"*": "allow", "external_directory": "ask"}}`, []shell.PathWord{word("$OUTSIDE/x.txt")}, BashExternalDirectory, Checked, policy.Ask, "*"},
		{"covered outside path allows", `{"permission": {"*": "allow", "external_directory": {"*": "ask", "$OUTSIDE/*": "allow"}}}`, []shell.PathWord{word("$OUTSIDE/x.txt")}, BashExternalDirectory, Checked, policy.Allow, "$OUTSIDE/*"},
		{"deny beats ask among paths", `{"permission": {"*": "allow", "external_directory": {"*": "ask", "/etc/*": "deny"}}}`, []shell.PathWord{word("$OUTSIDE/x.txt"), word("/etc/passwd")}, BashExternalDirectory, Checked, policy.Deny, "/etc/*"},
		{"symlinked word is outside", `{"permission": {"*": "allow", "external_directory": "deny"}}`, []shell.PathWord{word("link/x.txt")}, BashExternalDirectory, Checked, policy.Deny, "*"},
		{"unknown word is outside", `{"permission": {"*": "allow", "external_directory": "deny"}}`, []shell.PathWord{{Raw: "$DIR/x"}}, BashExternalDirectory, Checked, policy.Deny, "*"},
		{"unknown word follows a * allow", `{"permission": {"*": "allow", "external_directory": {"*": "allow"}}}`, []shell.PathWord{{Raw: "$DIR/x"}}, BashExternalDirectory, Checked, policy.Allow, "*"},
		{"unknown word follows a * ask", `{"permission": {"*": "allow", "external_directory": "ask"}}`, []shell.PathWord{{Raw: "$DIR/x"}}, BashExternalDirectory, Checked, policy.Ask, "*"},
		{"unknown word asks when a narrower deny could hold", `{"permission": {"*": "allow", "external_directory": {"*": "allow", "/etc/*": "deny"}}}`, []shell.PathWord{{Raw: "$DIR/x"}}, BashExternalDirectory, Checked, policy.Ask, "*"},
		{"unknown word is not allowed by a narrow allow", `{"permission": {"*": "allow", "external_directory": {"*": "ask", "~/.cache/*": "allow"}}}`, []shell.PathWord{{Raw: "~/.cache/$X"}}, BashExternalDirectory, Checked, policy.Ask, "~/.cache/*"},
		{"relative word after unknown cd follows a * allow", `{"permission": {"*": "allow", "external_directory": {"*": "allow"}}}`, []shell.PathWord{{Raw: "../x", Value: "../x", Known: true}}, BashExternalDirectory, Checked, policy.Allow, "*"},
		{"relative word after unknown cd is outside", `{"permission": {"*": "allow", "external_directory": "deny"}}`, []shell.PathWord{{Raw: "../x", Value: "../x", Known: true}}, BashExternalDirectory, Checked, policy.Deny, "*"},
		{"write of own policy file floored", `{"permission": {"*": "allow"}}`, []shell.PathWord{write(".pi/extensions/pi-permission-system/config.json")}, BashPath, Checked, policy.Ask, SentinelProtected},
		{"read of own policy file is no change", `{"permission": {"*": "allow"}}`, []shell.PathWord{word(".pi/extensions/pi-permission-system/config.json")}, BashPath, NotApplied, 0, ""},
		{"write of git hook is arming", `{"permission": {"*": "allow"}}`, []shell.PathWord{write(".git/hooks/pre-commit")}, BashPath, Checked, policy.Ask, SentinelArming},
		{"write of start-up file is arming", `{"permission": {"*": "allow"}}`, []shell.PathWord{write("$HOME/.profile")}, BashPath, Checked, policy.Ask, SentinelArming},
		{"read of start-up file is no change", `{"permission": {"*": "allow"}}`, []shell.PathWord{word("$HOME/.profile")}, BashPath, NotApplied, 0, ""},
		{"unknown write to a start-up file name is arming", `{"permission": {"*": "allow"}}`, []shell.PathWord{{Raw: "$D/.bashrc", Write: true}}, BashPath, Checked, policy.Ask, SentinelArming},
		{"arming keeps a path deny", `{"permission": {"*": "allow", "path": {"*/.git/*": "deny"}}}`, []shell.PathWord{write(".git/config")}, BashPath, Checked, policy.Deny, "*/.git/*"},
		{"inside word is not outside", `{"permission": {"*": "allow", "external_directory": "deny"}}`, []shell.PathWord{word("src/a.ts"), word("/dev/null")}, BashExternalDirectory, NotApplied, 0, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := compose(t, s.home, s.expand(tc.policy))
			c := s.call("bash", map[string]any{"command": "x"})
			c.Shell = &ShellCommand{Command: "x", Analysis: shell.Analysis{Paths: tc.words}}
			o := tc.gate(c, r)
			if o.Kind != tc.kind {
				t.Fatalf("kind = %v, want %v (%+v)", o.Kind, tc.kind, o)
			}
			if tc.kind == NotApplied {
				return
			}
			if o.D.State != tc.state {
				t.Fatalf("state = %s, want %s", o.D.State, tc.state)
			}
			if mp := o.D.MatchedPattern(); mp == nil || *mp != s.expand(tc.pattern) {
				t.Fatalf("matched %v, want %q", mp, s.expand(tc.pattern))
			}
		})
	}
}

// TestBashOptionIdentity: the tool gate matches each unit's words in
// their canonical option spelling: quotes are removed, env
// prefixes dropped, a word holding spaces stays one operand, and a
// wrapped command is a unit of its own.
func TestBashOptionIdentity(t *testing.T) {
	s := newSandbox(t)
	r := compose(t, s.home, `{"permission": {"bash": {"*": "allow", "rm -rf *": "deny", "git push --force *": "deny"}}}`)
	for _, c := range []struct {
		cmd       string
		want      policy.Action
		matchedAs string
	}{
		{`rm -fr build`, policy.Deny, "rm -f -r build"},
		{`rm "-f" '-r' build`, policy.Deny, "rm -f -r build"},
		{`"rm" build -Rf`, policy.Deny, "rm -f -r build"},
		{`X=1 rm --recursive --force build`, policy.Deny, "rm -f -r build"},
		{`/bin/rm -r -f build`, policy.Deny, "/bin/rm -f -r build"},
		{`echo ok | rm -fr build`, policy.Deny, "rm -f -r build"},
		{`nohup rm -fr build`, policy.Deny, "rm -f -r build"},
		{`rm -f "a -r b"`, policy.Allow, ""},
		{`rm -f x`, policy.Allow, ""},
		{`git push origin main --force`, policy.Deny, "git push -f origin main"},
		{`git push origin main`, policy.Allow, ""},
	} {
		o := Tool(s.bash(c.cmd), r)
		if o.D.State != c.want || o.D.MatchedAs != c.matchedAs {
			t.Errorf("%s: %v matched as %q, want %v matched as %q", c.cmd, o.D.State, o.D.MatchedAs, c.want, c.matchedAs)
		}
		if c.matchedAs != "" && !strings.Contains(o.D.Text.Deny, "matched as '"+c.matchedAs+"'") {
			t.Errorf("%s: the reason does not name the spelling: %s", c.cmd, o.D.Text.Deny)
		}
	}
}

// An arming command (git config of a program key) is asked every time,
// with no session option, even when the person approved exactly it for
// the session; a deny still denies, and an ordinary git config is allowed.
func TestBashArmingUnit(t *testing.T) {
	s := newSandbox(t)
	const cmd = "git config core.pager less"
	session := policy.NewRuleFrom(policy.Rule{Surface: "bash", Pattern: cmd, Action: policy.Allow, Layer: policy.LayerSession, Exact: true}, s.home)
	for _, tc := range []struct {
		policy, command string
		session         bool
		state           policy.Action
		sentinel        string
	}{
		{`{"permission": {"*": "allow"}}`, cmd, false, policy.Ask, SentinelArming},
		{`{"permission": {"*": "allow"}}`, cmd, true, policy.Ask, SentinelArming},
		{`{"permission": {"*": "allow"}}`, "git status && " + cmd, false, policy.Ask, SentinelArming},
		{`{"permission": {"*": "allow", "bash": {"*": "allow", "git config *": "deny"}}}`, cmd, false, policy.Deny, ""},
		{`{"permission": {"*": "allow"}}`, "git config user.name x", false, policy.Allow, ""},
		{`{"permission": {"*": "allow"}}`, "git log -G foo && cat .pi/extensions/pi-permission-system/config.json", false, policy.Allow, ""},
	} {
		r := compose(t, s.home, tc.policy)
		if tc.session {
			r.session = []*policy.Rule{&session}
		}
		c := s.bash(tc.command)
		if o := BashPath(c, r); o.Kind != NotApplied {
			t.Errorf("%q: no path word is a change of a guarded file, got %+v", tc.command, o.D)
		}
		o := Tool(c, r)
		if o.D.State != tc.state || o.D.Sentinel != tc.sentinel || (tc.sentinel != "" && len(o.D.SessionPatterns) > 0) {
			t.Errorf("%q (session %v): %s %q, session patterns %v; want %s %q and none", tc.command, tc.session, o.D.State, o.D.Sentinel, o.D.SessionPatterns, tc.state, tc.sentinel)
		}
	}
}

// Issue 12.8: the infrastructure bypass holds only for the host's own
// directories, compared resolved: a project directory (or one the project
// makes a symlink of) exempts nothing, nor does a host directory that
// resolves to / or above the home directory.
func TestInfrastructureOnlyHostDirs(t *testing.T) {
	s := newSandbox(t)
	agent := filepath.Join(s.home, ".pi", "agent")
	for _, d := range []string{filepath.Join(s.work, ".pi"), filepath.Join(agent, "docs"), filepath.Join(s.outside, "hostpkg")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		filepath.Join(s.work, ".pi", "npm"):    "/",
		filepath.Join(s.work, ".pi", "git"):    s.outside,
		filepath.Join(s.outside, "rootlink"):   "/",
		filepath.Join(s.outside, "homelink"):   filepath.Dir(s.home),
		filepath.Join(agent, "docs", "escape"): "/etc",
	} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	r := compose(t, s.home, `{"permission": {"*": "allow", "external_directory": "deny"}}`)
	for _, tc := range []struct {
		path  string
		infra []string
		kind  Kind
	}{
		{".pi/npm/etc/hostname", nil, Checked},
		{".pi/git/x.txt", nil, Checked},
		{"$OUTSIDE/rootlink/etc/hostname", []string{"$OUTSIDE/rootlink"}, Checked},
		{"$OUTSIDE/homelink/x", []string{"$OUTSIDE/homelink"}, Checked},
		{"$OUTSIDE/x.txt", []string{"$WORK/.."}, Checked},
		{"$OUTSIDE/x.txt", []string{"$WORK/link"}, Checked},
		{"$HOME/.pi/agent/docs/escape/hostname", nil, Checked},
		{"$HOME/.pi/agent/docs/x.md", nil, Bypass},
		{"$OUTSIDE/hostpkg/README.md", []string{"$OUTSIDE/hostpkg"}, Bypass},
	} {
		c := s.call("read", map[string]any{"path": s.expand(tc.path)})
		for _, d := range tc.infra {
			c.InfraDirs = append(c.InfraDirs, s.expand(d))
		}
		if o := ExternalDirectory(c, r); o.Kind != tc.kind {
			t.Errorf("read %s (infra %v): %v %s, want %v", tc.path, tc.infra, o.Kind, o.D.State, tc.kind)
		}
	}
}

// A directory named config (Rails' config/) is no configuration file:
// git add config/ stays allowed; a file named config is arming.
func TestArmingConfigDirectory(t *testing.T) {
	s := newSandbox(t)
	if err := os.Mkdir(filepath.Join(s.work, "config"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := compose(t, s.home, `{"permission": {"*": "allow"}}`)
	for cmd, want := range map[string]policy.Action{
		"git add config/":           policy.Allow,
		"tar -czf c.tgz config":     policy.Allow,
		"echo x > config/app.yml":   policy.Allow,
		"echo x > sub/config":       policy.Ask,
		"cp x repo.git/config":      policy.Ask,
		"cat config/../.git/config": policy.Allow,
		"tee config/../.git/config": policy.Ask,
	} {
		c := s.bash(cmd)
		got := policy.Allow
		if o := BashPath(c, r); o.Kind != NotApplied {
			got = o.D.State
		}
		if got != want {
			t.Errorf("%q: %s, want %s", cmd, got, want)
		}
	}
}
