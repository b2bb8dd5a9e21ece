package shell

import (
	"fmt"
	"strings"
	"sync"

	"github.com/toolgate/toolgate/internal/runtimecfg"
	"mvdan.cc/sh/v3/syntax"
)

// defaultMaxDepth bounds recursion into inline scripts when Options.MaxDepth
// is 0.
const defaultMaxDepth = 8

// Budgets that keep one analysis bounded whatever the input. Past a budget
// the analysis fails closed: a word becomes unknown, a glob unexpanded, an
// inline script an unparseable unit.
const (
	maxPayloadBytes = 4 * MaxCommandBytes // inline-script text parsed per analysis
	maxWrapDepth    = 16                  // wrappers unwrapped around one command
	maxBraceFields  = 256                 // fields one word may brace-expand to
	maxBraceExps    = 64                  // brace expressions in one word, nested ones too
	maxFields       = 1 << 17             // fields expanded per analysis
	maxGlobMatches  = 256                 // matches of one glob
	maxDirReads     = 64                  // directories read per analysis
	maxDirEntries   = 4096                // entries read from one directory
	maxStats        = 512                 // existence checks per analysis
	maxDirs         = 8                   // effective directories tracked at once
	maxDirLen       = 4096                // longest effective directory (PATH_MAX)
	maxBraceWords   = 2048                // words brace expansion may produce per analysis
	// maxNesting bounds how deep command lists nest (substitutions,
	// subshells, bodies); deeper input is unparseable rather than slow.
	maxNesting = 100
)

// A command longer than pauseCollectorAbove whose brackets nest
// deepBrackets deep or more is analyzed with the collector paused
// (runtimecfg.PauseCollector): the parser recurses a few frames a level,
// twenty in arithmetic, and every collection during the parse and the walk
// scans that whole stack again; a 32 KB arithmetic expression nested
// 16,000 deep took 4–5 s, 0.17 s paused. Its syntax tree is live until
// the analysis ends, so a collection would free little of it anyway. The
// count ignores quotes: a quoted bracket can only make it larger, or hide
// a level behind a quoted closer, which costs the old time, not a wrong
// answer.
const (
	pauseCollectorAbove = 8 << 10
	deepBrackets        = 256
)

// pausesCollector reports whether command is analyzed with the collector
// paused.
func pausesCollector(command string) bool {
	return len(command) > pauseCollectorAbove && bracketDepth(command, deepBrackets) >= deepBrackets
}

// bracketDepth is how deep the brackets of s nest, counted up to limit:
// "(", "{" and "[" open a level, ")", "}" and "]" close one.
func bracketDepth(s string, limit int) int {
	depth, deepest := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '{', '[':
			depth++
			if depth > deepest {
				if deepest = depth; deepest >= limit {
					return deepest
				}
			}
		case ')', '}', ']':
			depth--
		}
	}
	return deepest
}

// Analyze parses command once (bash dialect) and returns its units, its path
// words and their floors. It never panics and its work is
// bounded by the budgets above; a command it cannot read is Unparseable.
func Analyze(command string, opt Options) Analysis { return analyzeRecorded(command, opt, nil) }

// analyzeRecorded is Analyze, recording the file system's answers in reads
// when it is set (see Cache).
func analyzeRecorded(command string, opt Options, reads *[]fsRead) Analysis {
	return analyzeWith(command, opt, reads, nil)
}

// analyzeWith is analyzeRecorded, asking peek first whether a path exists
// or is a directory (see Cache.Peek); nil asks the file system.
func analyzeWith(command string, opt Options, reads *[]fsRead, peek func(string) (bool, bool, bool)) Analysis {
	if len(command) > MaxCommandBytes {
		return Analysis{Unparseable: true, Error: fmt.Sprintf(
			"1:1: command is %d bytes, longer than the %d-byte limit", len(command), MaxCommandBytes)}
	}
	if pausesCollector(command) {
		defer runtimecfg.PauseCollector()()
	}
	a := newAnalyzer(opt)
	a.fs.reads = reads
	a.fs.peek = peek
	defer func() {
		a.parser.keepFields(a.fieldStack)
		parsers.Put(a.parser)
	}()
	out := a.analyze(command)
	if a.cr {
		restoreCR(&out)
	}
	return out
}

func (a *analyzer) analyze(command string) Analysis {
	f, command, err := a.parse(command)
	if err != nil {
		return Analysis{Unparseable: true, Error: err.Error()}
	}
	sc := a.topScope(command, f)
	// Wrapped commands and inline scripts add units of their own.
	a.units = make([]Unit, 0, sc.facts.commands+sc.facts.commands/4+1)
	a.fieldStack = a.parser.fields[:0] // scratch: kept with the pooled parser
	a.stmts(f.Stmts, CtxTop, sc)
	if a.tooDeep {
		return Analysis{Unparseable: true, Error: fmt.Sprintf(
			"%s: commands nested deeper than %d levels", a.topPos, maxNesting)}
	}
	if len(a.units) == 0 && len(f.Stmts) > 0 {
		return Analysis{Unparseable: true, Error: fmt.Sprintf(
			"%s: no command to check", f.Stmts[0].Pos())}
	}
	return Analysis{Units: a.units, Paths: a.paths}
}

// parse parses a script as bash reads it (see bashText) and returns the
// text the tree's positions refer to. The parser is reused, which it allows
// once it is done with the previous one (the trees it returned stay valid).
func (a *analyzer) parse(src string) (*syntax.File, string, error) {
	f, src, err := a.parseText(src)
	if err == nil && strings.Contains(src, "\\\n") && strings.Contains(src, "`") {
		if pos, ok := backquoteContinuation(src, f); ok {
			return nil, "", fmt.Errorf("%s: a line continuation inside backquotes", pos)
		}
	}
	return f, src, err
}

func (a *analyzer) parseText(src string) (*syntax.File, string, error) {
	src, cr, why := bashText(src)
	if why != "" {
		return nil, "", fmt.Errorf("1:1: %s", why)
	}
	a.cr = a.cr || cr
	f, err := a.parser.Parse(a.reader(src), "")
	comments := strings.Contains(src, "\\\n") && strings.Contains(src, "#")
	dashes := strings.Contains(src, "&-")
	if err != nil || (!comments && !dashes) {
		return f, src, err
	}
	// Rewrite what the parser reads unlike bash, and parse again, until
	// nothing is left to rewrite (see bashText).
	for range maxTextFixes {
		if comments {
			if f, err = commentParser().Parse(a.reader(src), ""); err != nil {
				return nil, "", err
			}
		}
		edits := dashWords(f)
		if comments {
			edits = append(edits, commentContinuations(src, f)...)
		}
		if len(edits) == 0 {
			return f, src, nil
		}
		src = applyEdits(src, edits)
		if !comments {
			if f, err = a.parser.Parse(a.reader(src), ""); err != nil {
				return nil, "", err
			}
		}
	}
	return nil, "", fmt.Errorf("1:1: more than %d rewrites for bash", maxTextFixes)
}

// commentParser is a bash parser that keeps comments, for the rare command
// whose comments need a look.
func commentParser() *syntax.Parser {
	return syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true))
}

// parsers keeps bash parsers between analyses: a new one costs about as
// much as parsing a short command. A parser is reusable once Parse has
// returned, and the trees it made stay valid.
var parsers = sync.Pool{New: func() any {
	return &pooledParser{Parser: syntax.NewParser(syntax.Variant(syntax.LangBash)), fields: make([]field, 0, 8)}
}}

// analyzer holds the results and budgets of one Analyze call.
type analyzer struct {
	opt      Options
	parser   *pooledParser
	maxDepth int
	units    []Unit
	paths    []PathWord
	// seen holds paths once there are more than seenScan of them; until
	// then addPath scans the slice.
	seen map[PathWord]bool
	// pathKeys are the pathKey of each of paths while seen is nil.
	pathKeys []uint64
	// funcs maps each function defined so far to whether calling it may
	// change the directory (nil until one is defined).
	funcs        map[string]bool
	fs           fsView
	fieldStack   []field  // see call
	argBuf       []string // see argSlice
	argChunk     int
	fieldsLeft   int
	bracesLeft   int
	codeWalked   int // nodes codeWords visited (its work, for a test)
	payloadBytes int
	// nesting is the depth of command lists being walked; tooDeep is set
	// once it goes past maxNesting, in the top-level command at topPos.
	nesting int
	tooDeep bool
	topPos  syntax.Pos
	// injected is set once the shell may have had an injection variable
	// set (see injectAt): every unit from then on is floored.
	injected bool
	// readOnly is set while the words of a command known to only read its
	// arguments are classified: their path words are no writes.
	readOnly bool
	// scanWith, when set, stands in for scan (tests only).
	scanWith func(string, *syntax.File) (*facts, int)
	// cr is set once a carriage return was replaced for the parser; the
	// results get them back.
	cr bool
	// remote is above 0 while the words of a command run elsewhere (ssh
	// HOST CMD, docker exec) are analyzed: they name no local path.
	remote int
	// piped is set while a command whose standard input is a pipe is
	// walked (the later stages of a pipeline).
	piped bool
	// written and executable are the files (absolute, cleaned) the
	// command wrote or made executable so far (see noteWrites);
	// writtenDirs are the directories above the written files, and
	// writtenNames their base names.
	written, executable, writtenDirs, writtenNames map[string]bool
	pendingWrites                                  []pendingWrite
}

// reader returns a reader of src for the parser, which reads it through
// before Parse or Document returns: the pooled parser's one reader serves
// every parse.
func (a *analyzer) reader(src string) *strings.Reader {
	a.parser.rd.Reset(src)
	return &a.parser.rd
}

// pooledParser is a bash parser with the reader it parses from.
type pooledParser struct {
	*syntax.Parser
	rd strings.Reader
	// fields is the analysis's stack of words (analyzer.fieldStack),
	// kept between analyses without what it held.
	fields []field
}

// keepFields keeps stack, the analysis's word stack, for the parser's
// next analysis, emptied so that it holds on to no text.
func (p *pooledParser) keepFields(stack []field) {
	if cap(stack) > 1024 {
		stack = nil // a huge command's: not kept
	}
	clear(stack[:cap(stack)])
	p.fields = stack[:0]
}

func newAnalyzer(opt Options) *analyzer {
	depth := opt.MaxDepth
	if depth <= 0 {
		depth = defaultMaxDepth
	}
	return &analyzer{
		opt:        opt,
		parser:     parsers.Get().(*pooledParser),
		maxDepth:   depth,
		fs:         newFSView(),
		fieldsLeft: maxFields,
		bracesLeft: maxBraceWords,
	}
}

// addUnit appends u and returns its index, so that a handler can floor it
// after the units it wraps were added.
func (a *analyzer) addUnit(u Unit) int {
	if a.injected && floorRank[SentinelIndirection] > floorRank[u.Floor] {
		u.Floor = SentinelIndirection
	}
	if u.Floor != "" || hasByte(u.Text, &wildBytes) {
		u.ExactSuggestion = true
	}
	a.units = append(a.units, u)
	return len(a.units) - 1
}

// floorRank orders floors when several apply to one unit; the strongest is
// reported.
var floorRank = map[string]int{
	SentinelForeign:     1, // the weakest: a rule naming the code option lifts it
	SentinelIndirection: 2,
	SentinelDynamic:     3,
	SentinelOpaque:      4,
	SentinelUnparseable: 5,
	SentinelArming:      6, // no session option
	SentinelSelf:        7, // no session option
}

// setFloor floors unit i with s unless a stronger floor is already set.
// A floored unit is always suggested as an exact-match rule.
func (a *analyzer) setFloor(i int, s string) {
	u := &a.units[i]
	if floorRank[s] > floorRank[u.Floor] {
		u.Floor = s
	}
	u.ExactSuggestion = true
}

// unparseable records inline code that could not be analyzed.
func (a *analyzer) unparseable(code string) {
	a.addUnit(Unit{Text: code, Context: CtxPayload, Floor: SentinelUnparseable})
}

// payload analyzes literal code that a shell, eval, trap or alias runs.
// shared is set when the code runs in the current shell (eval), so that its
// variables and directory changes are the caller's.
func (a *analyzer) payload(code string, sc *scope, shared bool) {
	if sc.depth >= a.maxDepth || a.payloadBytes+len(code) > maxPayloadBytes || len(code) > MaxCommandBytes {
		a.unparseable(code)
		return
	}
	a.payloadBytes += len(code)
	f, text, err := a.parse(code)
	if err != nil {
		a.unparseable(code)
		return
	}
	child := a.inline(sc, text, f, shared)
	a.stmts(f.Stmts, CtxPayload, child)
	if shared {
		sc.dirs = child.dirs
	}
}

// dataSubsts analyzes the command substitutions inside a literal value that
// looks like code, such as x='a[$(rm y)]': bash runs them whenever the value
// is evaluated as arithmetic (((x)), $((x)), [[ x -eq 1 ]]).
func (a *analyzer) dataSubsts(value string, sc *scope) {
	if !strings.Contains(value, "$(") && !strings.ContainsRune(value, '`') {
		return
	}
	if sc.depth >= a.maxDepth || a.payloadBytes+len(value) > maxPayloadBytes {
		a.unparseable(value)
		return
	}
	a.payloadBytes += len(value)
	text, cr, why := bashText(value)
	if why != "" {
		a.unparseable(value)
		return
	}
	a.cr = a.cr || cr
	w, err := a.parser.Document(a.reader(text))
	if err != nil {
		return // not code bash could run either
	}
	child := a.inline(sc, text, &syntax.File{}, false)
	a.substs(w, CtxPayload, child)
}
