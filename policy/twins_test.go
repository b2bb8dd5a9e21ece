package policy

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestIndexWildIsIndexAny holds indexWild equal to strings.IndexAny(s,
// "*?") for edge cases (none, either first, both, escaped, invalid UTF-8)
// and random strings.
func TestIndexWildIsIndexAny(t *testing.T) {
	inputs := []string{"", "*", "?", "*?", "?*", "a", "a*", "a?", "ab*c?d", "ab?c*d", `\*`, `\?`, `a\*b?`, "é*", "\xff?",
		"**", "??", "x/y/*.go", "no wildcard at all", strings.Repeat("a", 40) + "?" + strings.Repeat("b", 40) + "*"}
	pieces := []string{"*", "?", "a", "b", `\`, "é", "\xff", "/", " ", "[", "]"}
	rng := rand.New(rand.NewPCG(2, 13))
	for range 5000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		inputs = append(inputs, b.String())
	}
	for _, s := range inputs {
		if got, want := indexWild(s), strings.IndexAny(s, "*?"); got != want {
			t.Fatalf("%q: indexWild %d, strings.IndexAny %d", s, got, want)
		}
	}
}

// TestPlainStateIsState holds plainState equal to parser.state for every
// value it takes: the same action and no problem recorded; and every
// string that state reads without a problem, plainState takes too. The
// values are edge cases (escapes, case, spaces, objects, other kinds) and
// random strings, read by the one-pass parser and by hujson's tree.
func TestPlainStateIsState(t *testing.T) {
	values := []string{`"allow"`, `"ask"`, `"deny"`, `"Allow"`, `"ALLOW"`, `" allow"`, `"allow "`, `""`, `"\u0061llow"`,
		`"al\u006cow"`, `"de\u006ey"`, `"as\u006b"`, `"ask\/"`, `"\/ask"`, `"deny\n"`, `"\"deny\""`, `"allow\u0000"`,
		`"allowask"`, `"a"`, `1`, `0`, `true`, `false`, `null`, `{}`, `[]`, `["allow"]`, `{"action": "deny"}`,
		`{"action": "deny", "reason": "no"}`, `{"action": "allow"}`, `{"reason": "r"}`, `"d\u0065ny"`, `"\u0041llow"`}
	pieces := []string{"a", "l", "o", "w", "s", "k", "d", "e", "n", "y", "A", " ", `\u0061`, `\u006c`, `\u0077`, `\n`, `\/`, `\\`, "é"}
	rng := rand.New(rand.NewPCG(8, 5))
	for _, w := range []string{"allow", "ask", "deny"} {
		for range 300 { // near the three words: one piece changed, added or dropped
			b := []byte(w)
			i := rng.IntN(len(b))
			switch p := pieces[rng.IntN(len(pieces))]; rng.IntN(3) {
			case 0:
				b = append(b[:i:i], append([]byte(p), b[i+1:]...)...)
			case 1:
				b = append(b[:i:i], append([]byte(p), b[i:]...)...)
			default:
				b = append(b[:i:i], b[i+1:]...)
			}
			values = append(values, `"`+string(b)+`"`)
		}
	}
	for range 2000 {
		var b strings.Builder
		b.WriteByte('"')
		for range rng.IntN(6) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		b.WriteByte('"')
		values = append(values, b.String())
	}
	taken := 0
	for _, text := range values {
		data := []byte(text)
		f, p, fast := parseJSONC("t.json", data, "", false)
		if fast == nil {
			t.Fatalf("%s: does not parse: %v", text, f.Errors)
		}
		slow, err := slowJSONC(data)
		if err != nil {
			t.Fatalf("%s: hujson: %v", text, err)
		}
		for route, v := range map[string]*jval{"one pass": fast, "hujson": slow} {
			a, ok := plainState(v)
			problems := len(p.file.Problems)
			st := p.state(v, "x", true)
			clean := len(p.file.Problems) == problems
			plainOK := v.Kind() == '"' && clean
			if ok != plainOK || ok && st != (State{Action: a}) {
				t.Fatalf("%s (%s): plainState %v, %v; state %+v, no problem %v", text, route, a, ok, st, clean)
			}
			if ok {
				taken++
			}
		}
	}
	if taken < 20 || taken > 2*len(values)-100 {
		t.Fatalf("plainState took %d of %d values", taken, 2*len(values))
	}
}

// canonPatterns are bash rule patterns the canonical pass reads (command
// words, subcommands, options with and without values, a trailing "-rf*",
// doubled, leading and trailing spaces), and some it cannot (a wildcard in
// the command).
var canonPatterns = []string{
	"git push *", "git push --force *", "git push -f *", "git *", "git", "git commit -m *", "git -C * push *",
	"rm -rf *", "rm -r*", "rm -r -f *", "rm --recursive --force *", "rm *", "rm -f x", "curl -o *", "curl -o out *",
	"/usr/bin/git push *", "./git push *", "npm run *", "npm run build", "tool1 sub1 *", "tool1 *", "ls -la", "ls -l *",
	"docker container rm *", "docker rm -f *", "kubectl delete pod *", "tar -xf *", "find . -delete", "find * -exec *",
	"sed -i *", "sed -i.bak *", "sudo rm *", "~/bin/x *", "$HOME/bin/x *", "g?t push *", "git* push",
	"*", "", "x", "git  push *", "git push * ", "rm  -rf *", "git push  *", "chmod -R 777 *", "chmod 777 *", "git push origin main", "git push --force-with-lease *",
	" git push *", "  rm -rf *", " git", " ls -la", " g?t push *", " ",
}

// canonUnits are the bash units the canonical pass is asked about.
var canonUnits = []string{
	"git push origin main", "git push --force origin", "git push -f x", "git push --force-with-lease x",
	"git -C /w push x", "git commit -m msg", "git status", "git", "rm -rf /x", "rm -fr /x", "rm -r -f x", "rm -R x",
	"rm --recursive --force x", "rm x", "rm -f x", "/usr/bin/git push x", "./git push y", "npm run build", "npm run test",
	"tool1 sub1 z", "tool1 x", "ls -la", "ls -l -a", "ls -al /", "curl -o out http://x", "curl -oout http://x",
	"docker container rm x", "docker rm -f y", "kubectl delete pod p", "tar -xf a.tar", "tar xf a.tar", "find . -delete",
	"sed -i s/a/b/ f", "sed -i.bak s/a/b/ f", "sudo rm x", "/home/u/bin/x a", "chmod -R 777 /", "chmod 777 x",
}

// TestCanonGroupsAreAllForms holds canonIndex's per-name groups, read on
// first use from the rules the plain index files under a name (built, or
// lazily from the list), equal to every form read at once (the index
// without a plain index, all): the same last matching rule for edge
// units and random ones, over random rule lists.
func TestCanonGroupsAreAllForms(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 30))
	words := strings.Fields(strings.Join(canonUnits, " "))
	units := append([]string(nil), canonUnits...)
	for range 300 {
		n := 1 + rng.IntN(5)
		u := make([]string, n)
		for i := range u {
			u[i] = words[rng.IntN(len(words))]
		}
		units = append(units, strings.Join(u, " "))
	}
	type unit struct {
		text     string
		u        canonUnit
		operands string
	}
	var parsed []unit
	for _, text := range units {
		if u, ok := canonicalize(strings.Fields(text), false); ok {
			parsed = append(parsed, unit{text, u, strings.Join(u.operands, " ")})
		}
	}
	compared, found := 0, 0
	for round := range 150 {
		pats := make([]string, 1+rng.IntN(2*len(canonPatterns)))
		for i := range pats {
			pats[i] = canonPatterns[rng.IntN(len(canonPatterns))]
		}
		rules := indexRules("bash", pats)
		all := newCanonIndex(rules, nil)
		built := newRuleIndex(rules, false)
		var unbuilt, loaded atomic.Pointer[ruleIndex]
		loaded.Store(built)
		fast := map[string]*canonIndex{
			"plain index": newCanonIndex(rules, built),
			"lazy, none":  {rules: rules, lazy: &unbuilt},
			"lazy, built": {rules: rules, lazy: &loaded},
		}
		for _, u := range parsed {
			want := all.last(&u.u, u.operands)
			for name, ix := range fast {
				if got := ix.last(&u.u, u.operands); got != want {
					t.Fatalf("round %d, rules %q, unit %q (%s): the groups give rule %d, every form %d", round, pats, u.text, name, got, want)
				}
				compared++
			}
			if want >= 0 {
				found++
			}
		}
	}
	if found < compared/20 {
		t.Fatalf("only %d of %d units matched a rule by its form", found, compared)
	}
}

// policyPrint is what a composed policy decides and says: its rules in
// order, its knobs, its sources, warnings and notes, and the same of its
// side without the untrusted files and of the managed file's policy.
func policyPrint(p *Policy) string {
	if p == nil {
		return "none"
	}
	var b strings.Builder
	for _, r := range p.Rules() {
		b.WriteString(ruleRow(r))
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "yolo %v clamped %v disableYolo %v managedAudit %v timeout %v audit %q export %+v infra %q shell %v sandbox %+v\n",
		p.Yolo, p.Clamped, p.DisableYolo, p.ManagedAuditLog, p.PromptTimeout, p.AuditLog, p.Export, p.InfraReadPaths, p.ShellTools, p.Sandbox)
	fmt.Fprintf(&b, "sources %+v\nwarnings %+v\nuntrusted %+v\nmcp %q clamp %v\nbroken %q\ntrust %q\n",
		p.Sources, p.Warnings, p.Untrusted, p.MCPServers, p.MCPClamped(), p.BrokenNote(), p.TrustCommand())
	b.WriteString("without: " + policyPrint(p.Without()) + "\nmanaged: " + policyPrint(p.Managed()))
	return b.String()
}

// TestWatchedLoaderIsOneShot holds the watching loader, which keeps its
// last policy while the watch is quiet (quiet, armedOK), equal to the
// one-shot loader, which stats every file on every call. After each of a
// table of edge steps and a random sequence of them (edits in place and
// by rename, deletions, links to files and folders made and led
// elsewhere, targets edited, folders removed, times and modes changed,
// folders vouched for, the watch started over) both compose the same
// policy.
func TestWatchedLoaderIsOneShot(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	loc := Locations{AgentDir: filepath.Join(root, "agent"), Home: filepath.Join(root, "home"), ConfigHome: filepath.Join(root, "config"),
		Cwd: filepath.Join(root, "work"), ConfigFiles: []string{filepath.Join(root, "named", "extra.json")}, ProjectTrusted: true,
		ManagedDir: filepath.Join(root, "managed"), AgentName: "rev"}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{loc.Home, loc.Cwd, loc.ManagedDir, filepath.Join(root, "targets")} {
		must(os.MkdirAll(d, 0o755))
	}
	must(os.Chmod(loc.ManagedDir, 0o755))
	const (
		kindPolicy = iota
		kindAgent
		kindMCP
		kindTrust
	)
	type file struct {
		path string
		kind int
	}
	files := []file{
		{ManagedPath(loc.ManagedDir), kindPolicy}, {LegacyGlobalPath(loc.AgentDir), kindPolicy}, {GlobalPath(loc.AgentDir), kindPolicy},
		{ToolgateGlobalPath(loc.ConfigHome, loc.Home), kindPolicy}, {LegacyProjectPath(loc.Cwd), kindPolicy}, {ProjectPath(loc.Cwd), kindPolicy},
		{ToolgateProjectPath(loc.Cwd), kindPolicy}, {loc.ConfigFiles[0], kindPolicy},
		{AgentPath(filepath.Join(loc.AgentDir, "agents"), loc.AgentName), kindAgent},
		{AgentPath(filepath.Join(loc.Cwd, ".pi", "agents"), loc.AgentName), kindAgent},
		{MCPPath(loc.AgentDir), kindMCP}, {TrustStorePath(loc.ConfigHome, loc.Home), kindTrust},
	}
	targets := []string{filepath.Join(root, "targets", "t0"), filepath.Join(root, "targets", "t1"), filepath.Join(root, "targets", "t2")}
	rng := rand.New(rand.NewPCG(31, 4))
	actions := []string{"allow", "ask", "deny"}
	content := func(kind int) string {
		a, b := actions[rng.IntN(3)], actions[rng.IntN(3)]
		switch {
		case rng.IntN(8) == 0:
			return `{"permission": {"bash": {` // broken
		case kind == kindAgent:
			return "---\npermission:\n  bash:\n    \"git status\": " + a + "\n    \"rm *\": " + b + "\n---\nbody\n"
		case kind == kindMCP:
			return fmt.Sprintf(`{"mcpServers": {"s%d": {}, "t%d": {}}}`, rng.IntN(3), rng.IntN(3))
		case kind == kindTrust:
			return `{"version": 1, "files": []}`
		}
		return fmt.Sprintf(`{"permission": {"bash": {"git status": %q, "rm *": %q}, "read": {"*.env": %q}}, "yolo": %v}`, a, b, actions[rng.IntN(3)], rng.IntN(4) == 0)
	}
	writeVia := func(path, text string, rename bool) {
		must(os.MkdirAll(filepath.Dir(path), 0o755))
		if !rename {
			must(os.WriteFile(path, []byte(text), 0o644))
			return
		}
		tmp := path + ".tmp"
		must(os.WriteFile(tmp, []byte(text), 0o644))
		must(os.Rename(tmp, path))
	}
	trustNow := func() {
		// The project file as it is now, trusted (toolgate trust).
		p := ProjectPath(loc.Cwd)
		data, err := os.ReadFile(p)
		if err != nil {
			return
		}
		root, rel, real, ok := ProjectFileIdentity(loc.Cwd, p)
		if !ok {
			return
		}
		text := fmt.Sprintf(`{"version": 1, "files": [{"root": %q, "path": %q, "realPath": %q, "sha256": %q}]}`, root, rel, real, ContentHash(data))
		writeVia(TrustStorePath(loc.ConfigHome, loc.Home), text, rng.IntN(2) == 0)
	}
	for _, tg := range targets {
		must(os.WriteFile(tg, []byte(content(kindPolicy)), 0o644))
	}
	watched, oneShot := NewLoader(), NewOneShotLoader()
	kept := 0 // calls the watching loader answered with its last policy
	compare := func(step int, what string) {
		t.Helper()
		for range 1 + rng.IntN(3) {
			watched.Policy(loc) // calls with nothing changed in between
		}
		got, want := policyPrint(watched.Policy(loc)), policyPrint(oneShot.Policy(loc))
		if got != want {
			t.Fatalf("step %d (%s): the watching loader composed\n%s\nthe one-shot loader\n%s", step, what, got, want)
		}
		if watched.armedOK {
			kept++
		}
	}
	do := func(op int, f file) (what string) {
		switch op {
		case 0, 1:
			what = "edit in place " + f.path
			writeVia(f.path, content(f.kind), false)
		case 2, 3:
			what = "edit by rename " + f.path
			writeVia(f.path, content(f.kind), true)
		case 4:
			what = "delete " + f.path
			os.Remove(f.path)
		case 5:
			tg := targets[rng.IntN(len(targets))]
			what = "link " + f.path + " to " + tg
			must(os.MkdirAll(filepath.Dir(f.path), 0o755))
			os.Remove(f.path + ".lnk")
			must(os.Symlink(tg, f.path+".lnk"))
			must(os.Rename(f.path+".lnk", f.path))
		case 6:
			tg := targets[rng.IntN(len(targets))]
			what = "edit the target " + tg
			writeVia(tg, content(kindPolicy), rng.IntN(2) == 0)
		case 7:
			dir := filepath.Dir(f.path)
			if dir == loc.Cwd || dir == loc.ManagedDir {
				dir = filepath.Join(loc.Cwd, ".pi")
			}
			what = "remove the folder " + dir
			must(os.RemoveAll(dir))
		case 8:
			mode := []os.FileMode{0o600, 0o644, 0o640}[rng.IntN(3)]
			what = fmt.Sprintf("chmod %o %s", mode, f.path)
			os.Chmod(f.path, mode)
		case 9:
			// The managed folder made honourable or not: its mode
			// changed, removed, made again with a managed file.
			switch rng.IntN(4) {
			case 0, 1:
				mode := []os.FileMode{0o755, 0o777}[rng.IntN(2)]
				what = fmt.Sprintf("chmod %o the managed folder", mode)
				os.Chmod(loc.ManagedDir, mode)
			case 2:
				what = "remove the managed folder"
				os.RemoveAll(loc.ManagedDir)
			default:
				what = "make the managed folder and its file"
				must(os.MkdirAll(loc.ManagedDir, 0o755))
				must(os.Chmod(loc.ManagedDir, 0o755))
				writeVia(ManagedPath(loc.ManagedDir), content(kindPolicy), rng.IntN(2) == 0)
			}
		case 10:
			when := time.Unix(1_600_000_000+int64(rng.IntN(3)), 0)
			what = "set the times of " + f.path
			os.Chtimes(f.path, when, when)
		case 11:
			what = "trust the project file"
			trustNow()
		case 12:
			// The evaluations' questions arm the same watch.
			dir := []string{loc.Cwd, filepath.Join(loc.Cwd, "src"), filepath.Join(root, "targets"), loc.AgentDir, root}[rng.IntN(5)]
			what = "vouch for " + dir
			os.MkdirAll(filepath.Join(loc.Cwd, "src"), 0o755)
			watched.Vouch(dir)
			watched.WatchedAncestor(dir)
		case 13:
			alt := filepath.Join(root, "alt", fmt.Sprint(rng.IntN(2)))
			what = "link the folder .pi to " + alt
			writeVia(ProjectPath(alt), content(kindPolicy), false)
			must(os.RemoveAll(filepath.Join(loc.Cwd, ".pi")))
			must(os.Symlink(alt, filepath.Join(loc.Cwd, ".pi")))
		case 14:
			what = "the watch starts over (a mount)"
			restartWatch(watched)
		default:
			// A linked file is never left to the watch: the links go
			// again, or no call would be answered by the watch.
			what = "replace the links by files"
			if info, err := os.Lstat(filepath.Join(loc.Cwd, ".pi")); err == nil && info.Mode()&os.ModeSymlink != 0 {
				must(os.Remove(filepath.Join(loc.Cwd, ".pi")))
			}
			for _, f := range files {
				if info, err := os.Lstat(f.path); err == nil && info.Mode()&os.ModeSymlink != 0 {
					writeVia(f.path, content(f.kind), true)
				}
			}
		}
		return what
	}
	compare(0, "no files")
	// Each change once, on the project file (a link to a file, then a
	// folder on its way made a link), then at random.
	edge := []int{0, 0, 2, 8, 10, 5, 6, 6, 15, 13, 0, 15, 11, 0, 14, 0, 12, 4, 9, 7, 0}
	for i, op := range edge {
		compare(1+i, do(op, files[5]))
	}
	for step := 1 + len(edge); step <= 300; step++ {
		compare(step, do(rng.IntN(18), files[rng.IntN(len(files))]))
	}
	if watched.watch != nil && kept < 30 {
		t.Fatalf("the watching loader kept its last policy after only %d of 300 steps", kept)
	}
}

// TestManagedFolderMadeHonourableIsSeen: a $TOOLGATE_MANAGED_DIR that is
// not honoured (missing, or writable by others) and then is made
// honourable (created with its managed file, or its mode fixed after the
// watch started over) is honoured from the next call, with its deny.
func TestManagedFolderMadeHonourableIsSeen(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the managed folder is honoured only when owned by root")
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	parent := filepath.Join(root, "m")
	loc := Locations{AgentDir: filepath.Join(root, "agent"), Home: filepath.Join(root, "home"), Cwd: filepath.Join(root, "work"),
		ProjectTrusted: true, ManagedDir: filepath.Join(parent, "d")}
	for _, d := range []string{loc.AgentDir, loc.Home, loc.Cwd, parent} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	git := Query{Surface: "bash", Values: []string{"git status"}, Args: []string{"git", "status"}}
	l := NewLoader()
	decide := func(step string, want Action) {
		t.Helper()
		if got := l.Policy(loc).Resolve(git).Action; got != want {
			t.Fatalf("%s: git status is %v, want %v", step, got, want)
		}
	}
	decide("no managed folder", Ask)
	decide("no managed folder, again", Ask)
	if err := os.Mkdir(loc.ManagedDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ManagedPath(loc.ManagedDir), []byte(`{"permission": {"bash": {"git status": "deny"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	decide("the managed folder made", Deny)
	if err := os.Chmod(loc.ManagedDir, 0o777); err != nil {
		t.Fatal(err)
	}
	decide("the managed folder writable by others", Ask)
	decide("the managed folder writable by others, again", Ask)
	restartWatch(l)
	decide("the watch started over", Ask)
	if err := os.Chmod(loc.ManagedDir, 0o755); err != nil {
		t.Fatal(err)
	}
	decide("the managed folder's mode fixed", Deny)
}
