package policy

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
)

// bashDecision resolves a unit of plain words (no word holds a space) as
// the bash gate does: its text, with its words for the canonical pass.
func bashDecision(p *Policy, unit string, session ...*Rule) Result {
	return p.Resolve(Query{Surface: "bash", Values: []string{unit}, Args: strings.Fields(unit), Session: session})
}

// plainDecision is the decision without the canonical pass.
func plainDecision(p *Policy, unit string) Result {
	return p.Resolve(Query{Surface: "bash", Values: []string{unit}})
}

func bashPolicy(t testing.TB, rules ...string) *Policy {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"permission": {"bash": {`)
	for i := 0; i+1 < len(rules); i += 2 {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q: %q", rules[i], rules[i+1])
	}
	b.WriteString(`}}}`)
	return global(t, b.String())
}

// TestOptionSpellings: per command, a rule and the spellings that must
// (or must not) reach it. Each row's policy is "*": allow (or what the row
// says) followed by the rule.
func TestOptionSpellings(t *testing.T) {
	type row struct {
		rule   string
		state  string
		unit   string
		action Action
	}
	rows := []row{
		// rm: clusters, order, case alias, long forms, abbreviations, after operands, extra options.
		{"rm -rf *", "deny", "rm -rf build", Deny},
		{"rm -rf *", "deny", "rm -fr build", Deny},
		{"rm -rf *", "deny", "rm -r -f build", Deny},
		{"rm -rf *", "deny", "rm -f -r build", Deny},
		{"rm -rf *", "deny", "rm -Rf build", Deny},
		{"rm -rf *", "deny", "rm -R -f build", Deny},
		{"rm -rf *", "deny", "rm --recursive --force build", Deny},
		{"rm -rf *", "deny", "rm --force --recursive build", Deny},
		{"rm -rf *", "deny", "rm --recur --forc build", Deny},
		{"rm -rf *", "deny", "rm -r --force build", Deny},
		{"rm -rf *", "deny", "rm -rfv x", Deny},
		{"rm -rf *", "deny", "rm x -rf", Deny},
		{"rm -rf *", "deny", "rm x -r y -f", Deny},
		{"rm -rf *", "deny", "rm -d -rf x", Deny},
		{"rm -rf *", "deny", "rm -i -r -f x", Deny},
		{"rm -rf *", "deny", "rm -rf", Deny},
		{"rm -rf *", "deny", "/bin/rm -fr build", Deny},
		{"rm -rf *", "deny", "rm -- -rf", Allow}, // "-rf" is a file name after --
		{"rm -rf *", "deny", "rm file.txt", Allow},
		{"rm -rf *", "deny", "rm -f x", Allow},
		{"rm -rf *", "deny", "rm -r x", Allow},
		{"rm -rf *", "deny", "rmdir -p x", Allow},
		{"rm -rf /", "deny", "rm -fr /", Deny},
		{"rm -rf /", "deny", "rm / -rf --no-preserve-root", Deny},
		{"rm -rf /", "deny", "rm -fr /tmp/x", Allow},
		// cp, mv
		{"cp -r * /etc/*", "deny", "cp -R src /etc/x", Deny},
		{"cp -r * /etc/*", "deny", "cp --recursive src /etc/x", Deny},
		{"cp -r * /etc/*", "deny", "cp src /etc/x -r", Deny},
		{"cp -r * /etc/*", "deny", "cp src /etc/x", Allow},
		{"mv -f *", "ask", "mv --force a b", Ask},
		{"mv -f *", "ask", "mv a b -f", Ask},
		{"mv -f *", "ask", "mv -vf a b", Ask},
		{"mv -f *", "ask", "mv a b", Allow},
		// chmod, chown
		{"chmod -R 777 *", "deny", "chmod 777 -R x", Deny},
		{"chmod -R 777 *", "deny", "chmod --recursive 777 x", Deny},
		{"chmod -R 777 *", "deny", "chmod -vR 777 x", Deny},
		{"chmod -R 777 *", "deny", "chmod 777 x", Allow},
		{"chmod -R 777 *", "deny", "chmod -R 755 x", Allow},
		{"chown -R *", "ask", "chown --recursive root x", Ask},
		{"chown -R *", "ask", "chown root x -R", Ask},
		{"chown -R *", "ask", "chown root x", Allow},
		// git push: long/short, at the end, +refspec, global options.
		{"git push --force *", "deny", "git push -f origin main", Deny},
		{"git push --force *", "deny", "git push origin main --force", Deny},
		{"git push --force *", "deny", "git push origin main -f", Deny},
		{"git push --force *", "deny", "git push -uf origin main", Deny},
		{"git push --force *", "deny", "git push origin +main", Deny},
		{"git push --force *", "deny", "git -C repo push origin main -f", Deny},
		{"git push --force *", "deny", "git push origin main", Allow},
		{"git push --force *", "deny", "git push --force-with-lease origin main", Allow},
		{"git push --force *", "deny", "git pull --force", Allow},
		{"git push -f *", "deny", "git push --force origin", Deny},
		// git reset, clean, checkout, branch, commit
		{"git reset --hard *", "ask", "git reset HEAD~1 --hard", Ask},
		{"git reset --hard *", "ask", "git reset --har HEAD", Ask},
		{"git reset --hard *", "ask", "git reset --soft HEAD", Allow},
		{"git clean -fdx *", "deny", "git clean -xdf", Deny},
		{"git clean -fdx *", "deny", "git clean -f -d -x", Deny},
		{"git clean -fdx *", "deny", "git clean --force -dx", Deny},
		{"git clean -fdx *", "deny", "git clean -fd", Allow},
		{"git clean -f *", "ask", "git clean -n", Allow},
		{"git checkout -f *", "ask", "git checkout --force main", Ask},
		{"git checkout -f *", "ask", "git checkout main -f", Ask},
		{"git checkout -f *", "ask", "git checkout -b f", Allow},
		{"git checkout -- *", "ask", "git checkout -- x", Ask},
		{"git branch -D *", "deny", "git branch -d -f topic", Deny},
		{"git branch -D *", "deny", "git branch --delete --force topic", Deny},
		{"git branch -D *", "deny", "git branch topic -D", Deny},
		{"git branch -D *", "deny", "git branch -d topic", Allow},
		{"git commit --amend *", "ask", "git commit -m x --amend", Ask},
		{"git commit -m *", "ask", "git commit -S -m x", Ask},
		{"sed -i *", "ask", "sed -in p f", Ask},
		{"git commit --amend *", "ask", "git commit -m --amend", Allow}, // the message is "--amend"
		// find: primaries in any order, with extra ones.
		{"find * -delete", "deny", "find . -delete -name x", Deny},
		{"find * -delete", "deny", "find . -type f -delete", Deny},
		{"find * -delete", "deny", "find -L . ( -name a -o -name b ) -delete", Deny},
		{"find -delete *", "deny", "find . -name -delete", Allow}, // the name is "-delete"
		{"find -delete *", "deny", "find . -delete", Deny},
		{"find * -delete", "deny", "find . -name x -print", Allow},
		{"find * -exec rm *", "deny", "find . -type f -exec rm -f {} ;", Deny},
		// curl, wget
		{"curl -X DELETE *", "deny", "curl --request DELETE https://x", Deny},
		{"curl -X DELETE *", "deny", "curl -XDELETE https://x", Deny},
		{"curl -X DELETE *", "deny", "curl https://x -X DELETE", Deny},
		{"curl -X DELETE *", "deny", "curl -sX DELETE https://x", Deny},
		{"curl -X DELETE *", "deny", "curl -X GET https://x", Allow},
		{"curl -o *", "ask", "curl https://x --output f", Ask},
		{"curl -o *", "ask", "curl https://x -so f", Ask},
		{"curl -o *", "ask", "curl -s https://x", Allow},
		{"wget -O *", "ask", "wget --output-document=f https://x", Ask},
		{"wget -O *", "ask", "wget https://x -qO f", Ask},
		{"wget -O *", "ask", "wget https://x", Allow},
		{"wget --no-check-certificate *", "deny", "wget https://x --no-check-certificate", Deny},
		// sed
		{"sed -i *", "ask", "sed --in-place s/a/b/ f", Ask},
		{"sed -i *", "ask", "sed s/a/b/ f -i", Ask},
		{"sed -i *", "ask", "sed -ni.bak p f", Ask},
		{"sed -i *", "ask", "sed -n p f", Allow},
		// tar, old-style keys too
		{"tar -x *", "ask", "tar xzf a.tgz", Ask},
		{"tar -x *", "ask", "tar --extract -f a.tar", Ask},
		{"tar -x *", "ask", "tar -f a.tar -x", Ask},
		{"tar -x *", "ask", "tar -tf a.tar", Allow},
		{"tar -czf * /etc*", "deny", "tar -zcf out.tgz /etc", Deny},
		// docker
		{"docker rm -f *", "deny", "docker rm --force c1", Deny},
		{"docker rm -f *", "deny", "docker rm c1 -f", Deny},
		{"docker rm -f *", "deny", "docker container rm -fv c1", Deny},
		{"docker rm -f *", "deny", "docker -H tcp://h rm -f c1", Deny},
		{"docker rm -f *", "deny", "docker rm c1", Allow},
		{"docker run --privileged *", "deny", "docker run -it --privileged alpine sh", Deny},
		{"docker run --privileged *", "deny", "docker run -it alpine sh --privileged", Allow}, // after the image: the container's argument
		{"docker system prune -a *", "ask", "docker system prune --all --force", Ask},
		// kubectl
		{"kubectl delete *", "ask", "kubectl -n prod delete pod x", Ask},
		{"kubectl delete * --force", "deny", "kubectl delete pod x --force --grace-period=0", Deny},
		{"kubectl delete * --force", "deny", "kubectl --force delete pod x", Deny},
		{"kubectl delete * --force", "deny", "kubectl delete pod x", Allow},
		{"kubectl delete namespace *", "deny", "kubectl delete -n x namespace prod", Deny},
		{"kubectl delete namespace *", "deny", "kubectl delete pod prod", Allow},
		// npm: aliases of subcommands and long/short.
		{"npm install -g *", "ask", "npm i --global x", Ask},
		{"npm install -g *", "ask", "npm install x -g", Ask},
		{"npm install -g *", "ask", "npm install x", Allow},
		{"npm publish *", "deny", "npm publish --tag beta", Deny},
		// A last option word with a glued star ("rm -r*") is those options
		// and then anything.
		{"rm -r*", "deny", "rm -fr x", Deny},
		{"rm -r*", "deny", "rm -R x", Deny},
		{"rm -r*", "deny", "rm --recursive x", Deny},
		{"rm -rf*", "deny", "rm -f -r x", Deny},
		{"rm -r*", "deny", "rm -f x", Allow},
		{"git push --force*", "deny", "git push -f origin", Deny},
		{"git push --force*", "deny", "git push origin main", Allow},
		// npm reads a subcommand through its aliases, unique abbreviations
		// and camelCase (npm 11, lib/utils/cmd-list.js deref).
		{"npm publish *", "deny", "npm pub", Deny},
		{"npm publish *", "deny", "npm publi --tag beta", Deny},
		{"npm unpublish *", "deny", "npm unpub x --force", Deny},
		{"npm dist-tag *", "deny", "npm distTag add x@1 latest", Deny},
		{"npm install-test *", "deny", "npm installTest", Deny},
		{"npm publish *", "deny", "npm p", Allow}, // ambiguous: npm names no command
		{"npm publish *", "deny", "npm pack", Allow},
		// curl, like getopt_long, takes a unique prefix of a long option.
		{"curl -K *", "deny", "curl --conf x https://h", Deny},
		{"curl -w *", "deny", "curl --write-o x https://h", Deny},
		{"npm publish *", "deny", "npm --registry=https://r publish", Deny},
		{"npm test", "deny", "npm t --verbose", Deny},
		{"npm test", "deny", "npm run test", Allow},
		// kill: a signal by number or name, with or without SIG, in any
		// option that gives one.
		{"kill -9 *", "deny", "kill -9 123", Deny},
		{"kill -9 *", "deny", "kill -s 9 123", Deny},
		{"kill -9 *", "deny", "kill -s KILL 123", Deny},
		{"kill -9 *", "deny", "kill -s SIGKILL 123", Deny},
		{"kill -9 *", "deny", "kill -KILL 123", Deny},
		{"kill -9 *", "deny", "kill -SIGKILL 123", Deny},
		{"kill -9 *", "deny", "kill -kill 123", Deny},
		{"kill -9 *", "deny", "kill --signal=9 123", Deny},
		{"kill -9 *", "deny", "kill --signal KILL 123", Deny},
		{"kill -9 *", "deny", "kill -n 9 123", Deny},
		{"kill -9 *", "deny", "kill -s9 123", Deny},
		{"kill -KILL *", "deny", "kill -9 123", Deny},
		{"kill -s KILL *", "deny", "kill -SIGKILL 123", Deny},
		{"kill -9 *", "deny", "kill 123", Allow},
		{"kill -9 *", "deny", "kill -15 123", Allow},
		{"kill -9 *", "deny", "kill -TERM 123", Allow},
		{"kill -9 *", "deny", "kill -l 9", Allow},
		{"kill -HUP *", "ask", "kill -s 1 42", Ask},
		{"kill -TERM *", "ask", "kill -SIGTERM 42", Ask},
		{"kill -STOP *", "ask", "kill -19 42", Ask},
		// rsync: every deletion option is --delete too.
		{"rsync --delete *", "deny", "rsync -a --delete src/ dst/", Deny},
		{"rsync --delete *", "deny", "rsync -a --del src/ dst/", Deny},
		{"rsync --delete *", "deny", "rsync -a --delete-during src/ dst/", Deny},
		{"rsync --delete *", "deny", "rsync -a --delete-after src/ dst/", Deny},
		{"rsync --delete *", "deny", "rsync -a --delete-before src/ dst/", Deny},
		{"rsync --delete *", "deny", "rsync -a --delete-delay src/ dst/", Deny},
		{"rsync --delete *", "deny", "rsync -a --delete-excluded src/ dst/", Deny},
		{"rsync --delete *", "deny", "rsync -a --delete-missing-args src/ dst/", Deny},
		{"rsync --delete *", "deny", "rsync src/ dst/ --delete-after", Deny},
		{"rsync --delete *", "deny", "rsync -a src/ dst/", Allow},
		{"rsync --delete-after *", "deny", "rsync -a --delete src/ dst/", Allow}, // the narrower rule names the narrower option
		// grep -R follows links and recurses: it is -r as well.
		{"grep -r *", "deny", "grep -R x .", Deny},
		{"grep -r *", "deny", "grep -iR x .", Deny},
		{"grep -r *", "deny", "grep --dereference-recursive x .", Deny},
		{"grep -r *", "deny", "grep --recursive x .", Deny},
		{"grep -R *", "deny", "grep -r x .", Allow},
		{"grep -R *", "deny", "grep -R x .", Deny},
		{"grep -r *", "deny", "grep x .", Allow},
	}
	for _, r := range rows {
		t.Run(r.rule+" | "+r.unit, func(t *testing.T) {
			p := bashPolicy(t, "*", "allow", r.rule, r.state)
			got := bashDecision(p, r.unit)
			if got.Action != r.action {
				u, _ := canonicalize(strings.Fields(r.unit), false)
				t.Fatalf("%q under %q: %q = %v (by %q, value %q), want %v; canonical %q", r.unit, r.rule, r.state, got.Action, got.Rule.Pattern, got.Value, r.action, u.text())
			}
			if plain := plainDecision(p, r.unit); got.Action < plain.Action {
				t.Fatalf("canonical pass loosened %q: %v < %v", r.unit, got.Action, plain.Action)
			}
		})
	}
}

// TestOptionIdentityNeverWidens: an allow rule's canonical match adds
// nothing; a later allow read canonically does not beat the plain deny.
func TestOptionIdentityNeverWidens(t *testing.T) {
	cases := []struct {
		rules  []string
		unit   string
		action Action
	}{
		// "git push *" allow must not reach "git -C x push".
		{[]string{"*", "ask", "git push *", "allow"}, "git -C x push origin", Ask},
		{[]string{"*", "ask", "git push *", "allow"}, "git push origin", Allow},
		{[]string{"*", "ask", "rm -r -f *", "allow"}, "rm -rf x", Ask},
		// The plain deny stands even when a later rule allows the canonical form.
		{[]string{"*", "allow", "rm -rf *", "deny", "rm -r -f tmp/*", "allow"}, "rm -rf tmp/x", Deny},
		// A later catch-all is a later rule for the canonical spelling too.
		{[]string{"rm -rf *", "deny", "*", "allow"}, "rm -fr x", Allow},
		{[]string{"rm -rf *", "deny", "rm*", "allow"}, "rm -fr x", Allow},
		// A rule that cannot be read as a command is only matched plainly.
		{[]string{"*", "allow", "* -f -r *", "deny"}, "rm -rf x", Allow},
		{[]string{"*", "allow", "* -rf *", "deny"}, "rm -rf x", Deny},
		{[]string{"*", "allow", "rm -rf* *", "deny"}, "rm -fr x", Allow},
	}
	for _, c := range cases {
		p := bashPolicy(t, c.rules...)
		if got := bashDecision(p, c.unit); got.Action != c.action {
			t.Errorf("%v: %q = %v (by %q), want %v", c.rules, c.unit, got.Action, got.Rule.Pattern, c.action)
		}
	}
}

// TestOptionIdentitySessionAndFloor: session approvals never beat a file
// deny reached canonically, an exact approval still allows its unit, and
// a project rule cannot loosen a global deny through a respelling.
func TestOptionIdentitySessionAndFloor(t *testing.T) {
	p := bashPolicy(t, "*", "ask", "rm -rf *", "deny")
	approval := sessionRule("bash", "rm *")
	if got := bashDecision(p, "rm -fr x", approval); got.Action != Deny || got.Session {
		t.Errorf("session approval beat a canonical deny: %+v", got)
	}
	ask := bashPolicy(t, "*", "allow", "rm -rf *", "ask")
	exact := NewRuleFrom(Rule{Surface: "bash", Pattern: "rm -fr x", Action: Allow, Layer: LayerSession, Origin: Origin{Scope: ScopeSession}, Exact: true}, testHome)
	if got := bashDecision(ask, "rm -fr x", &exact); got.Action != Allow || !got.Session {
		t.Errorf("exact session approval of the unit does not allow it: %+v", got)
	}
	if got := bashDecision(ask, "rm -fr x"); got.Action != Ask || !got.Canonical || got.Value != "rm -f -r x" {
		t.Errorf("canonical ask: %+v", got)
	}

	floor := composeOK(t,
		scopeFile(t, ScopeGlobal, `{"permission": {"bash": {"*": "allow", "rm -rf *": "deny"}}}`),
		scopeFile(t, ScopeProject, `{"permission": {"bash": {"rm -r -f *": "allow", "rm *": "allow"}}}`))
	for _, unit := range []string{"rm -rf x", "rm -fr x", "rm --recursive --force x", "rm x -rf"} {
		if got := bashDecision(floor, unit); got.Action != Deny || !got.Floored {
			t.Errorf("project rule loosened the global deny for %q: %+v", unit, got)
		}
	}
	if got := bashDecision(floor, "rm x"); got.Action != Allow {
		t.Errorf("rm x: %v", got.Action)
	}
}

// TestOptionIdentityIndexed: with a long rule list (indexed) the
// canonical pass decides the same.
func TestOptionIdentityIndexed(t *testing.T) {
	rules := []string{"*", "allow"}
	for i := range 200 {
		rules = append(rules, fmt.Sprintf("tool%d --flag%d *", i, i), "allow")
	}
	rules = append(rules, "rm -rf *", "deny")
	for i := range 200 {
		rules = append(rules, fmt.Sprintf("other%d *", i), "ask")
	}
	p := bashPolicy(t, rules...)
	for _, u := range []string{"rm -fr x", "rm x --recursive -f", "/usr/bin/rm -Rf x"} {
		if got := bashDecision(p, u); got.Action != Deny {
			t.Errorf("%q: %v by %q", u, got.Action, got.Rule.Pattern)
		}
	}
	if got := bashDecision(p, "rm -f x"); got.Action != Allow {
		t.Errorf("rm -f x: %v by %q", got.Action, got.Rule.Pattern)
	}
}

// respell returns a random spelling of the same options as unit for a
// command whose options cluster and permute: clusters split or merged,
// options reordered, long forms, options moved after the operands.
func respell(rng *rand.Rand, cmd string, shorts []byte, long map[byte]string, operands []string) string {
	opts := slices.Clone(shorts)
	rng.Shuffle(len(opts), func(i, j int) { opts[i], opts[j] = opts[j], opts[i] })
	var words []string
	for i := 0; i < len(opts); {
		switch n := rng.Intn(3); {
		case n == 0 && long[opts[i]] != "":
			words = append(words, "--"+long[opts[i]])
			i++
		default:
			k := min(len(opts)-i, 1+rng.Intn(3))
			words = append(words, "-"+string(opts[i:i+k]))
			i += k
		}
	}
	rng.Shuffle(len(words), func(i, j int) { words[i], words[j] = words[j], words[i] })
	// Move some option words after the operands.
	cut := rng.Intn(len(words) + 1)
	out := append([]string{cmd}, words[:cut]...)
	out = append(out, operands...)
	out = append(out, words[cut:]...)
	return strings.Join(out, " ")
}

// TestOptionIdentityProperty: for random rules and random respellings,
// the decision is never less restrictive than the plain one; the canonical
// form is the same for every spelling; and with deny rules after a
// catch-all allow, a respelling of a denied unit is denied. (With rules of
// mixed states no such promise holds: in "rm -rf *": deny, "rm -f *":
// ask, the later ask is the last rule that "rm -f -r x" matches, both
// plainly and canonically, while "rm -rf x" is plainly denied.)
func TestOptionIdentityProperty(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	type cmd struct {
		name   string
		shorts []byte
		long   map[byte]string
	}
	cmds := []cmd{
		{"rm", []byte("rfivd"), map[byte]string{'r': "recursive", 'f': "force", 'i': "interactive", 'v': "verbose", 'd': "dir"}},
		{"git push", []byte("fudnq"), map[byte]string{'f': "force", 'u': "set-upstream", 'd': "delete", 'n': "dry-run", 'q': "quiet"}},
		{"cp", []byte("rfiav"), map[byte]string{'r': "recursive", 'f': "force", 'a': "archive", 'v': "verbose"}},
		{"git clean", []byte("fdxnq"), map[byte]string{'f': "force", 'n': "dry-run", 'q': "quiet"}},
	}
	states := []string{"allow", "ask", "deny"}
	subset := func(s []byte) []byte {
		var out []byte
		for _, c := range s {
			if rng.Intn(2) == 0 {
				out = append(out, c)
			}
		}
		return out
	}
	operandsOf := [][]string{{"x"}, {"build", "dist"}, {"origin", "main"}, nil}
	added := 0 // respellings the canonical pass made more restrictive
	for iter := range 400 {
		c := cmds[rng.Intn(len(cmds))]
		onlyRestrict := iter%2 == 0
		rules := []string{"*", "allow"}
		for range 1 + rng.Intn(4) {
			state := states[rng.Intn(3)]
			if onlyRestrict {
				state = "deny"
			}
			opts := subset(c.shorts)
			pattern := c.name
			if len(opts) > 0 {
				pattern = respell(rng, c.name, opts, c.long, nil)
			}
			if rng.Intn(4) > 0 {
				pattern += " *"
			}
			if !slices.Contains(rules, pattern) {
				rules = append(rules, pattern, state)
			}
		}
		p := bashPolicy(t, rules...)
		// The same rules after enough unrelated ones to be indexed must
		// decide the same.
		padded := []string{}
		for i := range indexMinRules {
			padded = append(padded, fmt.Sprintf("pad%d -x *", i), "ask")
		}
		indexed := bashPolicy(t, append(padded, rules...)...)
		opts := subset(c.shorts)
		ops := operandsOf[rng.Intn(len(operandsOf))]
		base := respell(rng, c.name, opts, c.long, ops)
		first := bashDecision(p, base)
		u0, _ := canonicalize(strings.Fields(base), false)
		for range 8 {
			unit := respell(rng, c.name, opts, c.long, ops)
			got, plain := bashDecision(p, unit), plainDecision(p, unit)
			if ix := bashDecision(indexed, unit); ix.Action != got.Action || ix.Rule.Pattern != got.Rule.Pattern {
				t.Fatalf("%v: %q is %v by %q, indexed %v by %q", rules, unit, got.Action, got.Rule.Pattern, ix.Action, ix.Rule.Pattern)
			}
			if got.Action > plain.Action {
				added++
			}
			if got.Action < plain.Action {
				t.Fatalf("%v: %q is %v, plainly %v", rules, unit, got.Action, plain.Action)
			}
			u, _ := canonicalize(strings.Fields(unit), false)
			if u.text() != u0.text() {
				t.Fatalf("%q and %q have different canonical forms: %q, %q", base, unit, u0.text(), u.text())
			}
			if onlyRestrict && got.Action < first.Action {
				t.Fatalf("%v: %q is %v but its respelling %q is %v", rules, base, first.Action, unit, got.Action)
			}
		}
	}
	if added == 0 {
		t.Fatal("no respelling was caught by the canonical pass: the generator tests nothing")
	}
}

func TestCanonicalText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"rm -rf build", "rm -f -r build"},
		{"rm build --recursive -f", "rm -f -r build"},
		{"git -C repo push origin +main", "git push -C=repo -f origin +main"},
		{"git branch -D x", "git branch -d -f x"},
		{"curl -sSLo out https://x", "curl -L -S -o=out -s https://x"},
		{"wget -nc -nv x", "wget -n=c -n=v x"},
		{"tar xzf a.tgz", "tar -f=a.tgz -x -z"},
		{"find . -name *.go -delete", "find -delete -name=*.go ."},
		{"docker container rm -f c", "docker rm -f c"},
		{"npm i -D x", "npm install -D x"},
		{"ls -la x", "ls -a -l x"},
		{"foo -ab x", "foo -ab x"},
		{"rm -- -rf", "rm -- -rf"},
		{"foo x -v", "foo x -v"},
	} {
		u, ok := canonicalize(strings.Fields(c.in), false)
		if !ok || u.text() != c.want {
			t.Errorf("%q: %q (%v), want %q", c.in, u.text(), ok, c.want)
		}
	}
}

// FuzzCanonicalize: any words, as a unit or as a rule, are read without a
// panic, and a unit's canonical spelling reads back as the same command.
func FuzzCanonicalize(f *testing.F) {
	for _, s := range []string{"rm -rf x", "git -C d push -f +m", "tar xzf a", "find . -exec rm {} ;", "curl -o", "docker container rm -f", "kubectl -n", "npm i -g", "sed -ni.bak p", "wget -nc", "rm -- -x", "git branch -D"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		words := strings.Fields(s)
		canonicalize(words, true)
		u, ok := canonicalize(words, false)
		if !ok {
			return
		}
		text := u.text()
		again, ok := canonicalize(strings.Fields(text), false)
		if !ok {
			t.Fatalf("%q: canonical %q does not read", s, text)
		}
		if again.name != u.name || again.sub != u.sub {
			t.Fatalf("%q: canonical %q reads back as another command: %q", s, text, again.text())
		}
	})
}

// TestHasCommandRule: which rules could hold for a unit whose other words
// are only known at run time (gates floor it to ask then).
func TestHasCommandRule(t *testing.T) {
	p := global(t, `{"permission": {"*": "allow", "bash": {"*": "allow", "rm -rf *": "deny", "git push --force *": "deny", "kubectl delete *": "ask", "npm *": "allow", "docker run --privileged *": "deny"}}}`)
	rows := []struct {
		args []string
		want bool
	}{
		{[]string{"rm", "$o", "x"}, true},
		{[]string{"/bin/rm", "$o"}, true},
		{[]string{"git", "push", "$o"}, true},
		{[]string{"git", "-C", ".", "push", "$o"}, true},
		{[]string{"git", "$sub", "-f"}, true},
		{[]string{"git", "commit", "-m", "$msg"}, false},
		{[]string{"kubectl", "delete", "$kind"}, true},
		{[]string{"kubectl", "get", "$kind"}, false},
		{[]string{"npm", "$x"}, false}, // only allows name npm
		{[]string{"ls", "$d"}, false},
		{[]string{"docker", "run", "-v", "$PWD:/app", "img"}, false}, // an option's value
		{[]string{"docker", "run", "$o", "img"}, true},
		{[]string{"rm", "-$X", "x"}, true},
		{[]string{"rm", "${X}-rf", "x"}, true},
	}
	for _, r := range rows {
		if got := p.HasCommandRule(r.args, Allow); got != r.want {
			t.Errorf("%q: %t, want %t", r.args, got, r.want)
		}
	}
}

// Every command a spec group builds is found through its name, in that
// group alone (a name routed elsewhere would lose its options' identity),
// and a command no group builds has none.
func TestSpecGroupsRouteTheirCommands(t *testing.T) {
	seen := map[string]int{}
	for g := range specGroups {
		m := buildSpecGroup(g)
		if len(m) == 0 {
			t.Errorf("group %d builds nothing", g)
		}
		for name, s := range m {
			if prev, ok := seen[name]; ok {
				t.Errorf("%s is built by groups %d and %d", name, prev, g)
			}
			seen[name] = g
			if specGroupOf(name) != g || commandSpec(name) == nil {
				t.Errorf("%s (group %d) is routed to group %d", name, g, specGroupOf(name))
			}
			if s == nil {
				t.Errorf("%s has no spec", name)
			}
		}
	}
	for _, name := range []string{"make", "go", "bash", "Git", "rm ", ""} {
		if specGroupOf(name) >= 0 || commandSpec(name) != nil {
			t.Errorf("%q has a spec", name)
		}
	}
	// A group's table is built once: the same specs every time.
	if commandSpec("git") != commandSpec("git") || commandSpec("egrep") != commandSpec("grep") {
		t.Error("specs are built again")
	}
	if len(seen) != 38 {
		t.Errorf("%d commands have specs, want the 38 toolgate knows", len(seen))
	}
}
