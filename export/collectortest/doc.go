// Package collectortest tests toolgate's export against a real
// OpenTelemetry Collector receiver (otlpreceiver) in the test process. It
// is a module of its own so that the collector's dependencies stay out of
// toolgate's; .ci/run runs it.
package collectortest
