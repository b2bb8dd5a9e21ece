package export

import (
	"context"
	"os"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	collogspb "go.opentelemetry.io/proto/slim/otlp/collector/logs/v1"
	logspb "go.opentelemetry.io/proto/slim/otlp/logs/v1"

	"github.com/toolgate/toolgate/internal/otlptest"
)

// BenchmarkSend is a drain's time per record (ns/op is per record):
// reading batches from the log, making them OpenTelemetry log records,
// marshalling and posting them to a receiver in the same process (whose
// decoding counts too), and writing the cursor.
func BenchmarkSend(b *testing.B) {
	tl := newTestLog(b)
	c := otlptest.New(b)
	tl.calls(b, b.N)
	s := New(Options{Log: tl.path, Endpoint: c.URL, Appender: tl.l})
	b.ResetTimer()
	res, err := s.Drain(context.Background())
	b.StopTimer()
	if err != nil || res.Sent != b.N {
		b.Fatalf("Drain = %+v, %v", res, err)
	}
}

// BenchmarkEncode is the sender's own work per record, without the
// network: a decision record of the log made an OpenTelemetry log record
// and marshalled in a batch of DefaultBatchRecords.
func BenchmarkEncode(b *testing.B) {
	tl := newTestLog(b)
	tl.calls(b, DefaultBatchRecords)
	f, err := os.Open(tl.path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	lines, err := readLines(f, 0, DefaultBatchRecords, DefaultBatchBytes)
	if err != nil || len(lines) != DefaultBatchRecords {
		b.Fatal(len(lines), err)
	}
	now := time.Now()
	for i := 0; b.Loop(); i++ {
		if i%DefaultBatchRecords == 0 {
			recs := make([]*logspb.LogRecord, 0, DefaultBatchRecords)
			for _, l := range lines {
				lr, _, _ := logRecord(l, "id", now)
				recs = append(recs, lr)
			}
			req := &collogspb.ExportLogsServiceRequest{ResourceLogs: []*logspb.ResourceLogs{{ScopeLogs: []*logspb.ScopeLogs{{LogRecords: recs}}}}}
			if _, err := proto.Marshal(req); err != nil {
				b.Fatal(err)
			}
		}
	}
}
