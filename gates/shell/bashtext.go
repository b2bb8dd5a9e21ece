package shell

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Where mvdan.cc/sh reads a script differently from bash, the text is
// rewritten before the parse so that the parser reads it as bash does, or
// the command is unparseable (issue 12). The differential test
// against real bash (bashdiff_test.go) finds these.
//
//   - A carriage return is an ordinary character for bash, inside and
//     outside words ("a\r#;rm x" runs rm); the parser takes it for a blank,
//     drops it before a newline, and reads "\\\r\n" as a line continuation.
//     It is replaced by crStandIn, a character the parser reads as part of
//     a word, and put back in every string the analysis returns.
//   - A NUL byte cannot reach bash through "bash -c" (the argument ends
//     there), while the parser skips it: unparseable.
//   - A backslash that ends the text escapes nothing, and bash drops it
//     (a final "cat .env\\" reads .env); the parser keeps it in the word.
//   - A comment ends at the newline for bash even after a backslash; the
//     parser joins the next line into the comment and hides its command.
//     The backslash is blanked (comment text is data either way).

// crStandIn replaces "\r" while parsing: a private-use character, read by
// the parser as a word character like bash reads a carriage return.
const crStandIn = "\uE00D"

// bashText returns src rewritten for the parser, whether carriage returns
// were replaced, and a reason when src cannot be analyzed.
func bashText(src string) (text string, cr bool, why string) {
	if strings.IndexByte(src, 0) >= 0 {
		return "", false, "the command contains a NUL byte"
	}
	if strings.Contains(src, "\\\\\\\n") && oddBackslashRun(src) {
		return "", false, "a newline after an escaped backslash and a backslash"
	}
	if strings.IndexByte(src, '\r') >= 0 {
		if strings.Contains(src, crStandIn) {
			return "", false, "the command contains U+E00D"
		}
		src, cr = strings.ReplaceAll(src, "\r", crStandIn), true
	}
	if n := len(src) - len(strings.TrimRight(src, "\\")); n%2 == 1 {
		src = src[:len(src)-1]
	}
	return src, cr, ""
}

//   - After an escaped backslash, the parser misses the line continuation
//     of a further backslash (x, three backslashes, a newline): unparseable.
//   - "<&-" and ">&-" close a descriptor, and bash reads what is glued to
//     the "-" as a word of the command ("cat <&-.env" reads .env); the
//     parser reads it all as the redirect target. A blank is put after
//     the "-".

//   - Inside backquotes bash removes every backslash-newline before it
//     parses the command, inside quotes and here-documents too (so a
//     quoted here-document can end early and run the next line); the
//     parser keeps them there: unparseable.

// maxTextFixes bounds the re-parses for the rewrites above; past it the
// command is unparseable.
const maxTextFixes = 16

// edit replaces the byte at offset (or, for an insertion, nothing) with
// text.
type edit struct {
	at     int
	insert bool
	text   string
}

// applyEdits applies edits at distinct offsets of src.
func applyEdits(src string, edits []edit) string {
	slices.SortFunc(edits, func(x, y edit) int { return y.at - x.at })
	for _, e := range edits {
		end := e.at + 1
		if e.insert {
			end = e.at
		}
		src = src[:e.at] + e.text + src[end:]
	}
	return src
}

// dashWords returns the insertions that end "<&-" and ">&-" redirects at
// the "-", as bash reads them.
func dashWords(f *syntax.File) []edit {
	var out []edit
	inspect(f, func(n syntax.Node) bool {
		r, ok := n.(*syntax.Redirect)
		if !ok || (r.Op != syntax.DplIn && r.Op != syntax.DplOut) || r.Word == nil || len(r.Word.Parts) == 0 {
			return true
		}
		if l, ok := r.Word.Parts[0].(*syntax.Lit); ok && strings.HasPrefix(l.Value, "-") &&
			(len(l.Value) > 1 || len(r.Word.Parts) > 1) {
			out = append(out, edit{at: int(l.Pos().Offset()) + 1, insert: true, text: " "})
		}
		return true
	})
	return out
}

// commentContinuations returns the edits that blank the backslashes that
// end a comment line of f: the parser joined the next line into the
// comment.
func commentContinuations(src string, f *syntax.File) []edit {
	var at []edit
	syntax.Walk(f, func(n syntax.Node) bool {
		c, ok := n.(*syntax.Comment)
		if !ok {
			return true
		}
		i := int(c.Pos().Offset())
		if i < 0 || i >= len(src) {
			return true
		}
		if nl := strings.IndexByte(src[i:], '\n'); nl > 0 && src[i+nl-1] == '\\' {
			at = append(at, edit{at: i + nl - 1, text: " "})
		}
		return true
	})
	return at
}

// restoreCR puts the carriage returns back into the strings of a.
func restoreCR(a *Analysis) {
	r := strings.NewReplacer(crStandIn, "\r")
	for i := range a.Units {
		u := &a.Units[i]
		u.Text = r.Replace(u.Text)
		for j := range u.Alts {
			u.Alts[j] = r.Replace(u.Alts[j])
		}
		for j := range u.Args {
			u.Args[j] = r.Replace(u.Args[j])
		}
	}
	for i := range a.Paths {
		p := &a.Paths[i]
		p.Raw, p.Value, p.Dir = r.Replace(p.Raw), r.Replace(p.Value), r.Replace(p.Dir)
	}
	a.Error = r.Replace(a.Error)
}

// fsName is the name the file system knows for a name of the analysis.
func fsName(s string) string {
	if !strings.Contains(s, crStandIn) {
		return s
	}
	return strings.ReplaceAll(s, crStandIn, "\r")
}

// analysisName is a directory entry's name as the analysis writes it.
func analysisName(s string) string {
	if strings.IndexByte(s, '\r') < 0 {
		return s
	}
	return strings.ReplaceAll(s, "\r", crStandIn)
}

// oddBackslashRun reports whether a run of three or more backslashes, odd
// in length, ends a line of src.
func oddBackslashRun(src string) bool {
	for i := strings.Index(src, "\\\\\\\n"); i >= 0; {
		j := i + 3 // the newline
		k := j
		for k > 0 && src[k-1] == '\\' {
			k--
		}
		if (j-k)%2 == 1 {
			return true
		}
		next := strings.Index(src[j:], "\\\\\\\n")
		if next < 0 {
			break
		}
		i = j + next
	}
	return false
}

// backquoteContinuation returns the position of a backquoted command
// substitution that holds a backslash-newline.
func backquoteContinuation(src string, f *syntax.File) (syntax.Pos, bool) {
	var at syntax.Pos
	found := false
	syntax.Walk(f, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CmdSubst); ok && c.Backquotes && !found {
			i, j := int(c.Pos().Offset()), int(c.End().Offset())
			if i >= 0 && j <= len(src) && i < j && strings.Contains(src[i:j], "\\\n") {
				at, found = c.Pos(), true
			}
		}
		return !found
	})
	return at, found
}
