package policy

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

type loaderEnv struct {
	t       *testing.T
	loc     Locations
	global  string
	project string
}

func newLoaderEnv(t *testing.T) *loaderEnv {
	dir := t.TempDir()
	loc := Locations{
		AgentDir: filepath.Join(dir, "agent"),
		Home:     testHome,
		// The trust store and toolgate's own global file live here, never
		// under the test's fake home.
		ConfigHome:     filepath.Join(dir, "config"),
		Cwd:            filepath.Join(dir, "proj"),
		ProjectTrusted: true,
	}
	return &loaderEnv{t: t, loc: loc, global: GlobalPath(loc.AgentDir), project: ProjectPath(loc.Cwd)}
}

func (e *loaderEnv) write(path, text string, mtime time.Time) {
	e.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		e.t.Fatal(err)
	}
	if err := os.Chtimes(path, mtime, mtime); err != nil {
		e.t.Fatal(err)
	}
}

func decide(p *Policy, surface, value string) (Action, string) {
	r := p.ResolveSides(Query{Surface: surface, Values: []string{value}})
	return r.Action, r.Rule.Origin.Scope
}

func TestLoaderPaths(t *testing.T) {
	if got := GlobalPath("/a"); got != "/a/extensions/pi-permission-system/config.json" {
		t.Errorf("GlobalPath = %q", got)
	}
	if got := ProjectPath("/w"); got != "/w/.pi/extensions/pi-permission-system/config.json" {
		t.Errorf("ProjectPath = %q", got)
	}
}

func TestLoaderRereadsWhenMtimeChanges(t *testing.T) {
	e := newLoaderEnv(t)
	t0 := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	// Both versions have the same size, so only the mtime tells them apart.
	v1 := `{"permission": {"bash": {"ls": "deny"}}}`
	v2 := `{"permission": {"bash": {"rm": "deny"}}}`
	e.write(e.global, v1, t0)
	l := NewLoader()
	p1 := l.Policy(e.loc)
	if a, s := decide(p1, "bash", "ls"); a != Deny || s != ScopeGlobal {
		t.Fatalf("v1: ls = %v from %s", a, s)
	}
	if p := l.Policy(e.loc); p != p1 {
		t.Errorf("unchanged files must give the cached policy")
	}

	// Same size, same mtime: the loader cannot tell and keeps the cache.
	e.write(e.global, v2, t0)
	if p := l.Policy(e.loc); p != p1 {
		t.Errorf("a rewrite with the same size and mtime re-read the file")
	}
	// A new mtime makes it re-read.
	e.write(e.global, v2, t0.Add(time.Second))
	p2 := l.Policy(e.loc)
	if p2 == p1 {
		t.Fatalf("the mtime changed but the policy did not")
	}
	if a, _ := decide(p2, "bash", "ls"); a != Ask {
		t.Errorf("v2: ls = %v, want ask", a)
	}
	if a, _ := decide(p2, "bash", "rm"); a != Deny {
		t.Errorf("v2: rm = %v, want deny", a)
	}
	// Even an mtime in the past counts as a change.
	e.write(e.global, v1, t0.Add(-time.Hour))
	if a, _ := decide(l.Policy(e.loc), "bash", "ls"); a != Deny {
		t.Errorf("an older mtime was not noticed")
	}
	// A size change with the same mtime is noticed too.
	e.write(e.global, `{"permission": {"bash": {"ls": "allow"}}}`, t0.Add(-time.Hour))
	if a, _ := decide(l.Policy(e.loc), "bash", "ls"); a != Allow {
		t.Errorf("a size change was not noticed")
	}
	// Reload re-reads regardless of the stamp.
	e.write(e.global, `{"permission": {"bash": {"ls": "deny" }}}`, t0.Add(-time.Hour))
	if a, _ := decide(l.Policy(e.loc), "bash", "ls"); a != Allow {
		t.Errorf("same size and mtime must still be cached")
	}
	if a, _ := decide(l.Reload(e.loc), "bash", "ls"); a != Deny {
		t.Errorf("Reload did not re-read the file")
	}
	// A removed file contributes nothing.
	if err := os.Remove(e.global); err != nil {
		t.Fatal(err)
	}
	p := l.Policy(e.loc)
	if a, s := decide(p, "bash", "ls"); a != Ask || s != ScopeBuiltin {
		t.Errorf("after removal: ls = %v from %s", a, s)
	}
	if listed(p)[0].Exists || listed(p)[0].Loaded || p.Clamped {
		t.Errorf("after removal: source %+v clamped %t", listed(p)[0], p.Clamped)
	}
}

func TestLoaderProjectFile(t *testing.T) {
	e := newLoaderEnv(t)
	t0 := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	e.write(e.global, `{"permission": {"bash": {"*": "ask", "rm *": "deny"}}}`, t0)
	e.write(e.project, `{"yoloMode": true, "permission": {"bash": {"curl *": "deny", "rm x": "allow", "ls": "allow"}}}`, t0)
	trustProject(t, e.loc, e.project)
	l := NewLoader()

	trusted := l.Policy(e.loc)
	for _, c := range []struct {
		value   string
		action  Action
		scope   string
		floored bool
	}{
		{"curl x", Deny, ScopeProject, false},
		{"ls", Allow, ScopeProject, false},
		{"rm x", Deny, ScopeGlobal, true},
		{"cat", Ask, ScopeGlobal, false},
	} {
		r := trusted.Resolve(Query{Surface: "bash", Values: []string{c.value}})
		if r.Action != c.action || r.Rule.Origin.Scope != c.scope || r.Floored != c.floored {
			t.Errorf("trusted project: %s = %v from %s floored %t", c.value, r.Action, r.Rule.Origin.Scope, r.Floored)
		}
	}
	if trusted.Yolo {
		t.Errorf("the project turned yolo on")
	}
	if len(listed(trusted)) != 2 || listed(trusted)[1] != (Source{ScopeProject, e.project, true, true, true, true}) {
		t.Errorf("sources %+v", listed(trusted))
	}

	untrusted := e.loc
	untrusted.ProjectTrusted = false
	p := l.Policy(untrusted)
	if p == trusted {
		t.Fatalf("project trust is part of the cache key")
	}
	// Distrusted by the host, the project file still tightens (curl is
	// denied) and loosens nothing (ls asks as globally).
	if a, s := decide(p, "bash", "curl x"); a != Deny || s != ScopeProject {
		t.Errorf("untrusted project: curl = %v from %s, want the project's deny", a, s)
	}
	if a, s := decide(p, "bash", "ls"); a != Ask || s != ScopeGlobal {
		t.Errorf("untrusted project loosened: ls = %v from %s", a, s)
	}
	if len(listed(p)) != 2 || listed(p)[1] != (Source{ScopeProject, e.project, true, true, true, false}) {
		t.Errorf("untrusted sources %+v", listed(p))
	}
	found := false
	for _, w := range p.Warnings {
		if w.Path == e.project && strings.Contains(w.Message, "not trusted") {
			found = true
		}
	}
	if !found || p.Clamped {
		t.Errorf("untrusted project: warnings %v clamped %t", p.Warnings, p.Clamped)
	}
	// A broken project file, trusted or not, clamps: it may have meant to
	// tighten.
	e.write(e.project, `{"permision": {}}`, t0.Add(time.Second))
	if p := NewLoader().Policy(untrusted); !p.Clamped {
		t.Errorf("an untrusted broken project does not clamp")
	}
	// Read, it was good before in this process: its last good version
	// applies, reported as not loaded, with the error.
	if p := l.Policy(e.loc); p.Clamped || listed(p)[1].Loaded || !hasWarning(p, e.project, 1, 2, "Unrecognized config key 'permision'.") {
		t.Errorf("a broken project with a good version: clamped %t %+v %v", p.Clamped, listed(p), p.Warnings)
	} else if a, s := decide(p, "bash", "curl x"); a != Deny || s != ScopeProject {
		t.Errorf("the last good project version is not applied: curl = %v from %s", a, s)
	}
	// Broken from the start of a process: it clamps.
	if p := NewLoader().Policy(e.loc); !p.Clamped || listed(p)[1].Loaded {
		t.Errorf("a read broken project must clamp: %+v", listed(p))
	}
	// Missing project file: listed, not loaded, no warning.
	if err := os.Remove(e.project); err != nil {
		t.Fatal(err)
	}
	p = l.Policy(e.loc)
	if listed(p)[1] != (Source{ScopeProject, e.project, false, false, true, false}) || len(p.Warnings) != 0 || p.Clamped {
		t.Errorf("missing project: %+v %v", listed(p)[1], p.Warnings)
	}
}

func TestLoaderConfigFiles(t *testing.T) {
	e := newLoaderEnv(t)
	t0 := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	e.write(e.global, `{"permission": {"*": "allow", "bash": {"*": "ask"}}}`, t0)
	extra := filepath.Join(filepath.Dir(e.loc.Cwd), "extra.json")
	e.write(extra, `{"yoloMode": true, "permission": {"bash": {"rm *": "deny"}}}`, t0)

	loc := e.loc
	loc.ConfigFiles = []string{extra}
	l := NewLoader()
	p := l.Policy(loc)
	if !p.Yolo || p.Clamped {
		t.Errorf("--config: yolo %t clamped %t", p.Yolo, p.Clamped)
	}
	if a, s := decide(p, "bash", "ls"); a != Allow || s != ScopeYolo {
		t.Errorf("--config yolo: ls = %v from %s", a, s)
	}
	if a, s := decide(p, "bash", "rm x"); a != Deny || s != ScopeGlobal {
		t.Errorf("--config deny: rm = %v from %s", a, s)
	}
	if len(listed(p)) != 3 || listed(p)[2] != (Source{ScopeGlobal, extra, true, true, false, false}) {
		t.Errorf("sources %+v", listed(p))
	}

	// A missing --config file is an error that clamps.
	loc.ConfigFiles = []string{filepath.Join(filepath.Dir(e.loc.Cwd), "nope.json")}
	m := l.Policy(loc)
	if !m.Clamped {
		t.Errorf("a missing --config file must clamp")
	}
	if a, s := decide(m, "task", "*"); a != Ask || s != ScopeFailClosed {
		t.Errorf("missing --config: the global allow = %v from %s, want ask from fail-closed", a, s)
	}
	if src := m.Sources[2]; src.Exists || src.Loaded {
		t.Errorf("missing --config source %+v", src)
	}
	if !hasWarning(m, loc.ConfigFiles[0], 0, 0, "does not exist") {
		t.Errorf("missing --config: warnings %v", m.Warnings)
	}
	// A missing global file is not an error.
	if err := os.Remove(e.global); err != nil {
		t.Fatal(err)
	}
	if p := l.Policy(e.loc); p.Clamped || len(p.Warnings) != 0 {
		t.Errorf("a missing global file is not an error: %v", p.Warnings)
	}
}

func TestLoaderBadFiles(t *testing.T) {
	e := newLoaderEnv(t)
	// The global path is a directory.
	if err := os.MkdirAll(e.global, 0o755); err != nil {
		t.Fatal(err)
	}
	l := NewLoader()
	p := l.Policy(e.loc)
	if !p.Clamped || !hasWarning(p, e.global, 0, 0, "is a directory") {
		t.Errorf("directory: clamped %t warnings %v", p.Clamped, p.Warnings)
	}
	// A project file larger than MaxFileBytes.
	if err := os.MkdirAll(filepath.Dir(e.project), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(e.project)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxFileBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	p = l.Policy(e.loc)
	if !hasWarning(p, e.project, 0, 0, "larger than") || !p.Clamped || listed(p)[1].Loaded {
		t.Errorf("huge file: warnings %v", p.Warnings)
	}
	// A parse error carries the position.
	if err := os.Remove(e.project); err != nil {
		t.Fatal(err)
	}
	e.write(e.project, "{\n  \"permission\": {\"bash\": \"allw\"}\n}", time.Now())
	p = l.Policy(e.loc)
	if !hasWarning(p, e.project, 2, 26, `invalid state "allw"`) {
		t.Errorf("parse error: warnings %v", p.Warnings)
	}
}

func TestLoaderConcurrent(t *testing.T) {
	e := newLoaderEnv(t)
	t0 := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	e.write(e.global, `{"permission": {"bash": {"ls": "allow"}}}`, t0)
	l := NewLoader()
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 50; j++ {
				p := l.Policy(e.loc)
				if a, _ := decide(p, "bash", "ls"); a != Allow {
					errs <- a.String()
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for a := range errs {
		t.Errorf("concurrent load decided %s", a)
	}
}
