package hook

// A call's params are read here, once, into the decoded call the gates
// decide: readParams (or fastParams, of what protocol.DecodeToolCall
// read in one pass), then decodeFields with the input's facts
// (readInput), the input's shape checked on the way. Nothing here goes
// back to the wire's bytes.

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/toolgate/toolgate/gates"
	"github.com/toolgate/toolgate/gates/shell"
	"github.com/toolgate/toolgate/hook/audit"
	"github.com/toolgate/toolgate/hook/hosts"
	"github.com/toolgate/toolgate/internal/jsonobj"
	"github.com/toolgate/toolgate/policy"
	"github.com/toolgate/toolgate/protocol"
)

// callFields are the JSON names of protocol.ToolCallParams' fields (a test
// holds them to the type).
var callFields = [...]string{"toolCallId", "toolName", "input", "agentName", "cwd", "hasUI"}

// checkCallKeys is protocol.CheckKeys of tool_call params (of these
// keys) along protocol.ToolCallParams, without reflection: the first key,
// in key order, that nearly names a field (and is none) is an error. No
// field of ToolCallParams is walked further (strings, a bool and the raw
// input). Its plain twin is protocol.CheckKeys; TestCheckCallKeysIsCheckKeys
// keeps them equal.
func checkCallKeys(keys []string) error { return nearKeyIn(keys, callFields[:], "") }

// nearKeyIn is the first of keys, in key order, that nearly names one of
// fields (protocol.NearKey) without being it, as a KeyError at where; nil
// when there is none. Key order makes the error the same whatever order
// the keys come in (a map's). nearKeyOf is nearKeyIn of a map's keys. They
// take no iterator: its loop's closure would put what they find on the
// heap on every call, whether they find anything or not.
func nearKeyIn(keys, fields []string, where string) error {
	var near *protocol.KeyError
	for _, k := range keys {
		near = nearer(near, k, fields, where)
	}
	if near != nil {
		return near
	}
	return nil
}

func nearKeyOf[V any](m map[string]V, fields []string, where string) error {
	var near *protocol.KeyError
	for k := range m {
		near = nearer(near, k, fields, where)
	}
	if near != nil {
		return near
	}
	return nil
}

// nearer is near, or k's error when k nearly names one of fields and
// comes before near's key in key order (or near is nil).
func nearer(near *protocol.KeyError, k string, fields []string, where string) *protocol.KeyError {
	if near != nil && k >= near.Key {
		return near
	}
	for _, f := range fields {
		if f != "" && k != f && protocol.NearKey(k, f) {
			return &protocol.KeyError{Where: where, Key: k, Want: f}
		}
	}
	return near
}

// shellFor returns the shell command a call carries: bash's command, or the
// command argument of a configured shellTools alias.
func shellFor(toolName string, input jsonobj.Object, p *policy.Policy) (cmd, workdir string, isShell bool, err error) {
	field, wd := "command", ""
	if toolName != "bash" {
		st, ok := p.ShellTools[toolName]
		if !ok {
			return "", "", false, nil
		}
		field, wd = st.CommandArgument, st.WorkdirArgument
	}
	cmd, present, err := input.Str(field, "input.")
	if err != nil {
		return "", "", true, err
	}
	if !present && toolName != "bash" {
		// The configured command argument is not there: the command the
		// tool would run is somewhere toolgate does not look.
		return "", "", true, fmt.Errorf("input.%s (the shellTools command argument of %s) is missing", field, toolName)
	}
	if wd != "" {
		workdir, _, err = input.Str(wd, "input.")
	}
	return cmd, workdir, true, err
}

// gatesCall is the decoded call and the policy it is decided with.
type gatesCall struct {
	call   *gates.Call // &c
	c      gates.Call
	hasUI  bool
	policy *policy.Policy
	input  any
	// locs are where the call's policy files are, to read the policy of a
	// later moment (an answer is checked against the policy of its time).
	locs policy.Locations
	// res, shell and pre are the call's resolver, shell command and
	// prechecked work, held here rather than allocated each on its own.
	res     resolver
	resUsed bool
	shell   gates.ShellCommand
	pre     prechecked
}

// decodeCall reads tool_call/check params strictly (a call toolgate
// cannot read unambiguously is invalid).
func (s *Server) decodeCall(raw []byte) (*gatesCall, string, error) {
	inputRaw, err := jsonobj.CheckUnambiguous(raw)
	if err != nil {
		return nil, "", err
	}
	params, err := jsonobj.Decode(raw)
	if err != nil {
		return nil, "", err
	}
	return s.decodeParams(params, inputRaw)
}

// callParams are the fields of tool_call params toolgate reads, read
// (each of its type).
type callParams struct {
	id, name, agentName, cwd string
	hasAgentName, hasCwd     bool
	hasUI, hasHasUI          bool
	input                    jsonobj.Object
}

// decodeParams is decodeCall after the params' text was read: params
// decoded (objects as map[string]any, numbers as json.Number) and checked
// unambiguous, inputRaw the raw bytes of params.input.
func (s *Server) decodeParams(params jsonobj.Object, inputRaw []byte) (*gatesCall, string, error) {
	cp, err := readParams(params)
	if err != nil {
		return nil, cp.id, err
	}
	return s.decodeFields(cp, inputRaw, nil)
}

// readParams reads the fields of params toolgate reads, checking each as
// it goes (the first fault is the error; cp.id is the id read so far).
func readParams(params jsonobj.Object) (cp callParams, err error) {
	if cp.id, _, err = params.Str("toolCallId", ""); err != nil {
		return cp, err
	}
	if err := nearKeyOf(params, callFields[:], ""); err != nil {
		return cp, err
	}
	if cp.name, _, err = params.Str("toolName", ""); err != nil {
		return cp, err
	}
	if cp.id == "" {
		return cp, fmt.Errorf("toolCallId is missing")
	}
	if cp.name == "" {
		return cp, fmt.Errorf("toolName is missing")
	}
	input, hasInput, err := params.Obj("input", "")
	if err != nil {
		return cp, err
	}
	if !hasInput {
		return cp, fmt.Errorf("input is missing")
	}
	cp.input = input
	if cp.agentName, cp.hasAgentName, err = params.Str("agentName", ""); err != nil {
		return cp, err
	}
	if cp.cwd, cp.hasCwd, err = params.Str("cwd", ""); err != nil {
		return cp, err
	}
	if cp.hasCwd && !filepath.IsAbs(cp.cwd) {
		return cp, fmt.Errorf("cwd %q is not an absolute path", cp.cwd)
	}
	hasUI, err := params.Bool("hasUI", "")
	if err != nil {
		return cp, err
	}
	if hasUI != nil {
		cp.hasUI, cp.hasHasUI = *hasUI, true
	}
	return cp, nil
}

// fastParams is readParams of the params DecodeToolCall read: each field
// is of its type already (it takes nothing else), so only the checks of
// their values are left, in readParams' order. Its plain twin is
// readParams; TestDecodeToolCallReadsAsTheGeneralPath and FuzzDecodeToolCall
// keep them equal (the fields and the first fault).
func fastParams(fc *protocol.FastCall) (callParams, error) {
	cp := callParams{id: fc.ToolCallID, name: fc.ToolName, agentName: fc.AgentName, cwd: fc.Cwd,
		hasAgentName: fc.Has&protocol.ParamAgentName != 0, hasCwd: fc.Has&protocol.ParamCwd != 0,
		hasUI: fc.HasUI, hasHasUI: fc.Has&protocol.ParamHasUI != 0, input: jsonobj.Object(fc.InputValue)}
	// Keys it does not read: one that nearly names a field is an error
	// (checkCallKeys of the params' keys; those it reads are fields).
	if err := checkCallKeys(fc.Other); err != nil {
		return cp, err
	}
	switch {
	case cp.id == "":
		return cp, fmt.Errorf("toolCallId is missing")
	case cp.name == "":
		return cp, fmt.Errorf("toolName is missing")
	case fc.Has&protocol.ParamInput == 0:
		return cp, fmt.Errorf("input is missing")
	case cp.hasCwd && !filepath.IsAbs(cp.cwd):
		return cp, fmt.Errorf("cwd %q is not an absolute path", cp.cwd)
	}
	return cp, nil
}

// decodeFast is decodeParams of a call DecodeToolCall read. Its plain twin
// is decodeCall of the same params; TestDecodeToolCallReadsAsTheGeneralPath
// and TestFastPathAnswersAsBefore keep them equal.
func (s *Server) decodeFast(fc *protocol.FastCall) (*gatesCall, string, error) {
	cp, err := fastParams(fc)
	if err != nil {
		return nil, cp.id, err
	}
	// The fast path decides one call at a time, each answered before the
	// next is read: the decoded call of the one before is used again
	// (fastToolCall gives it back once its answer is framed).
	into := s.fastGC
	s.fastGC = nil
	return s.decodeFields(cp, fc.Input, into)
}

// decodeFields is decodeParams once the fields are read: cp.input is the
// input decoded, inputRaw its bytes; the call is decoded into into when
// that is not nil (a decoded call no one holds any more), else into a new
// one.
func (s *Server) decodeFields(cp callParams, inputRaw []byte, into *gatesCall) (*gatesCall, string, error) {
	id, name := cp.id, cp.name
	st := s.snapshot()
	if cp.hasAgentName {
		st.agentName = cp.agentName
	}
	if cp.hasCwd {
		st.cwd = filepath.Clean(cp.cwd)
	}
	if cp.hasHasUI {
		st.hasUI = cp.hasUI
	}
	locs := s.locations(st)
	pol := s.loader.Policy(locs)
	s.reportWarnings(pol, false)
	in, err := readInput(name, cp.input, inputRaw, pol, st.host.Name)
	if err != nil {
		return nil, id, err
	}
	input, inputRaw := in.input, in.raw
	// The call and the decoded call are one allocation.
	gc := into
	if gc == nil {
		gc = new(gatesCall)
	}
	*gc = gatesCall{c: gates.Call{ToolCallID: id, ToolName: name, Input: input, RawInput: inputRaw, Cwd: st.cwd, Home: s.opts.Home,
		AgentDir: s.opts.AgentDir, AgentName: st.agentName, Skills: st.skills, MCPServers: st.mcpServers,
		InfraDirs: append(append([]string(nil), st.infraDirs...), pol.InfraReadPaths...), Dirs: s.dirs, Memo: &s.memo},
		hasUI: st.hasUI, policy: pol, locs: locs}
	gc.call = &gc.c
	c := gc.call
	if name == "mcp" {
		c.MCPServers = mergeNames(st.mcpServers, pol.MCPServers)
	}
	c.Protected = s.protectedFor(st.cwd, s.auditPath(pol))
	if in.isShell {
		c.Shell = analyzeShellInto(&gc.shell, &s.shells, in.cmd, in.workdir, st.cwd, s.opts.Home)
		c.Confined = pol.Sandbox.Mode != policy.SandboxOff
	} else {
		c.Value = in.value
	}
	gc.input = in.bounded
	return gc, id, nil
}

// analyzeShell parses a shell command once. A workdir argument acts as if
// the command started with `cd workdir`; the workdir is itself a path word.
func analyzeShell(cache *shell.Cache, cmd, workdir, cwd, home string) *gates.ShellCommand {
	return analyzeShellInto(new(gates.ShellCommand), cache, cmd, workdir, cwd, home)
}

// analyzeShellInto is analyzeShell into sc.
func analyzeShellInto(sc *gates.ShellCommand, cache *shell.Cache, cmd, workdir, cwd, home string) *gates.ShellCommand {
	dir := cwd
	var extra []shell.PathWord
	if workdir != "" {
		if filepath.IsAbs(workdir) {
			dir = filepath.Clean(workdir)
		} else {
			dir = filepath.Join(cwd, workdir)
		}
		extra = append(extra, shell.PathWord{Raw: workdir, Value: dir, Known: true, Dir: cwd})
	}
	a, stamp := cache.AnalyzeStamped(cmd, shell.Options{Cwd: dir, Home: home})
	if extra != nil {
		a.Paths = append(extra, a.Paths...) // a new slice: the cached analysis is shared
	} else {
		a.Paths = a.Paths[:len(a.Paths):len(a.Paths)] // shared: an append copies it
	}
	*sc = gates.ShellCommand{Command: cmd, Workdir: workdir, Analysis: a, Stamp: stamp}
	return sc
}

// checkInputKeys rejects an input key that nearly names a field toolgate
// reads for the tool ("Command" for bash's "command", "Path" for a path):
// the host might read it as that field while toolgate did not look at it.
func checkInputKeys(tool string, input jsonobj.Object, p *policy.Policy) error {
	var read []string
	switch tool {
	case "bash":
		read = []string{"command"}
	case "mcp":
		read = []string{"tool", "server", "connect", "describe", "search", "arguments"}
	case "skill":
		read = []string{"name"}
	case "grep", "find":
		read = []string{"path", "glob", "pattern"}
	default:
		read = []string{"path"}
	}
	if st, ok := p.ShellTools[tool]; ok {
		read = append(read, st.CommandArgument, st.WorkdirArgument)
	}
	if err := nearKeyOf(input, read, "input"); err != nil {
		return err
	}
	if args, ok := input["arguments"].(map[string]any); ok && tool == "mcp" {
		return nearKeyOf(args, []string{"path"}, "input.arguments")
	}
	return nil
}

// checkToolFields rejects a field toolgate reads that has the wrong type.
func checkToolFields(tool string, input jsonobj.Object) error {
	switch tool {
	case "mcp":
		for _, f := range []string{"tool", "server", "connect", "describe", "search"} {
			if _, _, err := input.Str(f, "input."); err != nil {
				return err
			}
		}
		args, ok, err := input.Obj("arguments", "input.")
		if err != nil {
			if input["arguments"] == nil {
				return nil
			}
			return err
		}
		if ok {
			if _, _, err := args.Str("path", "input.arguments."); err != nil {
				return err
			}
		}
	case "skill":
		_, _, err := input.Str("name", "input.")
		return err
	case "bash":
		_, _, err := input.Str("command", "input.")
		return err
	default:
		_, _, err := input.Str("path", "input.")
		return err
	}
	return nil
}

func boundedInput(input []byte) any {
	if len(input) == 0 {
		return nil
	}
	if len(input) <= maxAuditInput {
		return json.RawMessage(input)
	}
	return truncatedInput{bytes: len(input), head: string(input[:maxAuditInput])}
}

// truncatedInput is what the audit log records of an input longer than
// maxAuditInput: its length and its first maxAuditInput bytes, written as
// Marshal writes the map {"truncated": true, "bytes": …, "head": …} (keys
// sorted), by hand (appendTo: no reflection, no sort, for every large
// write). TestTruncatedInputIsTheMap keeps the two equal.
type truncatedInput struct {
	bytes int
	head  string
}

// appendTo appends the record's JSON of t.
func (t truncatedInput) appendTo(b []byte) []byte {
	b = append(b, `{"bytes":`...)
	b = strconv.AppendInt(b, int64(t.bytes), 10)
	b = append(b, `,"head":`...)
	b = audit.AppendJSONString(b, t.head)
	return append(b, `,"truncated":true}`...)
}

// MarshalJSON is appendTo, for any other encoder of a record.
func (t truncatedInput) MarshalJSON() ([]byte, error) { return t.appendTo(nil), nil }

// inputFacts are what decodeParams reads of a call's input: the input
// decoded, its raw bytes, and the shell command (or the host's value) it
// carries, once the checks of its keys and fields passed.
type inputFacts struct {
	input        jsonobj.Object
	raw          []byte
	cmd, workdir string
	isShell      bool
	value        string
	bounded      any // boundedInput(raw)
}

// readInput checks a decoded input (checkInputKeys, checkToolFields,
// shellFor, in decodeParams' order) and reads its facts.
func readInput(name string, input jsonobj.Object, raw []byte, pol *policy.Policy, host string) (in inputFacts, err error) {
	if err := readPathAliases(name, input, pol); err != nil {
		return in, err
	}
	if err := checkInputKeys(name, input, pol); err != nil {
		return in, err
	}
	if err := checkToolFields(name, input); err != nil {
		return in, err
	}
	if err := checkInputShape(name, input); err != nil {
		return in, err
	}
	in = inputFacts{input: input, raw: raw, bounded: boundedInput(raw)}
	if in.cmd, in.workdir, in.isShell, err = shellFor(name, input, pol); err != nil {
		return inputFacts{}, err
	}
	if f, ok := hosts.ProtocolHostValues[host][name]; ok && !in.isShell {
		in.value = f(input)
	}
	return in, nil
}

// Input shape: a call whose input lacks the field its tool acts
// on, or carries it with the wrong type, is never decided as if the field
// were empty: it blocks as invalid_request with a reason naming the field.

// pathAliases are the names hosts give a path-bearing tool's path; each is
// read as "path".
var pathAliases = [...]string{"file_path", "filePath"}

// requiredField is the field tool acts on and must carry ("" for none):
// bash runs its command, read/write/edit act on their path. grep, find and
// ls without a path act on the working directory; MCP calls without a
// target ask for the status; other tools are judged on
// their name.
func requiredField(tool string) string {
	switch tool {
	case "bash":
		return "command"
	case "read", "write", "edit":
		return "path"
	}
	return ""
}

// readPathAliases renames a host's alias of "path" to "path" in input,
// for every tool that is no shell, MCP or skill call; an alias beside the
// field (or beside another alias) is an invalid request: the host may act
// on either.
func readPathAliases(tool string, input jsonobj.Object, pol *policy.Policy) error {
	switch tool {
	case "bash", "mcp", "skill":
		return nil
	}
	if _, ok := pol.ShellTools[tool]; ok {
		return nil
	}
	found := ""
	if _, ok := input["path"]; ok {
		found = "path"
	}
	for _, alias := range pathAliases {
		v, ok := input[alias]
		if !ok {
			continue
		}
		if found != "" {
			return fmt.Errorf("input has both %s and %s: the host may act on either", found, alias)
		}
		found = alias
		delete(input, alias)
		input["path"] = v
	}
	return nil
}

// checkInputShape reports the required field tool's input lacks, or
// carries empty where emptiness would be read as "nothing" (a path of
// only spaces).
func checkInputShape(tool string, input jsonobj.Object) error {
	field := requiredField(tool)
	if field == "" {
		return nil
	}
	v, ok := input[field]
	if !ok {
		return fmt.Errorf("input.%s is missing: %s acts on its %s, and a call without it is not decided as if it were empty", field, tool, field)
	}
	s, isStr := v.(string)
	if !isStr {
		return &jsonobj.FieldError{Field: "input." + field, Want: "a string", Got: v}
	}
	if field == "path" && strings.TrimSpace(s) == "" {
		return fmt.Errorf("input.path is empty: %s acts on a path", tool)
	}
	return nil
}
