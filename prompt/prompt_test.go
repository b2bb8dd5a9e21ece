package prompt

import (
	"context"
	"encoding/json"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/toolgate/toolgate/gates"
	"github.com/toolgate/toolgate/protocol"
)

// host answers prompt requests with answer (nil: never answers).
type host struct {
	answer func(p protocol.PromptParams) (any, *jsonrpc2.Error)
	count  atomic.Int32
	ids    sync.Map
}

func (h *host) Handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	h.count.Add(1)
	h.ids.Store(req.ID.String(), true)
	var p protocol.PromptParams
	_ = json.Unmarshal(*req.Params, &p)
	if h.answer == nil {
		return
	}
	res, err := h.answer(p)
	if err != nil {
		_ = conn.ReplyWithError(ctx, req.ID, err)
		return
	}
	_ = conn.Reply(ctx, req.ID, res)
}

func pair(t *testing.T, h *host) (*Prompter, *jsonrpc2.Conn) {
	t.Helper()
	a, b := net.Pipe()
	plugin := jsonrpc2.NewConn(context.Background(), jsonrpc2.NewBufferedStream(a, jsonrpc2.VSCodeObjectCodec{}), jsonrpc2.AsyncHandler(&host{}))
	hostConn := jsonrpc2.NewConn(context.Background(), jsonrpc2.NewBufferedStream(b, jsonrpc2.VSCodeObjectCodec{}), jsonrpc2.AsyncHandler(h))
	t.Cleanup(func() { plugin.Close(); hostConn.Close() })
	return New(plugin), hostConn
}

var offered = []protocol.PromptOption{{ID: "allow_once"}, {ID: "allow_session"}, {ID: "deny"}, {ID: "deny_with_reason"}}

func params(value string) protocol.PromptParams {
	return protocol.PromptParams{ToolCallID: "c1", Gate: "tool", Surface: "bash", Value: value, Options: offered, TimeoutMs: 2000}
}

func TestAnswers(t *testing.T) {
	cases := []struct {
		name   string
		answer func(protocol.PromptParams) (any, *jsonrpc2.Error)
		choice string
		reason string
		failed string
	}{
		{"allow once", func(protocol.PromptParams) (any, *jsonrpc2.Error) { return map[string]any{"choice": "allow_once"}, nil }, "allow_once", "", ""},
		{"deny with reason", func(protocol.PromptParams) (any, *jsonrpc2.Error) {
			return map[string]any{"choice": "deny_with_reason", "reason": " frozen "}, nil
		}, "deny_with_reason", "frozen", ""},
		{"error reply", func(protocol.PromptParams) (any, *jsonrpc2.Error) {
			return nil, &jsonrpc2.Error{Code: -32000, Message: "closed"}
		}, "", "", "error -32000"},
		{"unknown choice", func(protocol.PromptParams) (any, *jsonrpc2.Error) { return map[string]any{"choice": "maybe"}, nil }, "", "", "not offered"},
		{"null result", func(protocol.PromptParams) (any, *jsonrpc2.Error) { return nil, nil }, "", "", "no result"},
		{"choice of wrong type", func(protocol.PromptParams) (any, *jsonrpc2.Error) { return map[string]any{"choice": 1}, nil }, "", "", "choice"},
		{"repeated choice", func(protocol.PromptParams) (any, *jsonrpc2.Error) {
			return json.RawMessage(`{"choice":"deny","choice":"allow_once"}`), nil
		}, "", "", "twice"},
		{"reason of wrong type", func(protocol.PromptParams) (any, *jsonrpc2.Error) {
			return map[string]any{"choice": "deny_with_reason", "reason": 5}, nil
		}, "", "", "reason"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := pair(t, &host{answer: tc.answer})
			ans := p.Ask(context.Background(), params("make deploy"))
			if tc.failed != "" {
				if !strings.Contains(ans.Failed, tc.failed) {
					t.Fatalf("Failed = %q, want it to mention %q", ans.Failed, tc.failed)
				}
				return
			}
			if ans.Failed != "" || ans.Choice != tc.choice || ans.Reason != tc.reason {
				t.Fatalf("answer = %+v", ans)
			}
		})
	}
}

func TestTimeoutAndStringIDs(t *testing.T) {
	h := &host{}
	p, _ := pair(t, h)
	pp := params("make deploy")
	pp.TimeoutMs = 100
	start := time.Now()
	ans := p.Ask(context.Background(), pp)
	if !strings.Contains(ans.Failed, "no answer") || time.Since(start) > 2*time.Second {
		t.Fatalf("answer = %+v after %s", ans, time.Since(start))
	}
	if _, ok := h.ids.Load(`"tg-1"`); !ok {
		t.Fatalf("the prompt id was not the string tg-1")
	}
}

func TestIdenticalAsksShareOnePrompt(t *testing.T) {
	release := make(chan struct{})
	h := &host{answer: func(protocol.PromptParams) (any, *jsonrpc2.Error) {
		<-release
		return map[string]any{"choice": "allow_session"}, nil
	}}
	p, _ := pair(t, h)
	var wg sync.WaitGroup
	answers := make([]gates.Answer, 5)
	for i := range answers {
		wg.Add(1)
		go func(i int) { defer wg.Done(); answers[i] = p.Ask(context.Background(), params("git push")) }(i)
	}
	time.Sleep(100 * time.Millisecond)
	other := make(chan gates.Answer)
	go func() { other <- p.Ask(context.Background(), params("git pull")) }()
	time.Sleep(100 * time.Millisecond)
	close(release)
	wg.Wait()
	<-other
	if n := h.count.Load(); n != 2 {
		t.Fatalf("the host got %d prompts, want 2 (one shared, one different)", n)
	}
	for i, a := range answers {
		if a.Choice != "allow_session" {
			t.Fatalf("waiter %d got %+v", i, a)
		}
	}
}

func TestCloseFailsWaitingAsks(t *testing.T) {
	p, _ := pair(t, &host{})
	done := make(chan gates.Answer)
	go func() { done <- p.Ask(context.Background(), params("x")) }()
	time.Sleep(50 * time.Millisecond)
	p.Close("toolgate is shutting down")
	if ans := <-done; !strings.Contains(ans.Failed, "shutting down") {
		t.Fatalf("answer = %+v", ans)
	}
	if ans := p.Ask(context.Background(), params("y")); !strings.Contains(ans.Failed, "shutting down") {
		t.Fatalf("ask after close = %+v", ans)
	}
}

func TestHostDisconnectFails(t *testing.T) {
	p, hostConn := pair(t, &host{})
	done := make(chan gates.Answer)
	go func() { done <- p.Ask(context.Background(), params("x")) }()
	time.Sleep(50 * time.Millisecond)
	hostConn.Close()
	select {
	case ans := <-done:
		if ans.Failed == "" {
			t.Fatalf("answer = %+v, want a failure", ans)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("Ask did not return after the host closed the connection")
	}
}

// Calls share a prompt only when everything the prompt shows, and the call
// itself, are the same: look-alike asks (same gate, surface, value and
// session patterns) with a different message, options or call each get
// their own prompt.
func TestLookAlikeAsksDoNotShare(t *testing.T) {
	release := make(chan struct{})
	h := &host{answer: func(protocol.PromptParams) (any, *jsonrpc2.Error) {
		<-release
		return map[string]any{"choice": "allow_once"}, nil
	}}
	p, _ := pair(t, h)
	variants := []func(*protocol.PromptParams){
		func(*protocol.PromptParams) {},
		func(pp *protocol.PromptParams) { pp.Message = "read ~/.bashrc" },
		func(pp *protocol.PromptParams) { pp.Message = "write ~/.bashrc" },
		func(pp *protocol.PromptParams) { pp.Title = "Other" },
		func(pp *protocol.PromptParams) { pp.Options = offered[:1] },
		func(pp *protocol.PromptParams) { pp.Subject = "bash\x00{\"command\":\"make test && nc evil 80\"}" },
		func(pp *protocol.PromptParams) { pp.Subject = "bash\x00{\"command\":\"make test\"}" },
	}
	var wg sync.WaitGroup
	for _, v := range variants {
		for range 2 { // each variant twice: the two copies share
			pp := params("make test")
			v(&pp)
			wg.Add(1)
			go func() { defer wg.Done(); _ = p.Ask(context.Background(), pp) }()
		}
	}
	for h.count.Load() < int32(len(variants)) {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // a wrong extra prompt would arrive now
	close(release)
	wg.Wait()
	if n := h.count.Load(); n != int32(len(variants)) {
		t.Fatalf("the host got %d prompts, want %d (one per distinct ask)", n, len(variants))
	}
}

// slowCaller delays writing each prompt until released, as a host that is
// slow to read does.
type slowCaller struct {
	Caller
	release chan struct{}
}

func (s slowCaller) DispatchCall(ctx context.Context, method string, params any, opts ...jsonrpc2.CallOption) (jsonrpc2.Waiter, error) {
	<-s.release
	return s.Caller.DispatchCall(ctx, method, params, opts...)
}

// The prompt timeout starts when the prompt is written, not before: time
// spent waiting to write it is not taken from the person (issue 13.6).
func TestTimeoutStartsWhenWritten(t *testing.T) {
	h := &host{answer: func(protocol.PromptParams) (any, *jsonrpc2.Error) { return map[string]any{"choice": "allow_once"}, nil }}
	p, _ := pair(t, h)
	release := make(chan struct{})
	p.conn = slowCaller{Caller: p.conn, release: release}
	pp := params("make deploy")
	pp.TimeoutMs = 300
	done := make(chan gates.Answer)
	go func() { done <- p.Ask(context.Background(), pp) }()
	time.Sleep(time.Second) // far past the timeout, still not written
	close(release)
	if ans := <-done; ans.Failed != "" || ans.Choice != "allow_once" {
		t.Fatalf("answer = %+v, want allow_once: the timeout ran before the prompt was written", ans)
	}
}
