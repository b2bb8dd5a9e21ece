package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolgate/toolgate/gates"
	"github.com/toolgate/toolgate/protocol"
)

// The words the subcommands print of a rule, a position and an input.

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

func ruleWords(pattern *string, origin *protocol.Origin) string {
	var b strings.Builder
	switch {
	case pattern != nil && strings.HasPrefix(*pattern, "<"):
		fmt.Fprintf(&b, " (floor %s)", *pattern)
	case pattern != nil:
		fmt.Fprintf(&b, " (rule %q", *pattern)
		if origin != nil {
			b.WriteString(originWords(origin))
		}
		b.WriteString(")")
	case origin != nil:
		fmt.Fprintf(&b, " (the fallback \"*\"%s)", originWords(origin))
	}
	return b.String()
}

func originWords(o *protocol.Origin) string {
	if o.Path != "" {
		return fmt.Sprintf(", %s %s:%d", o.Scope, gates.Visible(o.Path), o.Line)
	}
	return ", " + o.Scope
}

// warningText is a warning as one line: file:line:col: message.
func warningText(path string, line, col int, msg string) string {
	if path == "" {
		return msg
	}
	return position(path, line, col) + ": " + msg
}

func compactJSON(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "{}"
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

func position(path string, line, col int) string {
	switch {
	case line > 0 && col > 0:
		return fmt.Sprintf("%s:%d:%d", path, line, col)
	case line > 0:
		return fmt.Sprintf("%s:%d", path, line)
	}
	return path
}
