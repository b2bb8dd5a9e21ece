package sandbox

import (
	"fmt"
	"io"
	"os"
	"time"
)

// A protected file that is not there has no placeholder (one would show
// in the work tree), so a confined command may create it. It must not act
// for the person meanwhile — a project's .npmrc is read by the next npm
// the person runs, while a long command (a dev server) still runs — so
// while the command runs each such path is looked at every absentPoll,
// and one created is moved aside; when the command ends, once more.
//
// Polled rather than watched: closing an inotify instance waits for the
// kernel's grace period (about 10 ms), which every confined command, short
// ones most, would pay.
const absentPoll = 50 * time.Millisecond

// absentGuard looks for absent protected files while the command runs.
type absentGuard struct {
	absent []Entry
	stderr io.Writer
	stopc  chan struct{}
	done   chan struct{}
}

// guardAbsent starts looking; nil when there is nothing to look for.
func guardAbsent(absent []Entry, stderr io.Writer) *absentGuard {
	if len(absent) == 0 {
		return nil
	}
	g := &absentGuard{absent: absent, stderr: stderr, stopc: make(chan struct{}), done: make(chan struct{})}
	go g.run()
	return g
}

func (g *absentGuard) run() {
	defer close(g.done)
	t := time.NewTicker(absentPoll)
	defer t.Stop()
	for {
		select {
		case <-g.stopc:
			return
		case <-t.C:
			for _, e := range g.absent {
				moveAside(e, g.stderr)
			}
		}
	}
}

// stop ends the looking (the caller then looks once more).
func (g *absentGuard) stop() {
	if g == nil {
		return
	}
	close(g.stopc)
	<-g.done
}

// moveAside renames e's file aside (never removes it) and says so.
func moveAside(e Entry, stderr io.Writer) {
	if _, err := os.Lstat(e.Path); err != nil {
		return
	}
	aside := fmt.Sprintf("%s.toolgate-blocked-%d", e.Path, time.Now().UnixNano())
	if err := os.Rename(e.Path, aside); err != nil {
		fmt.Fprintf(stderr, "toolgate sandbox: %s (%s) was created while confined and could not be moved aside: %v; check it before it is used\n", e.Path, e.Why, err)
		return
	}
	fmt.Fprintf(stderr, "toolgate sandbox: %s (%s) was created while confined; it is moved aside to %s\n", e.Path, e.Why, aside)
}
