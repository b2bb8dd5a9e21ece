package claudecode_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"

	"github.com/toolgate/toolgate/examples/internal/hoste2e"
)

// step is one turn of the fake model: a tool call, or text.
type step struct {
	Tool  string
	Input map[string]any
	Text  string
}

// fakeAnthropic is a scripted Anthropic Messages API on 127.0.0.1. The
// step it plays is the number of tool results already in the
// conversation, so it keeps no state but the requests it logs; a request
// whose tools lack the step's tool (a side call) gets text.
type fakeAnthropic struct {
	url    string
	script []step

	mu       sync.Mutex
	requests []messagesRequest
	ids      int
}

type messagesRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

// toolResults are the tool_result blocks of the conversation, as JSON.
func (r messagesRequest) toolResults() []string {
	var out []string
	for _, m := range r.Messages {
		var blocks []map[string]any
		if m.Role != "user" || json.Unmarshal(m.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			if b["type"] == "tool_result" {
				j, _ := json.Marshal(b)
				out = append(out, string(j))
			}
		}
	}
	return out
}

func startFakeAnthropic(t *testing.T, script []step) *fakeAnthropic {
	t.Helper()
	f := &fakeAnthropic{script: script}
	f.url = hoste2e.Serve(t, http.HandlerFunc(f.serve))
	return f
}

func (f *fakeAnthropic) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
		w.Header().Set("content-type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"type":"error","error":{"type":"not_found_error","message":"fake: not found"}}`)
		return
	}
	var req messagesRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.requests = append(f.requests, req)
	f.ids++
	id := f.ids
	f.mu.Unlock()

	st := f.script[min(len(req.toolResults()), len(f.script)-1)]
	hasTool := false
	for _, tl := range req.Tools {
		hasTool = hasTool || tl.Name == st.Tool
	}
	var block map[string]any
	stop := "end_turn"
	if st.Tool != "" && hasTool {
		block = map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_fake_%d", id), "name": st.Tool, "input": st.Input}
		stop = "tool_use"
	} else {
		text := st.Text
		if text == "" {
			text = "ok"
		}
		block = map[string]any{"type": "text", "text": text}
	}
	msg := map[string]any{"id": fmt.Sprintf("msg_fake_%d", id), "type": "message", "role": "assistant", "model": req.Model,
		"stop_reason": nil, "stop_sequence": nil, "usage": map[string]int{"input_tokens": 10, "output_tokens": 1}}
	if !req.Stream {
		msg["content"], msg["stop_reason"] = []any{block}, stop
		w.Header().Set("content-type", "application/json")
		_ = json.NewEncoder(w).Encode(msg)
		return
	}
	w.Header().Set("content-type", "text/event-stream")
	w.Header().Set("cache-control", "no-cache")
	event := func(name string, data map[string]any) {
		j, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, j)
	}
	msg["content"] = []any{}
	event("message_start", map[string]any{"type": "message_start", "message": msg})
	if block["type"] == "text" {
		event("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
		event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": block["text"]}})
	} else {
		input, _ := json.Marshal(st.Input)
		event("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "tool_use", "id": block["id"], "name": st.Tool, "input": map[string]any{}}})
		event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(input)}})
	}
	event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	event("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]int{"output_tokens": 5}})
	event("message_stop", map[string]any{"type": "message_stop"})
}

// results are the tool results of the last request, which carries the
// whole conversation.
func (f *fakeAnthropic) results() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.requests) == 0 {
		return nil
	}
	return f.requests[len(f.requests)-1].toolResults()
}

// toolNames are the tools the CLI offered in its first request.
func (f *fakeAnthropic) toolNames() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	if len(f.requests) > 0 {
		for _, tl := range f.requests[0].Tools {
			out = append(out, tl.Name)
		}
	}
	return out
}
