package policy

import (
	"net/url"
	"strings"
)

// export reads the export knob: {"otlp": {"endpoint": URL, "headers":
// {name: value}}}. Every problem is a file-level error (the file keeps its
// last good version): an export that is silently not what was written
// would send an organization's records nowhere, or somewhere else.
func (p *parser) export(v *jval) *Export {
	members, ok := p.members(v, "export")
	if !ok {
		return nil
	}
	var e *Export
	found := false
	for i := range members {
		m := &members[i]
		switch name := literalString(&m.Name); name {
		case "otlp":
			found = true
			if o, ok := p.otlp(&m.Value); ok {
				e = &Export{OTLP: o}
			}
		default:
			p.errorf(m.Name.StartOffset(), "unknown key '%s' in export (want otlp)", name)
			return nil
		}
	}
	if !found {
		p.errorf(v.StartOffset(), "export needs \"otlp\": {\"endpoint\": \"http://collector:4318\"}")
	}
	return e
}

func (p *parser) otlp(v *jval) (OTLPExport, bool) {
	members, ok := p.members(v, "export.otlp")
	if !ok {
		return OTLPExport{}, false
	}
	var o OTLPExport
	good, hasEndpoint := true, false
	for i := range members {
		m := &members[i]
		switch name := literalString(&m.Name); name {
		case "endpoint":
			s := p.str(&m.Value, "export.otlp.endpoint")
			if s == nil {
				good = false
				continue
			}
			if msg := endpointProblem(*s); msg != "" {
				p.errorf(m.Value.StartOffset(), "export.otlp.endpoint %q %s", *s, msg)
				good = false
				continue
			}
			o.Endpoint, hasEndpoint = strings.TrimRight(*s, "/"), true
		case "headers":
			hs, ok := p.members(&m.Value, "export.otlp.headers")
			if !ok {
				good = false
				continue
			}
			for j := range hs {
				h := &hs[j]
				hn := literalString(&h.Name)
				if !headerToken(hn) {
					p.errorf(h.Name.StartOffset(), "export.otlp.headers: %q is not an HTTP header name", hn)
					good = false
					continue
				}
				val := p.str(&h.Value, "export.otlp.headers."+hn)
				if val == nil {
					good = false
					continue
				}
				if strings.ContainsAny(*val, "\r\n\x00") {
					p.errorf(h.Value.StartOffset(), "export.otlp.headers.%s must not contain a line break or NUL", hn)
					good = false
					continue
				}
				o.Headers = append(o.Headers, Header{Name: hn, Value: *val})
			}
		default:
			p.errorf(m.Name.StartOffset(), "unknown key '%s' in export.otlp (want endpoint, headers)", name)
			good = false
		}
	}
	if good && !hasEndpoint {
		p.errorf(v.StartOffset(), "export.otlp needs an endpoint (the collector's base URL, e.g. \"http://collector:4318\")")
		good = false
	}
	return o, good
}

// endpointProblem says what is wrong with an OTLP endpoint ("" for
// nothing): it is the base URL of the collector, http or https, with a
// host; toolgate posts to /v1/logs under it. Credentials belong in
// headers, not in a URL that is shown in warnings and logs.
func endpointProblem(s string) string {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return "is not a URL: " + err.Error()
	case u.Scheme != "http" && u.Scheme != "https":
		return "must be an http:// or https:// URL (the collector's OTLP/HTTP base URL)"
	case u.Host == "" || u.Hostname() == "":
		return "has no host"
	case u.User != nil:
		return "must not carry credentials (put them in export.otlp.headers)"
	case u.RawQuery != "" || u.Fragment != "" || strings.HasSuffix(s, "?") || strings.HasSuffix(s, "#"):
		return "must not have a query or fragment (it is a base URL: /v1/logs is added)"
	case strings.HasSuffix(strings.TrimRight(u.Path, "/"), "/v1/logs"):
		return "is the base URL without /v1/logs (toolgate adds it)"
	}
	return ""
}

// headerToken reports whether s is an HTTP header name (RFC 9110 token).
func headerToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}
