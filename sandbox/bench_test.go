package sandbox

import (
	"os/exec"
	"sort"
	"testing"
	"time"
)

// BenchmarkStartTrue measures confinement budget: starting
// `true` confined by a profile like the one a decision writes, against
// starting it plain. It reports each one's p50 (ns) besides the mean; the
// budget (under 5 ms extra at p50) is read from the numbers, never
// asserted.
func BenchmarkStartTrue(b *testing.B) {
	t := &testing.T{}
	w := newWorld(t)
	if t.Failed() {
		b.Fatal("no world")
	}
	p := w.profile()
	truePath, err := exec.LookPath("true")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("plain", func(b *testing.B) {
		p50(b, func() error { return exec.Command(truePath).Run() })
	})
	b.Run("confined", func(b *testing.B) {
		p50(b, func() error {
			code, err := Run(p, Command{Argv: []string{truePath}, Env: w.env})
			if err == nil && code != 0 {
				b.Fatalf("exit %d", code)
			}
			return err
		})
	})
}

func p50(b *testing.B, f func() error) {
	d := make([]time.Duration, 0, b.N)
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if err := f(); err != nil {
			b.Fatal(err)
		}
		d = append(d, time.Since(start))
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	b.ReportMetric(float64(d[len(d)/2].Nanoseconds()), "p50-ns")
}
