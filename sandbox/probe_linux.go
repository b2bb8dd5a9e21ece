package sandbox

import (
	"os"
	"strconv"
	"strings"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

func landlockABI() int {
	v, err := llsys.LandlockGetABIVersion()
	if err != nil || v < 0 {
		return 0
	}
	return v
}

// nsAllowed answers from the kernel's switches whether this process may
// create a namespace of kind: the namespace exists, the per-user limit is
// above zero, and no switch forbids unprivileged user namespaces to a
// process that is not root. A refusal the switches do not show (a seccomp
// filter) is found when Run tries, and Run then says so.
func nsAllowed(kind string) bool {
	name := map[string]string{"user": "user", "mount": "mnt", "pid": "pid", "net": "net"}[kind]
	if _, err := os.Stat("/proc/self/ns/" + name); err != nil {
		return false
	}
	limit := map[string]string{"user": "max_user_namespaces", "mount": "max_mnt_namespaces", "pid": "max_pid_namespaces", "net": "max_net_namespaces"}[kind]
	if n, ok := readInt("/proc/sys/user/" + limit); ok && n == 0 {
		return false
	}
	if kind == "user" && os.Geteuid() != 0 {
		if n, ok := readInt("/proc/sys/kernel/unprivileged_userns_clone"); ok && n == 0 {
			return false
		}
		if n, ok := readInt("/proc/sys/kernel/apparmor_restrict_unprivileged_userns"); ok && n == 1 {
			return false
		}
	}
	if kind != "user" { // the others are created inside the user namespace
		return nsAllowed("user")
	}
	return true
}

func readInt(path string) (int, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	return n, err == nil
}
