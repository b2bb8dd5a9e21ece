package policy

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseAgentFile(t *testing.T) {
	text := "---\n" +
		"name: reviewer\n" +
		"permission:\n" +
		"  bash:\n" +
		"    \"docker run -p 80:80 *\": deny\n" +
		"    git *: allow\n" +
		"    \"1\": ask\n" +
		"  mcp:\n" +
		"    \"exa:*\": allow\n" +
		"  read: deny\n" +
		"  edit:\n" +
		"    \"*.lock\": {action: deny, reason: generated}\n" +
		"---\n" +
		"body: not: front matter\n"
	f := ParseAgentFile("/a.md", []byte(text))
	if len(f.Errors) != 0 {
		t.Fatalf("errors: %v", f.Errors)
	}
	got := entryLines(f.Permission)
	want := []string{
		"bash@4:docker run -p 80:80 *@5=deny/", "bash@4:git *@6=allow/", "bash@4:1@7=ask/",
		"mcp@8:exa:*@9=allow/",
		"read@10=deny",
		"edit@11:*.lock@12=deny/generated",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("entries\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	// CRLF is normalized.
	crlf := ParseAgentFile("/a.md", []byte(strings.ReplaceAll(text, "\n", "\r\n")))
	if len(crlf.Errors) != 0 || len(crlf.Permission) != len(f.Permission) {
		t.Errorf("CRLF: %v %d entries", crlf.Errors, len(crlf.Permission))
	}
	// No front matter or no permission key: nothing, and no error.
	for _, s := range []string{"no front matter", "", "---\nname: x\n---\n", " ---\npermission:\n  bash: deny\n---\n"} {
		if f := ParseAgentFile("/a.md", []byte(s)); len(f.Errors) != 0 || len(f.Permission) != 0 {
			t.Errorf("%q: %v %v", s, f.Errors, f.Permission)
		}
	}
}

func TestParseAgentFileErrors(t *testing.T) {
	for _, c := range []struct {
		name      string
		text      string
		line, col int
		msg       string
	}{
		{"permission not a mapping", "---\npermission: [1]\n---\n", 2, 13, "permission must be a mapping"},
		{"unclosed", "---\npermission:\n  bash: deny\n", 1, 1, "never closed"},
		{"not YAML", "---\npermission:\n  bash: [deny\n---\n", 0, 0, ""},
		{"front matter a list", "---\n- permission\n---\n", 2, 1, "must be a mapping"},
	} {
		f := ParseAgentFile("/a.md", []byte(c.text))
		if len(f.Errors) == 0 {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if c.msg == "" {
			continue // any error will do (YAML itself may reject it)
		}
		e := f.Errors[0]
		if e.Path != "/a.md" || e.Line != c.line || e.Column != c.col || !strings.Contains(e.Message, c.msg) {
			t.Errorf("%s: %s, want /a.md:%d:%d containing %q", c.name, e, c.line, c.col, c.msg)
		}
	}
}

func TestValidAgentName(t *testing.T) {
	for name, ok := range map[string]bool{
		"reviewer": true, "my-agent_2": true, "a.b": true,
		"": false, ".": false, "..": false, "../x": false, "a/b": false, `a\b`: false, "a\x00b": false,
	} {
		if ValidAgentName(name) != ok {
			t.Errorf("ValidAgentName(%q) = %t", name, !ok)
		}
	}
}

func TestLoaderAgentFiles(t *testing.T) {
	e := newLoaderEnv(t)
	t0 := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	e.write(e.global, `{"permission": {"bash": {"*": "ask", "rm -rf *": "deny"}}}`, t0)
	agent := AgentPath(filepath.Join(e.loc.AgentDir, "agents"), "reviewer")
	projAgent := AgentPath(filepath.Join(e.loc.Cwd, ".pi", "agents"), "reviewer")
	e.write(agent, "---\npermission:\n  bash:\n    rm -rf build: allow\n    curl *: deny\n---\n", t0)
	e.write(projAgent, "---\npermission:\n  bash:\n    curl x: allow\n    rm -rf dist: allow\n    ls: allow\n---\n", t0)

	loc := e.loc
	loc.AgentName = "reviewer"
	trustProject(t, loc, projAgent)
	l := NewLoader()
	p := l.Policy(loc)
	for _, c := range []struct {
		value   string
		action  Action
		scope   string
		floored bool
	}{
		{"rm -rf build", Allow, ScopeAgent, false},        // the agent is trusted
		{"rm -rf dist", Deny, ScopeGlobal, true},          // the project agent is not
		{"curl x", Deny, ScopeAgent, true},                // nor against the agent
		{"ls", Allow, ScopeProjectAgent, false},           // it may loosen an ask
		{"rm -rf node_modules", Deny, ScopeGlobal, false}, // the global deny stands
	} {
		r := p.Resolve(Query{Surface: "bash", Values: []string{c.value}})
		if r.Action != c.action || r.Rule.Origin.Scope != c.scope || r.Floored != c.floored {
			t.Errorf("%s = %v from %s floored %t, want %v from %s floored %t", c.value, r.Action, r.Rule.Origin.Scope, r.Floored, c.action, c.scope, c.floored)
		}
	}
	wantSources := fmt.Sprint([]Source{
		{ScopeGlobal, e.global, true, true, false, false}, {ScopeProject, e.project, false, false, true, false},
		{ScopeAgent, agent, true, true, false, false}, {ScopeProjectAgent, projAgent, true, true, true, true},
	})
	if fmt.Sprint(listed(p)) != wantSources {
		t.Errorf("sources %v, want %v", listed(p), wantSources)
	}

	// The host distrusts the project: the project agent file is read as
	// untrusted, so its allow does not loosen the ask.
	loc.ProjectTrusted = false
	u := l.Policy(loc)
	if r := u.ResolveSides(Query{Surface: "bash", Values: []string{"ls"}}); r.Action != Ask {
		t.Errorf("untrusted project agent applied: ls = %v", r.Action)
	}
	if src := listed(u)[3]; !src.Loaded || !src.Exists || src.Trusted {
		t.Errorf("untrusted project agent source %+v", src)
	}

	// A bad entry in an agent file denies at its position.
	e.write(agent, "---\npermission:\n  bash: allw\n---\n", t0.Add(time.Second))
	b := l.Policy(loc)
	if b.Clamped || !hasWarning(b, agent, 3, 9, "invalid state") {
		t.Errorf("bad agent entry: clamped %t warnings %v", b.Clamped, b.Warnings)
	}
	if r := b.Resolve(Query{Surface: "bash", Values: []string{"git status"}}); r.Action != Deny || !strings.Contains(r.Rule.Reason, agent+":3") {
		t.Errorf("bad agent entry: git status = %v (%q)", r.Action, r.Rule.Reason)
	}
	// A file-level error in a broken-at-start agent file clamps.
	e.write(agent, "---\npermission: [x]\n---\n", t0.Add(2*time.Second))
	if b := NewLoader().Policy(loc); !b.Clamped || !hasWarning(b, agent, 2, 13, "permission must be a mapping") {
		t.Errorf("broken agent: clamped %t warnings %v", b.Clamped, b.Warnings)
	}

	// An agent name that would leave the agents directory is an error.
	loc.AgentName = "../x"
	bad := l.Policy(loc)
	if !bad.Clamped {
		t.Errorf("a bad agent name must clamp")
	}
}
