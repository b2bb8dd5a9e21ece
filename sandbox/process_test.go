package sandbox

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// terminated runs script confined in the background, waits until it has
// written ready, sends toolgate (this process) a SIGTERM, and returns the
// command's exit status and what it wrote to stderr.
func terminated(t *testing.T, w *world, script, ready string) (int, string) {
	t.Helper()
	var errb bytes.Buffer
	done := make(chan int, 1)
	go func() {
		code, err := Run(w.profile(), Command{Argv: []string{"sh", "-c", script}, Env: w.env, Stderr: &errb})
		if err != nil {
			t.Errorf("Run: %v", err)
		}
		done <- code
	}()
	deadline := time.Now().Add(20 * time.Second)
	for !w.exists(ready) {
		if time.Now().After(deadline) {
			t.Fatalf("the confined command never got ready")
		}
		time.Sleep(10 * time.Millisecond)
	}
	syscall.Kill(os.Getpid(), syscall.SIGTERM)
	select {
	case code := <-done:
		return code, errb.String()
	case <-time.After(20 * time.Second):
		t.Fatal("the confined command did not end after the signal")
		return -1, ""
	}
}

// TestSignalEndsAnUncaughtCommand: the command is the first process of
// its PID namespace, where a signal it has no handler for would be
// ignored; a SIGTERM to toolgate still ends it, with the status a plain
// command killed by it has (128+15), and what it left running goes too.
func TestSignalEndsAnUncaughtCommand(t *testing.T) {
	w := newWorld(t)
	ready := filepath.Join(w.tmp, "ready")
	left := filepath.Join(w.tmp, "left")
	if code, stderr := terminated(t, w, "(sleep 0.5; touch "+left+") & touch "+ready+"; sleep 30", ready); code != 128+int(syscall.SIGTERM) {
		t.Errorf("exit %d, want %d\n%s", code, 128+int(syscall.SIGTERM), stderr)
	}
	time.Sleep(time.Second)
	if w.exists(left) {
		t.Error("a process the command left running outlived it")
	}
}

// TestSignalReachesACatchingCommand: a command that handles the signal
// gets it and ends as it chooses.
func TestSignalReachesACatchingCommand(t *testing.T) {
	w := newWorld(t)
	ready := filepath.Join(w.tmp, "ready")
	caught := filepath.Join(w.proj, "caught")
	code, stderr := terminated(t, w, "trap 'echo yes > "+caught+"; exit 3' TERM; touch "+ready+"; while :; do sleep 0.05; done", ready)
	if code != 3 || w.read(caught) != "yes\n" {
		t.Errorf("exit %d, trap wrote %q\n%s", code, w.read(caught), stderr)
	}
}

// TestCommandNotFound: a command that is not there is said as a shell
// says it, with its status (127), and nothing runs.
func TestCommandNotFound(t *testing.T) {
	w := newWorld(t)
	var errb bytes.Buffer
	code, err := Run(w.profile(), Command{Argv: []string{"no-such-program-here"}, Env: w.env, Stderr: &errb})
	if err != nil || code != 127 || !strings.Contains(errb.String(), "no-such-program-here: executable file not found") {
		t.Errorf("exit %d, %v\n%s", code, err, errb.String())
	}
	// A path that is not executable: the child's exec refuses it.
	script := filepath.Join(w.proj, "script.sh")
	w.write(script, "#!/bin/sh\necho ran\n")
	os.Chmod(script, 0o644)
	errb.Reset()
	code, err = Run(w.profile(), Command{Argv: []string{script}, Env: w.env, Stderr: &errb})
	if err != nil || code != 127 || !strings.Contains(errb.String(), "not an executable file") {
		t.Errorf("exit %d, %v\n%s", code, err, errb.String())
	}
}

// TestStatusAndStandardFiles: the command's status, its input and its
// two outputs pass through whatever the caller's readers and writers are.
func TestStatusAndStandardFiles(t *testing.T) {
	w := newWorld(t)
	var out, errb bytes.Buffer
	code, err := Run(w.profile(), Command{Argv: []string{"sh", "-c", "read l; echo out:$l; echo err:$l >&2; exit 7"}, Env: w.env,
		Stdin: strings.NewReader("hello\n"), Stdout: &out, Stderr: &errb})
	if err != nil || code != 7 || out.String() != "out:hello\n" || !strings.HasPrefix(errb.String(), "err:hello\n") {
		t.Errorf("exit %d, %v; stdout %q; stderr %q", code, err, out.String(), errb.String())
	}
}

// TestCapabilitiesAndPrivileges: the command has no capability and
// cannot gain privileges, whatever user it runs as.
func TestCapabilitiesAndPrivileges(t *testing.T) {
	w := newWorld(t)
	code, out, errb := w.run(w.profile(), "grep -E '^(CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs):' /proc/self/status")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errb)
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		want := "0000000000000000"
		if f[0] == "NoNewPrivs:" {
			want = "1"
		}
		if len(f) != 2 || f[1] != want {
			t.Errorf("%s, want %s", line, want)
		}
	}
}

// TestChildFailureIsSaid: a step of the confining child that fails (here
// the working directory, gone) stops the command before it runs, and the
// error names the step.
func TestChildFailureIsSaid(t *testing.T) {
	w := newWorld(t)
	p := w.profile()
	p.Cwd = filepath.Join(w.proj, "gone")
	marker := filepath.Join(w.tmp, "ran")
	_, err := Run(p, Command{Argv: []string{"sh", "-c", "touch " + marker}, Env: w.env})
	if err == nil || !strings.Contains(err.Error(), "working directory: no such file or directory") || w.exists(marker) {
		t.Errorf("err %v; ran %v", err, w.exists(marker))
	}
}

// TestReadOnlyInsideHiddenFolder: a read-only path inside a hidden folder
// (toolgate's own folder inside the runtime directory, whose sockets are
// hidden) is covered by the hiding; the command runs, and reads neither.
func TestReadOnlyInsideHiddenFolder(t *testing.T) {
	w := newWorld(t)
	run := filepath.Join(w.tmp, "run")
	own := filepath.Join(run, "toolgate")
	must(t, os.MkdirAll(own, 0o700))
	w.write(filepath.Join(own, "profile.json"), "{}\n")
	p := w.profile()
	p.ReadOnly = append(p.ReadOnly, Entry{Path: own, Dir: true, Why: "toolgate's own files"})
	p.Sockets = append(p.Sockets, Entry{Path: run, Why: "the runtime directory's sockets"})
	code, out, errb := w.run(p, "ls "+own+" || echo unreadable; echo ran")
	if code != 0 || !strings.Contains(out, "unreadable") || !strings.Contains(out, "ran") {
		t.Errorf("exit %d\n%s\n%s", code, out, errb)
	}
}

// TestAbsentFileMovedAsideAtOnce: an absent protected file the command
// creates is moved aside while the command still runs, within absentPoll
// (a long command's .npmrc must not act for the npm the person runs
// meanwhile).
func TestAbsentFileMovedAsideAtOnce(t *testing.T) {
	w := newWorld(t)
	npmrc := filepath.Join(w.proj, ".npmrc")
	p := w.profile()
	p.Absent = append(p.Absent, Entry{Path: npmrc, Why: "npm configuration (runs scripts)"})
	seen := filepath.Join(w.tmp, "seen")
	// The command writes .npmrc, then looks for it while it still runs.
	code, _, stderr := w.run(p, "echo 'script-shell=/tmp/x' > .npmrc; for i in 1 2 3 4 5 6 7 8 9 10; do [ -e .npmrc ] || { echo gone > "+seen+"; break; }; sleep 0.1; done")
	if code != 0 || w.read(seen) != "gone\n" {
		t.Errorf("exit %d; .npmrc was still there while the command ran (%q)\n%s", code, w.read(seen), stderr)
	}
	if w.exists(npmrc) || !strings.Contains(stderr, "moved aside to "+npmrc+".toolgate-blocked-") {
		t.Errorf(".npmrc there: %v\n%s", w.exists(npmrc), stderr)
	}
}
