package gates

import (
	"fmt"
	"strings"

	"github.com/toolgate/toolgate/gates/paths"
	"github.com/toolgate/toolgate/gates/shell"
	"github.com/toolgate/toolgate/policy"
	"github.com/toolgate/toolgate/verdict"
)

// bashPath is one path word of a shell command with its forms.
type bashPath struct {
	word  shell.PathWord
	path  paths.Path
	known bool // the location is known (no unresolved expansion or cd)
	// named are the protected paths a write of unnamed files below this
	// directory could be (word.Into; see intoGuard), once judged.
	named []string
}

// wordPaths turns the analysis's path words into path forms: a word with an
// unresolved expansion, or a relative word after an unknown cd, keeps only
// its literal and counts as outside.
func wordPaths(c *Call) []bashPath {
	if m := c.memo; m != nil {
		if !m.wordsDone {
			m.words, m.wordsDone = newWordPaths(c), true
		}
		return m.words
	}
	return newWordPaths(c)
}

func newWordPaths(c *Call) []bashPath {
	if c.Shell == nil {
		return nil
	}
	out := make([]bashPath, 0, len(c.Shell.Analysis.Paths))
	for _, w := range c.Shell.Analysis.Paths {
		switch {
		case w.ByDesign && !c.Confined:
			continue // asked about only where the kernel would keep it read-only
		case !w.Known:
			out = append(out, bashPath{word: w, path: paths.LiteralOnly(w.Raw, c.Home)})
		case w.Dir == "" && !strings.HasPrefix(w.Value, "/"):
			out = append(out, bashPath{word: w, path: paths.LiteralOnly(w.Value, c.Home)})
		default:
			out = append(out, bashPath{word: w, path: c.fs.New(w.Value, w.Dir, c.Cwd, c.Home), known: true})
		}
	}
	return out
}

func (b bashPath) outside(cwd string) bool {
	if b.known {
		return b.path.Outside(cwd)
	}
	return !paths.IsSafeDevice(b.path.Literal)
}

func (b bashPath) shown() string {
	if b.known && b.path.Abs != "" {
		return quote(b.path.Abs) + resolvesTo(b.path)
	}
	return quote(b.word.Raw) + " (location unknown until it runs)"
}

// BashExternalDirectory checks every path a shell command touches outside
// the working directory on external_directory. Paths an
// allow rule or a session approval covers are skipped; one prompt lists the
// rest, and "allow for this session" records one pattern per path.
func BashExternalDirectory(c *Call, r Resolver) Outcome {
	var uncovered []bashPath
	var deciding policy.Result
	var covered []policy.Result
	var forms []string
	for _, bp := range wordPaths(c) {
		if !bp.outside(c.Cwd) {
			continue
		}
		var res policy.Result
		if bp.known {
			res, _ = resolvePath(r, "external_directory", bp.path)
		} else {
			res = unknownOutside(r, bp)
		}
		forms = append(forms, allForms(bp.path)...)
		if res.Action == policy.Allow {
			covered = append(covered, res)
			continue
		}
		if len(uncovered) == 0 || moreRestrictive(res.Action, deciding.Action) {
			deciding = res
		}
		uncovered = append(uncovered, bp)
	}
	if len(uncovered) == 0 {
		if len(covered) == 0 {
			return Outcome{Gate: verdict.GateBashExternalDirectory, Note: "no path outside the working directory"}
		}
		o := checked(verdict.GateBashExternalDirectory, "external_directory", covered[0].Value, covered[0])
		o.D.Command, o.D.Forms = c.Shell.Command, forms
		return o
	}
	var shown []string
	var patterns distinct[verdict.SessionPattern]
	approvable := true
	for _, bp := range uncovered {
		shown = append(shown, bp.shown())
		if ps := pathSessionPatterns("external_directory", bp.path, c.Home); bp.known && len(ps) > 0 {
			for _, p := range ps {
				patterns.add(p)
			}
		} else {
			approvable = false // a path of unknown location cannot be approved by directory
			break
		}
	}
	value := uncovered[0].path.Abs
	if value == "" {
		value = uncovered[0].word.Raw
	}
	o := checked(verdict.GateBashExternalDirectory, "external_directory", value, deciding)
	o.D.Command, o.D.Forms, o.D.SessionPatterns = c.Shell.Command, forms, patterns.list
	if !approvable {
		o.D.SessionPatterns = nil
	}
	what := fmt.Sprintf("bash command %s, which touches paths outside the working directory %s: %s",
		shownCommand(c.Memo, c.Shell.Command, &c.Shell.Analysis), quote(c.Cwd), strings.Join(shown, ", "))
	fillTexts(&o.D, c.AgentName, what, "", "Allow this access outside the project?")
	return o
}

// unknownOutside decides a path word whose location is only known when
// the command runs (it counts as outside and then follows the
// external_directory rules): a deny or ask of its literal holds; an allow
// holds only when it covers every path ("*") and no narrower deny or ask
// rule on external_directory could be the one that path meets.
func unknownOutside(r Resolver, bp bashPath) policy.Result {
	res := r.Resolve(policy.Query{Surface: "external_directory", Values: bp.path.Spelled()})
	if res.Action != policy.Allow {
		return res
	}
	if res.Rule != nil && res.Rule.Pattern == "*" &&
		!r.HasNarrowRule("external_directory", policy.Deny) && !r.HasNarrowRule("external_directory", policy.Ask) {
		return res
	}
	res.Action = policy.Ask
	return res
}

// BashPath checks every path word of a shell command on the path surface
// ; only explicit path rules count. A word whose location
// is unknown asks whenever the path surface has any deny or ask rule: it
// could be that path.
func BashPath(c *Call, r Resolver) Outcome {
	type checkedPath struct {
		o  Outcome
		bp bashPath
	}
	var all []checkedPath
	best := -1
	for _, bp := range wordPaths(c) {
		res, ok := explicitPath(r, bp.path)
		g := bp.guard(c)
		if bp.word.Into && bp.word.Write {
			g, bp.named = intoGuard(c, bp)
		}
		var o Outcome
		switch {
		case ok:
			o = checked(verdict.GateBashPath, "path", bp.word.Raw, res)
			if bp.known {
				o.D.SessionPatterns = pathSessionPatterns("path", bp.path, c.Home)
			}
		case !bp.known && (r.HasExplicitPathRule(policy.Deny) || r.HasExplicitPathRule(policy.Ask)):
			o = Outcome{Gate: verdict.GateBashPath, Kind: Checked, D: Descriptor{
				Surface: "path", Value: bp.word.Raw, State: policy.Ask, Sentinel: SentinelUnknownPath}}
		case g != "" && len(bp.named) > 0:
			o = Outcome{Gate: verdict.GateBashPath, Kind: Checked, D: Descriptor{Surface: "path", Value: bp.named[0], State: policy.Allow}}
		case g != "":
			o = Outcome{Gate: verdict.GateBashPath, Kind: Checked, D: Descriptor{Surface: "path", Value: bp.word.Raw, State: policy.Allow}}
		default:
			continue
		}
		if g != "" {
			floorProtected(&o, g)
		}
		o.D.Forms = allForms(bp.path)
		all = append(all, checkedPath{o, bp})
		if best < 0 || moreRestrictive(o.D.State, all[best].o.D.State) {
			best = len(all) - 1
		}
	}
	if best < 0 {
		return Outcome{Gate: verdict.GateBashPath, Note: "no path rule matches"}
	}
	o := all[best].o
	o.D.Command = c.Shell.Command
	if o.D.State == policy.Allow {
		return o
	}
	what := fmt.Sprintf("path %s in bash command %s", all[best].bp.label(), shownCommand(c.Memo, c.Shell.Command, &c.Shell.Analysis))
	detail := ""
	if o.D.State == policy.Ask {
		// Every path that asks is named, and "allow for this session"
		// records a pattern for each (or none, if one cannot have one).
		var lines distinct[string]
		var patterns distinct[verdict.SessionPattern]
		recordable := true
		for _, cp := range all {
			if cp.o.D.State != policy.Ask {
				continue
			}
			lines.add(fmt.Sprintf("\n  - %s, asked by %s", cp.bp.label(), ruleRef(&cp.o.D)))
			recordable = recordable && len(cp.o.D.SessionPatterns) > 0
			for _, p := range cp.o.D.SessionPatterns {
				patterns.add(p)
			}
		}
		o.D.SessionPatterns = patterns.list
		if !recordable {
			o.D.SessionPatterns = nil
		}
		if len(lines.list) > 1 {
			detail = fmt.Sprintf("\nThe command has %d paths that ask; this one answer covers all of them:%s", len(lines.list), strings.Join(lines.list, ""))
		}
	}
	fillTexts(&o.D, c.AgentName, what, detail, "Allow this path access?")
	return o
}

// label is how a prompt names a path word: the word and where it is; for
// a directory the command writes unnamed files below, the protected path
// that could be among them.
func (b bashPath) label() string {
	if len(b.named) == 0 {
		return quote(b.word.Raw) + pathWhere(b)
	}
	where := quote(b.word.Raw) + pathWhere(b)
	others := ""
	if len(b.named) > 1 {
		quoted := make([]string, len(b.named)-1)
		for i, n := range b.named[1:] {
			quoted[i] = quote(n)
		}
		others = " (and " + strings.Join(quoted, ", ") + ")"
	}
	return fmt.Sprintf("%s%s, which the command could write: it writes files it does not name below %s", quote(b.named[0]), others, where)
}

// pathWhere says where a bash path word really is, when that is not what
// it spells.
func pathWhere(bp bashPath) string {
	switch {
	case !bp.known || bp.path.Abs == "":
		return " (location unknown until it runs)"
	case bp.path.Abs != bp.word.Raw:
		return " (" + bp.shown() + ")"
	}
	return resolvesTo(bp.path)
}

// guard is the floor a bash path word gets when the command may write it
// (see guard): reading toolgate's own files or a start-up file is no
// change of it. A word of unknown location is judged on its literal for
// arming (> "$D/.bashrc").
func (b bashPath) guard(c *Call) string {
	switch {
	case !b.word.Write:
		return ""
	case b.known:
		return guard(c, b.path)
	case arming(c.fs, b.path):
		return SentinelArming
	}
	return ""
}

// SentinelUnknownPath is reported when a path word whose location is only
// known when the command runs asks on the path surface.
const SentinelUnknownPath = "<unknown-bash-path>"
