package main

// The red team's probe table (issues 11, 12, 18 against the merged code):
// each row is one explain call with a policy and the exit it must give
// (0 allow, 1 deny, 3 ask; 13 means deny or ask: never allow).

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// probe: one explain call. global/project are policy texts ("" = none);
// want is explain's exit code (0 allow, 1 deny, 3 ask).
type probe struct {
	global, project string
	tool, input     string
	want            int
}

const rtStd = `{"permission": {"*": "allow", "bash": {"*": "allow", "rm -rf *": "deny"}}}`

// runProbe decides p with explain in a world of its policy files. explain
// changes nothing, so probes with the same files share one world (worlds,
// by their files; HOME is set to the world's for each probe).
func runProbe(t *testing.T, p probe, worlds map[[2]string]string) (int, string) {
	key := [2]string{p.global, p.project}
	if dir, ok := worlds[key]; ok {
		t.Setenv("HOME", dir)
		t.Setenv("PI_CODING_AGENT_DIR", filepath.Join(dir, "agent"))
		var out bytes.Buffer
		code := run([]string{"explain", "--cwd", filepath.Join(dir, "work"), "--tool", p.tool, "--input", p.input}, nil, &out, &out)
		return code, out.String()
	}
	dir := isolatedHome(t)
	worlds[key] = dir
	work := filepath.Join(dir, "work")
	for _, d := range []string{work + "/.git/hooks", work + "/.git", work + "/src", work + "/web", dir + "/agent/extensions/pi-permission-system", work + "/.pi/extensions/pi-permission-system"} {
		os.MkdirAll(d, 0o755)
	}
	os.WriteFile(work+"/.git/config", []byte("[core]\n"), 0o600)
	os.WriteFile(work+"/src/a.ts", []byte("x\n"), 0o600)
	os.WriteFile(work+"/web/package.json", []byte("{}\n"), 0o600)
	os.WriteFile(dir+"/.gitconfig", []byte("[user]\n"), 0o600)
	os.MkdirAll(dir+"/.ssh", 0o700)
	os.WriteFile(dir+"/.ssh/id_rsa", []byte("k\n"), 0o600)
	os.WriteFile(work+"/.env", []byte("K=1\n"), 0o600)
	os.WriteFile(work+"/web/.env", []byte("K=1\n"), 0o600)
	if p.global != "" {
		os.WriteFile(dir+"/agent/extensions/pi-permission-system/config.json", []byte(p.global), 0o600)
	}
	if p.project != "" {
		os.WriteFile(work+"/.pi/extensions/pi-permission-system/config.json", []byte(p.project), 0o600)
	}
	var out bytes.Buffer
	code := run([]string{"explain", "--cwd", work, "--tool", p.tool, "--input", p.input}, nil, &out, &out)
	return code, out.String()
}

func TestRedteamProbes(t *testing.T) {
	worlds := map[[2]string]string{}
	for _, p := range rtProbes {
		code, out := runProbe(t, p, worlds)
		if code != p.want && !(p.want == 13 && (code == 1 || code == 3)) {
			t.Errorf("%s %s: exit %d want %d\n%s", p.tool, p.input, code, p.want, lastLines(out))
		}
	}
}

func lastLines(s string) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	if len(l) > 6 {
		l = l[len(l)-6:]
	}
	return strings.Join(l, "\n")
}

func bc(cmd string) string { b, _ := json.Marshal(map[string]string{"command": cmd}); return string(b) }
func js(v any) string      { b, _ := json.Marshal(v); return string(b) }

const (
	A = 0
	D = 1
	Q = 3
)

func std(cmd string, want int) probe {
	return probe{global: rtStd, tool: "bash", input: bc(cmd), want: want}
}

var rtProbes = []probe{
	// wrappers x option identity
	std(`/bin/rm -fr x`, D),
	std(`/usr/bin/rm -r -f x`, D),
	std(`sudo rm -fr x`, D),
	std(`sudo -u root rm -fr x`, D),
	std(`sudo -- rm -fr x`, D),
	std(`doas rm -Rf x`, D),
	std(`command rm -fr x`, D),
	std(`command -p rm -fr x`, D),
	std(`command -- rm -fr x`, D),
	std(`builtin command rm -fr x`, D),
	std(`env rm -fr x`, D),
	std(`env -i rm -fr x`, D),
	std(`env -u HOME rm -fr x`, D),
	std(`env X=1 rm -fr x`, D),
	std(`env -S 'rm -fr x'`, D),
	std(`env -- rm -fr x`, D),
	std(`echo x | xargs rm -fr`, D),
	std(`echo x | xargs -0 rm -fr`, D),
	std(`echo x | xargs -I{} rm -fr {}`, D),
	std(`echo x | xargs -n1 rm -fr`, D),
	std(`echo x | xargs -r rm -r -f`, D),
	std(`nice -n 5 rm -fr x`, D),
	std(`nice -5 rm -fr x`, D),
	std(`timeout 5 rm -fr x`, D),
	std(`timeout -s KILL 5 rm -fr x`, D),
	std(`nohup rm -fr x`, D),
	std(`exec rm -fr x`, D),
	std(`time rm -fr x`, D),
	std(`time -p rm -fr x`, D),
	std(`stdbuf -o0 rm -fr x`, D),
	std(`setsid rm -fr x`, D),
	std(`flock /tmp/l rm -fr x`, D),
	std(`watch rm -fr x`, D),
	std(`find . -exec rm -fr {} +`, D),
	std(`find . -execdir rm -r -f {} \;`, D),
	std(`busybox rm -fr x`, D),
	std(`sh -c 'rm -fr x'`, D),
	std(`bash -c "rm -r -f x"`, D),
	std(`eval rm -fr x`, D),
	std(`\rm -fr x`, D),
	std(`r""m -fr x`, D),
	std(`rm x -rf`, D),
	std(`rm -f x -r`, D),
	std(`rm --recursive --force x`, D),
	std(`rm --recur --forc x`, D),
	std(`rm --rec -f x`, D),
	std(`rm -rfv x`, D),
	std(`rm -vrf x`, D),
	std(`rm -Rf x`, D),
	std(`rm -r --force x`, D),
	std(`rm -d -rf x`, D),
	std(`rm -i -r -f x`, D),
	std(`rm -r -f -- x`, D),
	std(`rm -rf`, D),
	std(`rm -fr`, D),
	std(`rm -r -f`, D),
	std(`rm --force --recursive`, D),
	std(`rm -rf --one-file-system x`, D),
	std(`rm --no-preserve-root -fr /x`, D),
	std(`rm -f -R x`, D),
	std(`git -c x=y rm -rf x`, Q), // git rm, not rm
	// trust floor: project allow vs global deny
	{global: rtStd, project: `{"permission": {"bash": {"rm -fr *": "allow"}}}`, tool: "bash", input: bc(`rm -fr x`), want: D},
	{global: rtStd, project: `{"permission": {"bash": {"rm *": "allow"}}}`, tool: "bash", input: bc(`rm -r -f x`), want: D},
	{global: rtStd, project: `{"permission": {"bash": {"rm --recursive --force *": "allow"}}}`, tool: "bash", input: bc(`rm --recursive --force x`), want: D},
	{global: rtStd, project: `{"permission": {"bash": {"/bin/rm *": "allow"}}}`, tool: "bash", input: bc(`/bin/rm -fr x`), want: D},
	{global: rtStd, project: `{"permission": {"bash": {"rm x -rf": "allow"}}}`, tool: "bash", input: bc(`rm x -rf`), want: D},
	{global: rtStd, project: `{"permission": {"bash": {"sudo *": "allow"}}}`, tool: "bash", input: bc(`sudo rm -fr x`), want: D},
	{global: rtStd, project: `{"permission": {"bash": {"xargs *": "allow"}}}`, tool: "bash", input: bc(`echo x | xargs rm -fr`), want: D},
	{global: rtStd, project: `{"permission": {"bash": {"env *": "allow"}}}`, tool: "bash", input: bc(`env rm -fr x`), want: D},
	{global: rtStd, project: `{"permission": {"bash": {"*": "allow"}}}`, tool: "bash", input: bc(`rm -Rf x`), want: D},
	// typo'd entries: a deny at their position
	{global: `{"permission": {"*": "allow", "bash": {"*": "allow", "rm -rf *": "dney"}}}`, tool: "bash", input: bc(`rm -fr x`), want: D},
	{global: `{"permission": {"*": "allow", "bash": {"*": "allow", "rm -rf *": "dney"}}}`, tool: "bash", input: bc(`rm --recursive --force x`), want: D},
	{global: `{"permission": {"*": "allow", "bash": {"*": "allow", "rm -rf *": 7}}}`, tool: "bash", input: bc(`rm -r -f x`), want: D},
	{global: `{"permission": {"*": "allow", "bash": {"*": "allow", "rm -rf *": {"action":"deny","reasn":"x"}}}}`, tool: "bash", input: bc(`rm x -rf`), want: D},
	// everyday
	std(`git status`, A),
	std(`git log -G foo`, A),
	std(`npm test`, A),
	std(`cd web && npm run lint -- --fix`, A),
	std(`for f in src/*.ts; do wc -l "$f"; done`, A),
	std(`grep -n alias ~/.gitconfig`, A),
	std(`grep -n trap ~/.gitconfig`, A),
	std(`echo alias; cat ~/.gitconfig`, A),
	std(`for i in $(seq 3); do echo $((i+1)); done`, A),
	std(`rm -f x`, A),
	std(`rm x`, A),
	std(`rm -r x`, A),
	std(`ls -la`, A),
	std(`git diff HEAD~1`, A),
}

func init() {
	for _, c := range []string{
		`exec -a name rm -fr x`, `exec -c rm -fr x`, `exec -- rm -fr x`,
		`nice --adjustment=5 rm -fr x`, `nice -n5 rm -fr x`, `timeout --signal=KILL 5 rm -fr x`, `timeout -k 5 10 rm -fr x`, `timeout --preserve-status 5 rm -fr x`,
		`sudo -E rm -fr x`, `sudo -g grp rm -fr x`, `sudo -u root -- rm -fr x`, `sudo -iu root rm -fr x`, `sudo --user=root rm -fr x`, `sudo -nu root rm -fr x`,
		`env -C /tmp rm -fr x`, `env --chdir=/tmp rm -fr x`, `env -iu X rm -fr x`, `env --unset=X rm -fr x`, `env -0 rm -fr x`, `env --split-string='rm -fr x'`, `env -vS'rm -fr x'`,
		`stdbuf -i 0 rm -fr x`, `stdbuf --output=L rm -fr x`, `setsid -w rm -fr x`, `flock -x /tmp/l rm -fr x`, `flock -w 5 /tmp/l rm -fr x`,
		`watch -n 1 rm -fr x`, `watch -n1 -- rm -fr x`,
		`echo x | xargs -d '\n' rm -fr`, `echo x | xargs -P 4 rm -fr`, `echo x | xargs -L 1 rm -fr`, `echo x | xargs --max-args=1 rm -fr`, `xargs -a list rm -fr`, `echo x | xargs -0r rm -fr`, `echo x | xargs -n 1 -- rm -fr`,
		`doas -u root rm -fr x`, `command time -f %e rm -fr x`, `time -p -- rm -fr x`,
		`ionice -c3 rm -fr x`, `chrt -i 0 rm -fr x`, `taskset 1 rm -fr x`, `unshare rm -fr x`, `chroot / rm -fr x`, `strace rm -fr x`, `strace -f -o /dev/null rm -fr x`, `ltrace rm -fr x`, `valgrind rm -fr x`, `firejail rm -fr x`, `script -qc 'rm -fr x'`, `sg grp -c 'rm -fr x'`, `su -c 'rm -fr x'`, `runuser -u u -- rm -fr x`, `pkexec rm -fr x`, `nsenter -t 1 rm -fr x`, `systemd-run rm -fr x`, `dbus-launch rm -fr x`, `xvfb-run rm -fr x`, `faketime now rm -fr x`, `fakeroot rm -fr x`, `nix-shell --run 'rm -fr x'`, `caffeinate rm -fr x`, `catchsegv rm -fr x`, `parallel rm -fr ::: x`, `fd -x rm -fr`, `fd . -X rm -fr`, `find . -ok rm -fr {} \;`, `find . -okdir rm -r -f {} \;`,
		`git -c core.x=y rm -rf x`, `sudo sudo rm -fr x`, `env env rm -fr x`, `command command rm -fr x`, `nohup nice rm -fr x`,
		`busybox sh -c 'rm -fr x'`, `bash -lc 'rm -fr x'`, `bash -c -- 'rm -fr x'`, `sh -ec 'rm -fr x'`, `dash -c 'rm -fr x'`, `zsh -c 'rm -fr x'`,
		`echo -rf x | xargs rm`,
	} {
		rtProbes = append(rtProbes, probe{global: rtStd, tool: "bash", input: bc(c), want: 13}) // 13: deny or ask
	}
}

const rtPaths = `{"permission": {"*": "allow", "bash": {"*": "allow", "rm -rf *": "deny"}, "path": {"~/.ssh/*": "deny"}, "external_directory": {"*": "ask", "~/*": "allow"}}}`

func pp(cmd string, want int) probe {
	return probe{global: rtPaths, tool: "bash", input: bc(cmd), want: want}
}

func init() {
	rtProbes = append(rtProbes,
		pp(`grep -n alias ~/.gitconfig`, A),
		pp(`grep -n trap ~/.gitconfig`, A),
		pp(`echo alias; cat ~/.gitconfig`, A),
		pp(`git log --grep=trap -- ~/.gitconfig`, A),
		pp(`cat ~/.gitconfig`, A),
		pp(`F=~/ok; eval "trap 'F=~/.ssh/id_rsa' DEBUG"; cat $F`, 13),
		pp(`F=~/ok; eval 'F=~/.ssh/id_rsa'; cat $F`, 13),
		pp(`F=~/ok; X=trap; $X 'F=~/.ssh/id_rsa' DEBUG; cat $F`, 13),
		pp(`F=~/ok; command trap 'F=~/.ssh/id_rsa' DEBUG; cat $F`, 13),
		pp(`F=~/ok; command -p trap 'F=~/.ssh/id_rsa' DEBUG; cat $F`, 13),
		pp(`F=~/ok; builtin trap 'F=~/.ssh/id_rsa' DEBUG; cat $F`, 13),
		pp(`F=~/ok; builtin command trap 'F=~/.ssh/id_rsa' DEBUG; cat $F`, 13),
		pp(`F=~/ok; \trap 'F=~/.ssh/id_rsa' DEBUG; cat $F`, 13),
		pp(`F=~/ok; 'trap' 'F=~/.ssh/id_rsa' DEBUG; cat $F`, 13),
		pp(`F=~/ok; tr""ap 'F=~/.ssh/id_rsa' DEBUG; cat $F`, 13),
		pp(`F=~/ok; f() { trap 'F=~/.ssh/id_rsa' DEBUG; }; f; cat $F`, 13),
		pp(`F=~/ok; if true; then trap 'F=~/.ssh/id_rsa' DEBUG; fi; cat $F`, 13),
		pp(`F=~/ok; x=$(trap 'F=~/.ssh/id_rsa' DEBUG); cat $F`, 13),
		pp(`F=~/ok; T=(trap); ${T[0]} 'F=~/.ssh/id_rsa' DEBUG; cat $F`, 13),
		pp(`F=~/ok; {trap,x} 'F=~/.ssh/id_rsa' DEBUG; cat $F`, 13),
		pp(`F=~/ok; tra{p,} 'F=~/.ssh/id_rsa' DEBUG; cat $F`, 13),
		pp(`F=~/ok; ~/../../bin/true; trap 'F=~/.ssh/id_rsa' DEBUG; cat $F`, 13),
		pp(`cat ~/.ssh/id_rsa`, D),
	)
}

const rtGit = `{"permission": {"*": "allow", "bash": {"*": "allow", "git push --force *": "deny", "git reset --hard *": "deny", "git clean -f *": "deny", "chmod -R *": "deny", "curl -o *": "deny", "find * -delete *": "deny", "sed -i *": "deny", "tar -x *": "deny", "docker rm -f *": "deny", "kubectl delete namespace *": "deny", "npm publish *": "deny", "git branch -D *": "deny", "cp -r *": "deny"}}}`

func pg(cmd string, want int) probe {
	return probe{global: rtGit, tool: "bash", input: bc(cmd), want: want}
}

func init() {
	rtProbes = append(rtProbes,
		pg(`git push --forc origin main`, A), // git: ambiguous, refused
		pg(`git push origin +main`, D),
		pg(`git push -fu origin main`, D),
		pg(`git push -uf origin main`, D),
		pg(`git push origin main -f`, D),
		pg(`git push origin main --force`, D),
		pg(`git -C . push -f`, D),
		pg(`git --git-dir=.git push -f`, D),
		pg(`git --no-pager push -f`, D),
		pg(`git -P push -f`, D),
		pg(`git push -f`, D),
		pg(`git push --force`, D),
		pg(`git push origin +HEAD:main`, D),
		pg(`git push origin main:main --force`, D),
		pg(`git push --mirror`, A),
		pg(`git push origin main`, A),
		pg(`git reset --har HEAD~1`, D),
		pg(`git reset HEAD~1 --hard`, D),
		pg(`git clean -fdx`, D),
		pg(`git clean -xdf`, D),
		pg(`git clean --force -d`, D),
		pg(`git clean -d --force`, D),
		pg(`chmod -R 777 x`, D),
		pg(`chmod --recursive 777 x`, D),
		pg(`chmod 777 x -R`, D),
		pg(`curl -sSLo out http://x`, D),
		pg(`curl --output out http://x`, D),
		pg(`curl http://x -o out`, D),
		pg(`curl --outp out http://x`, A), // curl: ambiguous, refused
		pg(`curl --output-d d -o x http://x`, D),
		pg(`find . -type f -delete`, D),
		pg(`find . -delete`, D),
		pg(`sed -i s/a/b/ f`, D),
		pg(`sed -i.bak s/a/b/ f`, D),
		pg(`sed --in-place s/a/b/ f`, D),
		pg(`sed -ni s/a/b/ f`, D),
		pg(`sed s/a/b/ -i f`, D),
		pg(`sed --in-place=.bak s/a/b/ f`, D),
		pg(`sed -Ei s/a/b/ f`, D),
		pg(`tar xzf a.tgz`, D),
		pg(`tar -xzf a.tgz`, D),
		pg(`tar --extract -f a.tgz`, D),
		pg(`tar -zxf a.tgz`, D),
		pg(`tar zxf a.tgz`, D),
		pg(`docker rm --force c`, D),
		pg(`docker container rm -f c`, D),
		pg(`docker rm -fv c`, D),
		pg(`kubectl delete ns x`, D),
		pg(`kubectl delete namespaces x`, D),
		pg(`kubectl delete namespace/x`, D),
		pg(`kubectl -n y delete ns x`, D),
		pg(`npm pub`, D), pg(`npm publi x`, D),
		pg(`npm publish --tag x`, D),
		pg(`git branch -d -f x`, D),
		pg(`git branch --delete --force x`, D),
		pg(`git branch -df x`, D),
		pg(`cp -a src dst`, D),
		pg(`cp -R src dst`, D),
		pg(`cp --recursive src dst`, D),
		pg(`cp --archive src dst`, D),
		pg(`cp src dst -r`, D),
	)
}

func wr(path string, want int) probe {
	return probe{global: rtStd, tool: "write", input: js(map[string]string{"path": path, "content": "x"}), want: want}
}

func init() {
	for _, p := range []string{
		`./.git/../.git/config`, `.GIT/config`, `.git//config`, `.git/./config`, `src/../.git/config`, `.git/hooks/pre-commit`,
		`.git/hooks/../config`, `~/.gitconfig`, `$HOME/.bashrc`, `~/.config/git/config`, `.git/modules/sub/hooks/post-checkout`,
		`.git/worktrees/w/hooks/pre-commit`, `.git/config.worktree`, `.Git/Hooks/pre-commit`, `@.git/config`, `.git/config/`,
		"\u00a0.git/config", ".git\u2009/config", `~/.bashrc`, `~/.zshenv`, `.envrc`, `.npmrc`, `sub/.git`,
		`.husky/pre-commit`, `~/.ssh/config`,
	} {
		rtProbes = append(rtProbes, wr(p, Q))
	}
	for _, c := range []string{
		`echo x >> ./.git/../.git/config`, `cp f .GIT/config`, `echo x | tee -a .git/config`, `sed -i s/a/b/ .git/config`,
		`dd if=f of=.git/config`, `install f .git/hooks/pre-commit`, `ln -sf "$PWD/f" .git/hooks/pre-commit`, `mv f .git/hooks/post-checkout`,
		`git config core.pager x`, `git config --global alias.x '!sh'`, `git config -f .git/config core.pager x`, `git config --file=x core.fsmonitor y`,
		`truncate -s0 .git/config`, `rsync f .git/config`, `curl -o .git/config http://x`, `wget -O .git/hooks/x http://x`, `tar -xf a.tar -C .git`,
		`unzip x.zip -d .git/hooks`, `patch .git/config < p`, `echo x > .git/conf[i]g`, `echo x > .gi?/config`, `cp pre-commit .git/hook*/`, `cd .git/hooks && echo x > pre-push`, `cd .git/hooks; tee post-merge < f`, `cd ~/.config/git && cp f config`,
		`cp -r hooks .git/`, `cp f .git/modules/sub/hooks/pre-commit`, `cd .git && echo x > config`, `cd .git/hooks; cp ../../f pre-commit`,
		`echo x > ~/.bashrc`, `echo x >> $HOME/.profile`, `cp f ~/.config/git/config`, `git config --system core.pager x`,
		`git config set core.pager x`, `git config --add core.sshCommand x`, `git config --replace-all core.hooksPath x`, `git config alias.st '!sh -c x'`,
		`git config include.path /tmp/x`, `git config includeIf.gitdir:/.path x`, `git config diff.x.textconv sh`, `git config filter.x.clean sh`,
		`git config credential.helper '!sh'`, `git config core.editor x`, `git config sequence.editor x`, `git config core.askPass x`, `git config gpg.program x`,
		`git config uploadpack.packObjectsHook x`, `git config core.gitProxy x`, `git config merge.x.driver x`, `git config -l`,
		`git submodule add http://x sub`, `git config submodule.x.update '!sh'`, `git config --worktree core.pager x`, `git config --local core.pager x`,
		`git config --unset core.pager`,
	} {
		w := Q
		if c == `git config -l` || c == `git config --unset core.pager` || c == `git submodule add http://x sub` {
			w = A
		}
		rtProbes = append(rtProbes, probe{global: rtStd, tool: "bash", input: bc(c), want: w})
	}
}

const rtGlob = `{"permission": {"*": "allow", "path": {"~/.ssh/*": "deny", "*.env": "deny"}, "external_directory": {"*": "ask"}}}`

func gl(tool, path, glob string, want int) probe {
	in := map[string]string{"pattern": "k"}
	key := "glob"
	if tool == "find" {
		in = map[string]string{}
		key = "pattern"
	}
	if path != "" {
		in["path"] = path
	}
	in[key] = glob
	return probe{global: rtGlob, tool: tool, input: js(in), want: want}
}

func init() {
	rtProbes = append(rtProbes,
		gl("grep", "~", ".ssh/*", D), gl("grep", "~", "**/id_rsa", D), gl("grep", "~", "id_rsa", 13), gl("grep", "~/", ".ss[h]/*", D),
		gl("grep", "~", ".ssh/{id_rsa,x}", D), gl("grep", ".", "*.env", D), gl("grep", ".", ".env", D), gl("grep", ".", "{.env,x}", D),
		gl("grep", ".", "!*.ts", D), gl("grep", ".", "*.{env,ts}", D), gl("grep", ".", "**/.e?v", D), gl("grep", "", "web/*", D),
		gl("grep", "", "../../**", 13), gl("grep", "", "/etc/*", 13), gl("grep", "", "~/.ssh/*", D), gl("grep", "web", "../.env", D),
		gl("grep", "", "web/**/*", D), gl("grep", "", "[.]env", D), gl("grep", "", "*", D), gl("grep", "", "**", D), gl("grep", "", "*.ts", A),
		gl("grep", "", ".\\env", D), gl("grep", "", "web/.en*", D), gl("grep", "", "./.env", D), gl("grep", "", "/**/.env", 13),
		gl("find", ".", "*.env", D), gl("find", ".", "**/*.env", D), gl("find", ".", "{.env,a}", D), gl("find", "~", ".ssh/*", D),
		gl("find", "", "*.ts", A), gl("find", "~/.ssh", "*", D), gl("find", "", "!(*.ts)", A), gl("find", "", "@(.env)", A), gl("grep", "", "!.env", A), gl("grep", "", "!*.md", D), gl("find", "", "!*.ts", A),
		gl("grep", "", "*.ENV", A),
	)
}

func rd(tool string, in map[string]string, want int) probe {
	return probe{global: rtGlob, tool: tool, input: js(in), want: want}
}

func init() {
	rtProbes = append(rtProbes,
		rd("read", map[string]string{"path": "@~/.ssh/id_rsa"}, D),
		rd("read", map[string]string{"path": "@.env"}, D),
		rd("read", map[string]string{"path": "./web/../.env"}, D),
		rd("read", map[string]string{"path": "web//.env"}, D),
		rd("read", map[string]string{"path": "$HOME/.ssh/id_rsa"}, D),
		rd("read", map[string]string{"path": "${HOME}/.ssh/id_rsa"}, D),
		rd("read", map[string]string{"path": "~/.ssh/./id_rsa"}, D),
		rd("read", map[string]string{"path": "~//.ssh//id_rsa"}, D),
		rd("grep", map[string]string{"pattern": "k", "path": "@~/.ssh"}, D),
		rd("grep", map[string]string{"pattern": "k", "path": "@~", "glob": ".ssh/*"}, D),
		rd("find", map[string]string{"pattern": "*", "path": "@~/.ssh"}, D),
		rd("ls", map[string]string{"path": "@~/.ssh"}, D),
		rd("ls", map[string]string{"path": "~/.ssh/"}, D),
		rd("edit", map[string]string{"path": "@web/.env", "oldText": "a", "newText": "b"}, D),
		rd("read", map[string]string{"path": "/etc/hosts"}, Q),
		rd("read", map[string]string{"path": "@/etc/hosts"}, Q),
		rd("read", map[string]string{"path": "..\u00a0/x"}, A), // the host opens ".. /x", a directory named ".. " inside
		rd("grep", map[string]string{"pattern": "k", "path": "..", "glob": "*"}, 13),
		rd("grep", map[string]string{"pattern": "k", "glob": "../*"}, 13),
		rd("grep", map[string]string{"pattern": "k", "glob": "@../*"}, A),
		rd("read", map[string]string{"path": "src/a.ts"}, A),
	)
}

func init() {
	for _, c := range []string{
		`builtin exec rm -fr x`, `command exec rm -fr x`, `eval exec rm -fr x`, `time command nice rm -fr x`,
		`RM_OPTS=-rf; rm $RM_OPTS x`, `set -- -rf; rm "$@" x`, `f() { rm "$@"; }; f -rf x`, `a=(-rf); rm "${a[@]}" x`,
		`read o <<< -rf; rm $o x`, `o=$(echo -rf); rm $o x`, `rm $(echo -rf) x`, `rm -$(echo rf) x`, `rm -${X:-rf} x`,
		`rm $1 x`, `rm "$OPTS" x`, "rm `echo -rf` x", `rm -{r,f} x`, `rm -r{,} -f x`, `rm {-r,-f} x`, `rm -r''f x`, `rm -"rf" x`, `rm $'-rf' x`, `rm $'\x2drf' x`,
		`rm -r$X -f x`, `rm ${X}-rf x`, `rm -rf* x`, `rm -[r]f x`,
	} {
		rtProbes = append(rtProbes, probe{global: rtStd, tool: "bash", input: bc(c), want: 13})
	}
}

func init() {
	rtProbes = append(rtProbes,
		pg(`git commit -m "$msg"`, A),
		pg(`git log --since="$D"`, A),
		pg(`git push $o origin main`, 13),
		pg(`git -C . push $o`, 13),
		pg(`git $sub -f`, 13),
		pg(`git push origin "$BRANCH"`, 13), // could be +main
		std(`for f in *.log; do rm -- "$f"; done`, A),
		std(`for f in *.log; do rm "$f"; done`, 13),
		std(`rm "$f"`, 13),
		std(`rm ./"$f"`, A),
		std(`rm "src/$f"`, A),
		std(`ls "$d"`, A),
		std(`echo "$HOME" $x`, A),
		std(`cat $f`, A),
	)
}

func init() {
	for _, c := range []string{
		`npm run build`, `go test ./...`, `make -j4`, `docker ps`, `python3 -m pytest -q`, `cargo build --release`, `ls -la src`,
		`find . -name '*.ts' -not -path './node_modules/*'`, `grep -rn TODO src`, `git diff --stat`, `git log --oneline -n 5`,
		`sed -n 1,20p src/a.ts`, `awk '{print $1}' src/a.ts`, `cat web/package.json | jq .scripts`, `echo "$PATH"`,
		`export FOO=bar && npm test`, `cd src && ls`, `mkdir -p build && cp src/a.ts build/`, `tar -czf out.tgz src`,
		`for f in $(git ls-files '*.ts'); do wc -l $f; done`, `git checkout -b feature/x`, `git add -A && git commit -m "fix: x"`,
		`npx tsc --noEmit`, `pnpm install`, `yarn test`, `git stash && git pull --rebase && git stash pop`,
		`ls ~/.gitconfig`, `head -n 5 ~/.gitconfig`, `wc -l src/*.ts | sort -n`, `test -f x && echo yes`, `[ -d web ] && cd web && npm ci`,
		`git rev-parse --show-toplevel`, `echo $((1+2))`, `i=0; while [ $i -lt 3 ]; do i=$((i+1)); done`, `date +%s`,
	} {
		rtProbes = append(rtProbes, probe{global: rtPaths, tool: "bash", input: bc(c), want: A})
	}
	// Everyday commands the program catalog reads: project
	// runners, inert environment values, data variables of git, remote
	// commands, plain awk, sed, sqlite3, mysql, m4 and TeX, build output run
	// after the build, a written file that is only committed.
	for _, c := range []string{
		`uv run pytest -q`, `poetry run pytest`, `bundle exec rspec`, `npm exec -- eslint .`, `PAGER=cat git log -n 3`,
		`NODE_OPTIONS=--max-old-space-size=4096 npm run build`, `export NODE_OPTIONS=--enable-source-maps && npm test`,
		`MAKEFLAGS=-j8 make`, `GOFLAGS=-mod=mod go build ./...`, `GIT_AUTHOR_NAME=x git commit -m y`, `ssh host uptime`,
		`docker run --rm node:20 npm test`, `kubectl -n dev exec pod -- ls /app`, `sqlite3 app.db 'select count(*) from t'`,
		`mysql -e 'select 1' db`, `awk -F, '{print $2}' src/a.ts`, `awk '{print > "/dev/stderr"}' src/a.ts`,
		`sed -i 's/a/b/' src/a.ts`, `m4 macros.m4`, `latex doc.tex`, `go build -o bin/app . && ./bin/app`,
		`tsc && node dist/x.js`, `echo x > notes.txt && git add notes.txt`, `npx tsc --noEmit`, `python3 -m pytest -q`,
		`ls | ts`, `crontab -l`,
	} {
		rtProbes = append(rtProbes, probe{global: rtPaths, tool: "bash", input: bc(c), want: A})
	}
	// Inline code in another language is foreign code: asked
	// under a catch-all allow, allowed by a rule naming the program with
	// its code option.
	rtProbes = append(rtProbes,
		probe{global: rtPaths, tool: "bash", input: bc(`node -e 'console.log(1)'`), want: Q},
		probe{global: `{"permission": {"*": "allow", "bash": {"*": "allow", "node -e *": "allow"}}}`, tool: "bash", input: bc(`node -e 'console.log(1)'`), want: A})
}

func init() {
	g := `{"permission": {"*": "ask", "mcp": {"*": "ask", "github:delete_repo": "deny"}, "bash": {"*": "ask", "git push --force *": "deny"}, "path": {"*.env": "deny"}}}`
	for _, pr := range []string{`{"mcp": {"github_delete_repo": "allow"}}`, `{"mcp": {"*": "allow"}}`, `{"mcp": {"delete_repo": "allow"}}`, `{"mcp": {"github": "allow"}}`, `{"mcp": {"mcp_call": "allow"}}`, `{"mcp": {"github:*": "allow"}}`} {
		for _, in := range []string{`{"tool": "github:delete_repo"}`, `{"tool": "delete_repo", "server": "github"}`, `{"tool": "github_delete_repo", "server": "github"}`} {
			rtProbes = append(rtProbes, probe{global: g, project: `{"permission": ` + pr + `}`, tool: "mcp", input: in, want: D})
		}
	}
	for _, pr := range []string{`{"bash": {"git push -f *": "allow"}}`, `{"bash": {"git *": "allow"}}`, `{"bash": {"git push *": "allow"}}`} {
		for _, c := range []string{`git push -f origin main`, `git push origin +main`, `git push --force`, `git push origin main --force`} {
			rtProbes = append(rtProbes, probe{global: g, project: `{"permission": ` + pr + `}`, tool: "bash", input: bc(c), want: D})
		}
	}
	for _, pr := range []string{`{"path": {"*": "allow"}}`, `{"path": {".env": "allow"}}`, `{"read": {"*.env": "allow"}}`} {
		for _, p := range []string{".env", "./.env", "web/../.env", "@.env"} {
			rtProbes = append(rtProbes, probe{global: g, project: `{"permission": ` + pr + `}`, tool: "read", input: js(map[string]string{"path": p}), want: D})
		}
	}
}

func init() {
	g := `{"permission": {"*": "allow", "bash": {"*": "allow", "rm -r*": "deny", "git push --force*": "deny"}}}`
	for _, c := range []string{`rm -fr x`, `rm -R x`, `rm --recursive x`, `sudo rm -f -r x`, `git push -f`, `git push origin main -f`} {
		rtProbes = append(rtProbes, probe{global: g, tool: "bash", input: bc(c), want: D})
	}
	rtProbes = append(rtProbes, probe{global: g, tool: "bash", input: bc(`rm -f x`), want: A})
}

func init() {
	for _, c := range []string{
		`function rm { command rm -rf "$@"; }; rm x`, `rm() { /bin/rm -rf "$@"; }; rm x`, `bash <<< 'rm -fr x'`, `source <(echo 'rm -fr x')`,
		`eval "$(echo rm -fr x)"`, `$'rm' -fr x`, `r\m -fr x`, `rm -f""r x`, `rm -f$'r' x`, `rm -fr${IFS}x`, `R=rm; $R -fr x`,
		`x=-fr; rm $x y`, `declare -a A=(-f -r); rm "${A[@]}" y`, `printf -- '-rf\0x' | xargs -0 rm`, `echo 'rm -fr x' | sh`, `sh -c "$0 -fr x" rm`,
		`git -c alias.x='!rm -fr y' x`, `find . -maxdepth 0 -exec sh -c 'rm -fr "$1"' _ {} \;`, `time (rm -fr x)`, `! rm -fr x`, `{ rm -fr x; }`,
		`if rm -fr x; then :; fi`, `while rm -fr x; do break; done`, `case a in a) rm -fr x;; esac`, `echo $(rm -fr x)`, "echo `rm -fr x`", `cat <(rm -fr x)`,
		`[[ $(rm -fr x) ]]`, `(( $(rm -fr x) ))`, `x=$(rm -fr y)`, `export X=$(rm -fr y)`, `local X=$(rm -fr y)`, `: ${X:=$(rm -fr y)}`,
		`coproc rm -fr x`, `rm -fr x &`, `nohup rm -fr x &>/dev/null &`, "rm -fr x\n", "\nrm -fr x", "echo ok;\trm -fr x", "echo ok\r\nrm -fr x",
	} {
		rtProbes = append(rtProbes, probe{global: rtStd, tool: "bash", input: bc(c), want: 13})
	}
}
