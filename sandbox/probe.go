package sandbox

import (
	"os"
	"strconv"
	"strings"
)

// PretendEnv names the test switch that makes Probe report features as
// missing: a comma-separated list of no-landlock, landlock-abi=N,
// no-userns, no-pidns, no-netns. It only ever lowers what is reported
// (and so makes "required" refuse): Run never builds a weaker view
// because of it.
const PretendEnv = "TOOLGATE_SANDBOX_PRETEND"

// Report is what this machine gives confinement (initialize's
// policy.confinement, doctor, explain).
type Report struct {
	// LandlockABI is the kernel's Landlock ABI version, 0 without.
	LandlockABI int `json:"landlockABI"`
	// Namespaces are those an unprivileged process can create here, of
	// "user", "mount", "pid", "net".
	Namespaces []string `json:"namespaces"`
	// Missing says in words what is missing and what that leaves open.
	Missing []string `json:"missing"`
}

// Has reports whether the namespace kind is available.
func (r Report) Has(ns string) bool {
	for _, n := range r.Namespaces {
		if n == ns {
			return true
		}
	}
	return false
}

// ProtectedEnforced reports whether read-only paths inside write roots
// hold: that needs mounts in a user and mount namespace and Landlock ABI
// 2 or later (ABI 1 cannot stop a rename out of a protected folder).
func (r Report) ProtectedEnforced() bool {
	return r.LandlockABI >= 2 && r.Has("user") && r.Has("mount")
}

// Full reports whether every part of §9 that this package builds is
// enforced by the kernel here.
func (r Report) Full() bool { return r.ProtectedEnforced() && r.Has("pid") && r.Has("net") }

// NotEnforced is the words for a machine where protected paths are not
// enforced by the kernel.
const NotEnforced = "protected paths not enforced by the kernel"

// Probe reports what this machine gives, from the kernel's own answers
// (the Landlock ABI query, the namespace sysctls), lowered by PretendEnv.
func Probe() Report { return probe(os.Getenv(PretendEnv), landlockABI(), nsAllowed) }

func probe(pretend string, abi int, allowed func(kind string) bool) Report {
	var r Report
	r.LandlockABI = abi
	gone := map[string]bool{}
	for _, w := range strings.Split(pretend, ",") {
		w = strings.TrimSpace(w)
		switch {
		case w == "no-landlock":
			r.LandlockABI = 0
		case strings.HasPrefix(w, "landlock-abi="):
			if n, err := strconv.Atoi(strings.TrimPrefix(w, "landlock-abi=")); err == nil && n < r.LandlockABI {
				r.LandlockABI = n
			}
		case w == "no-userns":
			gone["user"], gone["mount"], gone["pid"], gone["net"] = true, true, true, true
		case w == "no-pidns":
			gone["pid"] = true
		case w == "no-netns":
			gone["net"] = true
		}
	}
	r.Namespaces = []string{}
	for _, kind := range []string{"user", "mount", "pid", "net"} {
		if !gone[kind] && allowed(kind) {
			r.Namespaces = append(r.Namespaces, kind)
		}
	}
	r.Missing = []string{}
	switch {
	case r.LandlockABI == 0:
		r.Missing = append(r.Missing, "Landlock: writes outside the write roots are not stopped by the kernel")
	case r.LandlockABI < 2:
		r.Missing = append(r.Missing, "Landlock ABI 2 (rename and link checks): "+NotEnforced)
	}
	if r.LandlockABI > 0 && r.LandlockABI < 6 {
		r.Missing = append(r.Missing, "Landlock ABI 6 scoping: abstract sockets and signals to processes outside stay open")
	}
	if !r.Has("user") || !r.Has("mount") {
		r.Missing = append(r.Missing, "user and mount namespaces: "+NotEnforced+"; hidden paths and socket folders stay readable")
	}
	if !r.Has("pid") {
		r.Missing = append(r.Missing, "PID namespace: the command sees and may signal the user's other processes")
	}
	if !r.Has("net") {
		r.Missing = append(r.Missing, "network namespace: \"sandboxNetwork\": \"off\" is only Landlock's TCP rules (partial)")
	}
	return r
}
