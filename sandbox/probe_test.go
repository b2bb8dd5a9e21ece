package sandbox

import (
	"strings"
	"testing"
)

func TestProbePretendOnlyLowers(t *testing.T) {
	all := func(string) bool { return true }
	cases := []struct {
		pretend   string
		abi       int
		ns        string
		protected bool
		missing   string
	}{
		{"", 7, "user,mount,pid,net", true, ""},
		{"no-landlock", 0, "user,mount,pid,net", false, "Landlock: writes outside"},
		{"landlock-abi=1", 1, "user,mount,pid,net", false, "Landlock ABI 2 (rename and link checks): " + NotEnforced},
		{"landlock-abi=9", 7, "user,mount,pid,net", true, ""}, // never raised
		{"no-userns", 7, "", false, "user and mount namespaces: " + NotEnforced},
		{"no-pidns, no-netns", 7, "user,mount", true, "PID namespace"},
	}
	for _, tc := range cases {
		r := probe(tc.pretend, 7, all)
		if r.LandlockABI != tc.abi || strings.Join(r.Namespaces, ",") != tc.ns || r.ProtectedEnforced() != tc.protected {
			t.Errorf("%q: got %+v", tc.pretend, r)
		}
		if got := strings.Join(r.Missing, "\n"); tc.missing == "" && got != "" || !strings.Contains(got, tc.missing) {
			t.Errorf("%q: missing %q, want %q", tc.pretend, got, tc.missing)
		}
	}
	if r := probe("", 7, func(k string) bool { return k != "net" }); r.Full() || !r.ProtectedEnforced() {
		t.Errorf("no network namespace: %+v", r)
	}
}

// TestRequiredRefusesWhatTheMachineLacks: with "required", a machine
// that (pretends it) cannot enforce protected paths runs nothing.
func TestRequiredRefusesWhatTheMachineLacks(t *testing.T) {
	w := newWorld(t)
	t.Setenv(PretendEnv, "no-userns")
	p := w.profile()
	p.Mode = "required"
	_, err := Run(p, Command{Argv: []string{"sh", "-c", "touch ran"}, Env: w.env})
	if err == nil || !strings.Contains(err.Error(), NotEnforced) {
		t.Errorf("Run: %v", err)
	}
	if w.exists(w.proj + "/ran") {
		t.Error("the command ran")
	}
	// With "on" the pretend switch weakens nothing: the view is built.
	p.Mode = "on"
	code, _, stderr := w.run(p, "echo x > .git/config")
	if code == 0 || !strings.Contains(stderr, "Read-only file system") {
		t.Errorf("on, pretending: exit %d, %s", code, stderr)
	}
}
