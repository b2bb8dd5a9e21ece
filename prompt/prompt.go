// Package prompt asks the person through the host: it sends the plugin's
// "prompt" request over JSON-RPC, waits at most the prompt timeout, shares
// one prompt between identical asks in flight, and reads the answer fail
// closed: an error reply, an unknown or unoffered choice, a missing result,
// a timeout, a closed connection or shutdown all come back as a failure.
package prompt

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/toolgate/toolgate/gates"
	"github.com/toolgate/toolgate/protocol"
)

// Caller is the part of a JSON-RPC connection the prompter needs.
type Caller interface {
	DispatchCall(ctx context.Context, method string, params any, opts ...jsonrpc2.CallOption) (jsonrpc2.Waiter, error)
	DisconnectNotify() <-chan struct{}
}

// Prompter implements gates.Prompter over a host connection.
type Prompter struct {
	conn Caller
	seq  atomic.Uint64

	mu       sync.Mutex
	inflight map[string]*flight

	closeOnce sync.Once
	closed    chan struct{}
	closeWhy  atomic.Value // string
}

type flight struct {
	done chan struct{}
	ans  gates.Answer
}

// New returns a prompter that asks through conn.
func New(conn Caller) *Prompter {
	return &Prompter{conn: conn, inflight: map[string]*flight{}, closed: make(chan struct{})}
}

// Close makes every waiting and future Ask fail with why.
func (p *Prompter) Close(why string) {
	p.closeOnce.Do(func() {
		p.closeWhy.Store(why)
		close(p.closed)
	})
}

func (p *Prompter) closedReason() string {
	if s, ok := p.closeWhy.Load().(string); ok {
		return s
	}
	return "toolgate is shutting down"
}

// key identifies identical asks: calls in flight share one prompt only
// when everything it shows is equal (gate, surface, value, title, message,
// options, session patterns) and they are the same call (tool, full input,
// working directory: the Subject), whatever their toolCallId.
func key(pp protocol.PromptParams) string {
	b, _ := json.Marshal(struct {
		G, S, V, T, M, Sub string
		O                  []protocol.PromptOption
		P                  []protocol.SessionPattern
	}{pp.Gate, pp.Surface, pp.Value, pp.Title, pp.Message, pp.Subject, pp.Options, pp.SessionPatterns})
	return string(b)
}

// Ask shows pp to the person, or joins an identical prompt already open.
func (p *Prompter) Ask(ctx context.Context, pp protocol.PromptParams) gates.Answer {
	select {
	case <-p.closed:
		return gates.Answer{Failed: p.closedReason()}
	default:
	}
	k := key(pp)
	p.mu.Lock()
	f, joined := p.inflight[k]
	if !joined {
		f = &flight{done: make(chan struct{})}
		p.inflight[k] = f
	}
	p.mu.Unlock()
	if !joined {
		go func() {
			f.ans = p.ask(pp)
			p.mu.Lock()
			delete(p.inflight, k)
			p.mu.Unlock()
			close(f.done)
		}()
	}
	select {
	case <-f.done:
		return f.ans
	case <-ctx.Done():
		return gates.Answer{Failed: "toolgate is shutting down"}
	}
}

// ask sends one prompt request and reads the answer. The timeout starts
// once the request is written to the host, not before: time spent waiting
// to write (a busy machine, a host slow to read) is never taken from the
// person.
func (p *Prompter) ask(pp protocol.PromptParams) gates.Answer {
	timeout := time.Duration(pp.TimeoutMs) * time.Millisecond
	if timeout <= 0 {
		timeout = 10 * time.Minute
	}
	sendCtx, stopSend := context.WithCancel(context.Background())
	defer stopSend()
	go func() {
		select {
		case <-p.closed:
			stopSend()
		case <-p.conn.DisconnectNotify():
			stopSend()
		case <-sendCtx.Done():
		}
	}()
	id := jsonrpc2.ID{Str: fmt.Sprintf("tg-%d", p.seq.Add(1)), IsString: true}
	waiter, err := p.conn.DispatchCall(sendCtx, protocol.MethodPrompt, pp, jsonrpc2.PickID(id))
	if err != nil {
		select {
		case <-p.closed:
			return gates.Answer{Failed: p.closedReason()}
		default:
		}
		return gates.Answer{Failed: "the prompt could not be sent: " + err.Error()}
	}
	ctx, cancel := context.WithTimeout(sendCtx, timeout)
	defer cancel()
	var raw json.RawMessage
	errc := make(chan error, 1)
	go func() { errc <- waiter.Wait(ctx, &raw) }()
	select {
	case err = <-errc:
	case <-p.closed:
		return gates.Answer{Failed: p.closedReason()}
	case <-p.conn.DisconnectNotify():
		return gates.Answer{Failed: "the host closed the connection"}
	}
	var rpcErr *jsonrpc2.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return gates.Answer{Failed: fmt.Sprintf("no answer within %s", timeout)}
	case errors.As(err, &rpcErr):
		return gates.Answer{Failed: fmt.Sprintf("the host answered with error %d: %s", rpcErr.Code, rpcErr.Message)}
	case errors.Is(err, jsonrpc2.ErrClosed):
		return gates.Answer{Failed: "the host closed the connection"}
	case err != nil:
		return gates.Answer{Failed: "the answer could not be read: " + err.Error()}
	}
	return parseAnswer(raw, pp.Options)
}

// parseAnswer reads {"choice": …, "reason"?: …} strictly: the choice must be
// one of the options offered.
func parseAnswer(raw json.RawMessage, offered []protocol.PromptOption) gates.Answer {
	var res struct {
		Choice *string          `json:"choice"`
		Reason *json.RawMessage `json:"reason"`
	}
	if len(raw) == 0 || string(raw) == "null" {
		return gates.Answer{Failed: "the host's answer has no result"}
	}
	if k := repeatedKey(raw); k != "" {
		return gates.Answer{Failed: fmt.Sprintf("the host's answer gives %q twice", k)}
	}
	// Exact keys: {"Choice": "allow_once"} is not a choice (encoding/json
	// would read it as one).
	var kerr *protocol.KeyError
	if err := protocol.Unmarshal(raw, &res, "the answer"); errors.As(err, &kerr) {
		return gates.Answer{Failed: fmt.Sprintf("the host's answer has the key %q where %q is read (keys are case-sensitive)", kerr.Key, kerr.Want)}
	} else if err != nil || res.Choice == nil {
		return gates.Answer{Failed: "the host's answer is not {\"choice\": …}"}
	}
	ok := false
	for _, o := range offered {
		ok = ok || o.ID == *res.Choice
	}
	if !ok {
		return gates.Answer{Failed: fmt.Sprintf("the host answered with choice %q, which was not offered", truncate(*res.Choice, 80))}
	}
	ans := gates.Answer{Choice: *res.Choice}
	if res.Reason != nil {
		var reason string
		if err := json.Unmarshal(*res.Reason, &reason); err != nil && string(*res.Reason) != "null" {
			return gates.Answer{Failed: "the host's reason is not a string"}
		}
		ans.Reason = strings.TrimSpace(reason)
	}
	return ans
}

// repeatedKey returns a top-level key of the answer object given more than
// once (in any letter case): {"choice": "allow_once", "choice": "deny"} has
// no single meaning, so it fails like any other malformed answer.
func repeatedKey(raw json.RawMessage) string {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return ""
	}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return ""
		}
		k, _ := t.(string)
		if seen[strings.ToLower(k)] {
			return k
		}
		seen[strings.ToLower(k)] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return ""
		}
	}
	return ""
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
