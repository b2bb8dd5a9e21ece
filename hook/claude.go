package hook

import (
	"github.com/toolgate/toolgate/internal/jsonobj"

	"github.com/toolgate/toolgate/hook/hosts"

	"encoding/json"
	"fmt"
	"io"
	"maps"
	"strings"

	"github.com/toolgate/toolgate/gates"
	"github.com/toolgate/toolgate/protocol"
)

// This file is the Claude Code adapter: a PreToolUse / UserPromptSubmit
// command hook, one process per event. It turns the event into engine
// calls and the engine's decision into Claude Code's hook answer.

// claudeEvent is the part of a Claude Code hook event toolgate reads.
type claudeEvent struct {
	HookEventName  string          `json:"hook_event_name"`
	SessionID      string          `json:"session_id"`
	Cwd            string          `json:"cwd"`
	PermissionMode string          `json:"permission_mode"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolUseID      string          `json:"tool_use_id"`
	Prompt         string          `json:"prompt"`
}

// claudePathTools maps Claude Code's file tools to toolgate's path tools,
// with the input field that holds the path. Grep's glob and Glob's
// pattern keep their names: they are grep's glob and find's pattern.
var claudePathTools = map[string]struct{ tool, pathField string }{
	"Read": {"read", "file_path"}, "NotebookRead": {"read", "notebook_path"},
	"Write": {"write", "file_path"},
	"Edit":  {"edit", "file_path"}, "MultiEdit": {"edit", "file_path"}, "NotebookEdit": {"edit", "notebook_path"},
	"Grep": {"grep", "path"}, "Glob": {"find", "path"}, "LS": {"ls", "path"},
}

var claudeProfile = hostProfile{
	name:            HostClaudeCode,
	calls:           claudeCalls,
	projectSettings: []string{".claude"},
	userSettings:    []string{".claude/settings.json", ".claude/settings.local.json"},
	confines:        true,
	values: map[string]func(map[string]any) string{
		"WebFetch":  strField("url"),
		"WebSearch": strField("query"),
		// MCP resources: the server, and server:uri for a read.
		"ListMcpResourcesTool": strField("server"),
		"ReadMcpResourceTool": func(in map[string]any) string {
			if server, uri := strField("server")(in), strField("uri")(in); server != "" || uri != "" {
				return server + ":" + uri
			}
			return ""
		},
		"Monitor": func(in map[string]any) string {
			ws, _ := in["ws"].(map[string]any)
			return strField("url")(ws)
		},
		// A worktree it enters, the file an artifact publishes, the prompt
		// a scheduled job runs, the job a delete removes.
		"EnterWorktree": func(in map[string]any) string {
			if n := strField("name")(in); n != "" {
				return n
			}
			return strField("path")(in)
		},
		"Artifact":   strField("file_path"),
		"CronCreate": strField("prompt"),
		"CronDelete": strField("id"),
	},
	// Tools Claude Code runs without asking anyone: its todo list and task
	// tracker, plan mode, subagents (whose own tool calls come through
	// this hook), background shells it started, its question to the
	// person, and the search for its own deferred tools.
	builtinAllow: map[string]bool{
		"TodoWrite": true, "ExitPlanMode": true, "EnterPlanMode": true, "Task": true, "Agent": true,
		"BashOutput": true, "KillShell": true, "KillBash": true, "TaskOutput": true, "TaskStop": true,
		"TaskCreate": true, "TaskGet": true, "TaskUpdate": true, "TaskList": true,
		"AskUserQuestion": true, "ToolSearch": true,
		// Leaving a worktree and keeping it (removing it is an edit),
		// listing scheduled jobs, messages to the person.
		"ExitWorktree": true, "CronList": true, "SendUserMessage": true, "Brief": true, "PushNotification": true,
	},
}

// ClaudeHook answers one Claude Code hook event (PreToolUse or
// UserPromptSubmit) read from in, with the same engine as serve. Any error
// is returned, and the caller exits 2, which Claude Code treats as a block.
func ClaudeHook(opts Options, in io.Reader, out io.Writer) error {
	data, err := readHookEvent(in)
	if err != nil {
		return err
	}
	var ev claudeEvent
	if err := protocol.Unmarshal(data, &ev, ""); err != nil {
		return fmt.Errorf("the hook event cannot be read: %w", err)
	}
	s, err := hookServer(opts, HostClaudeCode, ev.Cwd, ev.SessionID)
	if err != nil {
		return err
	}
	defer s.closeAudit()
	switch ev.HookEventName {
	case "PreToolUse":
		err = s.claudePreToolUse(ev, out)
	case "UserPromptSubmit":
		err = s.claudePrompt(ev, out)
	default:
		return nil // other events do not gate anything
	}
	if err == nil {
		s.startDrain() // the answer is written
	}
	return err
}

// readHookEvent reads one hook event, bounded, and rejects one that could
// be read two ways.
func readHookEvent(in io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(in, 64<<20))
	if err != nil {
		return nil, fmt.Errorf("reading the hook event: %w", err)
	}
	if _, err := checkUnambiguous(data); err != nil {
		return nil, fmt.Errorf("the hook event cannot be read unambiguously: %w", err)
	}
	return data, nil
}

func (s *Server) claudePreToolUse(ev claudeEvent, out io.Writer) error {
	calls, err := claudeCalls(ev.ToolName, ev.ToolInput)
	if err != nil {
		return err
	}
	// A URL is decided as written and as the fetcher normalizes it
	// (HTTPS://EVIL.example is https://evil.example/); the most
	// restrictive decides.
	if ec := calls[0]; len(calls) == 1 && ec.Tool == "WebFetch" {
		calls = nil
		u, _ := ec.Input["url"].(string)
		for _, form := range urlForms(strings.TrimSpace(u)) {
			in := maps.Clone(ec.Input)
			in["url"] = form
			calls = append(calls, hosts.Call{Tool: ec.Tool, Input: in})
		}
	}
	var ds []hostDecision
	for _, c := range calls {
		d, err := s.decideEngineCall(claudeProfile, ev.ToolUseID, c)
		if err != nil {
			return err
		}
		if ev.ToolName == "Bash" && s.sandboxAutoAllowed(d) {
			dec := *d.res.Decision
			dec.Resolution = protocol.ResSandboxAutoAllowed
			d.res.State, d.res.Decision = "allow", &dec
			d.res.Reason = ""
		}
		decision, _ := claudeDecision(d.res.State, d.res.Reason, ev.PermissionMode)
		s.confine(claudeProfile, &d, decision)
		ds = append(ds, d)
	}
	for _, d := range ds {
		decision, reason := claudeDecision(d.res.State, d.res.Reason, ev.PermissionMode)
		if err := s.auditHostDecision(d, decision, reason); err != nil {
			return err
		}
	}
	d := mostRestrictive(ds)
	decision, reason := claudeDecision(d.res.State, d.res.Reason, ev.PermissionMode)
	if decision == "defer" {
		return nil // no answer: Claude Code's own permission flow decides
	}
	answer := map[string]any{"hookEventName": "PreToolUse", "permissionDecision": decision, "permissionDecisionReason": reason}
	if cmd := confinedOf(ds); cmd != "" && decision != "deny" {
		answer["updatedInput"] = withCommand(d.call.Input, "command", cmd)
		if decision == "ask" {
			// Claude Code shows the rewritten input; the person reads the
			// command as the model wrote it here.
			answer["permissionDecisionReason"] = reason + asWritten(d)
		}
	}
	return json.NewEncoder(out).Encode(map[string]any{"hookSpecificOutput": answer})
}

// claudeDecision is Claude Code's answer for toolgate's state in a
// permission mode. Toolgate's ask is Claude's own ask; no mode loosens a
// deny or an ask:
//   - dontAsk (Claude denies whatever it would ask about): ask → deny.
//   - plan (Claude runs only what cannot change anything): toolgate's
//     allow is no answer at all, so Claude's own plan-mode checks decide
//     (an allow from a hook would skip them).
//   - bypassPermissions, acceptEdits, default and any other mode: as is;
//     Claude Code keeps a hook's ask and deny in every mode.
func claudeDecision(state, reason, mode string) (decision, why string) {
	switch {
	case state == "ask" && mode == "dontAsk":
		return "deny", reason + " (toolgate would ask, and Claude Code's permission mode dontAsk denies what would be asked)"
	case state == "allow" && mode == "plan":
		return "defer", ""
	}
	return state, reason
}

// claudeCalls turns a Claude Code tool call into the engine calls that
// decide it: most tools are one (claudeCall); a tool that also touches a
// file is decided on that file's surface too (the most restrictive
// answers): Artifact publishes the file it names (a read of it), a
// durable CronCreate writes Claude Code's scheduled-jobs file.
func claudeCalls(name string, rawInput json.RawMessage) ([]hosts.Call, error) {
	ec, err := claudeCall(name, rawInput)
	if err != nil {
		return nil, err
	}
	calls := []hosts.Call{ec}
	switch name {
	case "Artifact":
		if p, _, err := jsonobj.Object(ec.Input).Str("file_path", "tool_input."); err != nil {
			return nil, err
		} else if p != "" {
			calls = append(calls, hosts.Call{Tool: "read", Input: map[string]any{"path": p}})
		}
	case "CronCreate":
		if durable, _ := ec.Input["durable"].(bool); durable {
			calls = append(calls, hosts.Call{Tool: "write", Input: map[string]any{"path": ".claude/scheduled_tasks.json"}})
		}
	}
	return calls, nil
}

// claudeForeign are Claude Code's tools that run code in a language that
// is not bash, with the program and code option their code is decided as.
var claudeForeign = map[string]string{"PowerShell": "pwsh -Command"}

// claudeCall turns a Claude Code tool call into an engine call.
func claudeCall(name string, rawInput json.RawMessage) (hosts.Call, error) {
	if name == "" {
		return hosts.Call{}, fmt.Errorf("the hook event has no tool_name")
	}
	input, err := objectInput(name, rawInput)
	if err != nil {
		return hosts.Call{}, err
	}
	if ec, ok := mcpToolCall(name, input); ok {
		return ec, nil
	}
	if prog, ok := claudeForeign[name]; ok {
		// Foreign code: the bash surface, as the program running it, where
		// the program catalog floors it (<foreign-code>): the code is shown
		// whole, and only a rule naming the program with its code option
		// (or a deny) decides it.
		code, _, err := jsonobj.Object(input).Str("command", "tool_input.")
		if err != nil {
			return hosts.Call{}, err
		}
		if strings.TrimSpace(code) == "" {
			return hosts.Call{}, fmt.Errorf("the %s call has no command", name)
		}
		cmd := prog + " '" + strings.ReplaceAll(code, "'", `'\''`) + "'"
		return hosts.Call{Tool: "bash", Input: map[string]any{"command": cmd}}, nil
	}
	switch name {
	case "Bash":
		return hosts.Call{Tool: "bash", Input: input, Rewrite: true}, nil
	case "ExitWorktree":
		// Removing the worktree deletes it, its uncommitted work with it:
		// an edit of the directory the session is in.
		if action, _, err := jsonobj.Object(input).Str("action", "tool_input."); err != nil {
			return hosts.Call{}, err
		} else if action != "keep" {
			return hosts.Call{Tool: "edit", Input: map[string]any{"path": "."}}, nil
		}
		return hosts.Call{Tool: name, Input: input}, nil
	case "Monitor":
		// Monitor watches the output of a shell command (decided as bash)
		// or a WebSocket (its URL is the value on the Monitor surface).
		if cmd, ok := input["command"]; ok && cmd != "" {
			return hosts.Call{Tool: "bash", Input: input}, nil
		}
		return hosts.Call{Tool: name, Input: input}, nil
	case "Skill":
		// Claude Code's Skill tool loads a skill by name: the skill surface.
		if err := renameField(input, name, "skill", "name"); err != nil {
			return hosts.Call{}, err
		}
		return hosts.Call{Tool: "skill", Input: input}, nil
	}
	m, ok := claudePathTools[name]
	if !ok {
		// WebFetch, WebSearch, the built-in allowed tools and any other
		// tool keep their Claude name as their surface.
		return hosts.Call{Tool: name, Input: input}, nil
	}
	if err := renameField(input, name, m.pathField, "path"); err != nil {
		return hosts.Call{}, err
	}
	return hosts.Call{Tool: m.tool, Input: input}, nil
}

func (s *Server) claudePrompt(ev claudeEvent, out io.Writer) error {
	name, ok := gates.SkillName(ev.Prompt)
	if !ok {
		return nil
	}
	pol := s.currentPolicy()
	c := &gates.Call{ToolCallID: "prompt", Input: map[string]any{"text": ev.Prompt}, Cwd: s.st.cwd, Home: s.opts.Home, AgentDir: s.opts.AgentDir}
	res := gates.Check(gates.Request{Call: c, Gates: gates.InputGates, Resolver: resolver{p: pol}})
	if err := (reporter{s: s}).Audit(gates.AuditRecord{Event: "decision", ToolCallID: "prompt", Action: res.State,
		Reason: res.Reason, Gate: protocol.GateSkillInput, Surface: "skill", Value: name, State: res.State}); err != nil {
		return err
	}
	if res.State == "allow" {
		return nil
	}
	// A prompt hook cannot ask: an ask blocks, like a host without a UI.
	return json.NewEncoder(out).Encode(map[string]string{"decision": "block", "reason": res.Reason})
}

func (s *Server) closeAudit() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.audit != nil {
		_ = s.audit.Close()
	}
}

func (s *Server) auditErr() error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.audit == nil {
		return fmt.Errorf("no audit log")
	}
	return s.audit.Err()
}
