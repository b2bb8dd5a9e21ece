package audit

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/rs/zerolog"
)

func records(t *testing.T, path string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(readFile(t, path)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("bad line %q", line)
		}
		out = append(out, m)
	}
	return out
}

func mustVerify(t *testing.T, path string, want int) Report {
	t.Helper()
	r, err := VerifyFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !r.OK() || r.Records != want {
		t.Fatalf("verify: %d records, problem %v, head %q; want %d records, intact", r.Records, r.Problem, r.HeadProblem, want)
	}
	return r
}

func openLog(t *testing.T, path string) *Log {
	t.Helper()
	l, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// A torn or blank tail is cut back to the last complete record when the log
// is opened, a record says what was cut, and the chain goes on (it does not
// start again at seq 1).
func TestOpenCutsATornTail(t *testing.T) {
	cases := map[string]struct{ tail, reason string }{
		"partial record":    {`{"time":"2026-01-01T00:00:00Z","seq":4,"event":"deci`, "partial record"},
		"blank lines":       {"\n   \n\n", "blank lines"},
		"spaces, no EOL":    {"   ", "blank lines"},
		"record and blanks": {"\n\t\n", "blank lines"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "audit.jsonl")
			l := openLog(t, path)
			appendN(t, l, 3, "x")
			l.Close()
			f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
			f.WriteString(tc.tail)
			f.Close()
			l2 := openLog(t, path)
			appendN(t, l2, 1, "after")
			l2.Close()
			recs := records(t, path)
			mustVerify(t, path, 5)
			if recs[3]["event"] != "log_repaired" || !strings.Contains(recs[3]["reason"].(string), tc.reason) || recs[3]["cutBytes"] != float64(len(tc.tail)) {
				t.Fatalf("record 4 = %v, want log_repaired (%s, %d bytes)", recs[3], tc.reason, len(tc.tail))
			}
			if recs[4]["seq"] != float64(5) {
				t.Fatalf("the chain restarted: %v", recs[4])
			}
		})
	}
	// A whole file of blank lines starts the chain, and says so.
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	os.WriteFile(path, []byte("\n\n"), 0o600)
	l := openLog(t, path)
	appendN(t, l, 1, "x")
	l.Close()
	if recs := records(t, path); recs[0]["event"] != "log_repaired" {
		t.Fatalf("first record %v, want log_repaired", recs[0])
	}
	mustVerify(t, path, 2)
}

// A write that fails part way (the disk is full) is cut back at once: the
// call fails, nothing torn stays in the file, and the next record succeeds
// as soon as writes do, after a record saying how many failed.
func TestFailedWriteIsCutBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l := openLog(t, path)
	appendN(t, l, 2, "x")
	before, _ := os.Stat(path)
	full := true
	write := l.write
	l.write = func(b []byte) (int, error) {
		if full {
			n, _ := write(b[:len(b)/2])
			return n, syscall.ENOSPC
		}
		return write(b)
	}
	for i := 0; i < 3; i++ {
		if err := l.Append("decision", nil); err == nil || !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), path) {
			t.Fatalf("Append on a full disk = %v, want ENOSPC naming the log", err)
		}
		if now, _ := os.Stat(path); now.Size() != before.Size() {
			t.Fatalf("after a failed write the log is %d bytes, want %d", now.Size(), before.Size())
		}
	}
	full = false
	appendN(t, l, 1, "after")
	l.Close()
	recs := records(t, path)
	mustVerify(t, path, 4)
	if recs[2]["event"] != "log_write_failed" || recs[2]["failedWrites"] != float64(3) {
		t.Fatalf("record 3 = %v, want log_write_failed with 3 failed writes", recs[2])
	}
}

// A log deleted or replaced while open is noticed at the next record and
// started again by path, with a first record naming the previous seq and
// hash.
func TestDeletedOrReplacedLogStartsAgain(t *testing.T) {
	for _, how := range []string{"deleted", "replaced"} {
		t.Run(how, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "audit.jsonl")
			l := openLog(t, path)
			appendN(t, l, 3, "x")
			last := records(t, path)[2]["hash"]
			switch how {
			case "deleted":
				os.Remove(path)
			case "replaced":
				os.WriteFile(filepath.Join(dir, "new"), nil, 0o600)
				os.Rename(filepath.Join(dir, "new"), path)
			}
			appendN(t, l, 2, "after")
			recs := records(t, path)
			mustVerify(t, path, 3)
			if recs[0]["event"] != "log_restarted" || recs[0]["previousSeq"] != float64(3) || recs[0]["previousHash"] != last ||
				!strings.Contains(recs[0]["reason"].(string), how) {
				t.Fatalf("first record %v, want log_restarted after seq 3 (%s)", recs[0], how)
			}
		})
	}
}

// Two logs on one file: when it is deleted, both go on in the new file with
// one chain.
func TestTwoWritersStartAgainTogether(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	a, b := openLog(t, path), openLog(t, path)
	appendN(t, a, 2, "a")
	appendN(t, b, 2, "b")
	os.Remove(path)
	appendN(t, a, 2, "a")
	appendN(t, b, 2, "b")
	mustVerify(t, path, 6) // a's restart, 2 of a, b's restart, 2 of b
}

// The head file names the last record, so a tail cut off after it was
// written is reported; a head one record behind is only a note.
func TestHeadShowsACutOffTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l := openLog(t, path)
	appendN(t, l, 5, "x")
	l.Close()
	r := mustVerify(t, path, 5)
	if r.Head == nil || r.Head.Seq != 5 {
		t.Fatalf("head = %+v, want seq 5", r.Head)
	}
	lines := strings.SplitAfter(readFile(t, path), "\n")
	os.WriteFile(path, []byte(strings.Join(lines[:3], "")), 0o600)
	r, _ = VerifyFile(path)
	if r.OK() || !strings.Contains(r.HeadProblem, "cut off") {
		t.Fatalf("a log cut to 3 of 5 records verified: %+v", r)
	}
	// The last record replaced by another chained one.
	os.WriteFile(path, []byte(strings.Join(lines[:5], "")), 0o600)
	l2 := openLog(t, path)
	appendN(t, l2, 1, "other")
	l2.Close()
	lines2 := strings.SplitAfter(readFile(t, path), "\n")
	head, _ := os.ReadFile(HeadPath(path))
	os.WriteFile(HeadPath(path), []byte(fmt.Sprintf("%020d %s\n", 6, strings.Repeat("a", 64))), 0o600)
	if r, _ := VerifyFile(path); r.OK() {
		t.Fatalf("a head naming another last record verified: %+v", r)
	}
	os.WriteFile(HeadPath(path), head, 0o600)
	os.WriteFile(path, []byte(strings.Join(lines2, "")+"junk"), 0o600)
	if r, _ := VerifyFile(path); r.OK() {
		t.Fatal("a log with a junk tail verified")
	}
}

// The file size limit (RLIMIT_FSIZE, as a full disk would) makes writes
// fail part way; in a child process with a low limit, every failed record
// is cut back, and once the limit is raised (space returns) the log goes on
// and verifies.
func TestFileSizeLimit(t *testing.T) {
	if os.Getenv("AUDIT_FSIZE_CHILD") != "" {
		fileSizeChild(os.Getenv("AUDIT_FSIZE_CHILD"))
		return
	}
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	cmd := exec.Command(os.Args[0], "-test.run=^TestFileSizeLimit$")
	cmd.Env = append(os.Environ(), "AUDIT_FSIZE_CHILD="+path)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "child ok") {
		t.Fatalf("child: %v\n%s", err, out)
	}
	recs := records(t, path)
	n := len(recs)
	mustVerify(t, path, n)
	failedSeen := false
	for _, r := range recs {
		failedSeen = failedSeen || r["event"] == "log_write_failed"
	}
	if !failedSeen || recs[n-1]["toolCallId"] != "after" {
		t.Fatalf("want a log_write_failed record and the record after: %v", recs[n-2:])
	}
}

func fileSizeChild(path string) {
	fail := func(f string, a ...any) { fmt.Printf(f+"\n", a...); os.Exit(1) }
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		fail("getrlimit: %v", err)
	}
	l, err := Open(path)
	if err != nil {
		fail("open: %v", err)
	}
	small := syscall.Rlimit{Cur: 4096, Max: lim.Max}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &small); err != nil {
		fail("setrlimit: %v", err)
	}
	failures := 0
	for i := 0; i < 100 && failures < 3; i++ {
		if err := l.Append("decision", func(e *zerolog.Event) { e.Str("toolCallId", "c").Str("pad", strings.Repeat("p", 300)) }); err != nil {
			if !errors.Is(err, syscall.EFBIG) {
				fail("append: %v, want EFBIG", err)
			}
			failures++
		}
		info, _ := os.Stat(path)
		if info.Size() > 4096 {
			fail("the log is %d bytes, over the limit", info.Size())
		}
	}
	if failures == 0 {
		fail("no write failed under the limit")
	}
	if n, p := verifyQuick(path); p != nil {
		fail("while full the log is broken after %d records: %v", n, p)
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		fail("setrlimit back: %v", err)
	}
	if err := l.Append("decision", func(e *zerolog.Event) { e.Str("toolCallId", "after") }); err != nil {
		fail("append after space returned: %v", err)
	}
	l.Close()
	fmt.Println("child ok")
	os.Exit(0)
}

func verifyQuick(path string) (int, *Problem) {
	f, err := os.Open(path)
	if err != nil {
		return 0, &Problem{Line: 0, Message: err.Error()}
	}
	defer f.Close()
	return Verify(f)
}

// The head names the last record after every record, also once it is
// written through its mapping, and also when it was cut short, emptied or
// overwritten by someone else in between (the mapped store faults; the
// fault is caught and the head written again).
func TestHeadFollowsEveryRecord(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l := openLog(t, path)
	check := func(when string, n int) {
		t.Helper()
		recs := records(t, path)
		h, err := ReadHead(path)
		if err != nil || h == nil || h.Seq != uint64(n) || h.Hash != recs[n-1]["hash"] || len(recs) != n {
			t.Fatalf("%s: head %+v (%v) after %d records, want the last one", when, h, err, len(recs))
		}
		mustVerify(t, path, n)
	}
	n := 0
	for i := 0; i < 5; i++ {
		appendN(t, l, 1, "x")
		n++
		check("record", n)
	}
	for _, how := range []string{"emptied", "cut short", "overwritten", "removed", "grown"} {
		switch how {
		case "emptied":
			os.Truncate(HeadPath(path), 0)
		case "cut short":
			os.Truncate(HeadPath(path), 10)
		case "overwritten":
			os.WriteFile(HeadPath(path), []byte(fmt.Sprintf("%020d %s\n", 99, strings.Repeat("b", 64))), 0o600)
		case "removed": // the open head file goes on unnamed; nothing to check but that appends go on
			os.Remove(HeadPath(path))
			appendN(t, l, 1, "x")
			n++
			if _, err := os.Stat(HeadPath(path)); !os.IsNotExist(err) {
				t.Fatalf("a head file came back: %v", err)
			}
			l.Close()
			l = openLog(t, path)
		case "grown": // a shorter one mapped by another writer, grown past the record again
			os.WriteFile(HeadPath(path), nil, 0o600)
		}
		appendN(t, l, 1, "x")
		n++
		check(how, n)
		appendN(t, l, 1, "x")
		n++
		check(how+", then another record", n)
	}
}

// The path is what names the log: a log moved away (rotated), or its
// directory moved away and made again, is noticed at the next record as
// a deleted or replaced one is (a watch of the log's directory would miss
// the second; a stat of the path does not).
func TestMovedLogOrDirectoryStartsAgain(t *testing.T) {
	for _, how := range []string{"log moved away", "directory moved away", "directory replaced"} {
		t.Run(how, func(t *testing.T) {
			root := t.TempDir()
			dir := filepath.Join(root, "logs")
			path := filepath.Join(dir, "audit.jsonl")
			l := openLog(t, path)
			appendN(t, l, 3, "x")
			last := records(t, path)[2]["hash"]
			switch how {
			case "log moved away":
				os.Rename(path, filepath.Join(dir, "audit.1.jsonl"))
			case "directory moved away":
				os.Rename(dir, filepath.Join(root, "old"))
			case "directory replaced":
				os.Rename(dir, filepath.Join(root, "old"))
				os.Mkdir(dir, 0o700)
				os.WriteFile(path, nil, 0o600)
			}
			appendN(t, l, 2, "after")
			recs := records(t, path)
			mustVerify(t, path, 3)
			if recs[0]["event"] != "log_restarted" || recs[0]["previousSeq"] != float64(3) || recs[0]["previousHash"] != last {
				t.Fatalf("first record %v, want log_restarted after seq 3", recs[0])
			}
			if old := filepath.Join(root, "old", "audit.jsonl"); how != "log moved away" {
				mustVerify(t, old, 3) // the old log is left as it was
			}
		})
	}
}

// Two writers share the head file (each through its own mapping): after
// every record of either, it names the last record.
func TestTwoWritersShareTheHead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	a, b := openLog(t, path), openLog(t, path)
	for i := 1; i <= 20; i++ {
		l := a
		if i%3 == 0 {
			l = b
		}
		appendN(t, l, 1, "w")
		recs := records(t, path)
		h, err := ReadHead(path)
		if err != nil || h == nil || h.Seq != uint64(len(recs)) || h.Hash != recs[len(recs)-1]["hash"] {
			t.Fatalf("after record %d: head %+v (%v), want the last of %d", i, h, err, len(recs))
		}
	}
	mustVerify(t, path, 20)
}
