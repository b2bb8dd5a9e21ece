package author

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/toolgate/toolgate/hook"
	"github.com/toolgate/toolgate/policy"
)

func TestMayMeet(t *testing.T) {
	cases := []struct {
		surface, p, r string
		want          bool
	}{
		{"bash", "git push *", "git push --force *", true}, // options stand anywhere
		{"bash", "git push origin *", "git push --force *", true},
		{"bash", "git status *", "git push *", false},
		{"bash", "git status*", "git statusx *", true},
		{"bash", "npm run build*", "npm *", true},
		{"bash", "make *", "rm -rf *", false},
		{"bash", "make *", "* --force", true},
		{"read", "/p/docs/*", "/p/docs/secret/*", true},
		{"read", "/p/docs/*", "/p/src/*", false},
		{"read", "/p/docs/*", "*.env", true},
		{"read", "/p/docs/*", "docs/private/*", true}, // a relative rule meets the cwd-relative form
		{"read", "/p/docs/a*", "/p/docs/b*", false},
		{"read", "/p/docs/a*", "b*", true},
		{"read", "/p/docs/*", "src/*", true}, // in a session at /p/docs, /p/docs/src/a reads src/a
		{"read", "/p/docs/*", "../*", true},
		{"external_directory", "/other/x/*", "/other/*", true},
		{"mcp", "github:*", "github_delete*", true}, // MCP values have several forms
		{"context7_search", "*", "x", true},
	}
	for _, c := range cases {
		if got := mayMeet(c.surface, c.p, c.r); got != c.want {
			t.Errorf("mayMeet(%s, %q, %q) = %v, want %v", c.surface, c.p, c.r, got, c.want)
		}
	}
}

// suggestSession makes the folders dirs and the policy file
// dir/policy.json holding policy, and returns the options of a session in
// dir/project that reads that file alone.
func suggestSession(t *testing.T, dir, policy string, dirs ...string) hook.Options {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	cfg := filepath.Join(dir, "policy.json")
	if err := os.WriteFile(cfg, []byte(policy), 0o600); err != nil {
		t.Fatal(err)
	}
	return hook.Options{Cwd: filepath.Join(dir, "project"), ConfigFiles: []string{cfg}, Home: filepath.Join(dir, "home"), AgentDir: filepath.Join(dir, "agent"), Log: zerolog.Nop()}
}

// suggestCalls runs Suggest on recs (a suggestion wants two approved
// calls at least) and returns the report and each suggestion's calls by
// its surface and pattern.
func suggestCalls(t *testing.T, opts hook.Options, recs []Recorded) (SuggestReport, map[string]int) {
	t.Helper()
	rep, err := Suggest(opts, recs, SuggestOptions{Min: 2})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, s := range rep.Suggestions {
		got[s.Surface+" "+s.Pattern] = s.Calls
	}
	return rep, got
}

func TestSuggestSurfaces(t *testing.T) {
	dir := t.TempDir()
	project := filepath.Join(dir, "project")
	outside := filepath.Join(dir, "docs", "manual")
	opts := suggestSession(t, dir, `{"permission": {"*": "ask", "mcp": {"*": "ask", "github:delete_repo": "deny"}}}`, filepath.Join(project, "src"), outside)
	line := 0
	rec := func(tool, input string, answers ...RecordedAnswer) Recorded {
		line++
		return Recorded{Line: line, SessionID: "s", ToolCallID: fmt.Sprint("c", line), ToolName: tool, State: "ask", Cwd: project,
			Input: json.RawMessage(input), Decidable: true, Answers: answers}
	}
	yes := func(gate string) RecordedAnswer { return RecordedAnswer{Gate: gate, Choice: "allow_once"} }
	recs := []Recorded{
		rec("read", `{"path": "`+outside+`/a.md"}`, yes("external_directory"), yes("tool")),
		rec("read", `{"path": "`+outside+`/a.md"}`, yes("external_directory"), yes("tool")),
		rec("read", `{"path": "`+outside+`/b.md"}`, yes("external_directory"), yes("tool")), // once: too few
		rec("edit", `{"path": "src/a.go", "oldText": "x", "newText": "y"}`, yes("tool")),
		rec("edit", `{"path": "src/a.go", "oldText": "y", "newText": "z"}`, yes("tool")),
		rec("mcp", `{"tool": "github:search"}`, yes("tool")),
		rec("mcp", `{"tool": "github:search"}`, yes("tool")),
		rec("context7_search", `{"q": "react"}`, yes("tool")),
		rec("context7_search", `{"q": "vue"}`, yes("tool")),
		rec("skill", `{"name": "deploy"}`, yes("tool")),
		rec("skill", `{"name": "deploy"}`, yes("tool")),
	}
	rep, got := suggestCalls(t, opts, recs)
	// Never broader than what was approved: the file approved, not its
	// folder (which the prompts offered for the session).
	want := map[string]int{
		"external_directory " + outside + "/a.md":       2,
		"read " + outside + "/a.md":                     2,
		"edit " + filepath.Join(project, "src", "a.go"): 2,
		"context7_search *":                             2,
	}
	// github:* would reach the deny of github:delete_repo: exact only, in
	// the form the MCP gate reports the target.
	mcp := got["mcp github:search"] + got["mcp github_search"]
	delete(got, "mcp github:search")
	delete(got, "mcp github_search")
	if mcp != 2 {
		t.Errorf("no exact MCP suggestion for github:search: %+v", rep.Suggestions)
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("suggestion %q: %d calls, want %d", k, got[k], n)
		}
	}
	if len(got) != len(want) {
		t.Errorf("suggestions %v, want %v", got, want)
	}
	foundSkill := false
	for _, n := range rep.NotSuggested {
		foundSkill = foundSkill || n.Surface == "skill" && strings.Contains(n.Why, "no session approval")
	}
	if !foundSkill {
		t.Errorf("the skill is not listed as not suggested: %+v", rep.NotSuggested)
	}
	if rep.Approved != 11 || rep.Spared != 8 {
		t.Errorf("approved %d, spared %d; want 11, 8", rep.Approved, rep.Spared)
	}
}

func TestSuggestNarrowsPathsPastADeny(t *testing.T) {
	dir := t.TempDir()
	project := filepath.Join(dir, "project")
	outside := filepath.Join(dir, "docs")
	opts := suggestSession(t, dir, `{"permission": {"*": "ask", "read": {"*": "ask", "*.secret": "deny"}}}`, project, outside)
	var recs []Recorded
	for i := range 3 {
		recs = append(recs, Recorded{Line: i + 1, SessionID: "s", ToolCallID: fmt.Sprint("c", i), ToolName: "read", State: "ask", Cwd: project,
			Input: json.RawMessage(`{"path": "../docs/a.md"}`), Decidable: true,
			Answers: []RecordedAnswer{{Gate: "external_directory", Choice: "allow_once"}, {Gate: "tool", Choice: "allow_once"}}})
	}
	rep, got := suggestCalls(t, opts, recs)
	// read DIR/* could reach a *.secret file: only the file itself.
	want := map[string]int{"read " + outside + "/a.md": 3, "external_directory " + outside + "/a.md": 3}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("suggestions %v, want %v", got, want)
	}
	if rep.Spared != 3 {
		t.Errorf("spared %d of 3", rep.Spared)
	}
}

func TestLiteralPathMeets(t *testing.T) {
	cases := []struct {
		rule, path string
		want       bool
	}{
		{"*.secret", "/w/docs/a.md", false},
		{"*.secret", "/w/docs/a.secret", true},
		{"docs/*", "/w/docs/a.md", true}, // relative to /w
		{"../docs/*", "/w/docs/a.md", true},
		{"src/*", "/w/docs/a.md", false},
		{"/w/*", "/w/docs/a.md", true},
		{"/v/*", "/w/docs/a.md", false},
		{"a.md", "/w/docs/a.md", true}, // relative to /w/docs
	}
	for _, c := range cases {
		r := policy.NewRule("read", c.rule, policy.Deny, policy.LayerConfig, policy.Origin{}, "/home/u")
		if got := literalPathMeets(&r, c.path); got != c.want {
			t.Errorf("literalPathMeets(%q, %q) = %v, want %v", c.rule, c.path, got, c.want)
		}
	}
}
