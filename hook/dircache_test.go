package hook

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/rs/zerolog"

	"github.com/toolgate/toolgate/gates/paths"
	"github.com/toolgate/toolgate/policy"
)

// The cross-call memory of directories' real paths never outlives a
// change: when toolgate's own agents directory is replaced mid-session by
// a symlink to an outside directory, the next write there is a change of
// toolgate's own files, asked (not allowed from a stale real path).
func TestDirCacheSeesReplacedDirectory(t *testing.T) {
	root := realTempDir(t)
	agentDir := filepath.Join(root, "agent")
	work, outside := filepath.Join(root, "work"), filepath.Join(root, "outside")
	mkdirs(t, filepath.Join(agentDir, "agents"), work, outside)
	writePiConfig(t, agentDir, `{"permission": {"*": "allow"}}`)
	c := servePipes(t, New(Options{Cwd: work, Home: root, AgentDir: agentDir, AuditLog: filepath.Join(root, "audit.jsonl"), Log: zerolog.Nop()}))
	call := func(id int, method, params string) map[string]any {
		t.Helper()
		return c.answer(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params))
	}
	call(1, "initialize", fmt.Sprintf(`{"protocolVersion":1,"cwd":%q,"hasUI":false}`, work))
	target := filepath.Join(outside, "reviewer.md")
	write := fmt.Sprintf(`{"toolCallId":"w","toolName":"write","input":{"path":%q,"content":"x"}}`, target)
	action := func(id int) string {
		res, _ := call(id, "tool_call", write)["result"].(map[string]any)
		a, _ := res["action"].(string)
		return a
	}
	for i := 2; i < 6; i++ { // warm: the real paths are remembered now
		if a := action(i); a != "allow" {
			t.Fatalf("call %d: %s before the change", i, a)
		}
	}
	agents := filepath.Join(agentDir, "agents")
	if err := os.Remove(agents); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, agents); err != nil {
		t.Fatal(err)
	}
	if a := action(7); a != "block" {
		t.Fatalf("after the agents directory became a link to %s, a write there was %s, want block (toolgate's own files are asked; no UI)", outside, a)
	}
	// The project's .pi does not exist yet: its agents directory is
	// remembered as missing. Made a link to an outside directory, writes
	// there are writes to the project's agent files.
	other := filepath.Join(root, "other")
	if err := os.MkdirAll(filepath.Join(other, "agents"), 0o700); err != nil {
		t.Fatal(err)
	}
	target = filepath.Join(other, "agents", "x.md")
	write = fmt.Sprintf(`{"toolCallId":"w","toolName":"write","input":{"path":%q,"content":"x"}}`, target)
	for i := 8; i < 11; i++ {
		if a := action(i); a != "allow" {
			t.Fatalf("call %d: %s before .pi existed", i, a)
		}
	}
	if err := os.Symlink(other, filepath.Join(work, ".pi")); err != nil {
		t.Fatal(err)
	}
	if a := action(12); a != "block" {
		t.Fatalf("after .pi became a link to %s, a write to its agents was %s, want block", other, a)
	}
}

// The cache also keeps entries directly in the working directory (it is
// watched): a file there replaced by a link into toolgate's own files, or
// a directory there replaced by one, is seen by the next call.
func TestDirCacheSeesReplacedEntry(t *testing.T) {
	root := realTempDir(t)
	agentDir := filepath.Join(root, "agent")
	work := filepath.Join(root, "work")
	own := filepath.Join(agentDir, "agents")
	mkdirs(t, own, filepath.Join(work, "src"))
	writePiConfig(t, agentDir, `{"permission": {"*": "allow"}}`)
	notes := filepath.Join(work, "notes.md")
	if err := os.WriteFile(notes, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := servePipes(t, New(Options{Cwd: work, Home: root, AgentDir: agentDir, AuditLog: filepath.Join(root, "audit.jsonl"), Log: zerolog.Nop()}))
	id := 0
	action := func(path string) string {
		t.Helper()
		id++
		m := c.answer(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tool_call","params":{"toolCallId":"w","toolName":"write","input":{"path":%q,"content":"x"}}}`, id, path))
		res, _ := m["result"].(map[string]any)
		a, _ := res["action"].(string)
		return a
	}
	fmt.Fprintf(c.w, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"cwd":%q,"hasUI":false}}`+"\n", work)
	if _, err := c.r.ReadBytes('\n'); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ { // warm: work/notes.md and work/src are kept now
		if a := action("notes.md"); a != "allow" {
			t.Fatalf("notes.md: %s before the change", a)
		}
		if a := action("src/x.md"); a != "allow" {
			t.Fatalf("src/x.md: %s before the change", a)
		}
	}
	if err := os.Remove(notes); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(own, "x.md"), notes); err != nil {
		t.Fatal(err)
	}
	if a := action("notes.md"); a != "block" {
		t.Fatalf("after notes.md became a link into toolgate's own agents, a write to it was %s, want block", a)
	}
	if err := os.Remove(filepath.Join(work, "src")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(own, filepath.Join(work, "src")); err != nil {
		t.Fatal(err)
	}
	if a := action("src/x.md"); a != "block" {
		t.Fatalf("after src became a link to toolgate's own agents, a write below it was %s, want block", a)
	}
}

// TestDirCacheKept: what the cache says it keeps under the generation
// (paths.KeptDirs, which lets gates.Evals skip asking it again) is what
// it answers again while the generation lasts, even after it forgot
// everything; what it resolves without keeping is not called kept; and a
// change in a watched directory is a new generation.
func TestDirCacheKept(t *testing.T) {
	root := realTempDir(t)
	agentDir := filepath.Join(root, "agent")
	work, outside := filepath.Join(root, "work"), filepath.Join(root, "outside")
	mkdirs(t, filepath.Join(work, "src"), filepath.Join(outside, "sub"))
	writePiConfig(t, agentDir, `{"permission": {"*": "allow"}}`)
	link := filepath.Join(root, "link")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	l := policy.NewLoader()
	loc := policy.Locations{AgentDir: agentDir, Home: root, Cwd: work}
	l.Policy(loc)
	l.Policy(loc) // armed: the watch sees the directories above the policy files
	d := newDirCache(l)
	gen := d.Generation()
	type said struct {
		real          string
		ok, hit, kept bool
	}
	ask := func(dir string) said {
		real, ok, hit, kept := d.CanonicalKept(dir)
		if r2, ok2, hit2 := d.Canonical(dir); r2 != real || ok2 != ok || hit2 != hit {
			t.Errorf("%s: CanonicalKept %q %v %v, Canonical %q %v %v", dir, real, ok, hit, r2, ok2, hit2)
		}
		return said{real, ok, hit, kept}
	}
	want := map[string]said{
		work:                          {work, true, true, true},                          // kept: its parent is watched
		filepath.Join(outside, "sub"): {filepath.Join(outside, "sub"), true, true, true}, // kept: the watch vouched for its parent
		filepath.Join(link, "sub"):    {"", false, false, true},                          // skipped: its parent is a link, which no watch vouches for
		link:                          {outside, true, true, false},                      // resolved through a link, not kept
	}
	for dir, w := range want {
		if got := ask(dir); got != w {
			t.Errorf("%s: %+v, want %+v", dir, got, w)
		}
	}
	clear(d.known) // forgotten within the generation: the kept answers again
	for dir, w := range want {
		if got := ask(dir); got != w {
			t.Errorf("after forgetting, %s: %+v, want %+v", dir, got, w)
		}
	}
	if exists, isDir, known, kept := d.EntryKept(work); !exists || !isDir || !known || !kept {
		t.Errorf("EntryKept(work) %v %v %v %v", exists, isDir, known, kept)
	}
	if d.Generation() != gen {
		t.Fatal("the generation changed with nothing changed")
	}
	// Peek answers only what the cache holds: work (looked up above) as
	// Entry does; a path not looked up yet and a link's resolution not.
	if exists, isDir, known := d.Peek(work); !exists || !isDir || !known {
		t.Errorf("Peek(work) %v %v %v", exists, isDir, known)
	}
	for _, p := range []string{filepath.Join(work, "src"), link} {
		if _, _, known := d.Peek(p); known {
			t.Errorf("Peek(%s) known", p)
		}
	}
	// A change in a watched directory: a new generation (read by the
	// next call's policy).
	if err := os.Rename(work, filepath.Join(outside, "work")); err != nil {
		t.Fatal(err)
	}
	l.Policy(loc)
	if d.Generation() == gen {
		t.Error("moving the working directory away left the generation as it was")
	}
	if _, _, known := d.Peek(work); known {
		t.Error("Peek(work) still known in the new generation")
	}
}

// TestDirCacheVouchedSeesChanges: a directory every call checks that lies
// where no policy file's watch reaches (an audit log in a folder of its
// own) is kept once the watch vouched for its parent, and a change to it
// or above it is still seen by the next call.
func TestDirCacheVouchedSeesChanges(t *testing.T) {
	root, l, loc := armedPolicyWatch(t)
	logs, elsewhere := filepath.Join(root, "var", "logs"), filepath.Join(root, "elsewhere")
	mkdirs(t, logs, elsewhere)
	d := newDirCache(l)
	for _, change := range []struct {
		what string
		do   func() error
		want string
	}{
		{"logs replaced by a link", func() error {
			if err := os.Rename(logs, logs+".old"); err != nil {
				return err
			}
			return os.Symlink(elsewhere, logs)
		}, elsewhere},
		{"var replaced by a link", func() error {
			other := filepath.Join(root, "var2")
			if err := os.MkdirAll(filepath.Join(other, "logs"), 0o700); err != nil {
				return err
			}
			if err := os.Rename(filepath.Join(root, "var"), filepath.Join(root, "var.old")); err != nil {
				return err
			}
			return os.Symlink(other, filepath.Join(root, "var"))
		}, filepath.Join(root, "var2", "logs")},
	} {
		if real, ok, hit, kept := d.CanonicalKept(logs); !ok || !hit || !kept {
			t.Fatalf("before %s: %q %v %v %v, want kept", change.what, real, ok, hit, kept)
		}
		if err := change.do(); err != nil {
			t.Fatal(err)
		}
		l.Policy(loc) // the next call reads the watch
		real, ok := paths.Canonical(logs)
		if !ok || real != change.want {
			t.Fatalf("%s: the test's own resolution %q %v, want %q", change.what, real, ok, change.want)
		}
		got, ok, hit := d.Canonical(logs)
		if hit && (!ok || got != change.want) {
			t.Fatalf("after %s: the cache says %q (%v), want %q", change.what, got, ok, change.want)
		}
		// Back to a plain directory for the next change.
		if err := os.Remove(logs); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(logs, 0o700); err != nil {
			t.Fatal(err)
		}
		l.Policy(loc)
	}
}

// TestDirCacheGivesUpABusyVouchedFolder: a folder the cache had vouched
// for that changes call after call (an export cursor renamed into the
// audit log's folder after every batch) is given up by the watch, so that
// it stops starting generations, while a quiet folder is still vouched
// for; what the cache says of the log is right throughout.
func TestDirCacheGivesUpABusyVouchedFolder(t *testing.T) {
	root, l, loc := armedPolicyWatch(t)
	logs, quiet := filepath.Join(root, "var", "logs"), filepath.Join(root, "var", "quiet")
	mkdirs(t, logs, quiet)
	d := newDirCache(l)
	audit := filepath.Join(logs, "audit.jsonl")
	cursor := audit + ".export.cursor"
	// vouched reports whether the watch vouches for dir now and for the
	// quiet folder too (a busy /tmp above the test can make the whole
	// watch start over for a call; then it asks again).
	vouched := func(dir string) bool {
		for range 20 {
			l.Policy(loc)
			if _, ok := l.Vouch(quiet); ok {
				_, ok := l.Vouch(dir)
				return ok
			}
		}
		t.Fatal("the watch vouched for no folder in 20 calls")
		return false
	}
	if !vouched(logs) {
		t.Fatal("the watch does not vouch for the log's folder before it is busy: this test shows nothing")
	}
	for i := range 100 {
		l.Policy(loc) // a call reads the watch
		if real, ok, hit := d.Canonical(audit); hit && (!ok || real != audit) {
			t.Fatalf("call %d: the cache says %q (%v) for %s", i, real, ok, audit)
		}
		// The sender's cursor, written as it writes it: a new file
		// renamed over the old one.
		tmp := cursor + ".tmp"
		if err := os.WriteFile(tmp, []byte(`{"v":1}`), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, cursor); err != nil {
			t.Fatal(err)
		}
	}
	if vouched(logs) {
		t.Fatal("the log's folder changed on every call and the watch still vouches for it: every call starts a new generation")
	}
}

// armedPolicyWatch is a policy file in an agent directory below a fresh
// folder root, read twice by a loader, so that its watch is armed: the
// folder, the loader and the locations it read.
func armedPolicyWatch(t *testing.T) (string, *policy.Loader, policy.Locations) {
	t.Helper()
	root := realTempDir(t)
	agentDir := filepath.Join(root, "agent")
	writePiConfig(t, agentDir, `{"permission": {"*": "allow"}}`)
	l := policy.NewLoader()
	loc := policy.Locations{AgentDir: agentDir, Home: filepath.Join(root, "home"), Cwd: filepath.Join(root, "work")}
	l.Policy(loc)
	l.Policy(loc)
	return root, l, loc
}

// realTempDir is a fresh folder of the test, by its real path (no link on
// the way), as the session resolves paths.
func realTempDir(t *testing.T) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// mkdirs makes each of dirs with the folders above it.
func mkdirs(t *testing.T, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDirCacheVouchesAFolderOnTheWayAgain: a file two folders below the
// deepest watched directory is the caller's to resolve at first; once
// calls have come through those folders again the watch vouches for them
// and the cache keeps the file's entry, while a folder passed once is not
// watched. Changes below the vouched folders (a folder replaced by a
// link, the file removed) are still seen by the next call, as a fresh
// resolution sees them.
func TestDirCacheVouchesAFolderOnTheWayAgain(t *testing.T) {
	root, l, loc := armedPolicyWatch(t)
	work := loc.Cwd
	src, mod, once := filepath.Join(work, "src"), filepath.Join(work, "src", "m1"), filepath.Join(work, "once", "deep")
	elsewhere := filepath.Join(root, "elsewhere")
	mkdirs(t, mod, once, elsewhere)
	file := filepath.Join(mod, "f.ts")
	for _, f := range []string{file, filepath.Join(elsewhere, "f.ts")} {
		if err := os.WriteFile(f, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	l.Policy(loc) // the new folders are an event: a call reads it
	if _, x, ok := l.WatchedAncestor(file); !ok || x != work {
		t.Fatalf("before any look up the deepest watched folder above the file is %q (%v), want the working directory: this test shows nothing", x, ok)
	}
	d := newDirCache(l)
	sibling := filepath.Join(mod, "g.ts")
	if _, _, known := d.Entry(sibling); known {
		t.Fatal("a file is known at its first look up, below two folders nobody watches")
	}
	if _, _, known := d.Entry(file); known {
		t.Fatal("the file is known at its first look up, below two folders nobody watches")
	}
	if _, _, known := d.Entry(filepath.Join(once, "x")); known {
		t.Fatal("a path below a folder passed once is known")
	}
	known := false
	for range 4 {
		l.Policy(loc)
		if _, _, known = d.Entry(file); known {
			break
		}
	}
	if !known {
		t.Fatal("the file is still not known after the calls came through its folders again")
	}
	if exists, isDir, _ := d.Entry(file); !exists || isDir {
		t.Fatalf("the cache says exists %v, dir %v of a regular file", exists, isDir)
	}
	if _, x, _ := l.WatchedAncestor(file); x != mod {
		t.Errorf("the deepest watched folder above the file is %q, want %q", x, mod)
	}
	// A path skipped before its folder was vouched for is kept now.
	if exists, _, known := d.Entry(sibling); !known || exists {
		t.Errorf("a missing file in the vouched folder: exists %v, known %v; want known missing", exists, known)
	}
	if _, x, _ := l.WatchedAncestor(filepath.Join(once, "x")); x != work {
		t.Errorf("a folder passed once is watched: the deepest watched folder above it is %q", x)
	}
	gen := d.Generation()
	l.Policy(loc)
	if d.Generation() != gen {
		t.Fatal("the generation changed with nothing changed")
	}

	// The file removed: the next call's cache says so, or asks again.
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	l.Policy(loc)
	if exists, _, known := d.Entry(file); known && exists {
		t.Fatal("after the file was removed the cache still says it exists")
	}
	// The module folder replaced by a link to elsewhere: the path's real
	// form is elsewhere's now, so the cache must not keep it as its own.
	if err := os.Rename(mod, mod+".old"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, mod); err != nil {
		t.Fatal(err)
	}
	l.Policy(loc)
	if real, ok := paths.Canonical(file); !ok || real != filepath.Join(elsewhere, "f.ts") {
		t.Fatalf("the test's own resolution %q %v", real, ok)
	}
	for range 3 {
		if exists, _, known := d.Entry(file); known {
			t.Fatalf("after its folder became a link the cache keeps the file as its own real path (exists %v)", exists)
		}
		l.Policy(loc)
	}
	// And src replaced by a plain folder without the module: gone.
	if err := os.Rename(src, src+".old"); err != nil {
		t.Fatal(err)
	}
	mkdirs(t, src)
	l.Policy(loc)
	if exists, _, known := d.Entry(file); known && exists {
		t.Fatal("after src was replaced the cache still says the file exists")
	}
}
