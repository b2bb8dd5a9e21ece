package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A cloned repository's project file that allows everything changes no
// answer until its content is trusted; then it does; one byte changed and
// it no longer does.
func TestTrustByContent(t *testing.T) {
	e := newLoaderEnv(t)
	t0 := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	e.write(e.global, `{"permission": {"*": "ask", "bash": {"*": "ask", "rm *": "deny"}}}`, t0)
	e.write(e.project, `{"permission": {"*": "allow", "bash": {"*": "allow", "git push *": "deny"}}}`, t0)
	l := NewLoader()
	check := func(step string, want map[string]Action) {
		t.Helper()
		p := l.Policy(e.loc)
		for v, a := range want {
			if got, _ := decide(p, "bash", v); got != a {
				t.Errorf("%s: %s = %v, want %v", step, v, got, a)
			}
		}
	}
	untrusted := map[string]Action{"ls": Ask, "git push origin": Deny, "rm -rf x": Deny}
	check("untrusted", untrusted)
	if p := l.Policy(e.loc); p.Without() == nil || p.TrustCommand() == "" || !strings.Contains(p.TrustCommand(), e.loc.Cwd) {
		t.Errorf("untrusted: no second side (%v) or trust command %q", p.Without(), p.TrustCommand())
	}
	trustProject(t, e.loc, e.project)
	check("trusted", map[string]Action{"ls": Allow, "git push origin": Deny, "rm -rf x": Deny})
	if p := l.Policy(e.loc); p.Without() != nil {
		t.Errorf("trusted: a second side remains")
	}
	// One byte changed: untrusted again, even with the same size and
	// modification time (the store holds the hash, not the stamp).
	e.write(e.project, `{"permission": {"*": "allow", "bash": {"*": "allow", "git push *": "deny"}} }`, t0.Add(time.Second))
	check("edited", untrusted)
	// The host's distrust wins over the store.
	trustProject(t, e.loc, e.project)
	check("re-trusted", map[string]Action{"ls": Allow})
	host := e.loc
	host.ProjectTrusted = false
	if a, _ := decide(l.Policy(host), "bash", "ls"); a != Ask {
		t.Errorf("host distrust: ls = %v", a)
	}
}

// A project policy file that is a symbolic link is never trusted, and a
// broken trust store trusts nothing.
func TestTrustNeverThroughLinks(t *testing.T) {
	e := newLoaderEnv(t)
	t0 := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	e.write(e.global, `{"permission": {"bash": {"*": "ask"}}}`, t0)
	real := filepath.Join(e.loc.Cwd, "real.json")
	e.write(real, `{"permission": {"bash": {"*": "allow"}}}`, t0)
	if err := os.MkdirAll(filepath.Dir(e.project), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, e.project); err != nil {
		t.Fatal(err)
	}
	if _, _, _, ok := ProjectFileIdentity(e.loc.Cwd, e.project); ok {
		t.Fatalf("a symbolic link has a trustable identity")
	}
	// Even a store entry forged for it does not count.
	root, _ := filepath.EvalSymlinks(e.loc.Cwd)
	rel, _ := filepath.Rel(e.loc.Cwd, e.project)
	data, _ := os.ReadFile(real)
	ts := &TrustStore{}
	ts.Trust(TrustEntry{Root: root, Path: rel, RealPath: filepath.Join(root, rel), SHA256: ContentHash(data)})
	ts.Trust(TrustEntry{Root: root, Path: rel, RealPath: real, SHA256: ContentHash(data)})
	store := TrustStorePath(e.loc.ConfigHome, e.loc.Home)
	if err := SaveTrustStore(store, ts); err != nil {
		t.Fatal(err)
	}
	if a, _ := decide(NewLoader().Policy(e.loc), "bash", "ls"); a != Ask {
		t.Errorf("a linked project file loosened: ls = %v", a)
	}
	if err := os.WriteFile(store, []byte(`{"version": 1, "files": [`), 0o600); err != nil {
		t.Fatal(err)
	}
	p := NewLoader().Policy(e.loc)
	found := false
	for _, w := range p.Warnings {
		found = found || w.Path == store && strings.Contains(w.Message, "trust store")
	}
	if !found {
		t.Errorf("a broken trust store is not reported: %v", p.Warnings)
	}
}

// trust lists what would loosen: an allow where the policy without the
// project's files asks or denies, with its line.
func TestProjectFilesLoosenings(t *testing.T) {
	e := newLoaderEnv(t)
	t0 := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	e.write(e.global, `{"permission": {"bash": {"*": "ask", "git status": "allow", "rm *": "deny"}}}`, t0)
	e.write(e.project, "{\"permission\": {\"bash\": {\n\"git status\": \"allow\",\n\"npm *\": \"allow\",\n\"curl *\": \"deny\",\n\"rm -rf build\": \"ask\"}}}", t0)
	files := NewLoader().ProjectFiles(e.loc)
	if len(files) != 1 || !files[0].OK || files[0].Trusted || files[0].SHA256 == "" {
		t.Fatalf("files %+v", files)
	}
	var got []string
	for _, l := range files[0].Loosens {
		got = append(got, l.Pattern)
		if l.Pattern == "npm *" && (l.Line != 3 || l.Without != Ask || l.Action != Allow) {
			t.Errorf("npm *: %+v", l)
		}
	}
	// git status loosens nothing (the global allows it), curl tightens;
	// rm -rf build asks where the global denies: looser, though the floor
	// keeps the deny.
	if strings.Join(got, ",") != "npm *,rm -rf build" {
		t.Errorf("loosenings %v", got)
	}
}

func managedEnv(t *testing.T) (*loaderEnv, string) {
	t.Helper()
	e := newLoaderEnv(t)
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if managedDirProblem(dir) != "" {
		t.Skipf("the managed folder needs an owner of root: %s", managedDirProblem(dir))
	}
	e.loc.ManagedDir = dir
	return e, ManagedPath(dir)
}

// The managed file's deny and ask hold over every other scope, yolo and
// session approvals; its allow loosens nothing; its "*" only replaces the
// built-in fallback; its knobs are final.
func TestManagedScope(t *testing.T) {
	e, managed := managedEnv(t)
	t0 := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	e.write(managed, `{"auditLog": "/var/log/tg.jsonl", "disableYoloMode": true,
  "permission": {"bash": {"curl *": "deny", "git push *": "ask", "ls": "allow"}}}`, t0)
	e.write(e.global, `{"yoloMode": true, "auditLog": "/tmp/mine.jsonl", "permission": {"bash": {"*": "ask", "git push *": "allow", "ls": "deny"}}}`, t0)
	e.write(e.project, `{"permission": {"bash": {"curl *": "allow"}}}`, t0)
	trustProject(t, e.loc, e.project)
	p := NewLoader().Policy(e.loc)
	session := []*Rule{sessionRule("bash", "git push *"), sessionRule("bash", "curl *")}
	for _, c := range []struct {
		value string
		want  Action
		scope string
	}{
		{"curl x", Deny, ScopeManaged},         // over a trusted project allow
		{"git push origin", Ask, ScopeManaged}, // over a global allow and a session approval
		{"ls", Deny, ScopeGlobal},              // a managed allow loosens nothing
		{"make", Ask, ScopeGlobal},             // yolo is off: the global ask stays
	} {
		r := p.ResolveSides(Query{Surface: "bash", Values: []string{c.value}, Session: session})
		if r.Action != c.want || r.Rule.Origin.Scope != c.scope {
			t.Errorf("%s = %v from %s, want %v from %s", c.value, r.Action, r.Rule.Origin.Scope, c.want, c.scope)
		}
	}
	if p.Yolo || p.AuditLog != "/var/log/tg.jsonl" || !p.ManagedAuditLog {
		t.Errorf("knobs: yolo %t audit %q managed %t", p.Yolo, p.AuditLog, p.ManagedAuditLog)
	}
	if !hasWarning(p, e.global, 1, 20, "the managed policy") {
		t.Errorf("no warning that the global auditLog is overruled: %v", p.Warnings)
	}
	if p.Sources[0].Scope != ScopeManaged || !p.Sources[0].Loaded {
		t.Errorf("sources %+v", p.Sources)
	}

	// Its top-level "*" replaces only the built-in fallback.
	e.write(managed, `{"permission": {"*": "deny"}}`, t0.Add(time.Second))
	e.write(e.global, `{"permission": {"bash": {"ls": "allow"}}}`, t0.Add(time.Second))
	p = NewLoader().Policy(e.loc)
	if a, s := decide(p, "read", "x"); a != Deny || s != ScopeManaged {
		t.Errorf("managed fallback: read = %v from %s", a, s)
	}
	if a, _ := decide(p, "bash", "ls"); a != Allow {
		t.Errorf("managed fallback overruled a global allow: ls = %v", a)
	}

	// Broken with no good version: every call blocks, saying so.
	e.write(managed, `{"permission": {`, t0.Add(2*time.Second))
	p = NewLoader().Policy(e.loc)
	if r := p.ResolveSides(Query{Surface: "bash", Values: []string{"ls"}}); r.Action != Deny || !strings.Contains(r.Rule.Reason, managed) {
		t.Errorf("broken managed: ls = %v (%q)", r.Action, r.Rule.Reason)
	}
}

// TOOLGATE_MANAGED_DIR is honoured only for a folder owned by root that no
// one else may write.
func TestManagedDirMustBeRoots(t *testing.T) {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if got, warn := managedDirOf(dir); got != DefaultManagedDir || !strings.Contains(warn, "writable by others") {
		t.Errorf("world-writable: %s %q", got, warn)
	}
	if got, warn := managedDirOf("relative/dir"); got != DefaultManagedDir || warn == "" {
		t.Errorf("relative: %s %q", got, warn)
	}
	if got, warn := managedDirOf(""); got != DefaultManagedDir || warn != "" {
		t.Errorf("unset: %s %q", got, warn)
	}
}

// A global location inside the working directory (where the agent may
// write) is read as an untrusted project file: it tightens, never loosens.
func TestGlobalInsideProjectIsUntrusted(t *testing.T) {
	e := newLoaderEnv(t)
	t0 := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	e.loc.AgentDir = filepath.Join(e.loc.Cwd, "agentdir")
	global := GlobalPath(e.loc.AgentDir)
	e.write(global, `{"permission": {"bash": {"*": "allow", "rm *": "deny"}}}`, t0)
	p := NewLoader().Policy(e.loc)
	if a, _ := decide(p, "bash", "ls"); a != Ask {
		t.Errorf("a global file inside the project loosened: ls = %v", a)
	}
	if a, _ := decide(p, "bash", "rm x"); a != Deny {
		t.Errorf("its deny was dropped: rm x = %v", a)
	}
	if !hasWarning(p, global, 0, 0, "inside the working directory") {
		t.Errorf("no warning: %v", p.Warnings)
	}
}
