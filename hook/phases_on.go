//go:build profile

package hook

import (
	"fmt"
	"os"
	"slices"
	"sync"
	"time"
)

var phaseNames = [len(phases{})]string{"envelope decoded", "fields, shell, gates", "decided, audit record written", "answer framed and written"}

// timed are the phases of every call phaseTimer recorded, when
// $TOOLGATE_PHASES names the file WritePhases writes.
var timed struct {
	mu   sync.Mutex
	file string
	d    [len(phases{})][]time.Duration
}

func init() {
	timed.file = os.Getenv("TOOLGATE_PHASES")
	if timed.file == "" {
		return
	}
	phaseClock = func() func(string) {
		return phaseTimer(time.Now, func(p phases) {
			timed.mu.Lock()
			for k, d := range p {
				timed.d[k] = append(timed.d[k], d)
			}
			timed.mu.Unlock()
		})
	}
}

// WritePhases writes each phase's name, calls, median and 90th percentile
// in µs, tab-separated, one line each, to $TOOLGATE_PHASES (nothing when
// unset or when no call was timed).
func WritePhases() {
	timed.mu.Lock()
	defer timed.mu.Unlock()
	if timed.file == "" || len(timed.d[0]) == 0 {
		return
	}
	var out []byte
	for k, name := range phaseNames {
		d := slices.Clone(timed.d[k])
		slices.Sort(d)
		out = fmt.Appendf(out, "%s\t%d\t%.1f\t%.1f\n", name, len(d), micros(d[len(d)/2]), micros(d[len(d)*9/10]))
	}
	_ = os.WriteFile(timed.file, out, 0o644)
}

func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
