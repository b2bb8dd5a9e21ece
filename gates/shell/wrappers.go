package shell

import (
	"slices"
)

// wrapSpec describes a command that runs another command given as its
// operands (SPEC §4, wrappers).
type wrapSpec struct {
	floor       string   // "" for the transparent wrappers, else SentinelIndirection
	opts        opts     // its options
	paths       []string // options whose value names a file or directory
	chdir       []string // options that set the directory the command runs in
	code        []string // options whose value is shell code
	codeOpaque  bool     // code options make the wrapper opaque (flock -c)
	noRun       []string // options with which nothing is run (command -v)
	operands    int      // operands before the command (timeout's DURATION)
	fileOperand bool     // those operands name files (flock's lock file)
	assigns     bool     // NAME=VALUE words may precede the command (env, sudo)
	viaShell    bool     // the command is a string run by sh -c (watch)
	direct      []string // options that make a viaShell wrapper run it directly
	fallback    string   // command run when none is given (xargs: echo)
	sameShell   bool     // runs the command in the current shell (command, builtin)
	shell       []string // options that start a shell when no command is given (sudo -s)
}

// transparent is the floor of the wrappers that add none.
const transparent = ""

var wrappers = map[string]*wrapSpec{
	// Transparent: they change how a command runs, not what runs.
	"command": {floor: transparent, noRun: []string{"-v", "-V"}, sameShell: true},
	"builtin": {floor: transparent, sameShell: true},
	"exec":    {floor: transparent, opts: opts{arg: "a"}},
	"nohup":   {floor: transparent},
	"time": {floor: transparent, opts: opts{arg: "fo", long: []string{"--format", "--output"}},
		paths: []string{"-o", "--output"}},
	"nice":    {floor: transparent, opts: opts{arg: "n", long: []string{"--adjustment"}, numeric: true}},
	"timeout": {floor: transparent, opts: opts{arg: "ks", long: []string{"--kill-after", "--signal"}}, operands: 1},
	"stdbuf":  {floor: transparent, opts: opts{arg: "ioe", long: []string{"--input", "--output", "--error"}}},

	// Indirection: the command they run is not the one the rule was written for.
	"env": {floor: SentinelIndirection, opts: opts{arg: "uCS", long: []string{"--unset", "--chdir", "--split-string"}},
		paths: []string{"-C", "--chdir"}, chdir: []string{"-C", "--chdir"},
		code: []string{"-S", "--split-string"}, assigns: true},
	"sudo": {floor: SentinelIndirection, opts: opts{arg: "CDghpRrtTUu", long: []string{"--close-from",
		"--chdir", "--group", "--host", "--prompt", "--chroot", "--role", "--type", "--command-timeout",
		"--other-user", "--user"}},
		paths: []string{"-D", "--chdir", "-R", "--chroot"}, chdir: []string{"-D", "--chdir"},
		noRun: []string{"-e", "--edit", "-l", "--list", "-V", "--version", "-h", "--help", "-K", "-k"}, assigns: true,
		shell: []string{"-s", "--shell", "-i", "--login"}},
	"doas":   {floor: SentinelIndirection, opts: opts{arg: "uC"}, paths: []string{"-C"}, shell: []string{"-s"}},
	"pkexec": {floor: SentinelIndirection, opts: opts{long: []string{"--user"}}},
	"run0": {floor: SentinelIndirection, opts: opts{arg: "ugD", long: []string{"--user", "--group",
		"--chdir", "--setenv", "--unit", "--property", "--description", "--slice", "--nice", "--machine"}},
		chdir: []string{"-D", "--chdir"}},
	"xargs": {floor: SentinelIndirection, opts: opts{arg: "adEILnPs", optional: "eil", long: []string{"--arg-file",
		"--delimiter", "--max-args", "--max-procs", "--max-chars", "--process-slot-var"}},
		paths: []string{"-a", "--arg-file"}, fallback: "echo"},
	"setsid": {floor: SentinelIndirection},
	"watch": {floor: SentinelIndirection, opts: opts{arg: "nq", long: []string{"--interval", "--equexit"}},
		viaShell: true, direct: []string{"-x", "--exec"}},
	"flock": {floor: SentinelIndirection, opts: opts{arg: "wEc", long: []string{"--timeout", "--wait",
		"--conflict-exit-code", "--command"}},
		code: []string{"-c", "--command"}, codeOpaque: true, operands: 1, fileOperand: true},
	"ionice": {floor: SentinelIndirection, opts: opts{arg: "cnpPu", long: []string{"--class",
		"--classdata", "--pid", "--pgid", "--uid"}}},
	"chroot": {floor: SentinelIndirection, opts: opts{long: []string{"--userspec", "--groups"}},
		operands: 1, fileOperand: true},
	"taskset": {floor: SentinelIndirection, operands: 1},
	"chrt":    {floor: SentinelIndirection, operands: 1},
	"unshare": {floor: SentinelIndirection, opts: opts{arg: "SGRw", long: []string{"--setuid",
		"--setgid", "--wd", "--root"}}},
	"strace":           {floor: SentinelIndirection, opts: opts{arg: "abeEIoOpPsSuX"}, paths: []string{"-o"}},
	"ltrace":           {floor: SentinelIndirection, opts: opts{arg: "aAeEnopsuX"}, paths: []string{"-o"}},
	"busybox":          {floor: SentinelIndirection},
	"unbuffer":         {floor: SentinelIndirection},
	"caffeinate":       {floor: SentinelIndirection, opts: opts{arg: "tw"}},
	"dbus-run-session": {floor: SentinelIndirection},
	"proxychains":      {floor: SentinelIndirection, opts: opts{arg: "f"}, paths: []string{"-f"}},
	"proxychains4":     {floor: SentinelIndirection, opts: opts{arg: "f"}, paths: []string{"-f"}},
	"torsocks":         {floor: SentinelIndirection, opts: opts{arg: "uapP"}},
	"firejail":         {floor: SentinelIndirection},
	"xvfb-run": {floor: SentinelIndirection, opts: opts{arg: "nsfpe", long: []string{"--server-num",
		"--server-args", "--auth-file", "--error-file"}}},
	// More programs that run their operands as a command (red team).
	"valgrind":    {floor: SentinelIndirection, opts: opts{arg: "", long: nil}},
	"nsenter":     {floor: SentinelIndirection, opts: opts{arg: "tSGwRr", optional: "mutinpUCT", long: []string{"--target", "--setuid", "--setgid", "--wd", "--root", "--env"}}},
	"dbus-launch": {floor: SentinelIndirection, opts: opts{long: []string{"--config-file", "--autolaunch"}}},
	"faketime":    {floor: SentinelIndirection, opts: opts{arg: "m"}, operands: 1},
	"fakeroot":    {floor: SentinelIndirection, opts: opts{arg: "lsi", long: []string{"--lib", "--faked"}}, paths: []string{"-s", "-i"}},
	"catchsegv":   {floor: SentinelIndirection},
	"eatmydata":   {floor: SentinelIndirection},
	"gosu":        {floor: SentinelIndirection, operands: 1},
	"su-exec":     {floor: SentinelIndirection, operands: 1},
	"setpriv":     {floor: SentinelIndirection, opts: opts{long: []string{"--reuid", "--regid", "--groups", "--inh-caps", "--ambient-caps", "--bounding-set", "--securebits", "--pdeathsig", "--selinux-label", "--apparmor-profile", "--landlock-access", "--landlock-rule"}}},
	"setarch":     {floor: SentinelIndirection, operands: 1},
	"linux32":     {floor: SentinelIndirection},
	"linux64":     {floor: SentinelIndirection},
	"prlimit":     {floor: SentinelIndirection, opts: opts{arg: "p"}},
	"numactl":     {floor: SentinelIndirection, opts: opts{arg: "NmCPpilw"}},
	"cpulimit":    {floor: SentinelIndirection, opts: opts{arg: "lpe"}},
	"trickle":     {floor: SentinelIndirection, opts: opts{arg: "udwtlnLs"}},
	"nocache":     {floor: SentinelIndirection, opts: opts{arg: "n"}},
	"chpst":       {floor: SentinelIndirection, opts: opts{arg: "ugUeE/nlLmdostfacr"}},
	"runcon":      {floor: SentinelIndirection, opts: opts{arg: "turl", long: []string{"--user", "--role", "--type", "--range"}}},
	"cgexec":      {floor: SentinelIndirection, opts: opts{arg: "g"}},
	"tini":        {floor: SentinelIndirection, opts: opts{arg: "pe"}},
	"dumb-init":   {floor: SentinelIndirection, opts: opts{arg: "r"}},
	"gtimeout":    {floor: transparent, opts: opts{arg: "ks", long: []string{"--kill-after", "--signal"}}, operands: 1},
	"gnice":       {floor: transparent, opts: opts{arg: "n", long: []string{"--adjustment"}, numeric: true}},
	"gstdbuf":     {floor: transparent, opts: opts{arg: "ioe", long: []string{"--input", "--output", "--error"}}},
	"systemd-run": {floor: SentinelIndirection, opts: opts{arg: "pEMu", long: []string{"--unit", "--property",
		"--setenv", "--uid", "--gid", "--working-directory", "--description", "--slice", "--nice", "--machine"}},
		chdir: []string{"--working-directory"}},
}

// wrapper handles a command that runs another: the wrapper unit is floored
// (except for the transparent ones) and suggested exactly, its own file
// options are path words, and the command it runs is analyzed as a unit of
// its own. A wrapper that runs the command in the current shell (command,
// builtin) passes on its directory changes.
func (a *analyzer) wrapper(i int, w *wrapSpec, c cmd, sc *scope) branch {
	if w.floor != transparent {
		a.setFloor(i, w.floor)
	}
	a.units[i].ExactSuggestion = true
	args := c.args()
	list, k := parseOpts(w.opts, args)
	for n := 0; n < w.operands && k < len(args); n, k = n+1, k+1 {
		if w.fileOperand {
			a.pathWord(args[k], sc, isFile)
		}
	}
	if w.operands > 0 { // flock FILE -c CMD
		more, m := parseOpts(w.opts, args[k:])
		list, k = append(list, more...), k+m
	}
	dirs := a.wrapperOptions(i, w, list, sc)
	if hasOpt(list, w.noRun...) {
		a.argPaths(args[k:], sc)
		return same(sc)
	}
	env := c.env
	for w.assigns && k < len(args) && isAssignWord(args[k]) {
		env = append(env, identPrefix(args[k].value))
		k++
	}
	br := same(sc)
	sc.withDirs(dirs, func() { br = a.wrapped(w, list, args[k:], c.withEnv(env), sc) })
	if w.sameShell {
		return br
	}
	return same(sc)
}

// wrapperOptions analyzes a wrapper's own options and returns the
// directories the wrapped command runs in.
func (a *analyzer) wrapperOptions(i int, w *wrapSpec, list []option, sc *scope) []string {
	dirs := sc.dirs
	for _, o := range list {
		switch {
		case slices.Contains(w.code, o.name):
			if w.codeOpaque {
				a.setFloor(i, SentinelOpaque)
			}
			a.payload(o.value.text, sc, false)
		case o.has && slices.Contains(w.chdir, o.name):
			a.pathWord(o.value, sc, isFile)
			dirs = sc.chdir(o.value)
		case o.has && slices.Contains(w.paths, o.name):
			a.pathWord(o.value, sc, isFile)
		}
	}
	return dirs
}

// wrapped analyzes the command a wrapper runs.
func (a *analyzer) wrapped(w *wrapSpec, list []option, run []field, c cmd, sc *scope) branch {
	switch {
	case len(run) == 0 && w.fallback != "":
		return a.run(c.with([]field{literalField(w.fallback)}, CtxWrapped), sc)
	case len(run) == 0 && hasOpt(list, w.shell...):
		return a.run(c.with([]field{literalField("sh")}, CtxWrapped), sc) // reads stdin
	case len(run) == 0:
		return same(sc)
	case w.viaShell && !hasOpt(list, w.direct...):
		a.payload(joinText(run), sc, false)
		return same(sc)
	}
	return a.run(c.with(run, CtxWrapped), sc)
}

func (c cmd) withEnv(env []string) cmd {
	c.env = env
	return c
}

// isAssignWord reports whether f is NAME=VALUE (env and sudo take those).
func isAssignWord(f field) bool {
	name := identPrefix(f.value)
	return f.known && name != "" && len(f.value) > len(name) && f.value[len(name)] == '='
}
