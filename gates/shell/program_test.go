package shell

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"testing"
)

// programOf says of every name what the tables say of its family
// (familyProgram), looked up one by one: the index run reads is made from them;
// a versioned name ("python3.12") is its family's whole program, and a
// name no table holds is a plain command.
func TestProgramOfIsTheTables(t *testing.T) {
	names := slices.Collect(maps.Keys(commandKinds()))
	for _, table := range []func() []string{
		func() []string { return slices.Collect(maps.Keys(configFiles)) },
		func() []string { return slices.Collect(maps.Keys(shortConfigOptions)) },
		func() []string { return slices.Collect(maps.Keys(scriptRunners)) },
		func() []string { return slices.Collect(maps.Keys(foreignPrograms)) },
		func() []string { return slices.Collect(maps.Keys(subWrappers)) },
		func() []string { return slices.Collect(maps.Keys(alwaysFloored)) },
		func() []string { return slices.Collect(maps.Keys(unnamedWriters)) },
	} {
		names = append(names, table()...)
	}
	names = append(names, "python3.12", "perl5.36", "php8.2", "gawk5", "git2", "ls", "not-a-program", "")
	for _, full := range names {
		p := programOf(full)
		name, _ := familyProgram(full)
		if v := versionless(full); full != name && name != v {
			t.Errorf("%q is read as %q, not as its versionless name %q", full, name, v)
		}
		k := commandKinds()[name]
		runner := scriptRunners[name] || foreignPrograms[name] != nil || subWrappers[name] != nil
		if fmt.Sprintf("%+v", p.kind) != fmt.Sprintf("%+v", k) { // funcs and pointers print as addresses
			t.Errorf("%q: kind %+v, the table says %+v", full, p.kind, k)
		}
		if !slices.Equal(p.configFiles, configFiles[name]) || !slices.Equal(p.shortConfig, shortConfigOptions[name]) ||
			p.runner != runner || p.floor != alwaysFloored[name] || (p.writer == nil) != (unnamedWriters[name] == nil) ||
			!reflect.DeepEqual(p.subs, subWrappers[name]) {
			t.Errorf("%q: program %+v does not match the tables", full, *p)
		}
	}
}
