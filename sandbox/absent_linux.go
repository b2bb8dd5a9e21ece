package sandbox

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A protected file that is not there has no placeholder (one would show
// in the work tree), so a confined command may create it. It must not act
// for the person meanwhile — a project's .npmrc is read by the next npm
// the person runs, while a long command (a dev server) still runs — so
// its folder is watched while the command runs, and one created is moved
// aside at once; what the watch could not see (a folder not there yet) is
// moved aside when the command ends.

// absentGuard watches the folders of absent protected files.
type absentGuard struct {
	f      *os.File
	names  map[int32]map[string]Entry // watch → base name → entry
	stderr io.Writer
	mu     sync.Mutex // stderr and the moves
	done   chan struct{}
}

// guardAbsent starts watching; nil when there is nothing to watch or the
// kernel gives no inotify (the end-of-command check remains).
func guardAbsent(absent []Entry, stderr io.Writer) *absentGuard {
	if len(absent) == 0 {
		return nil
	}
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return nil
	}
	g := &absentGuard{names: map[int32]map[string]Entry{}, stderr: stderr, done: make(chan struct{})}
	byDir := map[string]int32{}
	for _, e := range absent {
		dir := filepath.Dir(e.Path)
		wd, ok := byDir[dir]
		if !ok {
			w, err := unix.InotifyAddWatch(fd, dir, unix.IN_CREATE|unix.IN_MOVED_TO|unix.IN_ONLYDIR|unix.IN_DONT_FOLLOW)
			if err != nil {
				continue // not there: the end-of-command check sees it
			}
			wd, byDir[dir] = int32(w), int32(w)
			g.names[wd] = map[string]Entry{}
		}
		g.names[wd][filepath.Base(e.Path)] = e
	}
	if len(g.names) == 0 {
		unix.Close(fd)
		return nil
	}
	g.f = os.NewFile(uintptr(fd), "inotify")
	// Made before the watch was added: moved aside now.
	for _, byName := range g.names {
		for _, e := range byName {
			if _, err := os.Lstat(e.Path); err == nil {
				g.moveAside(e)
			}
		}
	}
	go g.run()
	return g
}

func (g *absentGuard) run() {
	defer close(g.done)
	buf := make([]byte, 64*(unix.SizeofInotifyEvent+unix.NAME_MAX+1))
	for {
		n, err := g.f.Read(buf)
		if err != nil {
			return // closed by stop
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			nameBytes := buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+int(ev.Len)]
			off += unix.SizeofInotifyEvent + int(ev.Len)
			name := string(nameBytes)
			for len(name) > 0 && name[len(name)-1] == 0 {
				name = name[:len(name)-1]
			}
			if e, ok := g.names[ev.Wd][name]; ok {
				g.moveAside(e)
			}
		}
	}
}

// stop ends the watch.
func (g *absentGuard) stop() {
	if g == nil {
		return
	}
	g.f.Close()
	<-g.done
}

func (g *absentGuard) moveAside(e Entry) {
	g.mu.Lock()
	defer g.mu.Unlock()
	moveAside(e, g.stderr)
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
