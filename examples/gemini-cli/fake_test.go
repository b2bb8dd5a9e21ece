package geminicli_test

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

// fakeGemini is a scripted Gemini API (generateContent and
// streamGenerateContent with SSE) on 127.0.0.1. The step it plays is the
// number of function responses already in the conversation; a request
// whose tools lack the step's tool, or a side call asking for JSON (the
// router, next-speaker checks), gets text.
type fakeGemini struct {
	url    string
	script []fakemodel.Step

	mu       sync.Mutex
	requests []generateRequest
}

type generateRequest struct {
	Contents []struct {
		Role  string           `json:"role"`
		Parts []map[string]any `json:"parts"`
	} `json:"contents"`
	Tools []struct {
		FunctionDeclarations []struct {
			Name string `json:"name"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig map[string]any `json:"generationConfig"`
}

// functionResponses are the function responses of the conversation, as JSON.
func (r generateRequest) functionResponses() []string {
	var out []string
	for _, c := range r.Contents {
		for _, p := range c.Parts {
			if fr, ok := p["functionResponse"]; ok {
				j, _ := json.Marshal(fr)
				out = append(out, string(j))
			}
		}
	}
	return out
}

func startFakeGemini(t *testing.T, script []fakemodel.Step) *fakeGemini {
	t.Helper()
	f := &fakeGemini{script: script}
	f.url = hoste2e.Serve(t, http.HandlerFunc(f.serve))
	return f
}

func (f *fakeGemini) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	path := r.URL.Path
	w.Header().Set("content-type", "application/json")
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusNotFound)
		return
	}
	if strings.HasSuffix(path, ":countTokens") {
		_, _ = io.WriteString(w, `{"totalTokens":100}`)
		return
	}
	stream := strings.HasSuffix(path, ":streamGenerateContent")
	if !stream && !strings.HasSuffix(path, ":generateContent") {
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"error":{"code":404,"message":"fake: not found","status":"NOT_FOUND"}}`)
		return
	}
	var req generateRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.requests = append(f.requests, req)
	f.mu.Unlock()
	resp := map[string]any{"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": f.reply(req)},
		"finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]int{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}, "modelVersion": "fake"}
	j, _ := json.Marshal(resp)
	if !stream {
		_, _ = w.Write(j)
		return
	}
	w.Header().Set("content-type", "text/event-stream")
	fmt.Fprintf(w, "data: %s\r\n\r\n", j)
}

func (f *fakeGemini) reply(req generateRequest) []any {
	st := f.script[min(len(req.functionResponses()), len(f.script)-1)]
	has := false
	for _, tl := range req.Tools {
		for _, d := range tl.FunctionDeclarations {
			has = has || d.Name == st.Tool
		}
	}
	if st.Tool != "" && has {
		return []any{map[string]any{"functionCall": map[string]any{"name": st.Tool, "args": st.Args}}}
	}
	gc := req.GenerationConfig
	if gc["responseMimeType"] == "application/json" || gc["responseJsonSchema"] != nil || gc["responseSchema"] != nil {
		j, _ := json.Marshal(map[string]any{"reasoning": "fake", "model_choice": "flash", "next_speaker": "user",
			"complexity_reasoning": "fake", "complexity_score": 10})
		return []any{map[string]any{"text": string(j)}}
	}
	text := st.Text
	if text == "" {
		text = "ok"
	}
	return []any{map[string]any{"text": text}}
}

// results are the function responses of the last request with any.
func (f *fakeGemini) results() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := len(f.requests) - 1; i >= 0; i-- {
		if r := f.requests[i].functionResponses(); len(r) > 0 {
			return r
		}
	}
	return nil
}
