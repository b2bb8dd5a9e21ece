package hook

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/rs/zerolog"

	"github.com/toolgate/toolgate/protocol"
)

// exactServer serves a session whose policy allows everything, so that a
// request toolgate reads is allowed and only a refused one blocks.
func exactServer(t *testing.T) (*client, string) {
	t.Helper()
	dir := t.TempDir()
	agentDir := filepath.Join(dir, "agent")
	writePiConfig(t, agentDir, `{"permission": {"*": "allow", "bash": {"*": "allow"}, "skill": {"*": "allow"}, "mcp": {"*": "allow"}, "external_directory": {"*": "allow"}}}`)
	s := New(Options{Cwd: dir, Home: dir, AgentDir: agentDir, AuditLog: filepath.Join(dir, "audit.jsonl"), Log: zerolog.Nop()})
	return servePipes(t, s), dir
}

// answer writes the request line (without its newline) and reads the
// answer to it, notifications passed over.
func (c *client) answer(t *testing.T, line string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(c.roundTrip(t, []byte(line+"\n")), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func (c *client) call(t *testing.T, method string, params any) map[string]any {
	t.Helper()
	line, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		t.Fatal(err)
	}
	return c.answer(t, string(line))
}

// keyCase is one kind of request the hook decodes, with a sample that it
// reads in full: every field of its type (walked by reflection) is present.
type keyCase struct {
	method string
	typ    reflect.Type // the params' type; nil for a tool input
	sample map[string]any
	// refused reports whether the answer refused the request.
	refused func(m map[string]any) bool
}

func blockedInvalid(m map[string]any) bool {
	r, _ := m["result"].(map[string]any)
	d, _ := r["decision"].(map[string]any)
	return r["action"] == "block" && d["resolution"] == "invalid_request"
}

func invalidParams(m map[string]any) bool {
	e, _ := m["error"].(map[string]any)
	return e["code"] == float64(protocol.CodeInvalidParams)
}

// TestExactKeysEverywhere: every key of everything the hook reads from the
// host, at every depth, given in another letter case (or with an
// underscore) is refused: tool_call and input block as invalid_request,
// initialize and check answer -32602 naming the key. Reflection checks that
// the samples cover every field of the types decoded, so a field added
// later is covered too.
func TestExactKeysEverywhere(t *testing.T) {
	c, dir := exactServer(t)
	toolCall := func(tool string, input map[string]any) map[string]any {
		return map[string]any{"toolCallId": "c1", "toolName": tool, "input": input, "agentName": "build", "cwd": dir, "hasUI": false}
	}
	cases := []keyCase{
		{protocol.MethodInitialize, reflect.TypeFor[protocol.InitializeParams](), map[string]any{
			"protocolVersion": 1, "cwd": dir, "hasUI": false, "agentName": "build", "sessionId": "s1",
			"skills":     []any{map[string]any{"name": "pdf", "path": filepath.Join(dir, "skills", "pdf", "SKILL.md")}},
			"mcpServers": []any{"github"}, "infrastructureDirs": []any{filepath.Join(dir, "infra")}, "projectTrusted": true, "confines": false,
			"host": map[string]any{"name": "pi", "version": "1.0"}}, invalidParams},
		{protocol.MethodToolCall, reflect.TypeFor[protocol.ToolCallParams](), toolCall("bash", map[string]any{"command": "ls"}), blockedInvalid},
		{protocol.MethodCheck, reflect.TypeFor[protocol.ToolCallParams](), toolCall("bash", map[string]any{"command": "ls"}), invalidParams},
		{protocol.MethodInput, reflect.TypeFor[protocol.InputParams](), map[string]any{"text": "/skill:pdf now", "source": "rpc", "agentName": "build"}, blockedInvalid},
		// Tool inputs: every field toolgate reads, per tool.
		{protocol.MethodToolCall, nil, toolCall("read", map[string]any{"path": "a.txt"}), blockedInvalid},
		{protocol.MethodToolCall, nil, toolCall("grep", map[string]any{"path": "src", "glob": "*.go", "pattern": "x"}), blockedInvalid},
		{protocol.MethodToolCall, nil, toolCall("skill", map[string]any{"name": "pdf"}), blockedInvalid},
		{protocol.MethodToolCall, nil, toolCall("my_tool", map[string]any{"path": "a.txt"}), blockedInvalid},
		{protocol.MethodToolCall, nil, toolCall("mcp", map[string]any{"tool": "github:list", "server": "github", "arguments": map[string]any{"path": "a.txt"}}), blockedInvalid},
		{protocol.MethodToolCall, nil, toolCall("mcp", map[string]any{"connect": "github"}), blockedInvalid},
		{protocol.MethodToolCall, nil, toolCall("mcp", map[string]any{"describe": "github:list"}), blockedInvalid},
		{protocol.MethodToolCall, nil, toolCall("mcp", map[string]any{"search": "x"}), blockedInvalid},
	}
	for _, tc := range cases {
		if tc.typ != nil {
			if missing := uncovered(tc.sample, tc.typ, "params"); len(missing) > 0 {
				t.Errorf("%s sample misses fields %v of %v", tc.method, missing, tc.typ)
			}
		}
		if m := c.call(t, tc.method, tc.sample); tc.refused(m) || m["error"] != nil {
			t.Fatalf("%s: the sample itself is refused: %v", tc.method, m)
		}
		for _, variant := range nearMisses(tc.sample, tc.typ == nil) {
			m := c.call(t, tc.method, variant.params)
			if !tc.refused(m) {
				t.Errorf("%s with key %q in place of %q: answered %v, want it refused", tc.method, variant.key, variant.want, m)
				continue
			}
			if tc.refused == nil || m["error"] != nil {
				if msg, _ := m["error"].(map[string]any)["message"].(string); !strings.Contains(msg, variant.key) {
					t.Errorf("%s: error %q does not name the key %q", tc.method, msg, variant.key)
				}
			}
		}
	}
}

// uncovered lists the fields of t (recursively) that sample does not give.
func uncovered(sample any, t reflect.Type, where string) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var out []string
	switch t.Kind() {
	case reflect.Struct:
		if t == reflect.TypeFor[json.RawMessage]() {
			return nil
		}
		m, _ := sample.(map[string]any)
		for name, ft := range protocol.JSONFields(t) {
			v, ok := m[name]
			if !ok {
				out = append(out, where+"."+name)
				continue
			}
			out = append(out, uncovered(v, ft, where+"."+name)...)
		}
	case reflect.Slice:
		if t == reflect.TypeFor[json.RawMessage]() {
			return nil
		}
		arr, _ := sample.([]any)
		if len(arr) == 0 && t.Elem().Kind() == reflect.Struct {
			return []string{where + "[0]"}
		}
		for _, e := range arr {
			out = append(out, uncovered(e, t.Elem(), where+"[]")...)
		}
	}
	return out
}

type nearMiss struct {
	key, want string
	params    map[string]any
}

// nearMisses returns the sample with one key respelled at a time: first
// letter's case flipped, all upper case, and snake case. With inputOnly,
// only keys inside "input" are respelled.
func nearMisses(sample map[string]any, inputOnly bool) []nearMiss {
	var out []nearMiss
	var walk func(v any, path []string, inInput bool)
	walk = func(v any, path []string, inInput bool) {
		switch v := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				sub := append(append([]string(nil), path...), k)
				if !inputOnly || inInput {
					for _, alt := range respell(k) {
						out = append(out, nearMiss{key: alt, want: k, params: renamed(sample, sub, alt)})
					}
				}
				walk(v[k], sub, inInput || (len(path) == 0 && k == "input"))
			}
		case []any:
			for i, e := range v {
				walk(e, append(append([]string(nil), path...), "#"+string(rune('0'+i))), inInput)
			}
		}
	}
	walk(sample, nil, false)
	return out
}

func respell(k string) []string {
	r := []rune(k)
	first := r[0]
	if unicode.IsUpper(first) {
		r[0] = unicode.ToLower(first)
	} else {
		r[0] = unicode.ToUpper(first)
	}
	alts := []string{string(r), strings.ToUpper(k)}
	var snake strings.Builder
	for _, c := range k {
		if unicode.IsUpper(c) {
			snake.WriteByte('_')
			c = unicode.ToLower(c)
		}
		snake.WriteRune(c)
	}
	if snake.String() != k {
		alts = append(alts, snake.String())
	}
	return alts
}

// renamed copies v with the key at path renamed to alt.
func renamed(v any, path []string, alt string) map[string]any {
	var cp func(v any, path []string) any
	cp = func(v any, path []string) any {
		switch v := v.(type) {
		case map[string]any:
			out := make(map[string]any, len(v))
			for k, e := range v {
				if len(path) > 0 && k == path[0] {
					if len(path) == 1 {
						out[alt] = e
						continue
					}
					out[k] = cp(e, path[1:])
					continue
				}
				out[k] = e
			}
			return out
		case []any:
			out := make([]any, len(v))
			copy(out, v)
			if len(path) > 0 && strings.HasPrefix(path[0], "#") {
				i := int(path[0][1] - '0')
				out[i] = cp(v[i], path[1:])
			}
			return out
		}
		return v
	}
	return cp(v, path).(map[string]any)
}
