package hook

import (
	"fmt"
	"time"

	"github.com/toolgate/toolgate/export"
	"github.com/toolgate/toolgate/hook/audit"
	"github.com/toolgate/toolgate/policy"
)

// exportRun is the server's background sender of its audit log to the
// policy's collector, and what it was started for.
type exportRun struct {
	key string // the log, endpoint and headers
	r   *export.Runner
}

// appendFunc is an export.Appender: the sender's own records go through
// the server's audit log like every other.
type appendFunc func(event string, fill audit.Fields) error

func (f appendFunc) Append(event string, fill audit.Fields) error { return f(event, fill) }

// syncExport starts, replaces or stops the background sender to match the
// policy's export of the audit log the server writes. Only a serving
// server sends; an old sender is stopped without waiting for it (the new
// one waits for its lock), so nothing here holds up an answer.
func (s *Server) syncExport(p *policy.Policy) {
	if !s.serving.Load() {
		return
	}
	s.mu.RLock()
	l := s.audit
	s.mu.RUnlock()
	if l == nil {
		return
	}
	path := l.Path()
	o, ok := export.FromPolicy(p, path)
	key := ""
	if ok {
		key = fmt.Sprintf("%s\x00%s\x00%q", path, o.Endpoint, o.Headers)
	}
	s.exportMu.Lock()
	defer s.exportMu.Unlock()
	if old := s.exporter; old != nil {
		if old.key == key {
			return
		}
		go old.r.Stop(0)
		s.exporter = nil
	}
	if !ok {
		return
	}
	o.Appender, o.Logger, o.Version = appendFunc(s.appendAudit), s.log, Version
	s.exporter = &exportRun{key: key, r: export.Start(o)}
}

// exportGrace is how long a server that ends gives its sender to send the
// last records (none while the collector is failing).
const exportGrace = 500 * time.Millisecond

// stopExport ends the background sender, at the end of Serve.
func (s *Server) stopExport() {
	s.exportMu.Lock()
	e := s.exporter
	s.exporter = nil
	s.exportMu.Unlock()
	if e != nil {
		e.r.Stop(exportGrace)
	}
}

// startDrain is what a hook process does for the export after its answer
// is written: start a detached `toolgate export --drain` when the log has
// something past the cursor and no sender holds its lock. It never sends
// itself, and nothing it meets changes the answer given.
func (s *Server) startDrain() {
	if s.opts.Executable == "" {
		return
	}
	pol := s.currentPolicy()
	path := s.auditPath(pol)
	if _, ok := export.FromPolicy(pol, path); !ok {
		return
	}
	// The drain finds the log as this process did: from the same flags
	// and files (a policy's auditLog is not repeated as a flag).
	args := []string{"export", "--drain", "--cwd", s.snapshot().cwd}
	if s.opts.AuditLog != "" {
		args = append(args, "--audit-log", s.opts.AuditLog)
	}
	for _, c := range s.opts.ConfigFiles {
		args = append(args, "--config", c)
	}
	if _, err := export.StartDrain(path, s.opts.Executable, args); err != nil {
		s.log.Debug().Err(err).Msg("export: starting a drain")
	}
}

// ExportOf is the export of the audit log a session with opts writes, as
// its policy says: the sender's options, false when it exports nothing.
func ExportOf(opts Options) (export.Options, bool) {
	s := New(opts)
	s.loader = policy.NewOneShotLoader()
	s.dirs = newDirCache(s.loader)
	p := s.currentPolicy()
	o, ok := export.FromPolicy(p, s.auditPath(p))
	o.Logger, o.Version = opts.Log, Version
	return o, ok
}
