package main

// usages are the --help texts of the subcommands (stdout, exit 0).
var usages = map[string]string{
	"serve": usage,
	"sandbox": `usage: toolgate sandbox [--cwd D] [--config F…] -- CMD ARG…
       toolgate sandbox --profile=FILE --command-b64=BASE64

Run CMD confined by the kernel as the policy that applies in D says: it
writes only in the project, the temp directory, the per-user caches and
sandboxWrite; toolgate's own files, git's hooks and configuration and the
start-up files stay read-only inside them; what the policy denies reading
is hidden; sandboxNetwork "off" leaves it loopback only. The second form is
what hosts run: the model's bash text, base64-encoded, under a profile the
decision wrote. The exit status is the command's; 126 when it could not be
run confined.

  --cwd D          working directory and project (default: the current one)
  --config F       extra policy file, merged after the project file (repeatable)
  --profile FILE   a profile written by a decision (mode 0600)
  --command-b64 T  the bash text to run, base64
`,
	"export": `usage: toolgate export --drain [--audit-log F] [--config F…] [--cwd D] [--max-time 30s]

Send what the audit log holds past its export cursor to the collector the
policy's "export" knob names (OTLP/HTTP), then exit. Failed sends are
retried with back-off until --max-time; what is not acknowledged by then
waits in the log for the next sender. Only one sender per log runs at a
time (<log>.export.lock): when another holds it, this one exits at once.
A hook process (claude-hook, gemini-hook) starts it detached after its
answer; toolgate serve sends in the background itself.

  --audit-log F  the audit log (default: the policy's auditLog, else under the agent dir)
  --config F     extra policy file, as the session had it (repeatable)
  --cwd D        working directory of the session (default: the current one)
  --max-time D   the longest the drain runs (default 30s)

Exit status: 0 sent (or nothing to send, or another sender runs), 1 records
left unsent, 2 usage error.
`,
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
	"trust": `usage: toolgate trust [--yes] [DIR]
       toolgate trust --list
       toolgate trust --revoke [DIR]

A project's policy files come with the repository: until you trust their
exact content, they may tighten your policy but loosen nothing. trust lists
the entries of DIR's project files (default: the working directory) that
would loosen anything (both config files, the legacy pi-permissions.jsonc,
every .pi/agents/*.md with permission), rule by rule with file:line, and on your
confirmation records each file's real path and SHA-256 in the trust store
($XDG_CONFIG_HOME/toolgate/trusted.json). Any later edit untrusts a file.

  --yes     trust without asking (for scripts)
  --list    the trusted files, and whether each is still as trusted
  --revoke  forget the trust of DIR's files
`,
	"doctor": `usage: toolgate doctor [--cwd D] [--agent A] [--config F…]

What this machine and host give toolgate: every policy file looked for and
its state (loaded, broken, trusted or not, managed), the trust store, the
audit log, and the warnings a session would start with. Exit 1 when
something toolgate needs is missing or broken.

  --cwd D     working directory (default: the current one)
  --agent A   also this agent's files
  --config F  extra policy file (repeatable)
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
	"codex-hook": `usage: toolgate codex-hook [--config F…] [--audit-log FILE]

A Codex CLI PreToolUse / PermissionRequest command hook: one event on stdin,
the answer on stdout. PreToolUse: a deny is a deny, an allow is no answer
(Codex's own approval goes on), an ask is a deny whose reason says how to
allow the call. PermissionRequest: allow and deny answer Codex's question,
an ask leaves it to the person. Any internal error exits 2 (a deny).
`,
	"copilot-hook": `usage: toolgate copilot-hook [--config F…] [--audit-log FILE] [--deadline D]

A GitHub Copilot CLI preToolUse command hook: one event on stdin, one answer
on stdout ({"permissionDecision": "allow"|"deny"|"ask", …}). Any failure,
and no decision within --deadline (default 10s), is a printed deny, with
the reason also on stderr.
`,
	"qwen-hook": `usage: toolgate qwen-hook [--config F…] [--audit-log FILE] [--no-ask]

A Qwen Code PreToolUse command hook (Claude Code's format): one event on
stdin, the answer on stdout; any internal error exits 2 (a block). An ask
is Qwen's own confirmation; --no-ask makes it a deny with how to allow the
call (for sessions driven over stream-json, where Qwen Code 0.24.4 hangs on
a hook's ask).
`,
	"version": "usage: toolgate version\n",
}
