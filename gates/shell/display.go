package shell

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// Data longer than ElideAbove bytes in a command shown to a person is
// elided; ElideHead and ElideTail bytes of it stay visible.
const (
	ElideAbove = 256
	ElideHead  = 96
	ElideTail  = 48
)

// ElideData returns cmd for display with long data cut out of it: the
// contents of quoted strings, the literal text of heredoc bodies and
// comments longer than ElideAbove bytes are replaced in the middle by a
// visible "… N bytes …" marker. Nothing else is ever cut: command words,
// operators, redirects, expansions and substitutions stay whole, so every
// unit and every path of the command is still shown. A command that cannot
// be parsed is returned as it is (elided false).
func ElideData(cmd string) (shown string, elided bool) {
	if len(cmd) <= ElideAbove || len(cmd) > MaxCommandBytes {
		// Every piece of data is a part of cmd: in a command of at most
		// ElideAbove bytes none is longer, and nothing is elided.
		return cmd, false
	}
	f, err := syntax.NewParser(syntax.KeepComments(true), syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), "")
	if err != nil {
		return cmd, false
	}
	type span struct{ from, to int }
	var spans []span
	add := func(from, to int) {
		if from >= 0 && to <= len(cmd) && to-from > ElideAbove {
			spans = append(spans, span{from, to})
		}
	}
	lits := func(parts []syntax.WordPart) {
		for _, p := range parts {
			if l, ok := p.(*syntax.Lit); ok {
				add(int(l.Pos().Offset()), int(l.End().Offset()))
			}
		}
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.SglQuoted:
			from := int(n.Left.Offset()) + 1
			if n.Dollar {
				from++
			}
			add(from, int(n.Right.Offset()))
		case *syntax.DblQuoted:
			lits(n.Parts)
		case *syntax.Redirect:
			if n.Hdoc != nil {
				lits(n.Hdoc.Parts)
			}
		case *syntax.Comment:
			add(int(n.Hash.Offset())+1, int(n.End().Offset()))
		}
		return true
	})
	if len(spans) == 0 {
		return cmd, false
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].from < spans[j].from })
	var b strings.Builder
	last := 0
	for _, s := range spans {
		if s.from < last {
			continue // nested spans cannot overlap in a syntax tree; be safe
		}
		b.WriteString(cmd[last:s.from])
		b.WriteString(ElideMiddle(cmd[s.from:s.to]))
		last = s.to
	}
	b.WriteString(cmd[last:])
	return b.String(), true
}

// ElideMiddle keeps the head and tail of a long piece of data and says
// how many bytes are left out between them.
func ElideMiddle(s string) string {
	if len(s) <= ElideAbove {
		return s
	}
	head := ElideHead
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	tail := len(s) - ElideTail
	for tail < len(s) && !utf8.RuneStart(s[tail]) {
		tail++
	}
	return fmt.Sprintf("%s… %d bytes …%s", s[:head], tail-head, s[tail:])
}
