package main

// usages are the --help texts of the subcommands (stdout, exit 0).
var usages = map[string]string{
	"serve": usage,
	"explain": `usage: toolgate explain --tool T --input JSON [--cwd D] [--agent A] [--config F…] [--host H] [--json]

The decision and full trace of one call, in words (or as JSON with --json),
decided like the check method: no prompt, no audit record. Policy warnings
come first. Exit status: 0 allow, 1 deny, 3 ask, 2 usage error.

  --tool T       tool name (bash, read, mcp, …)
  --input JSON   the tool's input, a JSON object (default {})
  --cwd D        working directory (default: the current one)
  --agent A      agent name (its agent files join the policy)
  --config F     extra policy file, merged after the project file (repeatable)
  --host H       decide as this hook host does (claude-code, gemini-cli): its
                 tool names, values and built-in allows
  --json         print the check result, with every matching rule, as JSON
`,
	"validate": `usage: toolgate validate [--json] [--cwd D] [--agent A] [FILE…]

Parse and lint policy files: errors with file:line:col (exit 1), then
advice (rules that can never win, allows on wrappers and interpreters,
surfaces nothing uses). Without FILE, the files a session in the working
directory reads. The cases of a toolgate-tests.jsonl beside a checked file
run too; a failing case exits 1.

  --json     print a JSON report
  --cwd D    working directory (without FILE)
  --agent A  also check this agent's files (without FILE)
`,
	"test": `usage: toolgate test [--config F…] [--cwd D] [--agent A] [-v] [CASES…]
       toolgate test --from-audit AUDITLOG [-o FILE]

Policy tests. Each line of a CASES file is a JSON object:
  {"name": "…", "tool": "bash", "input": {"command": "git status"},
   "cwd": "/abs/dir", "agent": "…", "expect": "allow",
   "gate": "tool", "pattern": "git status"}
(name, cwd, agent, gate and pattern are optional; expect is allow, ask or
deny). Each case is decided against the composed policy like explain (no
prompt, no audit). A failure prints the case, the expected and the actual
decision and the deciding rule with file:line. Without CASES, the
toolgate-tests.jsonl beside each policy file in use runs. Exit status: 0 all
pass, 1 a case failed, 2 usage error.

  --config F        extra policy file (repeatable); its folder's
                    toolgate-tests.jsonl runs too without CASES
  --cwd D           working directory of cases without cwd (default: current)
  --agent A         agent of cases without agent
  -v                list passing cases too
  --from-audit LOG  write today's decisions of the log's recorded calls as cases
  -o FILE           with --from-audit: write to FILE instead of stdout
`,
	"suggest": `usage: toolgate suggest [--min N] [--file F] [--apply] [--json] [--config F…] [AUDITLOG]

The allow rules that would have spared the prompts the person answered
"allow" (once or for the session) at least N times (default 2). A rule is
never broader than what was approved: the value itself, or a bash unit's
words followed by more arguments ("git status *" for "git status", never
"make *" for "make build", never a folder for a file); wrappers, inline
scripts and dynamic commands are never suggested, and a literal * or ? is
never made a wildcard. Shown as an edit to the policy file F (default: the
global config); --apply writes it there, at the end of each surface's map,
keeping order and comments. Into a project's file (.toolgate/config.json,
.pi/extensions/pi-permission-system/config.json) paths go relative to the
project, and a path outside it is not suggested. Without AUDITLOG, the log
sessions write (the policy's auditLog, else the default); only a log whose
chain holds is read (exit 2 otherwise).

  --min N     approvals needed before a rule is suggested (default 2)
  --file F    the policy file to edit (default: the global config)
  --apply     write the edit
  --json      print the suggestions as JSON
  --config F  extra policy file of the sessions (repeatable)
`,
	"replay": `usage: toolgate replay [--config F…] AUDITLOG

Re-decide every recorded call of an audit log with today's policy and list
the decisions that would change (a call a session approval allowed counts
as the ask it was). Only a log whose chain holds is read. Exit status: 0
nothing would change, 1 a decision would (like git diff --exit-code), 2 a
usage error or a file that is not an audit log or whose chain is broken.

  --config F  extra policy file of the sessions (repeatable)
`,
	"audit": `usage: toolgate audit verify AUDITLOG

Check the audit log's hash chain (exit 1 at the first broken record).
`,
	"claude-hook": `usage: toolgate claude-hook [--config F…] [--audit-log FILE]

A Claude Code PreToolUse / UserPromptSubmit command hook: one event on
stdin, the answer on stdout; any internal error exits 2 (a block).
`,
	"gemini-hook": `usage: toolgate gemini-hook [--config F…] [--audit-log FILE] [--ask]

A Gemini CLI BeforeTool command hook: one event on stdin, the answer on
stdout ({"decision": "allow"|"deny", "reason": …}). An ask is a deny with a
reason unless --ask is given (interactive sessions only: a headless Gemini
run hangs on an ask). Any internal error exits 2 (a block).
`,
	"version": "usage: toolgate version\n",
}
