package shell

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// twinWordPieces are pieces the words of TestPlainFieldIsSegsSplit are
// made of: plain literals, glob characters, escapes, tildes, braces,
// quotes of every kind and expansions.
var twinWordPieces = []string{
	"a", "b/c", "/etc/x", ".", "..", "-x", "--opt=v", "=", "@", "%", ":", ",", "+", "é",
	"*", "?", "[ab]", "[", "]", "a]", "*.go", "x?y",
	`\ `, `\*`, `a\b`, `\\`, "~", "~/x", "~u", "{a,b}", "{", "}", "{x}",
	"''", "'q'", "'a b'", "'*'", "'[x]'", `'\'`, "'~'", "'$F'", "'{a,b}'", "'a\tb'",
	`$'\t'`, `$'a'`, `$'*'`, `""`, `"d"`, `"a b"`, `"*"`, `"$F"`, `"\$"`,
	"$F", "${F}", "$HOME", "${U:-d}", "$(x)", "`x`", "$((1))", "!(x)",
}

// twinScripts are scripts made of random words from twinWordPieces, from
// a fixed seed.
func twinScripts(n int) []string {
	rng := rand.New(rand.NewPCG(3, 9))
	out := make([]string, 0, n)
	for range n {
		var b strings.Builder
		b.WriteString([]string{"cmd", "ls", "echo", "F=/x/y; cmd", "rm -rf"}[rng.IntN(5)])
		for range 1 + rng.IntN(6) {
			b.WriteByte(' ')
			for range 1 + rng.IntN(3) {
				b.WriteString(twinWordPieces[rng.IntN(len(twinWordPieces))])
			}
		}
		out = append(out, b.String())
	}
	return out
}

// TestPlainFieldIsSegsSplit holds plainField equal to appendFields' general
// path, appendSplit of the word's segments in argument mode: for every word
// it takes (edge cases, the scan corpus, random words), that path makes
// that one field.
func TestPlainFieldIsSegsSplit(t *testing.T) {
	edge := []string{
		"a", "ab/c", "*", "a*b", "[x]", "]", "a]b", "x?", "''", "'*'", "'a b'", "'[a]'", `'\'`, "'~/x'",
		`$'\n'`, `$'*'`, `"x"`, "é", "a=b", "--x=*", "-", "--", "@x", "%", "'a\nb'", "'$HOME'",
	}
	srcs := append([]string{strings.Join(edge, " ")}, scanCorpus(t)...)
	srcs = append(srcs, twinScripts(3000)...)
	taken, compared := 0, 0
	eachWord(srcs, "/etc/x y", func(src string, sc *scope, w *syntax.Word) {
		compared++
		fast, ok := plainField(w)
		if !ok {
			return
		}
		taken++
		if hasBraceLit(w) {
			t.Fatalf("%q, word %q: plainField took a word brace expansion may expand", src, sc.slice(w))
		}
		plain := appendSplit(nil, sc.segs(w.Parts, argMode))
		if len(plain) != 1 || !reflect.DeepEqual(fast, plain[0]) {
			t.Fatalf("%q, word %q: plainField %+v; segs and appendSplit %+v", src, sc.slice(w), fast, plain)
		}
	})
	if taken < 2000 || compared-taken < 2000 {
		t.Fatalf("plainField took %d of %d words", taken, compared)
	}
}

// scanArgsCopied is scanArgs as plainly as it can be written: every
// operand copied into a new slice.
func scanArgsCopied(o opts, args []field) ([]option, []field) {
	var list []option
	var operands []field
	for i := 0; i < len(args); {
		if isDashDash(args[i]) {
			return list, append(operands, args[i+1:]...)
		}
		if got, next, ok := readOption(o, args, i, list); ok {
			list, i = got, next
			continue
		}
		operands = append(operands, args[i])
		i++
	}
	return list, operands
}

// TestScanArgsWindowIsCopy holds scanArgs, whose operands are a window of
// the words while they stand together, equal to scanArgsCopied, which
// copies every operand: the same options and operands for edge cases and
// random words, and an append to the operands never changes the words.
func TestScanArgsWindowIsCopy(t *testing.T) {
	optsList := []opts{
		{},
		{arg: "n", long: []string{"--max"}},
		{arg: "uo", optional: "i", long: []string{"--user", "--"}, numeric: true},
	}
	unknown := field{raw: "$X", text: "$X", pat: "$X", lits: ""}
	unknownDash := field{raw: "-$X", text: "-$X", pat: "-$X", lits: "-"}
	pool := []field{unknown, unknownDash}
	for _, w := range []string{"-l", "-la", "-n", "-n3", "3", "--max", "--max=2", "--all", "--", "-", "x", "y", "z",
		"-u", "root", "-ofile", "-i", "-i.bak", "-10", "-1x", "--user", "--user=u", "a b", ""} {
		pool = append(pool, literalField(w))
	}
	var cases [][]field
	for _, words := range []string{"", "x", "x y z", "-l x y", "x y -l", "x -l y", "x -- y", "-- x", "x --", "--",
		"-l --", "-- --", "x -n", "-n", "-n 3 x", "x -n -- y", "--max", "x --max y z", "-l -a -b", "x y -l -- z -a"} {
		var args []field
		for _, w := range strings.Fields(words) {
			args = append(args, literalField(w))
		}
		cases = append(cases, args)
	}
	cases = append(cases, []field{unknown, literalField("-l"), unknown}, []field{literalField("--"), unknown})
	rng := rand.New(rand.NewPCG(7, 1))
	for range 4000 {
		args := make([]field, rng.IntN(9))
		for i := range args {
			args[i] = pool[rng.IntN(len(pool))]
		}
		cases = append(cases, args)
	}
	for _, o := range optsList {
		for _, args := range cases {
			before := slices.Clone(args)
			list, ops := scanArgs(o, args)
			wantList, wantOps := scanArgsCopied(o, slices.Clone(args))
			if !slices.Equal(list, wantList) || !slices.Equal(ops, wantOps) {
				t.Fatalf("opts %+v, words %q: scanArgs %v %q; copied %v %q",
					o, fieldValues(args), list, fieldValues(ops), wantList, fieldValues(wantOps))
			}
			_ = append(ops, literalField("appended"), literalField("again"))
			if !slices.Equal(args, before) {
				t.Fatalf("opts %+v, words %q: appending to the operands %q changed the words to %q",
					o, fieldValues(before), fieldValues(ops), fieldValues(args))
			}
		}
	}
}

func fieldValues(fs []field) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.raw
	}
	return out
}

// TestCutDirPrefixIsCutPrefix holds cutDirPrefix equal to
// strings.CutPrefix(d, dir+"/") for edge cases ("", "/", d equal to dir,
// dir+"/", a sibling sharing the prefix) and random paths.
func TestCutDirPrefixIsCutPrefix(t *testing.T) {
	edge := []string{"", "/", "//", "a", "a/", "/a", "/a/", "/a/b", "/ab", "/a/b/", "/a//b", "ab", "a/b", "/w", "/w/x", "/wx"}
	var pairs [][2]string
	for _, d := range edge {
		for _, dir := range edge {
			pairs = append(pairs, [2]string{d, dir})
		}
	}
	pieces := []string{"/", "/", "a", "b", "ab", ".", ""}
	rng := rand.New(rand.NewPCG(4, 4))
	random := func() string {
		var b strings.Builder
		for range rng.IntN(7) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return b.String()
	}
	for range 5000 {
		dir := random()
		d := random()
		if rng.IntN(2) == 0 {
			d = dir + d // often a prefix
		}
		pairs = append(pairs, [2]string{d, dir})
	}
	for _, p := range pairs {
		d, dir := p[0], p[1]
		got, ok := cutDirPrefix(d, dir)
		want, wantOK := strings.CutPrefix(d, dir+"/")
		if got != want || ok != wantOK {
			t.Fatalf("d %q, dir %q: cutDirPrefix %q, %v; strings.CutPrefix %q, %v", d, dir, got, ok, want, wantOK)
		}
	}
}

// literalSpecials are the specials buildCommandKinds writes out itself,
// with their handler where it is a method (nil: a function of its own).
var literalSpecials = map[string]specialFunc{
	"su": (*analyzer).su, "runuser": (*analyzer).su, "sg": (*analyzer).su, "nix-shell": (*analyzer).su,
	"script": nil, "trap": nil, "alias": nil, "find": nil, "fd": nil, "fdfind": nil, "git": nil,
	"parallel": (*analyzer).parallel, "rust-parallel": (*analyzer).parallel, "rush": (*analyzer).parallel,
	"cp": (*analyzer).cp, "sed": (*analyzer).sed,
	"awk": (*analyzer).awk, "gawk": (*analyzer).awk, "mawk": (*analyzer).awk, "nawk": (*analyzer).awk,
	"hash": (*analyzer).loader, "enable": (*analyzer).loader,
}

// ownHandler stands for a handler of its own in kindByTables.
var ownHandler specialFunc = func(*analyzer, int, string, cmd, *scope) {}

// kindByTables is commandKinds()[name] worked out plainly: each table
// looked up in turn, and of the tables of specials the last one that
// names it, as buildCommandKinds writes them. special is false when
// name is no special; known is false when its handler is a function of
// its own (literalSpecials).
func kindByTables(name string) (k commandKind, special, known bool) {
	k.chdir = slices.Contains([]string{"cd", "pushd", "popd"}, name)
	k.sourced = slices.Contains([]string{"eval", "source", "."}, name)
	k.shell = shells[name]
	k.wrap = wrappers[name]
	if f, ok := literalSpecials[name]; ok {
		k.special, special, known = f, true, f != nil
		if f == nil {
			k.special = ownHandler
		}
	}
	if _, ok := callbacks[name]; ok {
		k.special, special, known = (*analyzer).callback, true, true
	}
	if _, ok := programSpecs[name]; ok {
		k.special, special, known = (*analyzer).programOptions, true, true
	}
	if vimFamily[name] {
		k.special, special, known = (*analyzer).vim, true, true
	}
	if foreignPrograms[name] != nil {
		k.special, special, known = (*analyzer).foreign, true, true
	}
	if f, ok := catalogSpecials[name]; ok {
		k.special, special, known = f, true, true
	}
	if spec, ok := patternFirstSpecs[name]; ok {
		k.pattern = &spec
	}
	k.readOnlyWrites, k.readOnly = readOnlyCommands[name]
	return k, special, known
}

// branchOf is the case of run's switch a kind takes.
func branchOf(k commandKind) string {
	switch {
	case k.chdir:
		return "cd"
	case k.sourced:
		return "sourced"
	case k.shell:
		return "shell"
	case k.wrap != nil:
		return "wrapper"
	case k.special != nil:
		return "special"
	case k.pattern != nil:
		return "pattern-first"
	}
	return "arguments"
}

func funcAddr(f specialFunc) uintptr {
	if f == nil {
		return 0
	}
	return reflect.ValueOf(f).Pointer()
}

// TestCommandKindsIsEachTable holds commandKinds, one look-up per name,
// equal to each table looked up in turn (kindByTables): for every name of
// every table and for names in none, the same kind, field for field, and
// so the same case of run's switch, whose order is the precedence.
func TestCommandKindsIsEachTable(t *testing.T) {
	names := []string{"cd", "pushd", "popd", "eval", "source", ".", "ls", "not-a-command", "", "python3.12",
		"CD", "cd ", "/bin/sh", "sh5", "git2", "Git", "vim.basic"}
	for _, table := range []func() []string{
		func() []string { return keysOf(shells) }, func() []string { return keysOf(wrappers) },
		func() []string { return keysOf(callbacks) }, func() []string { return keysOf(programSpecs) },
		func() []string { return keysOf(vimFamily) }, func() []string { return keysOf(foreignPrograms) },
		func() []string { return keysOf(catalogSpecials) }, func() []string { return keysOf(patternFirstSpecs) },
		func() []string { return keysOf(readOnlyCommands) }, func() []string { return keysOf(literalSpecials) },
		func() []string { return keysOf(commandKinds()) },
	} {
		names = append(names, table()...)
	}
	slices.Sort(names)
	names = slices.Compact(names)
	for _, name := range names {
		got, inMap := commandKinds()[name]
		want, special, known := kindByTables(name)
		wantInMap := want.chdir || want.sourced || want.shell || want.wrap != nil || special || want.pattern != nil || want.readOnly
		var diff []string
		if inMap != wantInMap {
			diff = append(diff, fmt.Sprintf("in the map %v, in a table %v", inMap, wantInMap))
		}
		if got.chdir != want.chdir || got.sourced != want.sourced || got.shell != want.shell || got.wrap != want.wrap {
			diff = append(diff, fmt.Sprintf("cd %v/%v, sourced %v/%v, shell %v/%v, wrap %p/%p",
				got.chdir, want.chdir, got.sourced, want.sourced, got.shell, want.shell, got.wrap, want.wrap))
		}
		if (got.special != nil) != special || known && funcAddr(got.special) != funcAddr(want.special) {
			diff = append(diff, fmt.Sprintf("special %#x, the tables %#x (a special %v)", funcAddr(got.special), funcAddr(want.special), special))
		}
		if (got.pattern == nil) != (want.pattern == nil) || got.pattern != nil && !reflect.DeepEqual(*got.pattern, *want.pattern) {
			diff = append(diff, fmt.Sprintf("pattern %+v, the tables %+v", got.pattern, want.pattern))
		}
		if got.readOnly != want.readOnly || !slices.Equal(got.readOnlyWrites, want.readOnlyWrites) {
			diff = append(diff, fmt.Sprintf("read-only %v %q, the tables %v %q", got.readOnly, got.readOnlyWrites, want.readOnly, want.readOnlyWrites))
		}
		if b, wb := branchOf(got), branchOf(want); b != wb {
			diff = append(diff, fmt.Sprintf("run takes %s, the tables say %s", b, wb))
		}
		if diff != nil {
			t.Fatalf("%q: commandKinds and the tables differ: %s", name, strings.Join(diff, "; "))
		}
	}
}

func keysOf[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
