package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/toolgate/toolgate/hook"
)

// BenchmarkSandboxAsAHostSeesIt times what a host pays for a confined
// bash call, the real binary started as a process each time, against the
// same command plain (`bash -c true`):
//
//   - profile: `toolgate sandbox --profile=P --command-b64=…`, what a
//     host runs after toolgate's answer (P written by the decision);
//   - policy: `toolgate sandbox -- bash -c true`, which reads the policy
//     and derives the profile itself.
//
// Each reports its p50 (p50-ns) besides the mean; the budget is read from
// the numbers (docs/performance.md), never asserted.
func BenchmarkSandboxAsAHostSeesIt(b *testing.B) {
	w := newSandboxWorld(b)
	opts := hook.Options{Cwd: w.proj, Home: w.home, AgentDir: filepath.Join(w.home, ".pi/agent"),
		ConfigHome: filepath.Join(w.home, ".config"), Log: zerolog.Nop()}
	getenv := func(k string) string {
		for _, kv := range w.env {
			if len(kv) > len(k) && kv[:len(k)+1] == k+"=" {
				return kv[len(k)+1:]
			}
		}
		return ""
	}
	prof, _, _, err := hook.SandboxProfile(opts, getenv)
	if err != nil {
		b.Fatal(err)
	}
	master := filepath.Join(b.TempDir(), "profile.json")
	if err := prof.WriteFile(master); err != nil {
		b.Fatal(err)
	}
	data, err := os.ReadFile(master)
	if err != nil {
		b.Fatal(err)
	}
	spent := filepath.Join(filepath.Dir(master), "spent.json")
	run := func(b *testing.B, prepare func(), argv ...string) {
		d := make([]time.Duration, 0, b.N)
		for i := 0; i < b.N; i++ {
			if prepare != nil {
				prepare()
			}
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Env, cmd.Dir = w.env, w.proj
			start := time.Now()
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("%v: %v\n%s", argv, err, out)
			}
			d = append(d, time.Since(start))
		}
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		b.ReportMetric(float64(d[len(d)/2].Nanoseconds()), "p50-ns")
	}
	b.Run("plain", func(b *testing.B) { run(b, nil, "bash", "-c", "true") })
	b.Run("profile", func(b *testing.B) {
		run(b, func() {
			if err := os.WriteFile(spent, data, 0o600); err != nil {
				b.Fatal(err)
			}
		}, w.bin, "sandbox", "--profile="+spent, "--command-b64=dHJ1ZQ==")
	})
	b.Run("policy", func(b *testing.B) { run(b, nil, w.bin, "sandbox", "--", "bash", "-c", "true") })
	b.Run("toolgate-version", func(b *testing.B) { run(b, nil, w.bin, "version") })
}
