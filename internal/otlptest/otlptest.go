// Package otlptest is an OTLP/HTTP logs receiver for tests, built of the
// protocol's own protobuf types, listening on 127.0.0.1: it records what it
// receives and answers as a test says (full or partial success, an error
// status with Retry-After). Stalling is a listener that never answers.
package otlptest

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"google.golang.org/protobuf/proto"

	collogspb "go.opentelemetry.io/proto/slim/otlp/collector/logs/v1"
	commonpb "go.opentelemetry.io/proto/slim/otlp/common/v1"
)

// Record is one log record received.
type Record struct {
	Seq   int64
	Hash  string
	LogID string
	Event string
	Body  string
	Host  string // the resource's host.name
	Attrs map[string]any
}

// Answer decides the answer to the n-th request (from 1): its status,
// Retry-After and, for 200, the response (nil: full success). Records are
// kept only when the status is 200.
type Answer func(n int, req *collogspb.ExportLogsServiceRequest) (code int, retryAfter string, resp *collogspb.ExportLogsServiceResponse)

// Collector is a running receiver.
type Collector struct {
	URL string // the base URL: records are posted to URL/v1/logs

	mu     sync.Mutex
	recs   []Record
	reqs   int
	header http.Header
	answer Answer
	srv    *httptest.Server
}

// New starts a receiver, closed when the test ends.
func New(t testing.TB) *Collector {
	c := &Collector{}
	c.srv = httptest.NewServer(http.HandlerFunc(c.serve))
	c.URL = c.srv.URL
	t.Cleanup(c.srv.Close)
	return c
}

// SetAnswer sets how the receiver answers from now on.
func (c *Collector) SetAnswer(a Answer) {
	c.mu.Lock()
	c.answer = a
	c.mu.Unlock()
}

func (c *Collector) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/logs" || r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "not OTLP/HTTP logs", http.StatusNotFound)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var req collogspb.ExportLogsServiceRequest
	if err := proto.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	c.reqs++
	n := c.reqs
	c.header = r.Header.Clone()
	answer := c.answer
	c.mu.Unlock()
	code, ra, resp := http.StatusOK, "", (*collogspb.ExportLogsServiceResponse)(nil)
	if answer != nil {
		code, ra, resp = answer(n, &req)
	}
	if code != http.StatusOK {
		if ra != "" {
			w.Header().Set("Retry-After", ra)
		}
		w.WriteHeader(code)
		return
	}
	c.mu.Lock()
	c.recs = append(c.recs, Flatten(&req)...)
	c.mu.Unlock()
	if resp == nil {
		resp = &collogspb.ExportLogsServiceResponse{}
	}
	b, _ := proto.Marshal(resp)
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(b)
}

// Received is every record received so far, in order.
func (c *Collector) Received() []Record {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Record(nil), c.recs...)
}

// Requests is the number of requests received.
func (c *Collector) Requests() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reqs
}

// Header is the last request's header.
func (c *Collector) Header() http.Header {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.header
}

// Flatten is the records of a request, in order.
func Flatten(req *collogspb.ExportLogsServiceRequest) []Record {
	var out []Record
	for _, rl := range req.ResourceLogs {
		host := ""
		for _, kv := range rl.GetResource().GetAttributes() {
			if kv.Key == "host.name" {
				host = kv.Value.GetStringValue()
			}
		}
		for _, sl := range rl.ScopeLogs {
			for _, lr := range sl.LogRecords {
				g := Record{Attrs: map[string]any{}, Body: lr.GetBody().GetStringValue(), Host: host}
				for _, kv := range lr.Attributes {
					g.Attrs[kv.Key] = value(kv.Value)
				}
				g.Seq, _ = g.Attrs["toolgate.seq"].(int64)
				g.Hash, _ = g.Attrs["toolgate.hash"].(string)
				g.LogID, _ = g.Attrs["toolgate.log_id"].(string)
				g.Event, _ = g.Attrs["toolgate.event"].(string)
				out = append(out, g)
			}
		}
	}
	return out
}

func value(v *commonpb.AnyValue) any {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_IntValue:
		return x.IntValue
	case *commonpb.AnyValue_BoolValue:
		return x.BoolValue
	}
	return nil
}

// Stalling is a listener on 127.0.0.1 that accepts connections and never
// answers: a collector that hangs.
func Stalling(t testing.TB) net.Listener {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	return ln
}
