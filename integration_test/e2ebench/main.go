// Command e2ebench measures toolgate as a host sees it: it builds
// the real binary and a bare echo binary, spawns both, and drives them over
// OS pipes from this process, one call in flight, alternating call by call
// so that both see the same machine. The corpus is a realistic mix (about
// half bash, the rest reads, edits, writes, greps, finds and MCP calls),
// against a 200-rule and a 10,000-rule policy with the audit log on.
//
//	go run ./integration_test/e2ebench                # the README's table
//	go run ./integration_test/e2ebench -calls 5000 -rules 200
//	go run ./integration_test/e2ebench -distinct -untrusted
//	go run ./integration_test/e2ebench -distinct -content 4096 -shapes 5,7,21
//
// -content N makes the fresh corpus's writes and edits carry about N bytes
// of source each (-shapes 5,7,21 are its edits and its write alone).
//
// -untrusted writes an untrusted project file (.toolgate/config.json,
// never trusted) into the benchmark's project: every gate then runs on
// both sides of the policy, with and without it (the design asks the budgets
// hold with and without one).
//
// It prints p50/p90/p99 round trips, the ratios to the echo, CPU time per
// call of each process (user + system, from the kernel's accounting of the
// child), start to `initialize` answered, and the CPU of one `claude-hook`
// process.
//
// E2EBENCH_PROFILE=FILE builds toolgate with -tags profile and writes a CPU
// profile of the first serve process to FILE (go tool pprof FILE), at
// E2EBENCH_PROFILE_HZ samples a second when set (else pprof's 100);
// E2EBENCH_GCTRACE=FILE runs the serve process of the first policy size
// with GODEBUG=gctrace=1, its standard error (one line a collection) into
// FILE.
// E2EBENCH_STRACE=FILE runs that process under strace -c (a count of its
// system calls; the timings of that size are then strace's, not toolgate's);
// with E2EBENCH_STRACE_TRACE=newfstatat,openat it writes each such call
// with its arguments instead of the count.
// E2EBENCH_PHASES=FILE builds toolgate with -tags profile and times the
// phases of each fast-path call of the first serve process (envelope
// decoded; fields, shell and gates; decision and audit record; answer
// written), printed after that size's table and written to FILE.
// E2EBENCH_TIMES=FILE writes every measured call's round trips of the first
// policy size to FILE, a line each: the call's index, toolgate's and the
// echo's round trip in µs, and which of the two was driven first (the
// distributions behind the percentiles: the echo's often has two modes).
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/toolgate/toolgate/internal/e2ecorpus"
	"github.com/toolgate/toolgate/internal/modroot"
)

func main() {
	calls := flag.Int("calls", 20000, "measured calls per policy size (after a warm-up of a tenth)")
	rulesFlag := flag.String("rules", "200,10000", "policy sizes, comma separated")
	starts := flag.Int("starts", 30, "process starts measured for start-up and claude-hook")
	keep := flag.Bool("keep", false, "keep the temporary directory (binaries, policies, audit logs)")
	distinct := flag.Bool("distinct", false, "the fresh corpus: every call names its own numbers, text and paths, so that no call repeats an earlier one")
	untrusted := flag.Bool("untrusted", false, "write an untrusted project file (.toolgate/config.json) into the benchmark's project")
	flag.BoolVar(&countIr, "instructions", false, "count the user-space instructions a call costs (valgrind --tool=callgrind; the same for every run, where the machine's timings are not) instead of timing calls")
	footFlag := flag.String("footprint", "", "simulate caches instead of timing calls (valgrind --tool=cachegrind): for each last-level cache size in KiB (comma separated, e.g. 256,512,1024), the cache lines a call brings into a 32 KiB L1 and from memory, code and data apart; what a call costs when it starts cold")
	binFlag := flag.String("bin", "", "measure this toolgate binary instead of building one from the tree (to set two builds side by side; build them with CGO_ENABLED=0, as the README and this benchmark do: a binary linked against libc maps more of itself)")
	flag.IntVar(&contentSize, "content", 0, "with -distinct, make each write's content and each edit's texts about this many bytes of source of their own (e2ecorpus.FreshCallSized), as an agent writes a whole file or edits a function; 0 keeps the corpus's short ones")
	shapeFlag := flag.String("shapes", "", "with -distinct, only the fresh corpus's calls of these shapes (comma separated, 0 to 23: e2ecorpus.FreshCall), to see what one kind of call costs")
	flag.Parse()
	if contentSize < 0 || contentSize > 0 && !*distinct {
		fmt.Fprintf(os.Stderr, "e2ebench: -content %d: want a size in bytes, with -distinct\n", contentSize)
		os.Exit(2)
	}
	for _, f := range strings.Split(*shapeFlag, ",") {
		if f == "" {
			continue
		}
		k, err := strconv.Atoi(f)
		if err != nil || k < 0 || k >= e2ecorpus.FreshShapes || !*distinct {
			fmt.Fprintf(os.Stderr, "e2ebench: -shapes %q: want numbers from 0 to %d, with -distinct\n", *shapeFlag, e2ecorpus.FreshShapes-1)
			os.Exit(2)
		}
		shapes = append(shapes, k)
	}
	for _, f := range strings.Split(*footFlag, ",") {
		if f == "" {
			continue
		}
		kb, err := strconv.Atoi(f)
		if err != nil || kb < 64 || kb&(kb-1) != 0 {
			fmt.Fprintf(os.Stderr, "e2ebench: -footprint %q: want sizes in KiB, powers of two from 64\n", *footFlag)
			os.Exit(2)
		}
		footprintKB = append(footprintKB, kb)
	}
	if *binFlag != "" {
		abs, err := filepath.Abs(*binFlag)
		if err != nil {
			fmt.Fprintln(os.Stderr, "e2ebench: -bin:", err)
			os.Exit(2)
		}
		prebuilt = abs
	}
	if err := run(*calls, *rulesFlag, *starts, *keep, *distinct, *untrusted); err != nil {
		fmt.Fprintln(os.Stderr, "e2ebench:", err)
		os.Exit(1)
	}
}

// countIr is -instructions: count the instructions a call costs under
// valgrind's callgrind instead of timing calls.
var countIr bool

// footprintKB is -footprint: the last-level cache sizes simulated, in
// KiB; empty when calls are timed.
var footprintKB []int

// prebuilt is -bin: the toolgate binary measured, built from the tree when
// empty.
var prebuilt string

// shapes are -shapes: the shapes of fresh call measured, all when empty.
var shapes []int

// contentSize is -content: the size of a fresh write's or edit's text (0:
// the corpus's own).
var contentSize int

func run(calls int, rulesFlag string, starts int, keep, distinct, untrusted bool) error {
	root, err := modroot.Find()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "toolgate-e2ebench-")
	if err != nil {
		return err
	}
	if keep {
		fmt.Println("temporary directory:", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	tg, echo := filepath.Join(tmp, "toolgate"), filepath.Join(tmp, "echo")
	if prebuilt != "" {
		tg = prebuilt
	} else if err := build(root, ".", tg); err != nil {
		return err
	}
	if err := build(root, "./integration_test/e2ebench/echo", echo); err != nil {
		return err
	}
	fmt.Printf("machine: %s/%s, %d CPUs, %s\n\n", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), time.Now().UTC().Format(time.RFC3339))
	for _, f := range strings.Split(rulesFlag, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 {
			return fmt.Errorf("-rules: %q is not a number of rules", f)
		}
		if err := measure(tmp, tg, echo, n, calls, starts, distinct, untrusted); err != nil {
			return err
		}
	}
	return nil
}

func build(root, pkg, out string) error {
	args := []string{"build", "-o", out}
	if (os.Getenv("E2EBENCH_PROFILE") != "" || os.Getenv("E2EBENCH_PHASES") != "") && pkg == "." {
		args = append(args, "-tags", "profile") // profile_on.go
	}
	cmd := exec.Command("go", append(args, pkg)...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = root, os.Stderr, os.Stderr
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build %s: %w", pkg, err)
	}
	return nil
}

// sandbox is one policy size's world: a home with the global policy, a
// project with files the corpus touches, and the audit log.
type sandbox struct{ dir, home, work, audit string }

func newSandbox(tmp string, rules int, untrusted, distinct bool) (sandbox, error) {
	s := sandbox{dir: filepath.Join(tmp, fmt.Sprintf("r%d", rules))}
	s.home, s.work, s.audit = filepath.Join(s.dir, "home"), filepath.Join(s.dir, "work"), filepath.Join(s.dir, "audit.jsonl")
	files := e2ecorpus.Files(s.home, s.work)
	files[filepath.Join(s.home, ".pi", "agent", "extensions", "pi-permission-system", "config.json")] = e2ecorpus.PolicyText(rules)
	if untrusted {
		files[filepath.Join(s.work, ".toolgate", "config.json")] = e2ecorpus.UntrustedProjectText
	}
	if distinct {
		for p, c := range e2ecorpus.FreshFiles(s.work) {
			files[p] = c
		}
	}
	for p, c := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return s, err
		}
		if err := os.WriteFile(p, []byte(c), 0o600); err != nil {
			return s, err
		}
	}
	return s, nil
}

// distinctParams is the n-th call of the fresh corpus (-distinct), where
// no call repeats an earlier one (e2ecorpus.FreshCall); the params without
// their opening brace.
// callLine is the benchmark's i-th tool_call request (id i+2): the
// repeated corpus's lines in turn, or with distinct the i-th fresh call
// (of the -shapes, when given).
func callLine(i int, distinct bool, lines [][]byte) []byte {
	id := strconv.Itoa(i + 2)
	params := lines[i%len(lines)]
	if distinct {
		n := i
		if len(shapes) > 0 {
			n = shapes[i%len(shapes)] + i/len(shapes)*e2ecorpus.FreshShapes
		}
		params = distinctParams(n)
	}
	return []byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"tool_call","params":{"toolCallId":"call-` + id + `",` + string(params) + "}\n")
}

func distinctParams(n int) []byte {
	params, _ := json.Marshal(e2ecorpus.FreshCallSized(n, contentSize))
	return params[1:]
}

var profiled, straced, gctraced, phased bool

// proc is a spawned plugin (toolgate or the echo).
type proc struct {
	sys time.Duration // the system part of the CPU, once stopped
	// vcsw and ivcsw are the process's voluntary and involuntary context
	// switches, once stopped.
	vcsw, ivcsw int64
	// anon and file are the process's resident memory of its own (heap,
	// stacks) and of files (its binary) as it stops, in kB; 0 where the
	// system does not say.
	anon, file int64
	cmd        *exec.Cmd
	stdin      io.WriteCloser
	out        *bufio.Reader
}

func start(bin string, args []string, s sandbox) (*proc, error) {
	cmd := exec.Command(bin, args...)
	if out := os.Getenv("E2EBENCH_STRACE"); out != "" && strings.HasSuffix(bin, "toolgate") && !straced && !slices.Contains(args, "claude-hook") {
		// The serve process of the first policy size runs under
		// strace -c: the system calls it makes, to divide by the calls.
		straced = true
		flags := []string{"-f", "-c", "-o", out}
		if calls := os.Getenv("E2EBENCH_STRACE_TRACE"); calls != "" {
			flags = []string{"-f", "-e", "trace=" + calls, "-o", out} // each call, not a count
		}
		cmd = exec.Command("strace", append(append(flags, bin), args...)...)
	}
	cmd.Dir = s.work
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + s.home}
	if prof := os.Getenv("E2EBENCH_PROFILE"); prof != "" && strings.HasSuffix(bin, "toolgate") && !profiled {
		profiled = true
		cmd.Env = append(cmd.Env, "TOOLGATE_CPUPROFILE="+prof, "TOOLGATE_CPUPROFILE_HZ="+os.Getenv("E2EBENCH_PROFILE_HZ"))
	}
	if out := os.Getenv("E2EBENCH_PHASES"); out != "" && strings.HasSuffix(bin, "toolgate") && !phased && !slices.Contains(args, "claude-hook") {
		phased = true
		cmd.Env = append(cmd.Env, "TOOLGATE_PHASES="+out)
	}
	cmd.Stderr = io.Discard
	if out := os.Getenv("E2EBENCH_GCTRACE"); out != "" && strings.HasSuffix(bin, "toolgate") && !gctraced && !slices.Contains(args, "claude-hook") {
		// The serve process of the first policy size reports each
		// collection (the runtime's gctrace) into the file.
		gctraced = true
		f, err := os.Create(out)
		if err != nil {
			return nil, err
		}
		defer f.Close() // the child has its own copy once started
		cmd.Env = append(cmd.Env, "GODEBUG=gctrace=1")
		cmd.Stderr = f
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &proc{cmd: cmd, stdin: stdin, out: bufio.NewReaderSize(stdout, 1<<16)}, nil
}

// roundTrip writes one request line and reads until the response with id.
func (p *proc) roundTrip(line []byte, id string) (time.Duration, []byte, error) {
	t0 := time.Now()
	if _, err := p.stdin.Write(line); err != nil {
		return 0, nil, err
	}
	want := []byte(`"id":` + id + `,`)
	for {
		resp, err := p.out.ReadBytes('\n')
		if err != nil {
			return 0, nil, err
		}
		if bytes.Contains(resp, want) {
			return time.Since(t0), resp, nil
		}
	}
}

// stop closes stdin, waits, and returns the process's CPU time.
func (p *proc) stop() (time.Duration, error) {
	cpu, _, err := p.stopRSS()
	return cpu, err
}

// stopRSS is stop, also returning the process's peak resident memory in
// bytes (0 where the system does not say).
func (p *proc) stopRSS() (time.Duration, int64, error) {
	p.anon, p.file = residentParts(p.cmd.Process.Pid)
	p.stdin.Close()
	_, _ = io.Copy(io.Discard, p.out)
	if err := p.cmd.Wait(); err != nil {
		return 0, 0, err
	}
	st := p.cmd.ProcessState
	p.sys = st.SystemTime()
	p.vcsw, p.ivcsw = switches(st)
	return st.UserTime() + st.SystemTime(), maxRSS(st), nil
}

func initLine(s sandbox) []byte {
	return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"cwd":%q,"hasUI":false}}`+"\n", s.work))
}

func measure(tmp, tg, echo string, rules, calls, starts int, distinct, untrusted bool) error {
	s, err := newSandbox(tmp, rules, untrusted, distinct)
	if err != nil {
		return err
	}
	args := []string{"--audit-log", s.audit}
	if countIr {
		return instructions(tmp, tg, args, s, rules, calls, distinct)
	}
	if len(footprintKB) > 0 {
		return footprint(tmp, tg, args, s, rules, calls, distinct)
	}
	tp, err := start(tg, args, s)
	if err != nil {
		return err
	}
	ep, err := start(echo, nil, s)
	if err != nil {
		return err
	}
	for _, p := range []*proc{tp, ep} {
		if _, _, err := p.roundTrip(initLine(s), "1"); err != nil {
			return fmt.Errorf("initialize: %w", err)
		}
	}
	work := e2ecorpus.Calls()
	lines := make([][]byte, len(work))
	for i, c := range work {
		params, _ := json.Marshal(c)
		lines[i] = params[1:] // each call gets its own toolCallId below
	}
	warm := calls / 10
	var tgTimes, echoTimes []time.Duration
	var tgBash, echoBash []time.Duration
	decisions := map[string]int{}
	for i := 0; i < warm+calls; i++ {
		k := i % len(lines)
		id := strconv.Itoa(i + 2)
		line := callLine(i, distinct, lines)
		first, second := tp, ep
		if i%2 == 1 {
			first, second = ep, tp
		}
		d1, r1, err := first.roundTrip(line, id)
		if err != nil {
			return err
		}
		d2, r2, err := second.roundTrip(line, id)
		if err != nil {
			return err
		}
		dt, de, rt := d1, d2, r1
		if first == ep {
			dt, de, rt = d2, d1, r2
		}
		if i < warm {
			continue
		}
		tgTimes, echoTimes = append(tgTimes, dt), append(echoTimes, de)
		if k == 0 { // git status
			tgBash, echoBash = append(tgBash, dt), append(echoBash, de)
		}
		if i < warm+len(lines) {
			var r struct {
				Result struct{ Action string } `json:"result"`
			}
			_ = json.Unmarshal(rt, &r)
			decisions[r.Result.Action]++
		}
	}
	if err := writeTimes(tgTimes, echoTimes, warm); err != nil {
		return err
	}
	tgCPU, tgRSS, err := tp.stopRSS()
	if err != nil {
		return fmt.Errorf("toolgate: %w", err)
	}
	echoCPU, err := ep.stop()
	tgSys, echoSys := tp.sys, ep.sys
	if err != nil {
		return fmt.Errorf("echo: %w", err)
	}
	total := warm + calls
	startup, startCPU, err := startups(tg, args, s, starts)
	if err != nil {
		return err
	}
	hookCPU, hookWall, err := claudeHooks(tg, s, starts)
	if err != nil {
		return err
	}
	// The start-up's own CPU is taken out of the per-call figure.
	perCall := func(cpu, startCPU time.Duration) float64 {
		return float64((cpu - startCPU).Microseconds()) / float64(total+1)
	}
	kind := "each repeated as the corpus cycles"
	if distinct {
		kind = "every call's input distinct (-distinct)"
		if contentSize > 0 {
			kind += fmt.Sprintf(", writes and edits of %d bytes (-content)", contentSize)
		}
	}
	if untrusted {
		kind += ", with an untrusted project file (-untrusted)"
	}
	fmt.Printf("## %d rules, %d calls measured (%d warm-up), one in flight; corpus of %d calls, %s; decisions of one pass: %v\n\n", rules, calls, warm, len(lines), kind, decisions)
	fmt.Println("| what | echo | toolgate | ratio | budget |")
	fmt.Println("| --- | --- | --- | --- | --- |")
	row := func(what string, e, t float64, unit, budget string) {
		fmt.Printf("| %s | %.1f %s | %.1f %s | %.2f× | %s |\n", what, e, unit, t, unit, t/e, budget)
	}
	// The budgets: on the fresh corpus p50 may be 3× the echo's and CPU
	// 60 µs a call, on the repeated one 2× and 50 µs.
	p50Budget, cpuBudget := "≤ 2×", "≤ 50 µs"
	if distinct {
		p50Budget, cpuBudget = "≤ 3×", "≤ 60 µs"
	}
	for _, q := range []struct {
		name   string
		p      float64
		budget string
	}{{"p50 round trip", 0.50, p50Budget}, {"p90 round trip", 0.90, ""}, {"p99 round trip", 0.99, "≤ 3×"}} {
		row(q.name, us(pct(echoTimes, q.p)), us(pct(tgTimes, q.p)), "µs", q.budget)
	}
	first := "`git status` alone, p50"
	if distinct {
		first = "`git log -n N -- FILE` alone (the fresh corpus's first call), p50"
	}
	row(first, us(pct(echoBash, 0.5)), us(pct(tgBash, 0.5)), "µs", "")
	fmt.Printf("| CPU per call (user + system) | %.1f µs | %.1f µs | %.2f× | %s |\n", perCall(echoCPU, 0), perCall(tgCPU, startCPU), perCall(tgCPU, startCPU)/perCall(echoCPU, 0), cpuBudget)
	fmt.Printf("| of which system (the kernel's part; start-up included) | %.1f µs | %.1f µs | — |  |\n", perCall(echoSys, 0), perCall(tgSys, 0))
	perCallN := func(n int64) float64 { return float64(n) / float64(total+1) }
	fmt.Printf("| context switches per call, voluntary + involuntary (start-up included) | %.2f + %.2f | %.2f + %.2f | — |  |\n",
		perCallN(ep.vcsw), perCallN(ep.ivcsw), perCallN(tp.vcsw), perCallN(tp.ivcsw))
	budgetStart, budgetHook := "< 10 ms", "< 10 ms CPU"
	if rules > 1000 {
		budgetStart, budgetHook = "< 15 ms", "< 20 ms CPU"
	}
	fmt.Printf("| start to `initialize` answered, p50 of %d | — | %.1f ms (CPU %.1f ms) | — | %s |\n", starts, ms(startup), ms(startCPU), budgetStart)
	fmt.Printf("| `claude-hook` process, p50 of %d | — | CPU %.1f ms (wall %.1f ms) | — | %s |\n", starts, ms(hookCPU), ms(hookWall), budgetHook)
	fmt.Printf("| peak resident memory of the serve process | — | %.1f MB | — | < 30 MB with 10,000 rules |\n", float64(tgRSS)/(1<<20))
	fmt.Printf("| of which, as it stops: its own (heap, stacks); its binary's pages | — | %.1f MB; %.1f MB | — |  |\n\n", float64(tp.anon)/1024, float64(tp.file)/1024)
	printPhases()
	return nil
}

// printPhases prints the phases E2EBENCH_PHASES timed, once.
func printPhases() {
	f := os.Getenv("E2EBENCH_PHASES")
	if f == "" || phasesShown {
		return
	}
	b, err := os.ReadFile(f)
	if err != nil {
		return
	}
	phasesShown = true
	fmt.Println("| phase of a call on the fast path (the first serve process, -tags profile) | calls | p50 | p90 |")
	fmt.Println("| --- | --- | --- | --- |")
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if c := strings.Split(l, "\t"); len(c) == 4 {
			fmt.Printf("| %s | %s | %s µs | %s µs |\n", c[0], c[1], c[2], c[3])
		}
	}
	fmt.Println()
}

var phasesShown bool

// startups spawns toolgate n times and measures start to initialize
// answered (wall) and the CPU a start costs (up to exit after EOF).
func startups(tg string, args []string, s sandbox, n int) (wall, cpu time.Duration, err error) {
	var walls, cpus []time.Duration
	for i := 0; i < n; i++ {
		t0 := time.Now()
		p, err := start(tg, args, s)
		if err != nil {
			return 0, 0, err
		}
		if _, _, err := p.roundTrip(initLine(s), "1"); err != nil {
			return 0, 0, err
		}
		walls = append(walls, time.Since(t0))
		c, err := p.stop()
		if err != nil {
			return 0, 0, err
		}
		cpus = append(cpus, c)
	}
	return pct(walls, 0.5), pct(cpus, 0.5), nil
}

// claudeHooks runs `toolgate claude-hook` on a PreToolUse event n times.
func claudeHooks(tg string, s sandbox, n int) (cpu, wall time.Duration, err error) {
	ev, _ := json.Marshal(map[string]any{"hook_event_name": "PreToolUse", "session_id": "bench", "cwd": s.work,
		"tool_name": "Bash", "tool_input": map[string]any{"command": "git status"}, "tool_use_id": "t1"})
	var cpus, walls []time.Duration
	for i := 0; i < n; i++ {
		cmd := exec.Command(tg, "claude-hook", "--audit-log", s.audit)
		cmd.Dir = s.work
		cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + s.home}
		cmd.Stdin = bytes.NewReader(ev)
		var out bytes.Buffer
		cmd.Stdout = &out
		t0 := time.Now()
		if err := cmd.Run(); err != nil {
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				return 0, 0, err
			}
		}
		walls = append(walls, time.Since(t0))
		st := cmd.ProcessState
		cpus = append(cpus, st.UserTime()+st.SystemTime())
		if i == 0 && !bytes.Contains(out.Bytes(), []byte("permissionDecision")) {
			return 0, 0, fmt.Errorf("claude-hook answered %q", out.String())
		}
	}
	return pct(cpus, 0.5), pct(walls, 0.5), nil
}

func pct(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(p * float64(len(s)-1))
	return s[i]
}

// timesWritten is set once the first policy size's round trips went to
// $E2EBENCH_TIMES.
var timesWritten bool

// writeTimes writes each measured call's round trips to $E2EBENCH_TIMES
// (once, for the first policy size measured): index, toolgate µs, echo µs,
// and "toolgate" or "echo" for the one driven first (measure alternates,
// toolgate first on even calls).
func writeTimes(tg, echo []time.Duration, warm int) error {
	out := os.Getenv("E2EBENCH_TIMES")
	if out == "" || timesWritten {
		return nil
	}
	timesWritten = true
	var b []byte
	for i := range tg {
		first := "toolgate"
		if (warm+i)%2 == 1 {
			first = "echo"
		}
		b = fmt.Appendf(b, "%d\t%.1f\t%.1f\t%s\n", warm+i, us(tg[i]), us(echo[i]), first)
	}
	return os.WriteFile(out, b, 0o644)
}

func us(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// instructions runs toolgate under callgrind on the initialize and the
// warm-up calls and then on those and the measured calls, all written at
// once (the host never waits for an answer), and reports the difference
// per measured call: the instructions a call costs in user space, the
// same on every run. Callgrind's files stay in tmp with -keep
// (callgrind_annotate FILE; callgrind.rRULES.1.N are the runs with the
// measured calls). Valgrind runs the code without the SHA-256
// instructions of the processor, so the audit chain's hashing counts
// several times what it costs on the machine.
func instructions(tmp, tg string, args []string, s sandbox, rules, calls int, distinct bool) error {
	if _, err := exec.LookPath("valgrind"); err != nil {
		return fmt.Errorf("-instructions needs valgrind: %w", err)
	}
	warm := calls / 10
	input := valgrindInput(s, distinct)
	// Each count is the least of five runs: now and then the runtime's
	// background sweeper spins (it yields while valgrind runs one thread
	// at a time) and a run counts several times what it should.
	var ir [2]uint64
	var all [2][]uint64
	for rep := range 5 {
		for run, n := range []int{warm, warm + calls} {
			out := filepath.Join(tmp, fmt.Sprintf("callgrind.r%d.%d.%d", rules, run, rep))
			if err := runValgrind(s, input(n), n, append([]string{"--tool=callgrind", "--callgrind-out-file=" + out, tg}, args...)); err != nil {
				return err
			}
			total, err := callgrindTotal(out)
			if err != nil {
				return err
			}
			all[run] = append(all[run], total)
			if rep == 0 || total < ir[run] {
				ir[run] = total
			}
		}
	}
	kind := "the repeated corpus"
	if distinct {
		kind = "the fresh corpus (-distinct)"
	}
	fmt.Printf("## %d rules, %s: %d calls after %d of warm-up\n\n", rules, kind, calls, warm)
	fmt.Printf("| instructions per call (callgrind, user space; the least of five runs) | %d |\n", (ir[1]-ir[0])/uint64(calls))
	fmt.Printf("| the five runs, millions of instructions: warm-up only; with the measured calls | %s; %s |\n\n", millions(all[0]), millions(all[1]))
	return nil
}

// valgrindInput returns what a run under valgrind reads: the initialize
// and the first n calls, written at once (the host never waits for an
// answer).
func valgrindInput(s sandbox, distinct bool) func(n int) []byte {
	work := e2ecorpus.Calls()
	lines := make([][]byte, len(work))
	for i, c := range work {
		params, _ := json.Marshal(c)
		lines[i] = params[1:]
	}
	return func(n int) []byte {
		in := append([]byte(nil), initLine(s)...)
		for i := 0; i < n; i++ {
			in = append(in, callLine(i, distinct, lines)...)
		}
		return in
	}
}

// runValgrind runs valgrind with argv on in, in the sandbox, and checks
// that each of the n calls was answered.
func runValgrind(s sandbox, in []byte, n int, argv []string) error {
	cmd := exec.Command("valgrind", argv...)
	cmd.Dir = s.work
	// The runtime's preemption signals trip an assertion of
	// callgrind's (threads.c, vgCallgrind_post_signal) now and then.
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + s.home, "GODEBUG=asyncpreemptoff=1"}
	cmd.Stdin = bytes.NewReader(in)
	var answers, logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &answers, &logs
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("valgrind: %w: %s", err, lastLines(logs.String(), 20))
	}
	if got := bytes.Count(answers.Bytes(), []byte(`"result":{"action"`)); got != n {
		return fmt.Errorf("valgrind run of %d calls: %d answered", n, got)
	}
	return nil
}

// footprint runs toolgate under cachegrind's cache simulation (32 KiB
// L1s, each -footprint size as the last level), on the warm-up calls and
// then on those and the measured calls, and reports the difference per
// measured call: the cache lines of code and of data a call brings into
// L1, and those it brings from memory past the last level. With toolgate
// alone in the simulated caches the last level keeps what an earlier call
// left there; on a machine the host and the kernel run in between, so the
// smaller sizes say more of what a call pays there.
func footprint(tmp, tg string, args []string, s sandbox, rules, calls int, distinct bool) error {
	if _, err := exec.LookPath("valgrind"); err != nil {
		return fmt.Errorf("-footprint needs valgrind: %w", err)
	}
	warm := calls / 10
	input := valgrindInput(s, distinct)
	kind := "the repeated corpus"
	if distinct {
		kind = "the fresh corpus (-distinct)"
	}
	fmt.Printf("## %d rules, %s: %d calls after %d of warm-up, simulated caches (cachegrind)\n\n", rules, kind, calls, warm)
	fmt.Println("| last level | instructions | code lines into L1 | code lines from memory | data lines into L1 | data lines from memory |")
	fmt.Println("| --- | --- | --- | --- | --- | --- |")
	for _, kb := range footprintKB {
		var ev [2][]uint64
		for run, n := range []int{warm, warm + calls} {
			out := filepath.Join(tmp, fmt.Sprintf("cachegrind.r%d.%dk.%d", rules, kb, run))
			argv := append([]string{"--tool=cachegrind", "--cache-sim=yes", "--I1=32768,8,64", "--D1=32768,8,64",
				fmt.Sprintf("--LL=%d,16,64", kb<<10), "--cachegrind-out-file=" + out, tg}, args...)
			if err := runValgrind(s, input(n), n, argv); err != nil {
				return err
			}
			v, err := cachegrindTotals(out)
			if err != nil {
				return err
			}
			ev[run] = v
		}
		// cachegrind's events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw.
		per := func(i ...int) uint64 {
			var d uint64
			for _, k := range i {
				d += ev[1][k] - ev[0][k]
			}
			return d / uint64(calls)
		}
		fmt.Printf("| %d KiB | %d | %d | %d | %d | %d |\n", kb, per(0), per(1), per(2), per(4, 7), per(5, 8))
	}
	fmt.Println()
	return nil
}

// cachegrindTotals are the nine event totals in cachegrind's file (Ir
// I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw).
func cachegrindTotals(file string) ([]uint64, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		v, ok := strings.CutPrefix(l, "summary: ")
		if !ok {
			continue
		}
		var out []uint64
		for _, f := range strings.Fields(v) {
			n, err := strconv.ParseUint(f, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("%s: summary: %w", file, err)
			}
			out = append(out, n)
		}
		if len(out) != 9 {
			return nil, fmt.Errorf("%s: %d events in the summary, want 9 (--cache-sim=yes)", file, len(out))
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s: no summary line", file)
}

func millions(v []uint64) string {
	var out []string
	for _, x := range v {
		out = append(out, fmt.Sprintf("%.1f", float64(x)/1e6))
	}
	return strings.Join(out, ", ")
}

// callgrindTotal is the instruction count in callgrind's file.
func callgrindTotal(file string) (uint64, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "totals: "); ok {
			return strconv.ParseUint(strings.Fields(v)[0], 10, 64)
		}
		if v, ok := strings.CutPrefix(l, "summary: "); ok {
			return strconv.ParseUint(strings.Fields(v)[0], 10, 64)
		}
	}
	return 0, fmt.Errorf("%s: no totals line", file)
}

// lastLines is the last n lines of s.
func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(l[max(0, len(l)-n):], "\n")
}

// residentParts reads RssAnon and RssFile (kB) of process pid from
// /proc: how much of its resident memory is its own and how much is
// pages of files (its binary), which depends on how the kernel cached the
// file too (a binary the linker just wrote maps more of itself than a
// copy of it: docs/performance.md).
func residentParts(pid int) (anon, file int64) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		switch k {
		case "RssAnon":
			anon = n
		case "RssFile":
			file = n
		}
	}
	return anon, file
}
