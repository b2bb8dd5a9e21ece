package integration_test

// Replaying one transcript (the format in README.md) against the plugin, with
// the semantics of the project's reference runner. Where this runner is stricter,
// it says so at the spot:
//   - stdout purity: every line the plugin writes to stdout, including lines
//     no step reads and blank lines, must be a JSON object with
//     "jsonrpc": "2.0" (docs/protocol.md "Transport": stdout carries protocol
//     messages and nothing else);
//   - a write to the plugin's stdin that blocks for the default wait fails
//     instead of hanging.

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"
)

const (
	defaultWait  = 5 * time.Second // per expect (overridden by within) and per close
	teardownWait = 2 * time.Second // for the plugin to exit after the last step
	stderrKeep   = 16 << 10        // bytes of plugin stderr kept for reports
	stderrShow   = 2000            // bytes of it shown in a failure
	trafficShow  = 12              // recent messages shown in a failure
)

// step is one non-comment line of a transcript.
type step struct {
	line int
	v    any
}

// parseTranscript reads transcript text. Lines are split as Python's
// text-mode file iteration splits them; empty lines and lines starting with
// // are comments.
func parseTranscript(data []byte) ([]step, error) {
	if !utf8.Valid(data) {
		return nil, errors.New("transcript is not valid UTF-8")
	}
	var steps []step
	for i, raw := range strings.Split(universalNewlines(string(data)), "\n") {
		raw = strings.TrimSpace(raw)
		if raw == "" || strings.HasPrefix(raw, "//") {
			continue
		}
		v, err := decodeJSON([]byte(raw))
		if err != nil {
			return nil, fmt.Errorf("line %d: bad transcript line: %v", i+1, err)
		}
		steps = append(steps, step{line: i + 1, v: v})
	}
	return steps, nil
}

// sandbox holds the per-transcript directories and placeholder values.
type sandbox struct {
	root, work, home, outside, audit string
	// replacements in the order replay.py applies them: longer names first,
	// ties in declaration order (WORK, HOME, OUTSIDE, AUDIT).
	repl []placeholder
}

type placeholder struct{ name, value string }

func newSandbox() (*sandbox, error) {
	root, err := os.MkdirTemp("", "toolgate-it-")
	if err != nil {
		return nil, err
	}
	sb := &sandbox{root: root}
	for _, d := range []struct {
		name string
		dst  *string
	}{{"work", &sb.work}, {"home", &sb.home}, {"outside", &sb.outside}} {
		p := filepath.Join(root, d.name)
		if err := os.Mkdir(p, 0o777); err != nil {
			sb.remove()
			return nil, err
		}
		if *d.dst, err = filepath.EvalSymlinks(p); err != nil {
			sb.remove()
			return nil, err
		}
	}
	sb.audit = filepath.Join(sb.home, "audit.jsonl")
	sb.repl = []placeholder{{"WORK", sb.work}, {"HOME", sb.home}, {"OUTSIDE", sb.outside}, {"AUDIT", sb.audit}}
	sort.SliceStable(sb.repl, func(i, j int) bool { return len(sb.repl[i].name) > len(sb.repl[j].name) })
	return sb, nil
}

func (sb *sandbox) remove() { _ = os.RemoveAll(sb.root) } // best effort, as replay.py

// substString replaces placeholders in one string; $$ is a literal $.
func substString(s string, repl []placeholder) string {
	const esc = "\x00DOLLAR\x00"
	s = strings.ReplaceAll(s, "$$", esc)
	for _, p := range repl {
		s = strings.ReplaceAll(s, "$"+p.name, p.value)
	}
	return strings.ReplaceAll(s, esc, "$")
}

// subst replaces placeholders in every string of v, object keys included.
func subst(v any, repl []placeholder) any {
	switch x := v.(type) {
	case string:
		return substString(x, repl)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = subst(e, repl)
		}
		return out
	case *object:
		out := newObject()
		for _, k := range x.keys {
			out.set(substString(k, repl), subst(x.vals[k], repl))
		}
		return out
	}
	return v
}

// resolve makes a relative path relative to $WORK (setup.files, symlinks,
// write).
func (sb *sandbox) resolve(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(sb.work, p)
}

// writeFile writes a setup or write file: a string as is, anything else as
// indented JSON (Python's json.dumps(content, indent=2)).
func (sb *sandbox) writeFile(path string, content any) (string, error) {
	p := sb.resolve(path)
	if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
		return p, err
	}
	text, ok := content.(string)
	if !ok {
		text = pyDumps(content, 2)
	}
	return p, os.WriteFile(p, []byte(text), 0o666)
}

// plugin is one running plugin process.
type plugin struct {
	cmd   *exec.Cmd
	stdin *os.File

	lines      chan outLine  // stdout lines that are protocol messages; closed at EOF
	readerDone chan struct{} // stdout reader finished
	bad        chan struct{} // closed at the first stdout line that is not a protocol message
	badOnce    sync.Once
	badErr     error
	stdout     *os.File

	stderr     *tailBuffer
	stderrDone chan struct{}
	stderrFile *os.File

	exited   chan struct{}
	exitCode int

	pending *object  // the last matched plugin request, answered by reply
	traffic []string // recent messages both ways, for failure reports
}

type outLine struct {
	n   int // 1-based line number on stdout
	raw string
	msg *object
}

func startPlugin(bin string, args []string, dir string, env []string) (*plugin, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	if err := cmd.Start(); err != nil {
		closeAll(inR, inW, outR, outW, errR, errW)
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	closeAll(inR, outW, errW) // the child has its copies
	p := &plugin{
		cmd: cmd, stdin: inW,
		lines: make(chan outLine, 1024), readerDone: make(chan struct{}), bad: make(chan struct{}), stdout: outR,
		stderr: &tailBuffer{max: stderrKeep}, stderrDone: make(chan struct{}), stderrFile: errR,
		exited: make(chan struct{}),
	}
	go p.readStdout()
	go func() {
		defer close(p.stderrDone)
		buf := make([]byte, 32<<10)
		for {
			n, err := errR.Read(buf)
			p.stderr.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}()
	go func() {
		_ = cmd.Wait()
		p.exitCode = exitCode(cmd.ProcessState)
		close(p.exited)
	}()
	return p, nil
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		_ = f.Close()
	}
}

// exitCode is Popen.returncode: the exit status, or minus the signal number.
func exitCode(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return -int(ws.Signal())
	}
	return ps.ExitCode()
}

// readStdout splits stdout on '\n' only and checks each line; a final line
// without '\n' counts too.
func (p *plugin) readStdout() {
	defer close(p.readerDone)
	defer close(p.lines)
	br := bufio.NewReaderSize(p.stdout, 64<<10)
	n := 0
	for {
		line, err := br.ReadString('\n')
		if line != "" {
			n++
			line = strings.TrimSuffix(line, "\n")
			msg, verr := protocolMessage(line)
			if verr != nil {
				p.badOnce.Do(func() {
					p.badErr = fmt.Errorf("stdout line %d is not a JSON-RPC 2.0 message (%v): %q", n, verr, clip(line, 300))
					close(p.bad)
				})
			} else {
				p.lines <- outLine{n: n, raw: line, msg: msg}
			}
		}
		if err != nil {
			return
		}
	}
}

// protocolMessage accepts a stdout line only if it is a JSON object with
// "jsonrpc": "2.0".
func protocolMessage(line string) (*object, error) {
	if strings.TrimSpace(line) == "" {
		return nil, errors.New("blank line")
	}
	v, err := decodeJSON([]byte(line))
	if err != nil {
		return nil, err
	}
	o, ok := v.(*object)
	if !ok {
		return nil, errors.New("not a JSON object")
	}
	if ver, _ := o.get("jsonrpc"); ver != "2.0" {
		return nil, errors.New(`no "jsonrpc": "2.0"`)
	}
	return o, nil
}

func (p *plugin) violation() error {
	select {
	case <-p.bad:
		return p.badErr
	default:
		return nil
	}
}

type readStatus int

const (
	gotMessage readStatus = iota
	timedOut
	stdoutClosed
)

// next returns the next stdout message, waiting at most d. A message that is
// already there is returned even when d has run out (as replay.py does).
func (p *plugin) next(d time.Duration) (outLine, readStatus, error) {
	if err := p.violation(); err != nil {
		return outLine{}, 0, err
	}
	take := func(l outLine, ok bool) (outLine, readStatus, error) {
		if !ok {
			if err := p.violation(); err != nil {
				return outLine{}, 0, err
			}
			return outLine{}, stdoutClosed, nil
		}
		p.log("←", l.raw)
		return l, gotMessage, nil
	}
	select {
	case l, ok := <-p.lines:
		return take(l, ok)
	default:
	}
	if d <= 0 {
		return outLine{}, timedOut, nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-p.bad:
		return outLine{}, 0, p.badErr
	case l, ok := <-p.lines:
		return take(l, ok)
	case <-timer.C:
		return outLine{}, timedOut, nil
	}
}

func (p *plugin) write(text string) error {
	p.log("→", strings.TrimSuffix(text, "\n"))
	if err := p.stdin.SetWriteDeadline(time.Now().Add(defaultWait)); err != nil && !errors.Is(err, os.ErrNoDeadline) {
		return fmt.Errorf("writing to the plugin's stdin: %w", err)
	}
	if _, err := p.stdin.WriteString(text); err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return fmt.Errorf("the plugin did not read its stdin for %s", defaultWait)
		}
		return fmt.Errorf("writing to the plugin's stdin: %w (plugin closed its stdin?)", err)
	}
	return nil
}

func (p *plugin) log(dir, text string) {
	p.traffic = append(p.traffic, dir+" "+clip(text, 400))
	if len(p.traffic) > trafficShow {
		p.traffic = p.traffic[len(p.traffic)-trafficShow:]
	}
}

// stop closes stdin, waits teardownWait for an exit, kills the plugin if it
// is still running, and collects what it wrote. The error is a stdout purity
// violation, if there was one.
func (p *plugin) stop() error {
	go func() { // keep the reader from blocking on lines nobody reads
		for range p.lines {
		}
	}()
	_ = p.stdin.Close()
	select {
	case <-p.exited:
	case <-time.After(teardownWait):
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
	// A child the plugin left behind could hold the pipes open.
	for _, w := range []struct {
		done <-chan struct{}
		f    *os.File
	}{{p.readerDone, p.stdout}, {p.stderrDone, p.stderrFile}} {
		select {
		case <-w.done:
		case <-time.After(teardownWait):
			_ = w.f.Close()
			<-w.done
		}
	}
	closeAll(p.stdout, p.stderrFile)
	return p.violation()
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailBuffer) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > t.max {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-t.max:]...)
	}
	return len(b), nil
}

func (t *tailBuffer) tail(n int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.buf
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return strings.ToValidUTF8(string(b), "?")
}

// replay runs one transcript. name is used in messages (file:line).
func replay(bin, name string, data []byte) error {
	steps, err := parseTranscript(data)
	if err != nil {
		return fmt.Errorf("%s: %v", name, err)
	}
	sb, err := newSandbox()
	if err != nil {
		return fmt.Errorf("%s: sandbox: %v", name, err)
	}
	defer sb.remove()

	env := map[string]string{"PATH": envOr("PATH", "/usr/bin:/bin"), "HOME": sb.home, "TMPDIR": envOr("TMPDIR", "/tmp")}
	var args, trust []string
	cwd := sb.work
	if len(steps) > 0 {
		if first, ok := steps[0].v.(*object); ok && first.has("setup") {
			setupLine := steps[0].line
			steps = steps[1:]
			s, _ := first.get("setup")
			if args, cwd, trust, err = sb.applySetup(subst(s, sb.repl), env, cwd); err != nil {
				return fmt.Errorf("%s:%d: setup: %v", name, setupLine, err)
			}
		}
	}
	envList := make([]string, 0, len(env))
	for k, v := range env {
		envList = append(envList, k+"="+v)
	}
	sort.Strings(envList)
	for _, dir := range trust {
		// The person trusts these projects' policy files as they are now
		// (TRANSCRIPTS.md setup.trust).
		cmd := exec.Command(bin, "trust", "--yes", dir)
		cmd.Dir, cmd.Env = dir, envList
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%s: setup: `toolgate trust --yes %s`: %v: %s", name, dir, err, out)
		}
	}

	p, err := startPlugin(bin, args, cwd, envList)
	if err != nil {
		return fmt.Errorf("%s: %v", name, err)
	}
	var failure error
	for _, st := range steps {
		if err := p.violation(); err != nil {
			failure = fmt.Errorf("%s:%d: %w", name, st.line, err)
			break
		}
		if err := runStep(p, sb, subst(st.v, sb.repl)); err != nil {
			failure = fmt.Errorf("%s:%d: %w", name, st.line, err)
			break
		}
	}
	if err := p.stop(); err != nil {
		switch {
		case failure == nil:
			failure = fmt.Errorf("%s: %w", name, err)
		case !errors.Is(failure, err):
			failure = fmt.Errorf("%w\nalso: %w", failure, err)
		}
	}
	if failure == nil {
		return nil
	}
	var b strings.Builder
	b.WriteString(failure.Error())
	if len(p.traffic) > 0 {
		b.WriteString("\n--- recent traffic (→ to plugin, ← from plugin):")
		for _, l := range p.traffic {
			b.WriteString("\n  " + l)
		}
	}
	b.WriteString("\n--- plugin stderr (tail):\n")
	if t := p.stderr.tail(stderrShow); t != "" {
		b.WriteString(t)
	} else {
		b.WriteString("(empty)")
	}
	return errors.New(b.String())
}

func envOr(k, def string) string {
	if v, ok := os.LookupEnv(k); ok {
		return v
	}
	return def
}

// applySetup writes files and symlinks and returns the plugin's arguments
// and start directory; env gets setup.env.
func (sb *sandbox) applySetup(v any, env map[string]string, cwd string) (args []string, dir string, trust []string, err error) {
	setup, ok := v.(*object)
	if !ok {
		return nil, "", nil, fmt.Errorf("setup is not an object: %s", show(v))
	}
	if f, ok := setup.get("files"); ok {
		files, ok := f.(*object)
		if !ok {
			return nil, "", nil, fmt.Errorf("files is not an object")
		}
		for _, path := range files.keys {
			if p, err := sb.writeFile(path, files.vals[path]); err != nil {
				return nil, "", nil, fmt.Errorf("file %s: %v", p, err)
			}
		}
	}
	if l, ok := setup.get("symlinks"); ok {
		links, ok := l.(*object)
		if !ok {
			return nil, "", nil, fmt.Errorf("symlinks is not an object")
		}
		for _, link := range links.keys {
			target, ok := links.vals[link].(string)
			if !ok {
				return nil, "", nil, fmt.Errorf("symlink %s: target is not a string", link)
			}
			p := sb.resolve(link)
			if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
				return nil, "", nil, err
			}
			if err := os.Symlink(target, p); err != nil {
				return nil, "", nil, err
			}
		}
	}
	if e, ok := setup.get("env"); ok {
		vars, ok := e.(*object)
		if !ok {
			return nil, "", nil, fmt.Errorf("env is not an object")
		}
		for _, k := range vars.keys {
			val, ok := vars.vals[k].(string)
			if !ok {
				return nil, "", nil, fmt.Errorf("env %s: value is not a string", k)
			}
			env[k] = val
		}
	}
	if t, ok := setup.get("trust"); ok {
		list, ok := t.([]any)
		if !ok {
			return nil, "", nil, fmt.Errorf("trust is not an array")
		}
		for _, x := range list {
			d, ok := x.(string)
			if !ok {
				return nil, "", nil, fmt.Errorf("trust: %s is not a string", show(x))
			}
			trust = append(trust, sb.resolve(d))
		}
	}
	if a, ok := setup.get("args"); ok {
		list, ok := a.([]any)
		if !ok {
			return nil, "", nil, fmt.Errorf("args is not an array")
		}
		for _, x := range list {
			s, ok := x.(string)
			if !ok {
				return nil, "", nil, fmt.Errorf("args: %s is not a string", show(x))
			}
			args = append(args, s)
		}
	}
	if c, ok := setup.get("cwd"); ok {
		s, ok := c.(string)
		if !ok {
			return nil, "", nil, fmt.Errorf("cwd is not a string")
		}
		cwd = s
	}
	return args, cwd, trust, nil
}

// seconds reads a duration given in seconds.
// within is how long a step waits: its within, in seconds, or
// defaultWait.
func within(st *object) (time.Duration, error) {
	w, ok := st.get("within")
	if !ok {
		return defaultWait, nil
	}
	d, err := seconds(w)
	if err != nil {
		return 0, fmt.Errorf("within: %v", err)
	}
	return d, nil
}

func seconds(v any) (time.Duration, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("%s is not a number of seconds", show(v))
	}
	f, err := strconv.ParseFloat(n.String(), 64)
	if err != nil || f < 0 || f > 3600 {
		return 0, fmt.Errorf("%s is not a usable number of seconds", n)
	}
	return time.Duration(f * float64(time.Second)), nil
}

func isRequest(m *object) bool      { return m.has("method") && m.has("id") }
func isNotification(m *object) bool { return m.has("method") && !m.has("id") }

// runStep performs one (already substituted) step. Step kinds are tried in
// replay.py's order.
func runStep(p *plugin, sb *sandbox, v any) error {
	st, ok := v.(*object)
	if !ok {
		return fmt.Errorf("step is not an object: %s", show(v))
	}
	switch {
	case st.has("send"):
		msg, _ := st.get("send")
		return p.write(pyDumps(msg, -1) + "\n")

	case st.has("send_raw"):
		raw, _ := st.get("send_raw")
		text, ok := raw.(string)
		if !ok {
			return fmt.Errorf("send_raw wants a string, got %s", show(raw))
		}
		return p.write(text)

	case st.has("reply"):
		if p.pending == nil {
			return errors.New("reply with no pending plugin request")
		}
		r, _ := st.get("reply")
		reply, ok := r.(*object)
		if !ok {
			return fmt.Errorf("reply wants an object, got %s", show(r))
		}
		id, _ := p.pending.get("id")
		msg := newObject()
		msg.set("jsonrpc", "2.0")
		msg.set("id", id)
		for _, k := range reply.keys {
			msg.set(k, reply.vals[k])
		}
		p.pending = nil
		return p.write(pyDumps(msg, -1) + "\n")

	case st.has("expect"):
		return expect(p, st)

	case st.has("expect_unordered"):
		return expectUnordered(p, st)

	case st.has("expect_silence"):
		s, _ := st.get("expect_silence")
		d, err := seconds(s)
		if err != nil {
			return fmt.Errorf("expect_silence: %v", err)
		}
		for {
			l, status, err := p.next(d)
			if err != nil {
				return err
			}
			if status != gotMessage {
				return nil // silence, or stdout closed: nothing more can come
			}
			if !isNotification(l.msg) {
				return fmt.Errorf("expect_silence %s: expected no response or request, got (stdout line %d):\n  %s", d, l.n, clip(l.raw, 600))
			}
		}

	case st.has("close"):
		c, _ := st.get("close")
		spec, ok := c.(*object)
		if !ok {
			return fmt.Errorf("close wants an object, got %s", show(c))
		}
		wait, err := within(st)
		if err != nil {
			return err
		}
		_ = p.stdin.Close()
		select {
		case <-p.exited:
		case <-time.After(wait):
			return fmt.Errorf("close: the plugin did not exit within %s after its stdin was closed", wait)
		}
		if e, ok := spec.get("exit"); ok {
			want, ok := e.(json.Number)
			if !ok {
				return fmt.Errorf("close: exit wants a number, got %s", show(e))
			}
			if !numEqual(json.Number(strconv.Itoa(p.exitCode)), want) {
				return fmt.Errorf("close: exit code %d, expected %s", p.exitCode, want)
			}
		}
		return nil

	case st.has("expect_file"):
		return expectFile(st)

	case st.has("write"):
		w, _ := st.get("write")
		spec, ok := w.(*object)
		if !ok {
			return fmt.Errorf("write wants an object, got %s", show(w))
		}
		path, ok := spec.vals["path"].(string)
		if !ok {
			return errors.New("write: path is not a string")
		}
		content, ok := spec.get("content")
		if !ok {
			return errors.New("write: no content")
		}
		full, err := sb.writeFile(path, content)
		if err != nil {
			return fmt.Errorf("write %s: %v", full, err)
		}
		// Make the change visible to mtime checks even on coarse clocks.
		fi, err := os.Stat(full)
		if err != nil {
			return fmt.Errorf("write %s: %v", full, err)
		}
		if err := os.Chtimes(full, time.Time{}, fi.ModTime().Add(2*time.Second)); err != nil {
			return fmt.Errorf("write %s: %v", full, err)
		}
		return nil

	case st.has("sleep"):
		s, _ := st.get("sleep")
		d, err := seconds(s)
		if err != nil {
			return fmt.Errorf("sleep: %v", err)
		}
		time.Sleep(d)
		return nil
	}
	return fmt.Errorf("unknown step %s", show(st))
}

// expect reads messages until one matches. Non-matching notifications are
// skipped; any other non-matching message fails.
func expect(p *plugin, st *object) error {
	pattern, _ := st.get("expect")
	wait, err := within(st)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(wait)
	var skipped []string
	for {
		l, status, err := p.next(time.Until(deadline))
		if err != nil {
			return fmt.Errorf("expect %s:\n  %w", show(pattern), err)
		}
		switch status {
		case timedOut:
			return fmt.Errorf("expect: timed out after %s waiting for\n  %s%s", wait, show(pattern), skippedNote(skipped))
		case stdoutClosed:
			return fmt.Errorf("expect: the plugin closed stdout while waiting for\n  %s%s", show(pattern), skippedNote(skipped))
		}
		r, err := match(pattern, l.msg, "$")
		if err != nil {
			return fmt.Errorf("expect: bad pattern: %v", err)
		}
		if r == "" {
			if isRequest(l.msg) {
				p.pending = l.msg
			}
			return nil
		}
		if isNotification(l.msg) {
			skipped = append(skipped, clip(l.raw, 300))
			continue
		}
		return fmt.Errorf("expect: message does not match\n  expected: %s\n  mismatch: %s\n  got (stdout line %d): %s%s",
			show(pattern), r, l.n, clip(l.raw, 600), skippedNote(skipped))
	}
}

// expectUnordered reads messages until every pattern has matched one, in
// any order (TRANSCRIPTS.md): each message is taken by the first pattern
// still unmatched that it matches; a notification that matches none is
// skipped; any other message that matches none fails. A matched request
// does not become the pending request.
func expectUnordered(p *plugin, st *object) error {
	v, _ := st.get("expect_unordered")
	pending, ok := v.([]any)
	if !ok {
		return fmt.Errorf("expect_unordered wants an array, got %s", show(v))
	}
	pending = append([]any(nil), pending...)
	wait, err := within(st)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(wait)
	var skipped []string
	for len(pending) > 0 {
		l, status, err := p.next(time.Until(deadline))
		if err != nil {
			return fmt.Errorf("expect_unordered:\n  %w", err)
		}
		switch status {
		case timedOut:
			return fmt.Errorf("expect_unordered: timed out after %s with %d unmatched, first\n  %s%s", wait, len(pending), show(pending[0]), skippedNote(skipped))
		case stdoutClosed:
			return fmt.Errorf("expect_unordered: the plugin closed stdout with %d unmatched, first\n  %s%s", len(pending), show(pending[0]), skippedNote(skipped))
		}
		hit := -1
		var first string
		for i, pat := range pending {
			r, err := match(pat, l.msg, "$")
			if err != nil {
				return fmt.Errorf("expect_unordered: bad pattern: %v", err)
			}
			if r == "" {
				hit = i
				break
			}
			if i == 0 {
				first = r
			}
		}
		if hit >= 0 {
			pending = append(pending[:hit], pending[hit+1:]...)
			continue
		}
		if isNotification(l.msg) {
			skipped = append(skipped, clip(l.raw, 300))
			continue
		}
		return fmt.Errorf("expect_unordered: no pattern matches\n  first pattern: %s\n  mismatch: %s\n  got (stdout line %d): %s%s",
			show(pending[0]), first, l.n, clip(l.raw, 600), skippedNote(skipped))
	}
	return nil
}

func skippedNote(skipped []string) string {
	if len(skipped) == 0 {
		return ""
	}
	return "\n  notifications skipped meanwhile:\n    " + strings.Join(skipped, "\n    ")
}

// expectFile checks a file the plugin wrote. Its path is used as given, like
// replay.py (placeholders make it absolute).
func expectFile(st *object) error {
	s, _ := st.get("expect_file")
	spec, ok := s.(*object)
	if !ok {
		return fmt.Errorf("expect_file wants an object, got %s", show(s))
	}
	path, ok := spec.vals["path"].(string)
	if !ok {
		return errors.New("expect_file: path is not a string")
	}
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("expect_file: file %s missing (%v)", path, err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("expect_file: %v", err)
	}
	if !utf8.Valid(data) {
		return fmt.Errorf("expect_file: %s is not valid UTF-8", path)
	}
	text := universalNewlines(string(data))
	if inc, ok := spec.get("jsonl_includes"); ok {
		wants, ok := inc.([]any)
		if !ok {
			return errors.New("expect_file: jsonl_includes is not an array")
		}
		var recs []any
		for i, line := range pySplitLines(text) {
			if strings.TrimSpace(line) == "" {
				continue
			}
			rec, err := decodeJSON([]byte(line))
			if err != nil {
				return fmt.Errorf("expect_file: %s line %d is not JSON (%v): %q", path, i+1, err, clip(line, 300))
			}
			recs = append(recs, rec)
		}
		for _, want := range wants {
			found := false
			for _, rec := range recs {
				r, err := match(want, rec, "$")
				if err != nil {
					return fmt.Errorf("expect_file: bad pattern: %v", err)
				}
				if r == "" {
					found = true
					break
				}
			}
			if !found {
				return fmt.Errorf("expect_file: no record of %d in %s matches\n  %s\n  file tail:\n%s",
					len(recs), path, show(want), indentTail(text, 1500))
			}
		}
	}
	if c, ok := spec.get("contains"); ok {
		sub, ok := c.(string)
		if !ok {
			return errors.New("expect_file: contains is not a string")
		}
		if !strings.Contains(text, sub) {
			return fmt.Errorf("expect_file: %s lacks %q\n  file tail:\n%s", path, sub, indentTail(text, 1500))
		}
	}
	return nil
}

func indentTail(s string, n int) string {
	if len(s) > n {
		s = "…" + s[len(s)-n:]
	}
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ")
}
