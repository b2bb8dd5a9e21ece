package shell

// The program catalog: every table of
// programs that run a command, a script or code they are given, in one
// place, as data. The walk reads these rows; it has no list of its own.
//
//   - wrappers and subWrappers: programs whose operands are a command they
//     run (sudo, logsave, npm exec, docker run …);
//   - programSpecs: programs with options whose value is a command or
//     shell code (tar --to-command, ssh -o ProxyCommand, certbot
//     --pre-hook …) or a library they load (curl --engine);
//   - shells and foreignPrograms: programs that run code given inline, on
//     standard input or through an interactive escape, in bash (parsed and
//     analyzed) or in another language (foreign code, asked);
//   - envCatalog: variables programs read as code, as a program to run or
//     as where their configuration lives;
//   - configFiles, configOptions and scriptRunners: files a program runs
//     as code, floored when the same command wrote them first;
//   - the awk, sed and m4 programs are read by their own scanners
//     (awk.go, runners.go, m4 in catalog_walk.go).

import (
	"slices"
	"strings"
)

// shells run code: a -c string, standard input, or a script file.
var shells = map[string]bool{
	"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true,
	"pdksh": true, "oksh": true, "yash": true, "ash": true, "fish": true, "rbash": true,
	"csh": true, "tcsh": true, "posh": true,
}

// vim and its kin run ex commands given with -c, --cmd, -S or +CMD, and
// an ex command starting with ! is shell code.
var vimFamily = map[string]bool{"vi": true, "vim": true, "nvim": true, "ex": true, "view": true, "vimdiff": true}

// loaders are builtins whose option makes a name run a file of the
// caller's choosing: "hash -p FILE NAME" works like a PATH change, and
// "enable -f LIB NAME" loads code into the shell.
var loaders = map[string]struct{ opt, floor string }{
	"hash":   {"-p", SentinelIndirection},
	"enable": {"-f", SentinelOpaque},
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

	// Programs whose operands are a command they run (programs
	// that run code; GTFOBins).
	"aa-exec":   {floor: SentinelIndirection, opts: opts{arg: "pn", long: []string{"--profile", "--namespace"}}},
	"aoss":      {floor: SentinelIndirection},
	"choom":     {floor: SentinelIndirection, opts: opts{arg: "np", long: []string{"--adjust", "--pid"}}},
	"distcc":    {floor: SentinelIndirection},
	"logsave":   {floor: SentinelIndirection, operands: 1, fileOperand: true},
	"multitime": {floor: SentinelIndirection, opts: opts{arg: "ni"}},
	"pexec":     {floor: SentinelIndirection, opts: opts{arg: "nrRoeEcpi", long: []string{"--number", "--parameters", "--output", "--environment", "--shell"}}},
	"rlwrap": {floor: SentinelIndirection, opts: opts{arg: "abCDefFgHlMOpPqSswz", long: []string{"--logfile",
		"--history-filename", "--file", "--prompt-colour", "--substitute-prompt", "--filter"}}, paths: []string{"-l", "--logfile", "-H", "--history-filename", "-f", "--file"}},
	"setlock":   {floor: SentinelIndirection, operands: 1, fileOperand: true},
	"softlimit": {floor: SentinelIndirection, opts: opts{arg: "acdfflmoprst"}},
	"sshpass":   {floor: SentinelIndirection, opts: opts{arg: "pfdPe"}, paths: []string{"-f"}},
	"ssh-agent": {floor: SentinelIndirection, opts: opts{arg: "aEPt"}},
	"torify":    {floor: SentinelIndirection},
	"grc":       {floor: SentinelIndirection, opts: opts{arg: "c", long: []string{"--config"}}, paths: []string{"-c", "--config"}},
	"chronic":   {floor: SentinelIndirection},
	"entr":      {floor: SentinelIndirection},
	"msgfilter": {floor: SentinelIndirection, opts: opts{arg: "iodDw", long: []string{"--input", "--output-file", "--directory", "--domain", "--width"}},
		paths: []string{"-i", "--input", "-o", "--output-file"}},
	"screen": {floor: SentinelIndirection, opts: opts{arg: "SpcehsTtX", long: []string{"-Logfile"}},
		paths: []string{"-c", "-Logfile", "-e"}}, // -Logfile reads as -L … -e FILE
	"sem": {floor: SentinelIndirection, opts: opts{arg: "j", long: []string{"--id", "--jobs"}}, viaShell: true},
	"gtester": {floor: SentinelIndirection, opts: opts{arg: "o", long: []string{"-p", "-s", "--seed"}},
		paths: []string{"-o"}},
	"ld.so":                 {floor: SentinelIndirection, opts: opts{long: []string{"--library-path", "--preload", "--audit", "--argv0"}}},
	"ld-linux.so.2":         {floor: SentinelIndirection, opts: opts{long: []string{"--library-path", "--preload", "--audit", "--argv0"}}},
	"ld-linux-x86-64.so.2":  {floor: SentinelIndirection, opts: opts{long: []string{"--library-path", "--preload", "--audit", "--argv0"}}},
	"ld-linux-aarch64.so.1": {floor: SentinelIndirection, opts: opts{long: []string{"--library-path", "--preload", "--audit", "--argv0"}}},
}

// subWrappers are programs whose subcommand runs the operands after it
// as a command: "npm exec -- CMD", "perf stat CMD", "docker run IMAGE
// CMD". A remote row runs the command somewhere else (a container, a
// cluster): it is a unit of its own, but its words name no local path.
var subWrappers = map[string]map[string]*wrapSpec{
	"perf":   {"stat": perfSpec, "record": perfSpec, "trace": perfSpec},
	"npm":    {"exec": npmExec, "x": npmExec},
	"pnpm":   {"exec": npmExec, "dlx": npmExec},
	"yarn":   {"exec": npmExec, "dlx": npmExec},
	"bun":    {"x": npmExec},
	"bundle": {"exec": {floor: transparent, opts: opts{long: []string{"--gemfile"}}}},
	"uv": {"run": {floor: transparent, opts: opts{long: []string{"--with", "--python", "--project",
		"--directory", "--env-file", "--group", "--extra", "--package", "--index"}}}},
	"poetry":        {"run": {floor: transparent}},
	"pipenv":        {"run": {floor: transparent}},
	"pdm":           {"run": {floor: transparent}},
	"hatch":         {"run": {floor: transparent}},
	"conda":         {"run": {floor: transparent, opts: opts{arg: "np", long: []string{"--name", "--prefix", "--cwd"}}}},
	"mamba":         {"run": {floor: transparent, opts: opts{arg: "np", long: []string{"--name", "--prefix", "--cwd"}}}},
	"cabal":         {"exec": {floor: transparent, opts: opts{long: []string{"--project-file"}}}},
	"stack":         {"exec": {floor: transparent}},
	"rustup":        {"run": {floor: transparent, operands: 1}},
	"mise":          {"exec": {floor: transparent}, "x": {floor: transparent}},
	"direnv":        {"exec": {floor: transparent, operands: 1, fileOperand: true}},
	"xdotool":       {"exec": {floor: SentinelIndirection, opts: opts{long: []string{"--args", "--terminator"}}}},
	"task":          {"execute": {floor: SentinelIndirection, viaShell: true}},
	"codex":         {"sandbox": {floor: SentinelIndirection, operands: 1}},
	"capsh":         {"--": {floor: SentinelIndirection, runs: "bash"}},
	"docker":        {"run": dockerRun, "exec": dockerExec, "container": nil},
	"podman":        {"run": dockerRun, "exec": dockerExec},
	"nerdctl":       {"run": dockerRun, "exec": dockerExec},
	"kubectl":       {"exec": kubectlExec, "debug": kubectlExec, "run": kubectlExec},
	"oc":            {"exec": kubectlExec, "debug": kubectlExec, "run": kubectlExec},
	"toolbox":       {"run": {floor: SentinelIndirection, opts: opts{arg: "cdr", long: []string{"--container", "--distro", "--release"}}, remote: true}},
	"distrobox":     {"enter": {floor: SentinelIndirection, opts: opts{arg: "n", long: []string{"--name"}}, remote: true}},
	"flatpak-spawn": {"--host": {floor: SentinelIndirection}},
}

var (
	perfSpec = &wrapSpec{floor: SentinelIndirection, opts: opts{arg: "eoCGIprtx", long: []string{"--event", "--output",
		"--cpu", "--cgroup", "--repeat", "--pid", "--tid", "--delay"}}, paths: []string{"-o", "--output"}}
	npmExec = &wrapSpec{floor: transparent, codeOpaque: true, opts: opts{arg: "pcw", long: []string{"--package", "--call",
		"--workspace", "--prefix"}}, code: []string{"-c", "--call"}}
	dockerRun = &wrapSpec{floor: transparent, remote: true, operands: 1, paths: []string{"-v", "--volume", "--env-file", "--cidfile", "--mount"}, opts: opts{arg: "aceEhlmpuvwi", long: []string{
		"--name", "--volume", "--env", "--env-file", "--workdir", "--user", "--entrypoint", "--publish", "--network",
		"--net", "--mount", "--label", "--hostname", "--platform", "--cpus", "--memory", "--add-host", "--device",
		"--gpus", "--ipc", "--pid", "--runtime", "--security-opt", "--cap-add", "--cap-drop", "--restart",
		"--log-driver", "--log-opt", "--shm-size", "--tmpfs", "--ulimit", "--dns", "--expose", "--link",
		"--volumes-from", "--cidfile", "--pull", "--stop-signal", "--health-cmd", "--userns", "--uts", "--group-add"}}}
	dockerExec = &wrapSpec{floor: transparent, remote: true, operands: 1, paths: []string{"--env-file"}, opts: opts{arg: "euw", long: []string{"--env",
		"--env-file", "--user", "--workdir", "--detach-keys"}}}
	kubectlExec = &wrapSpec{floor: transparent, remote: true, afterDashDash: true}
)

var sshFamily = programSpec{opts: opts{arg: "bcDEeFIiJLlmOopQRSWw"}, sshOpts: true, remote: true}

var programSpecs = map[string]programSpec{
	"tar": {opts: opts{arg: "fIFbCgHKLNTVX", long: []string{"--to-command", "--use-compress-program",
		"--info-script", "--new-volume-script", "--rsh-command", "--checkpoint-action", "--file", "--directory"}},
		code:     []string{"--to-command", "-I", "--use-compress-program", "-F", "--info-script", "--new-volume-script", "--rsh-command"},
		prefixed: map[string]string{"--checkpoint-action": "exec="}},
	"rsync": {opts: opts{arg: "eBfT", long: []string{"--rsh", "--rsync-path", "--filter", "--temp-dir"}},
		code: []string{"-e", "--rsh", "--rsync-path"}},
	"ssh":     sshFamily,
	"scp":     {opts: opts{arg: "cFiJlOoPSX"}, code: []string{"-S"}, sshOpts: true},
	"sftp":    {opts: opts{arg: "BbcDFiJloPRSsX"}, code: []string{"-S", "-D"}, sshOpts: true},
	"zip":     {opts: opts{arg: "bnt", long: []string{"--unzip-command"}}, code: []string{"--unzip-command"}, codeWords: []string{"-TT"}},
	"sort":    {opts: opts{arg: "kotST", long: []string{"--compress-program"}}, code: []string{"--compress-program"}},
	"man":     {opts: opts{arg: "PCMLms", optional: "H", long: []string{"--pager", "--html"}}, code: []string{"-P", "--pager", "-H", "--html"}},
	"tcpdump": {opts: opts{arg: "zZwrCFGiMsTWyEBjc"}, code: []string{"-z"}},
	// Options whose value is a command or shell code (GTFOBins).
	"borg":         {opts: opts{long: []string{"--rsh", "--remote-path"}}, code: []string{"--rsh", "--remote-path"}},
	"certbot":      {opts: opts{long: certbotHooks}, code: certbotHooks},
	"check_by_ssh": {opts: opts{arg: "oHCplti"}, sshOpts: true},
	"csvtool":      {subCode: []string{"call"}},
	"dmsetup":      {opts: opts{long: []string{"--exec"}}, code: []string{"--exec"}},
	"dnsmasq":      {opts: opts{long: []string{"--conf-script", "--dhcp-script", "--dhcp-luascript"}}, code: []string{"--conf-script", "--dhcp-script", "--dhcp-luascript"}},
	"enscript":     {opts: opts{arg: "IoMpb", long: []string{"--filter", "--output"}}, code: []string{"-I", "--filter"}},
	"gem":          {opts: opts{arg: "e", long: []string{"--editor"}}, code: []string{"-e", "--editor"}},
	"latexmk":      {codePrefixes: []string{"-pdflatex=", "-latex=", "-lualatex=", "-xelatex=", "-dvipdf=", "-ps2pdf=", "-pdf_previewer="}, codeWords: []string{"-e"}},
	"openvpn":      {opts: opts{long: openvpnHooks}, code: openvpnHooks, libs: []string{"--plugin"}},
	"pip":          {opts: opts{long: []string{"--editor"}}, code: []string{"--editor"}},
	"pip3":         {opts: opts{long: []string{"--editor"}}, code: []string{"--editor"}},
	"plymouth":     {opts: opts{long: []string{"--command"}}, code: []string{"--command"}},
	"restic":       {opts: opts{long: []string{"--password-command"}}, code: []string{"--password-command"}},
	"scrot":        {opts: opts{arg: "e", long: []string{"--exec"}}, code: []string{"-e", "--exec"}},
	"split":        {opts: opts{long: []string{"--filter"}}, code: []string{"--filter"}},
	"sshfs":        {opts: opts{arg: "op"}, sshOpts: true},
	"yt-dlp":       {opts: opts{long: []string{"--exec", "--exec-before-download", "--netrc-cmd"}}, code: []string{"--exec", "--exec-before-download", "--netrc-cmd"}},
	"youtube-dl":   {opts: opts{long: []string{"--exec"}}, code: []string{"--exec"}},
	"aria2c":       {opts: opts{long: aria2Hooks}, code: aria2Hooks},
	"busctl":       {opts: opts{long: []string{"--address"}}, prefixed: map[string]string{"--address": "unixexec:"}},
	"gcc":          compilerSpec, "cc": compilerSpec, "g++": compilerSpec, "c++": compilerSpec, "clang": compilerSpec, "clang++": compilerSpec,
	"check_ssl_cert": {opts: opts{long: []string{"--grep-bin", "--openssl", "--curl-bin"}}, code: []string{"--grep-bin", "--openssl", "--curl-bin"}},
	"wget":           {opts: opts{long: []string{"--use-askpass"}}, code: []string{"--use-askpass"}},
	"forge":          {opts: opts{long: []string{"--use"}}, code: []string{"--use"}},
	"hg":             {opts: opts{long: []string{"--config"}}, hgConfig: true},
	"dhclient":       {opts: opts{arg: "s", long: []string{"-sf"}}, codeWords: []string{"-sf"}},
	"zic":            {opts: opts{arg: "dlLpty"}, code: []string{"-y"}},
	"genie":          {opts: opts{arg: "c", long: []string{"--command"}}, code: []string{"-c", "--command"}},
	"npx":            {opts: opts{arg: "cp", long: []string{"--call", "--package"}}, code: []string{"-c", "--call"}},
	"go":             {codeWords: []string{"-exec", "-toolexec"}, codePrefixes: []string{"-exec=", "-toolexec="}},
	"perlbug":        {opts: opts{arg: "sresfFcCTd"}, code: []string{"-e"}},
	"nc":             ncSpec, "netcat": ncSpec, "ncat": ncSpec, "nc.traditional": ncSpec, "nc.openbsd": ncSpec,
	"socket":  {opts: opts{arg: "p"}, code: []string{"-p"}},
	"pidstat": {opts: opts{arg: "GpTtue"}, code: []string{"-e"}},
	"start-stop-daemon": {opts: opts{arg: "pxnuagcrdNkPIbR", long: []string{"--exec", "--startas", "--pidfile", "--name", "--user", "--chuid", "--chdir"}},
		code: []string{"-x", "--exec", "-a", "--startas"}},
	"curl":         {opts: opts{long: []string{"--engine"}}, libs: []string{"--engine"}},
	"openssl":      {opts: opts{long: []string{"-engine"}}, libs: []string{"-engine"}, codeWords: []string{"-engine"}},
	"ssh-keygen":   {opts: opts{arg: "DK"}, libs: []string{"-D"}},
	"xdg-user-dir": {operandCode: true},
	"ffmpeg":       {codePrefixes: []string{"ladspa=file=", "lv2=", "frei0r="}},
}

// sshCommandOptions are the ssh configuration keys whose value is a
// command run locally.
var sshCommandOptions = map[string]bool{"proxycommand": true, "localcommand": true, "knownhostscommand": true, "ssh_command": true}

var (
	certbotHooks = []string{"--pre-hook", "--post-hook", "--deploy-hook", "--renew-hook", "--manual-auth-hook", "--manual-cleanup-hook"}
	openvpnHooks = []string{"--up", "--down", "--route-up", "--route-pre-down", "--ipchange", "--client-connect",
		"--client-disconnect", "--learn-address", "--auth-user-pass-verify", "--tls-verify"}
	aria2Hooks = []string{"--on-download-complete", "--on-download-error", "--on-download-start",
		"--on-download-pause", "--on-download-stop", "--on-bt-download-complete"}
	compilerSpec = programSpec{opts: opts{arg: "oIDLlBx"}, codeWords: []string{"-wrapper"}, codePrefixes: []string{"-fplugin="}}
	ncSpec       = programSpec{opts: opts{arg: "ecpsiwxXqOIg", long: []string{"--sh-exec", "--exec", "--lua-exec"}},
		code: []string{"-e", "-c", "--sh-exec", "--exec"}, libs: []string{"--lua-exec"}}
)

// foreignSpec describes a program that runs code in a language other than
// bash (foreign code): where the code comes from, and what in it
// reaches the shell.
type foreignSpec struct {
	lang string
	opts opts     // the options that take a value
	code []string // options whose value is code
	// sub is the subcommand that reads the code ("console" of terraform);
	// with another subcommand the program is an ordinary command.
	sub []string
	// operand: the first operand is code when no option gave it (TeX
	// given "\..." text, sqlite3's operands after the database).
	operand func(string) bool
	// stdin: with no code and no script operand (or "-"), the program
	// reads its script from standard input.
	stdin bool
	// stdinAlways: what it reads on standard input is its script even
	// with operands (ftp HOST, sqlite3 DB).
	stdinAlways bool
	// escapes, when set, are the commands of the language that reach the
	// shell or the file system ("!" in ed, ".shell" in sqlite3): code
	// without one of them is an ordinary command (mysql -e 'select 1').
	escapes []string
	// shell are the escapes after which the rest of the command is bash,
	// parsed as a payload.
	shell []string
	// always are options that make whatever code the program reads
	// foreign (tex --shell-escape).
	always []string
	// shellCode are options whose value is a shell command (rpm --pipe);
	// libs, options whose value is a library loaded into the program.
	shellCode, libs []string
	// permute: options may follow operands (GNU style), so all are read.
	permute bool
}

// Languages of the foreign programs.
const (
	langPython = "python"
	langJS     = "javascript"
	langPerl   = "perl"
	langRuby   = "ruby"
	langPHP    = "php"
	langLua    = "lua"
	langTcl    = "tcl"
	langLisp   = "lisp"
	langJava   = "java"
	langTeX    = "tex"
	langSQL    = "sql"
	langMake   = "make"
	langOther  = "program commands"
)

// escBang is the one escape of line-oriented programs: a command line
// starting with "!" runs the rest in a shell.
var escBang = []string{"!"}

func texCode(s string) bool { return strings.HasPrefix(s, "\\") || strings.HasPrefix(s, "&") }

func texSpec() *foreignSpec {
	return &foreignSpec{lang: langTeX, opts: opts{long: []string{"-output-directory", "--output-directory", "-jobname", "--jobname", "-fmt", "--fmt"}},
		operand: texCode, always: []string{"--shell-escape", "-shell-escape", "--enable-write18", "-enable-write18", "--shell-restricted"}, permute: true}
}

var (
	pythonSpec = &foreignSpec{lang: langPython, opts: opts{arg: "cWXmQ"}, code: []string{"-c"}, stdin: true}
	nodeSpec   = &foreignSpec{lang: langJS, opts: opts{arg: "erpC", long: []string{"--eval", "--print", "--require", "--import",
		"--loader", "--experimental-loader", "--conditions", "--input-type", "--env-file", "--title"}},
		code: []string{"-e", "--eval", "-p", "--print"}, stdin: true}
	perlSpec = &foreignSpec{lang: langPerl, opts: opts{arg: "eEI", optional: "ilx0CdDMm"}, code: []string{"-e", "-E"}, stdin: true}
	rubySpec = &foreignSpec{lang: langRuby, opts: opts{arg: "eIrCE", optional: "FKTWx0"}, code: []string{"-e"}, stdin: true}
	phpSpec  = &foreignSpec{lang: langPHP, opts: opts{arg: "rBREFfcdzStz", long: []string{"--run", "--process-begin", "--process-code", "--process-end", "--file", "--define"}},
		code: []string{"-r", "--run", "-B", "-R", "-E", "--process-begin", "--process-code", "--process-end"}, stdin: true}
	luaSpec   = &foreignSpec{lang: langLua, opts: opts{arg: "el"}, code: []string{"-e"}, stdin: true}
	tclSpec   = &foreignSpec{lang: langTcl, opts: opts{arg: "e", long: []string{"-encoding"}}, stdin: true}
	juliaSpec = &foreignSpec{lang: "julia", opts: opts{arg: "eEJLCtp", long: []string{"--eval", "--print", "--project", "--load", "--threads"}},
		code: []string{"-e", "--eval", "-E", "--print"}, stdin: true}
	rSpec = &foreignSpec{lang: "R", opts: opts{arg: "ef", long: []string{"--file", "--args"}}, code: []string{"-e"}}
	// sqlite3's dot commands that reach the shell or the file system.
	sqliteEscapes = []string{".shell", ".system", ".output", ".once", ".import", ".read", ".load", ".open", ".save",
		".backup", ".restore", ".excel", ".log", ".cd", ".clone", ".dump", ".archive", ".ar", ".sha3sum"}
	gdbSpec = &foreignSpec{lang: "gdb", opts: opts{arg: "xpcdsei", long: []string{"-ex", "--ex", "-eval-command", "--eval-command",
		"-iex", "--iex", "-x", "--command", "-ix", "--init-command", "-p", "--pid", "-cd", "--cd", "-init-eval-command", "--init-eval-command"}},
		code:  []string{"-ex", "--ex", "-eval-command", "--eval-command", "-iex", "--iex", "-init-eval-command", "--init-eval-command"},
		shell: []string{"!", "shell ", "pipe "}}
	mysqlSpec = &foreignSpec{lang: langSQL, opts: opts{arg: "eDhuPS", optional: "p", long: []string{"--execute", "--database", "--host", "--user",
		"--port", "--socket", "--default-auth", "--plugin-dir", "--password"}},
		code: []string{"-e", "--execute"}, stdinAlways: true, escapes: []string{"\\!", "system", "source", "\\.", "tee", "\\T", "pager", "\\P"},
		shell: []string{"\\!", "system "}, libs: []string{"--default-auth", "--plugin-dir"}, permute: true}
	psqlSpec = &foreignSpec{lang: langSQL, opts: opts{arg: "cdfhpUvoLTFPRC", long: []string{"--command", "--dbname", "--file", "--host",
		"--port", "--username", "--variable", "--output", "--log-file"}},
		code: []string{"-c", "--command"}, stdinAlways: true, escapes: []string{"\\!", "\\o", "\\copy", "\\i", "\\ir", "\\w", "\\g", "\\setenv", "copy"},
		shell: []string{"\\!"}, permute: true}
	sqliteSpec = &foreignSpec{lang: langSQL, opts: opts{long: []string{"-cmd", "-init", "-separator", "-newline", "-nullvalue"}},
		code: []string{"-cmd"}, operand: func(string) bool { return true }, stdinAlways: true, escapes: sqliteEscapes,
		shell: []string{".shell ", ".system "}}
	lineCommands = &foreignSpec{lang: langOther, stdinAlways: true, shell: escBang}
	replSpec     = &foreignSpec{lang: langOther, stdinAlways: true}
	texFamily    = texSpec()
	mailSpec     = &foreignSpec{lang: "mail commands", opts: opts{arg: "EsacbrfAqSuT", optional: "", long: []string{"--exec", "--subject", "--attach", "--cc", "--bcc"}},
		code: []string{"-E", "--exec"}, stdinAlways: true, escapes: []string{"!", "~!", "|", "pipe", "sh", "shell", "~|", "w ", "write", "s ", "save", "copy"}, shell: []string{"!", "~!"}, permute: true}
	rpmSpec = &foreignSpec{lang: "rpm macros", opts: opts{arg: "D", long: []string{"--eval", "--pipe", "--define", "--macros", "--root", "--dbpath"}},
		code: []string{"-E", "--eval"}, shellCode: []string{"--pipe"}, permute: true}
)

// foreignPrograms is the catalog of programs that run code in another
// language: interpreters given code inline or on standard input, and
// programs whose own command language reaches the shell or the file
// system (GTFOBins lists most of them).
var foreignPrograms = map[string]*foreignSpec{
	"python": pythonSpec, "python2": pythonSpec, "python3": pythonSpec, "pypy": pythonSpec, "pypy3": pythonSpec,
	"node": nodeSpec, "nodejs": nodeSpec,
	"bun":  {lang: langJS, opts: opts{arg: "ep", long: []string{"--eval", "--print"}}, code: []string{"-e", "--eval", "-p", "--print"}},
	"deno": {lang: langJS, sub: []string{"eval", "repl"}, operand: func(string) bool { return true }, stdin: true},
	"perl": perlSpec, "perl5": perlSpec,
	"ruby": rubySpec, "irb": replSpec, "jruby": rubySpec,
	"php": phpSpec, "php8": phpSpec, "php7": phpSpec,
	"lua": luaSpec, "luajit": luaSpec, "lua5.1": luaSpec, "lua5.2": luaSpec, "lua5.3": luaSpec, "lua5.4": luaSpec, "texlua": luaSpec,
	"julia":      juliaSpec,
	"Rscript":    rSpec,
	"R":          rSpec,
	"jrunscript": {lang: langJS, opts: opts{arg: "efl", long: []string{"-classpath", "-cp"}}, code: []string{"-e"}, stdin: true},
	"jjs":        {lang: langJS, opts: opts{long: []string{"-classpath", "-cp"}}, stdin: true},
	"jshell":     {lang: langJava, opts: opts{long: []string{"--class-path", "--startup"}}, stdin: true},
	"groovy":     {lang: langJava, opts: opts{arg: "e"}, code: []string{"-e"}, stdin: true},
	"groovysh":   replSpec,
	"scala":      {lang: "scala", opts: opts{arg: "e"}, code: []string{"-e"}},
	"kotlinc":    {lang: "kotlin", opts: opts{long: []string{"-e", "-expression"}}, code: []string{"-e", "-expression"}},
	"octave":     {lang: "octave", opts: opts{long: []string{"--eval"}}, code: []string{"--eval"}, stdin: true},
	"octave-cli": {lang: "octave", opts: opts{long: []string{"--eval"}}, code: []string{"--eval"}, stdin: true},
	"gnuplot":    {lang: "gnuplot", opts: opts{arg: "e", long: []string{"--eval"}}, code: []string{"-e", "--eval"}, stdin: true},
	"guile":      {lang: langLisp, opts: opts{arg: "clLex"}, code: []string{"-c"}, stdin: true},
	"clisp":      {lang: langLisp, opts: opts{arg: "xiBKMmEpL"}, code: []string{"-x"}, stdin: true},
	"sbcl":       {lang: langLisp, opts: opts{long: []string{"--eval", "--load", "--script"}}, code: []string{"--eval"}, stdin: true},
	"racket":     {lang: langLisp, opts: opts{arg: "eflrt", long: []string{"--eval", "--load"}}, code: []string{"-e", "--eval"}},
	"emacs": {lang: langLisp, opts: opts{arg: "lLfu", long: []string{"--eval", "-eval", "--execute", "-execute", "--load", "-load",
		"--funcall", "-funcall", "-l", "-f", "--directory", "-L", "--user"}},
		code: []string{"--eval", "-eval", "--execute", "-execute", "--funcall", "-funcall", "-f"}, permute: true},
	"ghc":   {lang: "haskell", opts: opts{arg: "eo"}, code: []string{"-e"}, permute: true},
	"ghci":  replSpec,
	"tclsh": tclSpec, "wish": tclSpec, "tclsh8.6": tclSpec,
	"expect":     {lang: langTcl, opts: opts{arg: "cfD"}, code: []string{"-c"}, stdin: true},
	"slsh":       {lang: "s-lang", opts: opts{arg: "e"}, code: []string{"-e"}, stdin: true},
	"pwsh":       {lang: "powershell", opts: opts{arg: "cCEfF", long: []string{"-Command", "-command", "-c", "-EncodedCommand", "-e", "-File", "-f"}}, code: []string{"-c", "-C", "-Command", "-command", "-EncodedCommand", "-e", "-E"}, stdin: true},
	"powershell": {lang: "powershell", opts: opts{arg: "cCEfF", long: []string{"-Command", "-command", "-EncodedCommand"}}, code: []string{"-c", "-C", "-Command", "-command", "-EncodedCommand", "-E"}, stdin: true},
	"elvish":     {lang: "elvish", opts: opts{arg: "c"}, code: []string{"-c"}, stdin: true},
	"rc":         {lang: "rc", opts: opts{arg: "c"}, code: []string{"-c"}, stdin: true},
	"sash":       {lang: "sash", opts: opts{arg: "c"}, code: []string{"-c"}, stdin: true},
	"nu":         {lang: "nushell", opts: opts{arg: "c", long: []string{"--commands"}}, code: []string{"-c", "--commands"}, stdin: true},
	"xonsh":      {lang: "xonsh", opts: opts{arg: "c"}, code: []string{"-c"}, stdin: true},
	"osascript":  {lang: "applescript", opts: opts{arg: "el"}, code: []string{"-e"}, stdin: true},
	"dosbox":     {lang: "dos", opts: opts{arg: "c", long: []string{"-conf"}}, code: []string{"-c"}, permute: true},
	"dc":         {lang: "dc", opts: opts{arg: "ef", long: []string{"--expression", "--file"}}, code: []string{"-e", "--expression"}, stdin: true, escapes: escBang, shell: escBang},
	"dotnet":     {lang: "f#", sub: []string{"fsi"}, stdin: true},
	"terraform":  {lang: "hcl", sub: []string{"console"}, stdinAlways: true},
	"puppet":     {lang: "puppet", sub: []string{"apply"}, opts: opts{arg: "e", long: []string{"--execute"}}, code: []string{"-e", "--execute"}},
	"make":       {lang: langMake, opts: opts{arg: "CfIjlEWo", long: []string{"--eval", "--file", "--makefile", "--directory", "--include-dir", "--jobs", "--load-average", "--what-if", "--old-file"}}, code: []string{"--eval", "-E"}, permute: true},
	"gmake":      {lang: langMake, opts: opts{arg: "CfIjlEWo", long: []string{"--eval", "--file", "--makefile", "--directory"}}, code: []string{"--eval", "-E"}, permute: true},
	"rpm":        rpmSpec, "rpmdb": rpmSpec, "rpmquery": rpmSpec, "rpmverify": rpmSpec, "rpmbuild": rpmSpec, "rpmspec": rpmSpec,
	"gdb":   gdbSpec,
	"mysql": mysqlSpec, "mariadb": mysqlSpec,
	"psql":    psqlSpec,
	"sqlite3": sqliteSpec, "sqlite": sqliteSpec,
	"lftp":      {lang: langOther, opts: opts{arg: "ceEfpu"}, code: []string{"-c", "-e"}, stdinAlways: true, shell: escBang, escapes: []string{"!", "shell", "local", "get", "put", "mget", "mput", "mirror", "source", "lcd"}},
	"smbclient": {lang: langOther, opts: opts{arg: "cUWsOnlIpAmRtTDdE", long: []string{"--command", "--user", "--authentication-file", "--directory"}}, code: []string{"-c", "--command"}, stdinAlways: true, shell: escBang, permute: true},
	"mail":      mailSpec, "mailx": mailSpec, "s-nail": mailSpec,
	"ed":  {lang: "ed", opts: opts{arg: "p"}, stdinAlways: true, shell: escBang, escapes: []string{"!", "w", "W", "r", "e", "E", "f"}},
	"ftp": lineCommands, "psftp": lineCommands, "ncftp": lineCommands, "tftp": lineCommands,
	"telnet": lineCommands, "debugfs": lineCommands, "ginsh": lineCommands, "tasksh": lineCommands,
	"tdbtool": lineCommands, "scanmem": {lang: langOther, stdinAlways: true, shell: []string{"shell "}},
	"jtag": lineCommands, "hping3": {lang: langTcl, stdinAlways: true}, "bconsole": lineCommands,
	"asterisk": lineCommands, "cdist": {lang: langOther, sub: []string{"shell"}, stdin: true},
	"pic": {lang: "pic", opts: opts{arg: "U"}, stdinAlways: true, shell: []string{"sh "}},
	"tex": texFamily, "latex": texFamily, "pdflatex": texFamily, "pdftex": texFamily, "xelatex": texFamily,
	"lualatex": texFamily, "luatex": texFamily, "xetex": texFamily, "etex": texFamily, "context": texFamily,
	"mpost": texFamily, "lualatex-dev": texFamily, "pdflatex-dev": texFamily,
	// dvips -R0 runs the shell commands a DVI file's specials name.
	"dvips":      {lang: "dvi specials", always: []string{"-R0"}, permute: true},
	"apache2":    {lang: "apache configuration", opts: opts{arg: "CcdfDk"}, code: []string{"-C", "-c"}},
	"apache2ctl": {lang: "apache configuration", opts: opts{arg: "CcdfDk"}, code: []string{"-C", "-c"}},
	"httpd":      {lang: "apache configuration", opts: opts{arg: "CcdfDk"}, code: []string{"-C", "-c"}},
}

// envKind says what a program reads in an environment variable.
type envKind int

const (
	envCode    envKind = iota + 1 // code, or where code is loaded from
	envProgram                    // a program to run
	envConfig                     // where configuration (that may run code) lives
)

// envRow is one variable of the environment catalog. inert are the
// values made only of options that load no code: a literal made of those
// alone leaves the command plain (NODE_OPTIONS=--max-old-space-size=4096).
// An inert option ending in "=" takes any value.
type envRow struct {
	kind  envKind
	inert []string
}

// envCatalog is what programs read from their environment as code, as a
// program to run, or as where their configuration lives (the design,
// environment injection). Setting one floors the command like a wrapper.
var envCatalog = map[string]envRow{
	"PATH": {kind: envProgram}, "LD_PRELOAD": {kind: envCode}, "LD_LIBRARY_PATH": {kind: envCode}, "LD_AUDIT": {kind: envCode},
	"BASH_ENV": {kind: envCode}, "ENV": {kind: envCode},
	"PAGER": pagerRow, "EDITOR": pagerRow, "VISUAL": pagerRow, "MANPAGER": pagerRow, "GIT_PAGER": pagerRow,
	"GIT_EDITOR": pagerRow, "GIT_SEQUENCE_EDITOR": pagerRow, "SYSTEMD_PAGER": pagerRow, "PSQL_PAGER": pagerRow, "BAT_PAGER": pagerRow, "DELTA_PAGER": pagerRow,
	"LESSOPEN": {kind: envProgram}, "LESSCLOSE": {kind: envProgram}, "PROMPT_COMMAND": {kind: envCode},
	"SHELLOPTS": {kind: envCode}, "BASHOPTS": {kind: envCode}, "PS4": {kind: envCode},
	"HOME": {kind: envConfig}, "XDG_CONFIG_HOME": {kind: envConfig},
	// Where toolgate's own policy, trust store and managed file live.
	"PI_CODING_AGENT_DIR": {kind: envConfig}, "TOOLGATE_MANAGED_DIR": {kind: envConfig}, "XDG_CONFIG_DIRS": {kind: envConfig}, "ZDOTDIR": {kind: envConfig},
	"BASH_LOADABLES_PATH": {kind: envCode}, "GCONV_PATH": {kind: envCode}, "LOCPATH": {kind: envCode},
	"NODE_OPTIONS": {kind: envCode, inert: []string{"--max-old-space-size=", "--max-semi-space-size=", "--enable-source-maps",
		"--experimental-vm-modules", "--no-warnings", "--no-deprecation", "--trace-warnings", "--trace-deprecation",
		"--unhandled-rejections=", "--stack-trace-limit=", "--stack-size=", "--openssl-legacy-provider", "--use-openssl-ca",
		"--dns-result-order=", "--experimental-specifier-resolution=", "--trace-uncaught", "--pending-deprecation"}},
	"NODE_PATH": {kind: envCode},
	"MAKEFLAGS": {kind: envCode, inert: makeInert}, "MFLAGS": {kind: envCode, inert: makeInert}, "GNUMAKEFLAGS": {kind: envCode, inert: makeInert},
	"PERL5OPT": {kind: envCode}, "PERL5DB": {kind: envCode}, "PERL5LIB": {kind: envCode}, "PERLLIB": {kind: envCode},
	"PERL5SHELL": {kind: envProgram}, "RUBYOPT": {kind: envCode}, "RUBYLIB": {kind: envCode},
	"PYTHONSTARTUP": {kind: envCode}, "PYTHONPATH": {kind: envCode}, "PYTHONHOME": {kind: envCode},
	"PYTHONWARNINGS": {kind: envCode}, "PYTHONINSPECT": {kind: envCode}, "PYTHONBREAKPOINT": {kind: envCode},
	"JAVA_TOOL_OPTIONS": {kind: envCode}, "_JAVA_OPTIONS": {kind: envCode}, "JDK_JAVA_OPTIONS": {kind: envCode},
	"GOFLAGS":   {kind: envCode, inert: []string{"-mod=", "-trimpath", "-race", "-v", "-count=", "-buildvcs=", "-modcacherw", "-p=", "-tags="}},
	"RUSTFLAGS": {kind: envCode}, "CARGO_BUILD_RUSTC_WRAPPER": {kind: envProgram}, "RUSTC_WRAPPER": {kind: envProgram},
	"RUSTC": {kind: envProgram}, "CARGO_BUILD_RUSTC": {kind: envProgram},
	"AUTOM4TE": {kind: envProgram}, "M4": {kind: envProgram}, "CRASHPAGER": {kind: envProgram}, "GROFF_BIN_PATH": {kind: envProgram},
	"npm_config_script_shell": {kind: envProgram}, "NPM_CONFIG_SCRIPT_SHELL": {kind: envProgram},
	"npm_config_userconfig": {kind: envConfig}, "NPM_CONFIG_USERCONFIG": {kind: envConfig}, "npm_config_globalconfig": {kind: envConfig},
	"CC": {kind: envProgram}, "CXX": {kind: envProgram}, "LD": {kind: envProgram}, "CPP": {kind: envProgram}, "AR": {kind: envProgram},
	"SSH_ASKPASS": {kind: envProgram}, "SUDO_ASKPASS": {kind: envProgram}, "GIT_ASKPASS": {kind: envProgram}, "BROWSER": {kind: envProgram},
	"RESTIC_PASSWORD_COMMAND": {kind: envProgram}, "BORG_PASSCOMMAND": {kind: envProgram}, "BORG_RSH": {kind: envProgram},
	"RSYNC_RSH": {kind: envProgram}, "CVS_RSH": {kind: envProgram}, "TAR_RSH": {kind: envProgram}, "FCEDIT": {kind: envProgram},
	"TERMINAL": {kind: envProgram}, "SHELL": {kind: envProgram},
	"KUBECONFIG": {kind: envConfig}, "AWS_CONFIG_FILE": {kind: envConfig}, "DOCKER_CONFIG": {kind: envConfig},
	"BUNDLE_GEMFILE": {kind: envConfig}, "GEMRC": {kind: envConfig}, "PIP_CONFIG_FILE": {kind: envConfig},
	"CARGO_HOME": {kind: envConfig}, "RUSTUP_HOME": {kind: envConfig}, "INPUTRC": {kind: envConfig},
	"VIMINIT": {kind: envCode}, "EXINIT": {kind: envCode}, "MYVIMRC": {kind: envConfig}, "GNUPGHOME": {kind: envConfig},
	"SCREENRC": {kind: envConfig}, "TMUX_TMPDIR": {kind: envConfig}, "WGETRC": {kind: envConfig}, "CURL_HOME": {kind: envConfig},
	"PSQLRC": {kind: envConfig}, "MYSQL_HOME": {kind: envConfig}, "SQLITE_HISTORY": {kind: envConfig}, "LESSKEY": {kind: envConfig},
	"BUNDLE_GEMFILE_LOCK": {kind: envConfig}, "COMPOSER_HOME": {kind: envConfig},
}

var (
	// A pager or editor of exactly cat, true or ":" runs nothing else.
	pagerRow  = envRow{kind: envProgram, inert: []string{"cat", "true", ":"}}
	makeInert = []string{"-j", "--jobs=", "-s", "--silent", "--no-print-directory", "-k", "--keep-going", "-w", "-l", "--output-sync="}
)

// gitEnvFloors are the GIT_* variables that name a program, a
// configuration or a folder; the others (GIT_AUTHOR_NAME …) are data.
var gitEnvFloors = []string{"GIT_SSH", "GIT_SSH_COMMAND", "GIT_SSH_VARIANT", "GIT_PAGER", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR",
	"GIT_EXTERNAL_DIFF", "GIT_ASKPASS", "GIT_PROXY_COMMAND", "GIT_EXEC_PATH", "GIT_TEMPLATE_DIR", "GIT_CONFIG",
	"GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_COUNT", "GIT_CONFIG_PARAMETERS",
	"GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES",
	"GIT_NAMESPACE", "GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM", "GIT_TRACE", "GIT_ATTR_SOURCE"}

// injectsEnv reports whether setting name may floor a command (the design,
// environment injection); injectsValue decides with its value.
func injectsEnv(name string) bool {
	if _, ok := envCatalog[name]; ok {
		return true
	}
	switch {
	case strings.HasPrefix(name, "GIT_SSH"), strings.HasPrefix(name, "GIT_CONFIG"):
		return true
	case strings.HasPrefix(name, "GIT_"):
		return slices.Contains(gitEnvFloors, name)
	case strings.HasPrefix(name, "CARGO_TARGET_") && strings.HasSuffix(name, "_RUNNER"), strings.HasPrefix(name, "CARGO_TARGET_") && strings.HasSuffix(name, "_LINKER"):
		return true
	}
	return strings.HasPrefix(name, "LD_") || strings.HasPrefix(name, "DYLD_") || strings.HasPrefix(name, "BASH_FUNC_")
}

// injectsValue reports whether setting name to value floors a command:
// an injection variable, unless value is a literal made only of the
// options the catalog marks inert for it.
func injectsValue(name, value string, known bool) bool {
	if !injectsEnv(name) {
		return false
	}
	row, ok := envCatalog[name]
	if !ok || len(row.inert) == 0 || !known {
		return true
	}
	words := strings.Fields(value)
	if len(words) == 0 {
		return len(row.inert) == 0
	}
	for _, w := range words {
		if !slices.ContainsFunc(row.inert, func(in string) bool {
			if strings.HasSuffix(in, "=") {
				return strings.HasPrefix(w, in) && !strings.ContainsAny(w[len(in):], "$`")
			}
			return w == in || (in == "-j" && strings.HasPrefix(w, "-j") && strings.Trim(w[2:], "0123456789") == "")
		}) {
			return true
		}
	}
	return false
}

// configFiles are the files a program reads as code or as commands to
// run when it finds them where it looks (its directory, the home
// directory): a command that writes one and then runs the program is
// floored like foreign code (write then run).
var configFiles = map[string][]string{
	"make": makefiles, "gmake": makefiles,
	"npm": nodeProject, "yarn": nodeProject, "pnpm": nodeProject, "bun": nodeProject, "npx": nodeProject,
	"cmake": {"CMakeLists.txt", "CMakePresets.json"}, "bundle": {"Gemfile"}, "composer": {"composer.json"},
	"rake": {"Rakefile", "rakefile"}, "cargo": {"build.rs", "Cargo.toml", "config.toml"},
	"pip": pythonProject, "pip3": pythonProject, "pytest": {"conftest.py", "pytest.ini", "pyproject.toml"},
	"tox": {"tox.ini"}, "nox": {"noxfile.py"}, "gradle": {"build.gradle", "build.gradle.kts", "settings.gradle"},
	"mvn": {"pom.xml"}, "just": {"justfile", "Justfile"}, "meson": {"meson.build"}, "ninja": {"build.ninja"},
	"autoconf": {"configure.ac"}, "autoreconf": {"configure.ac"}, "autoheader": {"configure.ac"},
	"less": {".lessfilter", ".lesskey", "lesskey"}, "top": {"toprc", ".toprc"}, "rtorrent": {".rtorrent.rc"},
	"tmux": {".tmux.conf", "tmux.conf"}, "screen": {".screenrc"}, "vim": {".vimrc", ".exrc"}, "vi": {".exrc", ".vimrc"},
	"fastfetch": {"config.jsonc"}, "neofetch": {"config.conf"}, "gdb": {".gdbinit"}, "psql": {".psqlrc"},
	"sqlite3": {".sqliterc"}, "mysql": {".my.cnf"}, "wget": {".wgetrc"}, "curl": {".curlrc"},
	"git": {".gitconfig"}, "ssh": {"config"}, "deno": {"deno.json", "deno.jsonc"}, "go": {"go.mod", "go.work"},
	"docker": {"Dockerfile", "compose.yaml", "docker-compose.yml"}, "ansible-playbook": {"ansible.cfg"},
}

var (
	makefiles     = []string{"Makefile", "makefile", "GNUmakefile"}
	nodeProject   = []string{"package.json", ".npmrc", ".yarnrc", ".yarnrc.yml", "bunfig.toml"}
	pythonProject = []string{"setup.py", "pyproject.toml", "setup.cfg"}
)

// configOptions are options whose value is a configuration file that may
// name commands to run; a file the same command wrote, given there, floors
// the command. Short ones are per program.
var configOptions = []string{"--config", "--config-file", "--configfile", "--rcfile", "--init-file", "--vars",
	"--kubeconfig", "--settings", "--conf", "--makefile", "--file", "--script", "--hook", "--exec", "--command"}

var shortConfigOptions = map[string][]string{
	"ssh": {"-F"}, "scp": {"-F"}, "sftp": {"-F", "-b"}, "tmux": {"-f"}, "mutt": {"-F"}, "fastfetch": {"-c"},
	"nginx": {"-c"}, "minicom": {"-S"}, "make": {"-f"}, "gmake": {"-f"}, "ldconfig": {"-f"}, "gdb": {"-x"},
	"lftp": {"-f"}, "at": {"-f"}, "batch": {"-f"}, "awk": {"-f"}, "gawk": {"-f"}, "mawk": {"-f"}, "sed": {"-f"},
	"vim": {"-S", "-u"}, "vi": {"-S", "-u"}, "nvim": {"-S", "-u"}, "emacs": {"-l"}, "psql": {"-f"},
	"sqlite3": {"-init"}, "acr": {"-r"}, "procmail": {"-m"}, "openvpn": {"--config"}, "apache2": {"-f"},
	"mosquitto": {"-c"}, "aspell": {"--conf"}, "rake": {"-f"}, "m4": {"-R"},
}

// scriptRunners are programs whose file operands are scripts they run
// (beyond the shells, foreign programs and wrappers of the tables above):
// a file the same command wrote, given to one, floors it.
var scriptRunners = map[string]bool{
	"go": true, "cobc": true, "ansible-playbook": true, "runscript": true, "procmail": true, "acr": true,
	"gtester": true, "minicom": true, "crontab": true, "tsx": true, "ts-node": true, "java": true,
	"dotnet": true, "cargo": true, "swift": true, "kotlin": true, "crystal": true, "nim": true,
	"zig": true, "v": true, "elixir": true, "erl": true, "escript": true, "runghc": true, "runhaskell": true,
	"fastfetch": true, "neofetch": true, "easyrsa": true, "kubectl": true, "m4": true, "rustup": true,
}

// alwaysFloored are programs that run what a directory, a service name or
// a message names: always a wrapper, whatever their arguments.
var alwaysFloored = map[string]string{
	"run-parts": SentinelIndirection, "service": SentinelIndirection,
	"ansible": SentinelIndirection, "ansible-playbook": SentinelIndirection, "ansible-test": SentinelIndirection,
	"code": SentinelIndirection, "fzf": SentinelIndirection, "busybox": SentinelIndirection,
	// Coding agents run whatever their prompt leads them to.
	"opencode": SentinelIndirection, "claude": SentinelIndirection, "gemini": SentinelIndirection,
	"aider": SentinelIndirection, "cursor-agent": SentinelIndirection, "goose": SentinelIndirection, "codex": SentinelIndirection,
}
