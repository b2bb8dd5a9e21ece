package hook

import (
	"fmt"
	"math/rand"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/jsonobj"
	"github.com/toolgate/toolgate/policy"
	"github.com/toolgate/toolgate/protocol"
)

// TestInputMemoReadsAsBefore: whatever came before, the facts the memo
// gives for an input are those read afresh from it (readInput of the
// decoded input): for the same bytes under another tool name, policy
// (shellTools) or host, and for inputs that differ in a byte, a key's
// case or a nested value.
func TestInputMemoReadsAsBefore(t *testing.T) {
	plain := &policy.Policy{}
	run := &policy.Policy{ShellTools: map[string]policy.ShellTool{"run": {Tool: "run", CommandArgument: "cmd", WorkdirArgument: "dir"}}}
	run2 := &policy.Policy{ShellTools: map[string]policy.ShellTool{"run": {Tool: "run", CommandArgument: "script"}}}
	pols := []*policy.Policy{plain, run, run2}
	hosts := []string{"", HostOpenCode, "other"}
	names := []string{"bash", "run", "read", "webfetch", "mcp", "skill", "websearch"}
	inputs := []string{`{"command":"git status"}`, `{"command":"git  status"}`, `{"Command":"git status"}`, `{"cmd":"ls","dir":"sub"}`,
		`{"cmd":"ls"}`, `{"script":"ls","cmd":"rm -rf x"}`, `{"path":"a.txt"}`, `{"Path":"a.txt"}`, `{"path":1}`, `{"url":"https://x.example/"}`,
		`{"query":"go"}`, `{"tool":"github:x","arguments":{"path":"/etc"}}`, `{"tool":"github:x","arguments":{"Path":"/etc"}}`,
		`{"tool":"github:x","arguments":null}`, `{"name":"s"}`, `{"name":2}`, `{}`, `{"command":"echo \u0041"}`, `{"command":"echo A"}`}
	var im inputMemo
	r := rand.New(rand.NewSource(3))
	for i := 0; i < 20000; i++ {
		name, raw := names[r.Intn(len(names))], []byte(inputs[r.Intn(len(inputs))])
		pol, host := pols[r.Intn(len(pols))], hosts[r.Intn(len(hosts))]
		if r.Intn(40) > 0 { // mostly one policy and host, so that entries are hit
			pol, host = run, HostOpenCode
		}
		input, ok := protocol.DecodeInput(raw)
		if !ok {
			t.Fatalf("%s does not decode", raw)
		}
		want, werr := readInput(name, jsonobj.Object(input), raw, pol, host)
		got, gerr := im.facts(name, append([]byte(nil), raw...), pol, host)
		if fmt.Sprint(werr) != fmt.Sprint(gerr) || !reflect.DeepEqual(want, got) {
			t.Fatalf("step %d: %s %s under %p/%q: %+v (%v), read afresh %+v (%v)", i, name, raw, pol, host, got, gerr, want, werr)
		}
	}
	if hits := im.hits; hits < 3000 {
		t.Fatalf("only %d steps were answered by the memo", hits)
	}
}

// TestInputMemoKeepsNoBuffer: the memo keeps its own copy of an input,
// never the reader's buffer it was given. An input is kept from its
// second sighting on.
func TestInputMemoKeepsNoBuffer(t *testing.T) {
	var im inputMemo
	pol := &policy.Policy{}
	if _, err := im.facts("bash", []byte(`{"command":"git status"}`), pol, ""); err != nil {
		t.Fatal(err)
	}
	if len(im.m) != 0 {
		t.Fatalf("an input seen once is kept: %d entries", len(im.m))
	}
	buf := []byte(`{"command":"git status"}`)
	in, err := im.facts("bash", buf, pol, "")
	if err != nil {
		t.Fatal(err)
	}
	copy(buf, `{"command":"rm -rf /x"}`)
	again, err := im.facts("bash", []byte(`{"command":"git status"}`), pol, "")
	if err != nil {
		t.Fatal(err)
	}
	if string(in.raw) != `{"command":"git status"}` || in.cmd != "git status" || again != in {
		t.Fatalf("kept %q (%q), again %p, second %p", in.raw, in.cmd, again, in)
	}
}

// TestInputSizeIsHigh: what an entry holds (the decoded input and its
// copy; the key is a string of its own) takes no more than inputSize says,
// for the inputs that decode to the most per byte of text.
func TestInputSizeIsHigh(t *testing.T) {
	fill := func(head, item, tail string) string {
		var b strings.Builder
		b.WriteString(head)
		for i := 0; b.Len() < maxMemoInput-len(tail)-len(item)-1; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strings.ReplaceAll(item, "#", strconv.Itoa(i)))
		}
		b.WriteString(tail)
		return b.String()
	}
	for _, raw := range []string{
		fill(`{"a":[`, `1`, `]}`), fill(`{"a":[`, `[]`, `]}`), fill(`{"a":[`, `{}`, `]}`), fill(`{"a":[`, `""`, `]}`),
		fill(`{"a":[`, `true`, `]}`), fill(`{"a":[`, `[1]`, `]}`), fill(`{"a":[`, `{"b":1}`, `]}`), fill(`{"a":[`, `{"b":1,"c":[]}`, `]}`),
		fill(`{"a":[`, `{"#":[]}`, `]}`), `{"command":"git status"}`, `{}`,
	} {
		input := []byte(raw)
		if _, ok := protocol.DecodeInput(input); !ok {
			t.Fatalf("%.80s… does not decode", raw)
		}
		const n = 20
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for i := 0; i < n; i++ {
			if _, err := freshFacts("acme_deploy", input, &policy.Policy{}, ""); err != nil { // a tool that requires no field
				t.Fatal(err)
			}
		}
		runtime.ReadMemStats(&after)
		per := int(after.TotalAlloc-before.TotalAlloc) / n
		if key := len(raw) + 5; per+key > inputSize(key) {
			t.Errorf("%.40s… (%d bytes): an entry takes %d bytes, estimated %d", raw, len(raw), per+key, inputSize(key))
		}
	}
}
