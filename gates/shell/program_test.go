package shell

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"testing"
)

// programOf says of every name what the tables say, looked up one by one:
// the index run reads is made from them, and names none of them holds
// (a versioned interpreter, a plain command) fall back as run used to.
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
	names = append(names, "python3.12", "perl5.36", "php8.2", "ls", "not-a-program", "")
	for _, name := range names {
		p := programOf(name)
		k, ok := commandKinds()[name]
		if !ok {
			k = commandKinds()[versionless(name)]
		}
		runner := scriptRunners[name] || foreignPrograms[name] != nil || subWrappers[name] != nil
		if fmt.Sprintf("%+v", p.kind) != fmt.Sprintf("%+v", k) { // funcs and pointers print as addresses
			t.Errorf("%q: kind %+v, the table says %+v", name, p.kind, k)
		}
		if !slices.Equal(p.configFiles, configFiles[name]) || !slices.Equal(p.shortConfig, shortConfigOptions[name]) ||
			p.runner != runner || p.floor != alwaysFloored[name] || (p.writer == nil) != (unnamedWriters[name] == nil) ||
			!reflect.DeepEqual(p.subs, subWrappers[name]) {
			t.Errorf("%q: program %+v does not match the tables", name, *p)
		}
	}
}
