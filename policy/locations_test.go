package policy

import (
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// TestLocationsEqualComparesEveryField: Equal (which the loader's last
// policy is given by) tells apart locations that differ in any field of
// Locations, one added later too (or this fails).
func TestLocationsEqualComparesEveryField(t *testing.T) {
	a := Locations{AgentDir: "/a", Home: "/h", ConfigHome: "/c", Cwd: "/w", ConfigFiles: []string{"/f"}, ProjectTrusted: true, AgentName: "n"}
	if !a.Equal(a) {
		t.Fatal("the same locations differ")
	}
	typ := reflect.TypeFor[Locations]()
	for i := 0; i < typ.NumField(); i++ {
		b := a
		b.ConfigFiles = append([]string(nil), a.ConfigFiles...)
		f := reflect.ValueOf(&b).Elem().Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString(f.String() + "x")
		case reflect.Bool:
			f.SetBool(!f.Bool())
		case reflect.Slice:
			f.Set(reflect.Append(f, reflect.ValueOf("/g")))
		default:
			t.Fatalf("field %s of kind %s: compare it in Equal and here", typ.Field(i).Name, f.Kind())
		}
		if a.Equal(b) || b.Equal(a) {
			t.Fatalf("locations that differ in %s are equal", typ.Field(i).Name)
		}
	}
	// Fields are compared one by one: no text of one field runs into the
	// next.
	if (Locations{Cwd: "/x\x00n"}).Equal(Locations{Cwd: "/x", AgentName: "n\x00"}) {
		t.Fatal("a cwd and an agent name run together")
	}
}

// TestLoaderTellsConfigHomesApart: two locations that differ only in
// their config home get their own policies, whichever came first, with
// the watch quiet in between.
func TestLoaderTellsConfigHomesApart(t *testing.T) {
	e := newLoaderEnv(t)
	dir := t.TempDir()
	withRule, without := e.loc, e.loc
	withRule.ConfigHome, without.ConfigHome = filepath.Join(dir, "a"), filepath.Join(dir, "b")
	e.write(ToolgateGlobalPath(withRule.ConfigHome, ""), `{"permission": {"bash": {"only-in-a *": "deny"}}}`, time.Now())
	l := NewLoader()
	for i, loc := range []Locations{withRule, withRule, withRule, without, without, withRule, without} {
		got, _ := decide(l.Policy(loc), "bash", "only-in-a x")
		if (got == Deny) != (loc.ConfigHome == withRule.ConfigHome) {
			t.Fatalf("call %d, config home %s: %v", i, loc.ConfigHome, got)
		}
	}
}
