package opencodeplugin_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/toolgate/toolgate/examples/internal/fakemodel"
	"github.com/toolgate/toolgate/examples/internal/hoste2e"
)

// fakeOpenAI is a scripted OpenAI-compatible chat completions API (SSE, as
// OpenCode's @ai-sdk/openai-compatible provider needs) on 127.0.0.1. The
// step it plays is the number of tool results already in the conversation;
// a request whose tools lack the step's tool (the title call) gets text.
// The tool call of step N has the id call_N.
type fakeOpenAI struct {
	url string

	mu       sync.Mutex // guards script (a test sets it while a server may read it), requests and raw
	script   []fakemodel.Step
	requests []chatRequest
	raw      []string
}

type chatRequest struct {
	Messages []struct {
		Role       string `json:"role"`
		Content    any    `json:"content"`
		ToolCallID string `json:"tool_call_id"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

func startFakeOpenAI(t *testing.T, script []fakemodel.Step) *fakeOpenAI {
	t.Helper()
	f := &fakeOpenAI{script: script}
	f.url = hoste2e.Serve(t, http.HandlerFunc(f.serve)) + "/v1"
	return f
}

func (f *fakeOpenAI) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		w.WriteHeader(http.StatusNotFound)
		return
	}
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.requests = append(f.requests, req)
	f.raw = append(f.raw, string(body))
	script := f.script
	f.mu.Unlock()

	results := 0
	for _, m := range req.Messages {
		if m.Role == "tool" {
			results++
		}
	}
	if len(script) == 0 {
		http.Error(w, "the fake model has no script yet", http.StatusServiceUnavailable)
		return
	}
	st := script[min(results, len(script)-1)]
	has := false
	for _, tl := range req.Tools {
		has = has || tl.Function.Name == st.Tool
	}
	w.Header().Set("content-type", "text/event-stream")
	chunk := func(delta map[string]any, finish any) {
		j, _ := json.Marshal(map[string]any{"id": "fake", "object": "chat.completion.chunk", "created": 1, "model": "fake-model",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
		fmt.Fprintf(w, "data: %s\n\n", j)
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil)
	if st.Tool != "" && has {
		args, _ := json.Marshal(st.Args)
		chunk(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "id": fmt.Sprintf("call_%d", results), "type": "function",
			"function": map[string]any{"name": st.Tool, "arguments": string(args)}}}}, nil)
		chunk(map[string]any{}, "tool_calls")
	} else {
		text := st.Text
		if text == "" {
			text = "ok"
		}
		chunk(map[string]any{"content": text}, nil)
		chunk(map[string]any{}, "stop")
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// setScript replaces the steps the fake plays.
func (f *fakeOpenAI) setScript(script []fakemodel.Step) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.script = script
}

// toolResult is what the model was told about tool call id, from the
// latest request that carries it ("" if none did).
func (f *fakeOpenAI) toolResult(id string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := len(f.requests) - 1; i >= 0; i-- {
		for _, m := range f.requests[i].Messages {
			if m.Role == "tool" && m.ToolCallID == id {
				if s, ok := m.Content.(string); ok {
					return s
				}
				j, _ := json.Marshal(m.Content)
				return string(j)
			}
		}
	}
	return ""
}

// anyRequestContains reports whether any request body contains s.
func (f *fakeOpenAI) anyRequestContains(s string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, r := range f.raw {
		if strings.Contains(r, s) {
			return true
		}
	}
	return false
}

// The fake model is set up before its script is known and given one while
// the CLI may already be asking it (go test -race sees the two meet). This
// runs without the real-host switch: it needs no CLI.
func TestFakeModelScriptWhileServing(t *testing.T) {
	f := startFakeOpenAI(t, nil)
	body := `{"messages": [{"role": "user", "content": "hi"}], "tools": [{"function": {"name": "bash"}}]}`
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				resp, err := http.Post(f.url+"/chat/completions", "application/json", strings.NewReader(body))
				if err != nil {
					t.Error(err)
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
	}
	f.setScript([]fakemodel.Step{{Tool: "bash", Args: map[string]any{"command": "ls"}}})
	wg.Wait()
	resp, err := http.Post(f.url+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(got), `"name":"bash"`) || !strings.Contains(string(got), "call_0") {
		t.Fatalf("with its script, the fake model does not call bash:\n%s", got)
	}
}
