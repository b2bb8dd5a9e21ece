package shell

import "testing"

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
	{cmd: `(( n=1 )); ls`, units: us(u(`(( n=1 ))`, CtxArithmetic), u(`ls`))},
	{cmd: `: ${PATH:=./e}; ls`, units: us(u(`: ${PATH:=./e}`, ind), u(`ls`, ind))},
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
