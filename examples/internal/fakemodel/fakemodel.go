// Package fakemodel is the scripted fake model that the end-to-end suites
// of the OpenAI-speaking hosts (examples/codex, examples/copilot-cli,
// examples/qwen-code) run their real CLI against, on 127.0.0.1: the
// Responses API (Codex) and chat completions (Copilot CLI, Qwen Code),
// streamed as server-sent events or answered whole.
//
// The step it plays is the number of tool results already in the
// conversation, so it keeps no state; a request whose tools lack the
// step's tool (a title or summary side call) gets the step's text.
//
// Step and AnyContains also serve the suites with a fake of their own
// (examples/gemini-cli, examples/opencode-plugin; AnyContains in
// examples/claude-code too).
package fakemodel

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/toolgate/toolgate/examples/internal/hoste2e"
)

// Step is one turn of the fake model: a tool call (Args as JSON
// arguments), or text.
type Step struct {
	Tool string
	Args map[string]any
	Text string
}

// Fake is a running fake model.
type Fake struct {
	// URL is the base URL, ending in /v1.
	URL    string
	script []Step

	mu       sync.Mutex
	requests []request
}

// request is what the fake keeps of one model request: the names of the
// tools offered and the tool results of the conversation, in order.
type request struct {
	tools   []string
	results []string
}

// Start serves the script until the test ends.
func Start(t *testing.T, script []Step) *Fake {
	t.Helper()
	f := &Fake{script: script}
	f.URL = hoste2e.Serve(t, http.HandlerFunc(f.serve)) + "/v1"
	return f
}

// Results are the tool results of the last request that had any: what the
// model was told each call did.
func (f *Fake) Results() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := len(f.requests) - 1; i >= 0; i-- {
		if r := f.requests[i].results; len(r) > 0 {
			return r
		}
	}
	return nil
}

// ToolNames are the tools the first request with tools offered.
func (f *Fake) ToolNames() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, r := range f.requests {
		if len(r.tools) > 0 {
			return r.tools
		}
	}
	return nil
}

func (f *Fake) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	path := strings.TrimSuffix(r.URL.Path, "/")
	switch {
	case r.Method == http.MethodGet && strings.HasSuffix(path, "/models"):
		w.Header().Set("content-type", "application/json")
		_, _ = io.WriteString(w, `{"object":"list","data":[{"id":"fake-model","object":"model","owned_by":"fake"}]}`)
	case r.Method == http.MethodPost && strings.HasSuffix(path, "/responses"):
		f.responses(w, body)
	case r.Method == http.MethodPost && strings.HasSuffix(path, "/chat/completions"):
		f.chat(w, body)
	default:
		http.Error(w, `{"error":{"message":"fake: not found"}}`, http.StatusNotFound)
	}
}

func (f *Fake) record(req request) Step {
	f.mu.Lock()
	f.requests = append(f.requests, req)
	f.mu.Unlock()
	st := f.script[min(len(req.results), len(f.script)-1)]
	if st.Tool != "" && !contains(req.tools, st.Tool) {
		return Step{Text: "ok"}
	}
	if st.Tool == "" && st.Text == "" {
		st.Text = "ok"
	}
	return st
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// text is a message content: a string, or a list of text parts.
func text(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// chat answers a chat completions request (Copilot CLI, Qwen Code).
func (f *Fake) chat(w http.ResponseWriter, body []byte) {
	var req struct {
		Model    string `json:"model"`
		Stream   bool   `json:"stream"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var rec request
	for _, t := range req.Tools {
		rec.tools = append(rec.tools, t.Function.Name)
	}
	for _, m := range req.Messages {
		if m.Role == "tool" {
			rec.results = append(rec.results, text(m.Content))
		}
	}
	st := f.record(rec)
	n := len(rec.results)
	id := fmt.Sprintf("chatcmpl-fake-%d", n)
	model := req.Model
	if model == "" {
		model = "fake-model"
	}
	usage := map[string]int{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
	var call map[string]any
	if st.Tool != "" {
		args, _ := json.Marshal(st.Args)
		call = map[string]any{"id": fmt.Sprintf("call_fake_%d", n), "type": "function",
			"function": map[string]any{"name": st.Tool, "arguments": string(args)}}
	}
	finish := "stop"
	if call != nil {
		finish = "tool_calls"
	}
	if !req.Stream {
		msg := map[string]any{"role": "assistant", "content": st.Text}
		if call != nil {
			msg = map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{call}}
		}
		writeJSON(w, map[string]any{"id": id, "object": "chat.completion", "created": 1, "model": model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		return
	}
	w.Header().Set("content-type", "text/event-stream")
	chunk := func(delta map[string]any, finish any) {
		sse(w, "", map[string]any{"id": id, "object": "chat.completion.chunk", "created": 1, "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil)
	if call != nil {
		call["index"] = 0
		chunk(map[string]any{"tool_calls": []any{call}}, nil)
	} else {
		chunk(map[string]any{"content": st.Text}, nil)
	}
	chunk(map[string]any{}, finish)
	sse(w, "", map[string]any{"id": id, "object": "chat.completion.chunk", "created": 1, "model": model, "choices": []any{}, "usage": usage})
	_, _ = io.WriteString(w, "data: [DONE]\n\n")
}

// responses answers a Responses API request (Codex), always streamed.
func (f *Fake) responses(w http.ResponseWriter, body []byte) {
	var req struct {
		Input []struct {
			Type   string          `json:"type"`
			Output json.RawMessage `json:"output"`
		} `json:"input"`
		Tools []struct {
			Type  string `json:"type"`
			Name  string `json:"name"`
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var rec request
	for _, t := range req.Tools {
		if t.Name != "" {
			rec.tools = append(rec.tools, t.Name)
		}
		for _, sub := range t.Tools { // a namespace of tools
			rec.tools = append(rec.tools, sub.Name)
		}
		if t.Name == "" && t.Type != "" && t.Type != "namespace" {
			rec.tools = append(rec.tools, t.Type) // a hosted tool: web_search
		}
	}
	for _, in := range req.Input {
		if in.Type == "function_call_output" || in.Type == "custom_tool_call_output" {
			rec.results = append(rec.results, text(in.Output))
		}
	}
	st := f.record(rec)
	n := len(rec.results)
	var item map[string]any
	if st.Tool != "" {
		args, _ := json.Marshal(st.Args)
		item = map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_fake_%d", n), "call_id": fmt.Sprintf("call_fake_%d", n),
			"name": st.Tool, "arguments": string(args), "status": "completed"}
	} else {
		item = map[string]any{"type": "message", "id": fmt.Sprintf("msg_fake_%d", n), "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": st.Text, "annotations": []any{}}}}
	}
	rid := fmt.Sprintf("resp_fake_%d", n)
	w.Header().Set("content-type", "text/event-stream")
	sse(w, "response.created", map[string]any{"type": "response.created", "response": map[string]any{"id": rid}})
	sse(w, "response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": 0, "item": item})
	sse(w, "response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
	sse(w, "response.completed", map[string]any{"type": "response.completed", "response": map[string]any{"id": rid, "output": []any{item},
		"usage": map[string]any{"input_tokens": 10, "input_tokens_details": map[string]int{"cached_tokens": 0}, "output_tokens": 5,
			"output_tokens_details": map[string]int{"reasoning_tokens": 0}, "total_tokens": 15}}})
}

func sse(w io.Writer, event string, data any) {
	j, _ := json.Marshal(data)
	if event != "" {
		fmt.Fprintf(w, "event: %s\n", event)
	}
	fmt.Fprintf(w, "data: %s\n\n", j)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("content-type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// AnyContains reports whether any of list contains s.
func AnyContains(list []string, s string) bool {
	for _, x := range list {
		if strings.Contains(x, s) {
			return true
		}
	}
	return false
}
