//go:build linux

package audit

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// armedLog is a log at root/a/b/logs/audit.jsonl with three records, whose
// watch is armed and has answered a record (else these tests would test
// the stat of the path, not the watch).
func armedLog(t *testing.T) (l *Log, root, path string) {
	t.Helper()
	root = t.TempDir()
	path = filepath.Join(root, "a", "b", "logs", "audit.jsonl")
	l = openLog(t, path)
	appendN(t, l, 3, "x")
	mustBeWatched(t, l)
	return l, root, path
}

// mustBeWatched checks that l's watch is armed and answers records: the
// next record is one it answers.
func mustBeWatched(t *testing.T, l *Log) {
	t.Helper()
	hits := l.watch.hits
	appendN(t, l, 1, "watched")
	if !l.watch.armed || l.watch.hits != hits+1 {
		t.Fatalf("the watch did not answer a record (armed %v, hits %d → %d)", l.watch.armed, hits, l.watch.hits)
	}
}

// watchedUnlessBusy is mustBeWatched for a record that may come after a
// stretch of time in which other processes keep changing a directory on
// the way (a shared /tmp): such a stretch legitimately ends the watch (its
// events keep coming), and then the record must have been decided by the
// stat instead. Any other end of the watch fails. It reports whether the
// watch answered.
func watchedUnlessBusy(t *testing.T, l *Log) bool {
	t.Helper()
	hits, busy, wasArmed := l.watch.hits, l.watch.busy, l.watch.armed
	appendN(t, l, 1, "watched")
	switch {
	case l.watch.armed && l.watch.hits == hits+1:
		return true
	case l.watch.busy > busy || !wasArmed && l.watch.busy > 0: // ended now, or by an earlier busy stretch (armed again later)
		t.Logf("the watch was ended by a busy directory on the way (%d ends so far); the record was decided by a stat", l.watch.busy)
		return false
	}
	t.Fatalf("the watch did not answer a record (armed %v, hits %d → %d), and no busy directory ended it", l.watch.armed, hits, l.watch.hits)
	return false
}

// Every change that makes the path name another file (or none), anywhere
// on the way to it, is noticed by the next record while the watch is armed:
// the log starts again with a log_restarted record, as a stat of the path
// would have it, and the old file is left as it was.
func TestWatchedLogChangesStartAgain(t *testing.T) {
	changes := map[string]func(t *testing.T, root, path string){
		"log renamed":   func(t *testing.T, root, path string) { must(t, os.Rename(path, path+".1")) },
		"log deleted":   func(t *testing.T, root, path string) { must(t, os.Remove(path)) },
		"log moved out": func(t *testing.T, root, path string) { must(t, os.Rename(path, filepath.Join(root, "moved"))) },
		"log replaced": func(t *testing.T, root, path string) {
			must(t, os.WriteFile(path+".new", nil, 0o600))
			must(t, os.Rename(path+".new", path))
		},
		"log directory moved away": func(t *testing.T, root, path string) {
			must(t, os.Rename(filepath.Dir(path), filepath.Join(root, "old")))
		},
		"log directory replaced": func(t *testing.T, root, path string) {
			dir := filepath.Dir(path)
			must(t, os.Rename(dir, filepath.Join(root, "old")))
			must(t, os.Mkdir(dir, 0o700))
			must(t, os.WriteFile(path, nil, 0o600))
		},
		"directory two up replaced": func(t *testing.T, root, path string) {
			a := filepath.Join(root, "a")
			must(t, os.Rename(a, filepath.Join(root, "old")))
			must(t, os.MkdirAll(filepath.Dir(path), 0o700))
		},
		"directories exchanged": func(t *testing.T, root, path string) {
			other := filepath.Join(root, "a", "other")
			must(t, os.MkdirAll(filepath.Join(other, "logs"), 0o700))
			must(t, unix.Renameat2(unix.AT_FDCWD, filepath.Join(root, "a", "b"), unix.AT_FDCWD, other, unix.RENAME_EXCHANGE))
		},
		"log replaced by a link to another file": func(t *testing.T, root, path string) {
			must(t, os.WriteFile(filepath.Join(root, "other"), nil, 0o600))
			must(t, os.Remove(path))
			must(t, os.Symlink(filepath.Join(root, "other"), path))
		},
	}
	for name, change := range changes {
		t.Run(name, func(t *testing.T) {
			l, root, path := armedLog(t)
			last := records(t, path)[3]["hash"]
			change(t, root, path)
			appendN(t, l, 2, "after")
			recs := records(t, path)
			if recs[0]["event"] != "log_restarted" || recs[0]["previousSeq"] != float64(4) || recs[0]["previousHash"] != last {
				t.Fatalf("first record %v, want log_restarted after seq 4", recs[0])
			}
			mustVerify(t, path, 3)
			if moved := filepath.Join(root, "old", "b", "logs", "audit.jsonl"); name == "directory two up replaced" {
				mustVerify(t, moved, 4)
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// Changes to other names in the directories on the way are read and
// dropped: the watch goes on answering, and the log goes on in its file.
func TestWatchIgnoresOtherNames(t *testing.T) {
	l, root, path := armedLog(t)
	dir := filepath.Dir(path)
	for i := 0; i < 3; i++ {
		for _, d := range []string{root, filepath.Join(root, "a"), dir} {
			p := filepath.Join(d, fmt.Sprintf("other%d", i))
			must(t, os.WriteFile(p, nil, 0o600))
			must(t, os.Chmod(p, 0o644))
			must(t, os.Rename(p, p+".moved"))
			must(t, os.Remove(p+".moved"))
			must(t, os.Mkdir(p, 0o700))
		}
		mustBeWatched(t, l)
	}
	mustVerify(t, path, 3+1+3)
}

// A change on the way that leaves the path naming the same file (the log
// moved away and back, the log directory moved and a link put in its
// place) ends the watch, but the log is not started again: the stat of the
// path decides, as without the watch. A way with a link on it is not
// watched; a change there is still noticed.
func TestWatchedChangeToTheSameFile(t *testing.T) {
	l, root, path := armedLog(t)
	must(t, os.Rename(path, path+".away"))
	must(t, os.Rename(path+".away", path))
	appendN(t, l, 1, "back")
	must(t, os.Chmod(path, 0o640)) // an attribute: the stat decides
	l.watch.skip = 0               // no backing off (TestWatchOfAChangingWayBacksOff)
	appendN(t, l, 1, "chmod")
	mustBeWatched(t, l) // armed again
	b := filepath.Join(root, "a", "b")
	must(t, os.Rename(b, filepath.Join(root, "a", "b2")))
	must(t, os.Symlink("b2", b))
	appendN(t, l, 3, "linked")
	if l.watch.armed {
		t.Fatal("a way through a link is watched")
	}
	recs := records(t, path)
	mustVerify(t, path, 4+1+1+1+3)
	for _, r := range recs {
		if r["event"] != "decision" {
			t.Fatalf("a record %v: the log was started again", r)
		}
	}
	must(t, os.Remove(path))
	appendN(t, l, 1, "after")
	if recs := records(t, path); recs[0]["event"] != "log_restarted" {
		t.Fatalf("first record %v, want log_restarted", recs[0])
	}
}

// A path that is not clean is watched as its clean form, but for "..";
// either way a deleted log is noticed.
func TestUncleanPathIsWatched(t *testing.T) {
	for _, form := range []string{"%s//logs/./audit.jsonl", "%s/logs/../logs/audit.jsonl"} {
		p := fmt.Sprintf(form, t.TempDir())
		l := openLog(t, p)
		appendN(t, l, 4, "x")
		if watched := !strings.Contains(form, ".."); l.watch.armed != watched || (l.watch.hits > 0) != watched {
			t.Fatalf("%s: armed %v, hits %d; want watched %v", p, l.watch.armed, l.watch.hits, watched)
		}
		must(t, os.Remove(p))
		appendN(t, l, 1, "after")
		if recs := records(t, p); recs[0]["event"] != "log_restarted" {
			t.Fatalf("%s: first record %v, want log_restarted", p, recs[0])
		}
	}
}

// A relative path is not watched (every record stats it) and works as
// before.
func TestRelativePathIsNotWatched(t *testing.T) {
	t.Chdir(t.TempDir())
	l := openLog(t, filepath.Join("logs", "audit.jsonl"))
	appendN(t, l, 5, "x")
	if l.watch.armed || l.watch.hits != 0 {
		t.Fatal("a relative path is watched")
	}
	must(t, os.Remove(filepath.Join("logs", "audit.jsonl")))
	appendN(t, l, 1, "after")
	if recs := records(t, filepath.Join("logs", "audit.jsonl")); recs[0]["event"] != "log_restarted" {
		t.Fatalf("first record %v, want log_restarted", recs[0])
	}
}

// Another writer appending between records (another Log here, another
// process below) is seen by the size of the file: one chain, the watch
// answering throughout.
func TestWatchedLogWithAnotherWriter(t *testing.T) {
	l, _, path := armedLog(t)
	other := openLog(t, path)
	for i := 0; i < 5; i++ {
		appendN(t, other, 1, "other")
		mustBeWatched(t, l)
	}
	mustVerify(t, path, 4+10)
}

func TestWatchedLogWithAnotherProcess(t *testing.T) {
	if p := os.Getenv("AUDIT_APPEND_CHILD"); p != "" {
		l, err := Open(p)
		if err == nil {
			err = l.AppendEnc("decision", func(e *Enc) { e.Str("toolCallId", "child") })
		}
		if err == nil {
			err = l.Close()
		}
		if err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	l, _, path := armedLog(t)
	for i := 0; i < 3; i++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestWatchedLogWithAnotherProcess$")
		cmd.Env = append(os.Environ(), "AUDIT_APPEND_CHILD="+path)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("child: %v\n%s", err, out)
		}
		// A child takes a while to start, during which a busy /tmp may
		// end the watch; then the stat decides, and the chain shows it.
		watchedUnlessBusy(t, l)
	}
	recs := records(t, path)
	mustVerify(t, path, 4+6)
	if recs[4]["toolCallId"] != "child" || recs[5]["toolCallId"] != "watched" {
		t.Fatalf("records 5 and 6: %v, %v", recs[4], recs[5])
	}
}

// A file system mounted over a directory on the way replaces it without an
// event of a directory: the watch of the mount table notices it. The test
// runs in a child in a mount namespace of its own (root only).
func TestWatchedDirectoryMountedOver(t *testing.T) {
	if os.Getenv("AUDIT_MOUNT_CHILD") != "" {
		mountChild()
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("mounting needs root")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestWatchedDirectoryMountedOver$", "-test.v")
	cmd.Env = append(os.Environ(), "AUDIT_MOUNT_CHILD="+t.TempDir())
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNS}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "child ok") {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

func mountChild() {
	fail := func(f string, a ...any) { fmt.Printf(f+"\n", a...); os.Exit(1) }
	root := os.Getenv("AUDIT_MOUNT_CHILD")
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		fail("making mounts private: %v", err)
	}
	for _, over := range []string{"logs", "a"} {
		path := filepath.Join(root, over, "a", "logs", "audit.jsonl")
		if over == "logs" {
			path = filepath.Join(root, over, "audit.jsonl")
		}
		l, err := Open(path)
		if err != nil {
			fail("open: %v", err)
		}
		for i := 0; i < 4; i++ {
			if err := l.AppendEnc("decision", nil); err != nil {
				fail("append: %v", err)
			}
		}
		if !l.watch.armed || l.watch.hits == 0 {
			fail("not watched")
		}
		if err := unix.Mount("tmpfs", filepath.Join(root, over), "tmpfs", 0, ""); err != nil {
			fail("mount: %v", err)
		}
		if err := l.AppendEnc("decision", nil); err != nil {
			fail("append after the mount: %v", err)
		}
		b, err := os.ReadFile(path)
		if err != nil || !strings.Contains(string(b), `"event":"log_restarted"`) || !strings.Contains(string(b), `"previousSeq":4`) {
			fail("over %s: the log on the mount is %q (%v), want a log_restarted record after seq 4", over, b, err)
		}
		l.Close()
		if err := unix.Unmount(filepath.Join(root, over), 0); err != nil {
			fail("unmount: %v", err)
		}
	}
	fmt.Println("child ok")
	os.Exit(0)
}

// The events the watch reads: about another name in a directory on the
// way, dropped; about the next name on the way, the file, the directory
// itself, an unknown watch, an overflow, or a torn buffer, the end of the
// watch.
func TestWatchEvents(t *testing.T) {
	w := pathWatch{dirs: []dirWatch{{1, "home"}, {2, "audit.jsonl"}}, file: 3}
	ev := func(wd int32, mask uint32, name string) []byte {
		n := 0
		if name != "" {
			n = (len(name) + 16) &^ 15
		}
		b := make([]byte, unix.SizeofInotifyEvent+n)
		binary.NativeEndian.PutUint32(b[0:], uint32(wd))
		binary.NativeEndian.PutUint32(b[4:], mask)
		binary.NativeEndian.PutUint32(b[12:], uint32(n))
		copy(b[unix.SizeofInotifyEvent:], name)
		return b
	}
	cat := func(bs ...[]byte) []byte {
		return []byte(strings.Join(func() []string {
			var s []string
			for _, b := range bs {
				s = append(s, string(b))
			}
			return s
		}(), ""))
	}
	other := ev(1, unix.IN_CREATE, "tmp")
	cases := []struct {
		name string
		b    []byte
		off  bool
	}{
		{"another name in /", other, true},
		{"another name in the log directory", ev(2, unix.IN_MOVED_TO, "audit.jsonl.1"), true},
		{"a name that starts as the next one", ev(1, unix.IN_DELETE, "homes"), true},
		{"several others", cat(other, ev(2, unix.IN_ATTRIB, "x"), other), true},
		{"the next name created", ev(1, unix.IN_CREATE|unix.IN_ISDIR, "home"), false},
		{"the next name moved", cat(other, ev(1, unix.IN_MOVED_FROM, "home")), false},
		{"the log deleted", ev(2, unix.IN_DELETE, "audit.jsonl"), false},
		{"the log's attributes", ev(2, unix.IN_ATTRIB, "audit.jsonl"), false},
		{"the file's own event", ev(3, unix.IN_ATTRIB, ""), false},
		{"the directory moved", ev(2, unix.IN_MOVE_SELF, ""), false},
		{"the directory's attributes", ev(1, unix.IN_ATTRIB, ""), false},
		{"a watch removed", ev(2, unix.IN_IGNORED, ""), false},
		{"unmounted", ev(2, unix.IN_UNMOUNT, ""), false},
		{"overflow", ev(-1, unix.IN_Q_OVERFLOW, ""), false},
		{"an unknown watch", ev(7, unix.IN_CREATE, "tmp"), false},
		{"torn header", other[:10], false},
		{"torn name", other[:len(other)-1], false},
	}
	for _, c := range cases {
		if got := w.unrelated(c.b); got != c.off {
			t.Errorf("%s: unrelated = %v, want %v", c.name, got, c.off)
		}
	}
}

// Differential: over a random sequence of changes to the way to the log
// (some that make the path name another file, some that end in the same
// file, some about other names), a record starts the log again exactly
// when a stat of the path before it says the path no longer names the
// open file, and the chain of every file verifies.
func TestWatchDecidesAsTheStat(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 25))
	root := t.TempDir()
	path := filepath.Join(root, "a", "logs", "audit.jsonl")
	dir, a := filepath.Dir(path), filepath.Join(root, "a")
	l := openLog(t, path)
	appendN(t, l, 2, "x")
	n := 0
	aside := func() string { n++; return filepath.Join(root, fmt.Sprintf("aside%d", n)) }
	changes := []func(){
		func() {}, // nothing
		func() { os.WriteFile(filepath.Join(dir, "other"), nil, 0o600) },
		func() { os.Remove(filepath.Join(dir, "other")) },
		func() { os.Mkdir(filepath.Join(a, "sibling"), 0o700) },
		func() { os.Rename(filepath.Join(a, "sibling"), filepath.Join(root, "sibling")) },
		func() { os.Chmod(path, 0o600) },
		func() { os.Link(path, aside()) },
		func() { os.Rename(path, path+".away"); os.Rename(path+".away", path) },
		func() { os.Rename(dir, dir+".away"); os.Rename(dir+".away", dir) },
		func() { os.Rename(path, aside()) },
		func() { os.Remove(path) },
		func() { os.WriteFile(path+".new", nil, 0o600); os.Rename(path+".new", path) },
		func() { os.Rename(dir, aside()); os.MkdirAll(dir, 0o700) },
		func() { os.Rename(a, aside()) },
	}
	restarts, watched := 0, 0
	for i := 0; i < 300; i++ {
		if rng.IntN(2) == 0 { // half the steps change something off the way, or nothing
			changes[rng.IntN(5)]()
		} else {
			changes[rng.IntN(len(changes))]()
		}
		named, _, err := statPath(path)
		want := err != nil || !named.same(l.id)
		seq, armed := l.seq, l.watch.armed
		l.watch.skip = 0 // no backing off: armed again whenever it can be
		if err := l.AppendEnc("decision", nil); err != nil {
			t.Fatal(err)
		}
		recs := records(t, path)
		got := len(recs) >= 2 && recs[len(recs)-2]["event"] == "log_restarted" && recs[len(recs)-2]["previousSeq"] == float64(seq)
		if got != want {
			t.Fatalf("step %d: started again %v, a stat of the path says %v", i, got, want)
		}
		if !got && recs[len(recs)-1]["seq"] != float64(seq+1) {
			t.Fatalf("step %d: the chain did not go on: %v", i, recs[len(recs)-1])
		}
		mustVerify(t, path, len(recs))
		if want {
			restarts++
		}
		if armed {
			watched++
		}
	}
	t.Logf("%d restarts, %d records with the watch armed", restarts, watched)
	if restarts < 20 || watched < 50 {
		t.Fatalf("%d restarts, %d records with the watch armed: the sequence tests too little", restarts, watched)
	}
}

// A way that keeps changing (the log's mode changed before every record)
// ends every watch at once: it is armed again less and less often, and
// every record still stats the path and goes on in its file.
func TestWatchOfAChangingWayBacksOff(t *testing.T) {
	l, _, path := armedLog(t)
	for i := 0; i < 400; i++ {
		must(t, os.Chmod(path, 0o600|os.FileMode(i%2)<<5))
		appendN(t, l, 1, "x")
	}
	if l.watch.arms > 8 {
		t.Fatalf("armed %d times in 400 records", l.watch.arms)
	}
	recs := records(t, path)
	mustVerify(t, path, 404)
	for _, r := range recs {
		if r["event"] != "decision" {
			t.Fatalf("a record %v: the log was started again", r)
		}
	}
}

// A directory on a file system whose changes inotify may not report (here
// proc, which is not on the list of local ones) is not watched.
func TestWatchOnlyOnLocalFileSystems(t *testing.T) {
	w := newPathWatch()
	defer w.close()
	var err error
	if w.in, err = unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	if _, ok := w.watch("/proc/sys", watchDirMask); ok {
		t.Fatal("a directory of /proc is watched")
	}
	var st unix.Statfs_t
	dir := t.TempDir()
	must(t, unix.Statfs(dir, &st))
	if _, ok := w.watch(dir, watchDirMask); ok != watchedFS(int64(st.Type)) {
		t.Fatalf("the temporary directory (file system %#x) watched: %v", st.Type, ok)
	}
}

// A torn record or a cut written into the file between two watched records
// (by a writer that died, or an editor) is seen by the size of the file, as
// by a stat of the path: the tail is cut back and recorded, a cut short
// file goes on from its last record.
func TestWatchedLogSeesATornTailOrACut(t *testing.T) {
	l, _, path := armedLog(t)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	must(t, err)
	_, err = f.WriteString(`{"time":"2026-01-01T00:00:00Z","seq":5,"ev`)
	must(t, err)
	must(t, f.Close())
	mustBeWatched(t, l)
	recs := records(t, path)
	if recs[4]["event"] != "log_repaired" || !strings.Contains(recs[4]["reason"].(string), "partial record") {
		t.Fatalf("record 5 = %v, want log_repaired", recs[4])
	}
	mustVerify(t, path, 6)
	lines := strings.SplitAfter(readFile(t, path), "\n")
	must(t, os.WriteFile(path, []byte(strings.Join(lines[:3], "")), 0o600)) // cut in place: the same file
	mustBeWatched(t, l)
	recs = records(t, path)
	if recs[3]["event"] != "log_restarted" || recs[3]["previousSeq"] != float64(6) || recs[4]["seq"] != float64(5) {
		t.Fatalf("records 4 and 5 = %v, %v; want log_restarted after seq 6, then seq 5", recs[3], recs[4])
	}
	mustVerify(t, path, 5)
}

// A log whose path is a link to the file is not watched (the watch would
// be of the link, not of the way to the file): every record stats the
// path, and a change of the file the link names is noticed.
func TestLinkedLogIsNotWatched(t *testing.T) {
	dir := t.TempDir()
	real, path := filepath.Join(dir, "real.jsonl"), filepath.Join(dir, "audit.jsonl")
	must(t, os.WriteFile(real, nil, 0o600))
	must(t, os.Symlink(real, path))
	l := openLog(t, path)
	appendN(t, l, 5, "x")
	if l.watch.armed || l.watch.hits != 0 {
		t.Fatalf("a linked log is watched (armed %v, hits %d)", l.watch.armed, l.watch.hits)
	}
	must(t, os.Rename(real, real+".1"))
	must(t, os.WriteFile(real, nil, 0o600))
	appendN(t, l, 1, "after")
	if recs := records(t, path); recs[0]["event"] != "log_restarted" || recs[0]["previousSeq"] != float64(5) {
		t.Fatalf("first record %v, want log_restarted after seq 5", recs[0])
	}
	mustVerify(t, real+".1", 5)
}
