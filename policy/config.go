package policy

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/tailscale/hujson"
)

// Warning is a problem with a policy file, or advice about the policy.
type Warning struct {
	Path    string `json:"path,omitempty"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
	Message string `json:"message"`
}

func (w Warning) String() string {
	switch {
	case w.Path != "" && w.Line > 0:
		return fmt.Sprintf("%s:%d:%d: %s", w.Path, w.Line, w.Column, w.Message)
	case w.Path != "":
		return fmt.Sprintf("%s: %s", w.Path, w.Message)
	}
	return w.Message
}

// State is a policy state as written: an action and, for a deny, a reason.
type State struct {
	Action Action
	Reason string
}

// PatternEntry is one "pattern": state pair of a surface map, in file order.
type PatternEntry struct {
	Pattern string
	State   State
	Line    int
}

// SurfaceEntry is one key of the permission object, in file order. A
// string value is kept as Shorthand (the pattern "*").
type SurfaceEntry struct {
	Surface   string
	Line      int
	Shorthand *State
	Patterns  []PatternEntry
	// distinct is set when no two Patterns are the same text (composing
	// then needs no index of them for this entry).
	distinct bool
}

// ShellTool names a non-bash tool that carries a shell command.
type ShellTool struct {
	Tool            string
	CommandArgument string
	WorkdirArgument string
}

// Knobs are the non-rule settings of a file; nil means "not set".
type Knobs struct {
	Yolo                *bool
	PromptTimeoutMs     *int64
	AuditLog            *string
	InfraReadPaths      []string
	InfraReadPathsSet   bool
	ShellTools          []ShellTool
	PermissionReviewLog *bool
	// DisableYolo is the managed file's disableYoloMode.
	DisableYolo *bool
	Sandbox     SandboxKnobs
	Export      *Export
}

// Export is the export knob: where every audit record is also sent
// . Only OTLP over HTTP is defined.
type Export struct {
	OTLP OTLPExport
}

// OTLPExport is an OpenTelemetry collector's OTLP/HTTP receiver: records
// are posted to Endpoint + "/v1/logs" with Headers (in file order).
type OTLPExport struct {
	Endpoint string
	Headers  []Header
}

// Header is one HTTP header of an export.
type Header struct{ Name, Value string }

// File is one parsed policy file.
type File struct {
	Path       string
	Permission []SurfaceEntry
	Knobs      Knobs
	// Errors are file-level problems (it cannot be parsed, a top-level
	// key is unknown, permission is not an object, …): the file then
	// contributes nothing, or its last good version.
	Errors []Warning
	// Problems are schema errors inside one entry of permission: that
	// entry is a deny at its own position, the rest of the file applies.
	Problems []Warning
	// MCPServers are the server names of an mcp.json file.
	MCPServers []string
	// Notes are warnings that do not reject the file (a legacy format
	// translated, for instance).
	Notes []Warning
	// keyLines remembers where each top-level key stands, for warnings
	// about knobs that the file's scope may not set.
	keyLines map[string][2]int
}

// KeyPosition returns the line and column of a top-level key, if present.
func (f *File) KeyPosition(key string) (int, int, bool) {
	p, ok := f.keyLines[key]
	return p[0], p[1], ok
}

// acceptedKeys are the top-level keys toolgate reads or knowingly ignores.
var acceptedKeys = map[string]bool{
	"$schema": true, "permission": true, "yoloMode": true, "piInfrastructureReadPaths": true,
	"shellTools": true, "permissionReviewLog": true, "debugLog": true, "doublePressToConfirm": true,
	"toolInputPreviewMaxLength": true, "toolTextSummaryMaxLength": true, "authorizerChain": true,
	"promptTimeoutMs": true, "auditLog": true, "disableYoloMode": true, "export": true,
}

// legacyKeys are the top-level keys of the original extension's format.
var legacyKeys = map[string]bool{
	"defaultPolicy": true, "tools": true, "bash": true, "mcp": true, "skills": true, "special": true,
}

// MaxReasonLength bounds a deny reason, as the anchor does.
const MaxReasonLength = 500

// ParseFile parses the JSONC text of a policy file. It never panics; every
// problem is an Error with line and column.
func ParseFile(path string, data []byte) *File { return parseFile(path, data, false) }

// parseFileOwned is ParseFile for data that nothing changes afterwards
// (the loader's own read of a file): the strings of the File are then
// pieces of data itself rather than of a copy of it.
func parseFileOwned(path string, data []byte) *File { return parseFile(path, data, true) }

func parseFile(path string, data []byte, owned bool) *File {
	f, p, v := parseJSONC(path, bytes.TrimPrefix(data, byteOrderMark), "cannot parse JSONC: ", owned)
	if v != nil {
		p.top(v)
	}
	return f
}

// byteOrderMark is UTF-8's, which some editors write at the start of a
// file: it says nothing, so it is skipped (a file with one would otherwise
// fail closed for no reason). Positions then count from after it, as an
// editor shows them.
var byteOrderMark = []byte("\ufeff")

// parseJSONC is the front end every JSONC file shares: the nesting bound,
// the parse, and the error with its position (what names the problem).
// v is nil when the file has an error already. It tries the one pass
// (fastJSONCText) first; its plain twin is tooDeep and hujson
// (parseFileSlow in the test), and TestParseFileOnePassSameFile keeps
// whole files equal.
//
// owned says that nothing changes data afterwards (see parseFileOwned).
func parseJSONC(path string, data []byte, what string, owned bool) (*File, *parser, *jval) {
	f := &File{Path: path, keyLines: map[string][2]int{}}
	p := &parser{file: f, lines: lineStarts(data)}
	text := ""
	if owned {
		text = unsafe.String(unsafe.SliceData(data), len(data))
	} else {
		text = string(data)
	}
	if len(data) > maxJSONCBytes {
		f.Errors = append(f.Errors, Warning{Path: path, Message: fmt.Sprintf("%sthe file is larger than %d bytes", what, maxJSONCBytes)})
		return f, p, nil
	}
	// The one pass first: a file it reads is within the nesting bound
	// (it refuses deeper ones itself) and needs no other check. Its block
	// is sized by the ':' (one per member, and a few in strings): a
	// count, not a scan.
	if v, ok := fastJSONCText(data, text, 2*bytes.Count(data, []byte(":"))+16); ok {
		return f, p, v
	}
	off, kids := shape(data)
	if off >= 0 {
		p.errorf(off, "objects and arrays nest deeper than %d levels", maxNesting)
		return f, p, nil
	}
	v, err := parseJSONCValue(data, text, kids)
	if err != nil {
		line, col, msg := hujsonErrorPosition(err)
		f.Errors = append(f.Errors, Warning{Path: path, Line: line, Column: col, Message: what + msg})
		return f, p, nil
	}
	return f, p, v
}

// maxNesting bounds how deeply objects and arrays may nest: the JSONC
// parser recurses once per level, and a file of a million "[" would
// otherwise overflow the stack and crash the process.
const maxNesting = 1000

// tooDeep returns the offset of the first "{" or "[" that nests deeper than
// maxNesting outside strings and comments, or -1.
func tooDeep(data []byte) int {
	off, _ := shape(data)
	return off
}

// shape is tooDeep, and the number of values a parse of data can find in
// objects and arrays: two per ':' (a name and its value) and, in arrays,
// one per ',' and one more for each array. It is exact for a file without
// trailing commas in arrays, and never less than the number (for the
// one-pass parser, which sizes its block of values by it).
func shape(data []byte) (deep, kids int) {
	depth := 0
	var open [maxNesting + 1]byte
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '"':
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
		case '/':
			switch {
			case bytes.HasPrefix(data[i:], []byte("//")):
				for i < len(data) && data[i] != '\n' {
					i++
				}
			case bytes.HasPrefix(data[i:], []byte("/*")):
				end := bytes.Index(data[i+2:], []byte("*/"))
				if end < 0 {
					return -1, kids
				}
				i += 2 + end + 1
			}
		case ':':
			kids += 2
		case ',':
			if depth > 0 && open[depth] == '[' {
				kids++
			}
		case '{', '[':
			if depth++; depth > maxNesting {
				return i, kids
			}
			open[depth] = c
			if c == '[' {
				kids++
			}
		case '}', ']':
			if depth > 0 {
				depth--
			}
		}
	}
	return -1, kids
}

type parser struct {
	file   *File
	lines  []int
	legacy *legacyPolicy
	// lastLine is the line (index of lines) of position's last answer.
	lastLine int
	// slots and seed are duplicates' table, for every large object.
	slots []int32
	seed  maphash.Seed
}

func (p *parser) errorf(offset int, format string, args ...any) {
	line, col := p.position(offset)
	p.file.Errors = append(p.file.Errors, Warning{Path: p.file.Path, Line: line, Column: col, Message: fmt.Sprintf(format, args...)})
}

// position is the line and column of offset. It starts from its last
// answer; its plain twin is a search of every line, and
// TestPositionMatchesSearch keeps them equal.
func (p *parser) position(offset int) (int, int) {
	// The checks ask in file order nearly always: the line of the last
	// answer, or one a few lines after it, before a search of them all.
	i := p.lastLine
	if i < len(p.lines) && p.lines[i] <= offset {
		for n := 0; n < 8 && i+1 < len(p.lines) && p.lines[i+1] <= offset; n++ {
			i++
		}
		if i+1 < len(p.lines) && p.lines[i+1] <= offset {
			i = -1
		}
	} else {
		i = -1
	}
	if i < 0 {
		i = sort.Search(len(p.lines), func(i int) bool { return p.lines[i] > offset }) - 1
	}
	if i < 0 {
		return 1, offset + 1
	}
	p.lastLine = i
	return i + 1, offset - p.lines[i] + 1
}

func lineStarts(data []byte) []int {
	starts := make([]int, 1, bytes.Count(data, []byte("\n"))+1)
	for i := 0; ; {
		j := bytes.IndexByte(data[i:], '\n')
		if j < 0 {
			return starts
		}
		i += j + 1
		starts = append(starts, i)
	}
}

func hujsonErrorPosition(err error) (int, int, string) {
	msg := err.Error()
	var line, col int
	if n, _ := fmt.Sscanf(msg, "hujson: line %d, column %d:", &line, &col); n == 2 {
		if i := strings.Index(msg, ": "); i >= 0 {
			if j := strings.Index(msg[i+2:], ": "); j >= 0 {
				msg = msg[i+2+j+2:]
			}
		}
		return line, col, msg
	}
	return 0, 0, msg
}

func kindName(v *jval) string {
	switch v.Kind() {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "an unknown value"
}

// members returns an object's members, reporting repeated keys (a repeated
// key would silently change which rule wins).
func (p *parser) members(v *jval, where string) ([]jmember, bool) {
	obj, ok := v.Object()
	if !ok {
		p.errorf(v.StartOffset(), "%s must be an object, not %s", where, kindName(v))
		return nil, false
	}
	seen := make(map[string]bool, len(obj.Members()))
	good := true
	for _, m := range obj.Members() {
		k := literalString(&m.Name)
		if seen[k] {
			p.errorf(m.Name.StartOffset(), "key %q appears twice in %s", k, where)
			good = false
		}
		seen[k] = true
	}
	return obj.Members(), good
}

// literalString is the text the literal v reads as in JSON ("" for an
// object or an array). A plain string is a piece of the file's text; its
// plain twin is hujson's unquoting, and TestLiteralStringShortcut keeps
// them equal.
func literalString(v *jval) string {
	if v.kind == '{' || v.kind == '[' {
		return ""
	}
	// Most strings need no unquoting: no escape, nothing JSON would
	// replace (a large policy is thousands of them). Such a string is a
	// piece of the file's text, not a copy.
	lit := v.lit()
	if v.plain {
		return lit[1 : len(lit)-1]
	}
	if n := len(lit); n >= 2 && lit[0] == '"' && lit[n-1] == '"' && plainJSONString(lit[1:n-1]) {
		return lit[1 : n-1]
	}
	return hujson.Literal(lit).String()
}

// plainJSONString reports whether s, the inside of a JSON string, reads as
// itself: valid UTF-8 without a backslash or a control character.
func plainJSONString(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '\\' || c < 0x20 || c == '"' {
			return false
		}
	}
	return utf8.ValidString(s)
}

func (p *parser) top(v *jval) {
	members, ok := p.members(v, "the policy file")
	if !ok && members == nil {
		return
	}
	for i := range members {
		m := &members[i]
		key := literalString(&m.Name)
		line, col := p.position(m.Name.StartOffset())
		p.file.keyLines[key] = [2]int{line, col}
		switch {
		case key == "permission":
			p.permission(&m.Value)
		case key == "yoloMode":
			p.file.Knobs.Yolo = p.boolean(&m.Value, key)
		case key == "permissionReviewLog":
			p.file.Knobs.PermissionReviewLog = p.boolean(&m.Value, key)
		case key == "disableYoloMode":
			p.file.Knobs.DisableYolo = p.boolean(&m.Value, key)
		case key == "debugLog" || key == "doublePressToConfirm":
			p.boolean(&m.Value, key)
		case key == "promptTimeoutMs":
			if n := p.integer(&m.Value, key, 1); n != nil {
				p.file.Knobs.PromptTimeoutMs = n
			}
		case key == "toolInputPreviewMaxLength" || key == "toolTextSummaryMaxLength":
			p.integer(&m.Value, key, 1)
		case key == "auditLog":
			if s := p.str(&m.Value, key); s != nil {
				if *s == "" {
					p.errorf(m.Value.StartOffset(), "auditLog must not be empty")
				}
				p.file.Knobs.AuditLog = s
			}
		case key == "export":
			p.file.Knobs.Export = p.export(&m.Value)
		case key == "$schema":
			p.str(&m.Value, key)
		case key == "piInfrastructureReadPaths":
			p.file.Knobs.InfraReadPaths = p.strings(&m.Value, key)
			p.file.Knobs.InfraReadPathsSet = true
		case key == "authorizerChain":
			p.strings(&m.Value, key)
		case key == "shellTools":
			p.shellTools(&m.Value)
		case sandboxKeys[key]:
			p.sandboxKnob(key, &m.Value)
		case legacyKeys[key]:
			p.legacyKey(key, m)
		case !acceptedKeys[key]:
			p.errorf(m.Name.StartOffset(), "Unrecognized config key '%s'.", key)
		}
	}
	p.finishLegacy()
}

func (p *parser) boolean(v *jval, key string) *bool {
	switch v.Kind() {
	case 't':
		b := true
		return &b
	case 'f':
		b := false
		return &b
	}
	p.errorf(v.StartOffset(), "%s must be a boolean, not %s", key, kindName(v))
	return nil
}

func (p *parser) integer(v *jval, key string, min int64) *int64 {
	lit, ok := v.Literal()
	if !ok || lit.Kind() != '0' {
		p.errorf(v.StartOffset(), "%s must be a whole number, not %s", key, kindName(v))
		return nil
	}
	f := lit.Float()
	n := int64(f)
	if float64(n) != f || bytes.ContainsAny(lit, ".eE") && float64(n) != f {
		p.errorf(v.StartOffset(), "%s must be a whole number, not %s", key, string(lit))
		return nil
	}
	if n < min {
		p.errorf(v.StartOffset(), "%s must be at least %d, not %d", key, min, n)
		return nil
	}
	return &n
}

func (p *parser) str(v *jval, key string) *string {
	if v.Kind() != '"' {
		p.errorf(v.StartOffset(), "%s must be a string, not %s", key, kindName(v))
		return nil
	}
	s := literalString(v)
	return &s
}

func (p *parser) strings(v *jval, key string) []string {
	arr, ok := v.Array()
	if !ok {
		p.errorf(v.StartOffset(), "%s must be an array of strings, not %s", key, kindName(v))
		return nil
	}
	out := make([]string, 0, len(arr.Elements()))
	for i := range arr.Elements() {
		e := &arr.Elements()[i]
		if e.Kind() != '"' {
			p.errorf(e.StartOffset(), "%s[%d] must be a string, not %s", key, i, kindName(e))
			continue
		}
		out = append(out, literalString(e))
	}
	return out
}

func (p *parser) shellTools(v *jval) {
	members, _ := p.members(v, "shellTools")
	for i := range members {
		m := &members[i]
		tool := literalString(&m.Name)
		where := "shellTools." + tool
		fields, _ := p.members(&m.Value, where)
		st := ShellTool{Tool: tool}
		for j := range fields {
			f := &fields[j]
			switch name := literalString(&f.Name); name {
			case "commandArgument":
				if s := p.str(&f.Value, where+".commandArgument"); s != nil {
					st.CommandArgument = *s
				}
			case "workdirArgument":
				if s := p.str(&f.Value, where+".workdirArgument"); s != nil {
					st.WorkdirArgument = *s
				}
			default:
				p.errorf(f.Name.StartOffset(), "unknown key '%s' in %s (want commandArgument, workdirArgument)", name, where)
			}
		}
		if st.CommandArgument == "" && fields != nil {
			p.errorf(m.Name.StartOffset(), "%s needs a non-empty commandArgument", where)
		}
		p.file.Knobs.ShellTools = append(p.file.Knobs.ShellTools, st)
	}
}

// permission reads the permission object. A schema error inside one entry
// (a bad state, a wrong type for one surface or pattern, a repeated or
// empty key) breaks that entry only: it becomes a deny at its own position
// — the pattern it was written for, or for a bad surface value the whole
// surface — whose reason names file:line and the problem.
func (p *parser) permission(v *jval) {
	obj, ok := v.Object()
	if !ok {
		p.errorf(v.StartOffset(), "permission must be an object, not %s", kindName(v))
		return
	}
	dup := p.duplicates(obj.Members())
	for i := range obj.Members() {
		m := &obj.Members()[i]
		surface := literalString(&m.Name)
		line, _ := p.position(m.Name.StartOffset())
		entry := SurfaceEntry{Surface: surface, Line: line}
		var st State
		switch {
		case surface == "":
			st = p.problem(m.Name.StartOffset(), "permission has an empty surface key")
		case dup[i]:
			st = p.problem(m.Name.StartOffset(), "key %q appears twice in permission", surface)
		case m.Value.Kind() == '"':
			st = p.state(&m.Value, fmt.Sprintf("surface %q", surface), false)
		case isObjectState(&m.Value):
			st = p.state(&m.Value, fmt.Sprintf("surface %q", surface), true)
		case m.Value.Kind() == '{':
			entry.Patterns, entry.distinct = p.patternMap(&m.Value, "permission."+surface, fmt.Sprintf("surface %q has an empty pattern key", surface),
				func(pat string) string { return fmt.Sprintf("%s pattern %q", surface, pat) })
			p.file.Permission = append(p.file.Permission, entry)
			p.misspeltSurface(entry, m.Name.StartOffset())
			continue
		default:
			st = p.problem(m.Value.StartOffset(), "permission.%s must be a state or an object of patterns, not %s", surface, kindName(&m.Value))
		}
		entry.Shorthand = &st
		p.file.Permission = append(p.file.Permission, entry)
		p.misspeltSurface(entry, m.Name.StartOffset())
	}
}

// misspeltSurface keeps the denies and asks of an entry whose surface key
// is a likely typo of a surface toolgate uses ("bahs", "Bash", "bash ",
// "external_directroy"): besides applying to the surface as written (an
// extension tool may have that name), they apply at the same position to
// the surface meant, with a warning, so that a typo never drops a deny
// . Its allows are not copied: a typo never loosens.
func (p *parser) misspeltSurface(e SurfaceEntry, offset int) {
	meant := misspeltSurfaceOf(e.Surface)
	if meant == "" {
		return
	}
	kept := SurfaceEntry{Surface: meant, Line: e.Line, distinct: e.distinct}
	if e.Shorthand != nil && e.Shorthand.Action != Allow {
		st := *e.Shorthand
		kept.Shorthand = &st
	}
	for _, pe := range e.Patterns {
		if pe.State.Action != Allow {
			kept.Patterns = append(kept.Patterns, pe)
		}
	}
	line, col := p.position(offset)
	msg := fmt.Sprintf("surface %q is not one toolgate uses (did you mean %q?)", e.Surface, meant)
	if kept.Shorthand != nil || len(kept.Patterns) > 0 {
		p.file.Permission = append(p.file.Permission, kept)
		msg += fmt.Sprintf("; its deny and ask rules also apply to %q until it is fixed, its allows do not", meant)
	}
	p.file.Notes = append(p.file.Notes, Warning{Path: p.file.Path, Line: line, Column: col, Message: msg})
}

// misspeltSurfaceOf is the surface toolgate uses that key is a likely typo
// of: a host's own tool name (Bash), the same letters in another case or
// with spaces around, or a near miss (NearestWord) of a surface of three
// or more letters (mpc, pth, bahs); "" for none. Keys with a wildcard are
// surface patterns, not typos.
func misspeltSurfaceOf(key string) string {
	if key == "" || strings.ContainsAny(key, "*?") || slices.Contains(KnownSurfaces, key) {
		return ""
	}
	if s, ok := hostMapped[key]; ok {
		return s
	}
	t := strings.ToLower(strings.TrimSpace(key))
	for _, s := range KnownSurfaces {
		if t == s {
			return s
		}
	}
	if len([]rune(t)) < 3 {
		return ""
	}
	if s, _ := NearestWord(t, KnownSurfaces); len(s) >= 3 {
		return s
	}
	return ""
}

// isObjectState reports whether a surface's object value is a state
// ({"action": "deny", "reason": "…"}) rather than a pattern
// map: its keys are only action and reason, and action is "deny" or the
// reason is no state (so the object cannot be meant as patterns).
func isObjectState(v *jval) bool {
	obj, ok := v.Object()
	if !ok || len(obj.Members()) == 0 {
		return false
	}
	var action, reason *jval
	for i := range obj.Members() {
		switch literalString(&obj.Members()[i].Name) {
		case "action":
			action = &obj.Members()[i].Value
		case "reason":
			reason = &obj.Members()[i].Value
		default:
			return false
		}
	}
	if action == nil {
		return false
	}
	if action.Kind() == '"' && literalString(action) == "deny" {
		return true
	}
	if reason == nil {
		return false
	}
	_, err := ParseAction(literalString(reason))
	return reason.Kind() != '"' || err != nil
}

// duplicates marks each member whose key appeared before it. A large
// object (a pattern map of thousands) is checked through an open-addressing
// table of positions rather than a Go map: a fraction of the memory and of
// the time; the table is the parser's, re-used by every large object of
// the file, and a name is read again (literalString: a piece of the file,
// for nearly every name) rather than kept. Its plain twin is a map of the
// names seen; TestDuplicatesMarksRepeats keeps them equal.
func (p *parser) duplicates(members []jmember) []bool {
	dup := make([]bool, len(members))
	if len(members) <= 16 {
		var names [16]string
		for i := range members {
			names[i] = literalString(&members[i].Name)
			dup[i] = slices.Contains(names[:i], names[i])
		}
		return dup
	}
	size := 32
	for size < len(members)+len(members)/2 {
		size <<= 1
	}
	mask := uint64(size - 1)
	if cap(p.slots) < size {
		p.slots = make([]int32, size)
	}
	slots := p.slots[:size] // 0: empty; i+1: members[i]
	clear(slots)
	if p.seed == (maphash.Seed{}) {
		p.seed = maphash.MakeSeed()
	}
	for i := range members {
		k := literalString(&members[i].Name)
		for h := maphash.String(p.seed, k) & mask; ; h = (h + 1) & mask {
			at := slots[h]
			if at == 0 {
				slots[h] = int32(i + 1)
				break
			}
			if literalString(&members[at-1].Name) == k {
				dup[i] = true
				break
			}
		}
	}
	return dup
}

// problem records a schema error inside one entry and returns the state
// the entry becomes: a deny whose reason names file:line and the problem.
func (p *parser) problem(offset int, format string, args ...any) State {
	line, col := p.position(offset)
	w := Warning{Path: p.file.Path, Line: line, Column: col, Message: fmt.Sprintf(format, args...)}
	return addProblem(p.file, w)
}

// addProblem records w as an entry problem of f and returns its deny.
func addProblem(f *File, w Warning) State {
	reason := fmt.Sprintf("the policy entry at %s:%d is broken (%s), so it denies until it is fixed", w.Path, w.Line, w.Message)
	w.Message += "; this entry denies until it is fixed, the rest of the file applies"
	f.Problems = append(f.Problems, w)
	if utf8.RuneCountInString(reason) > MaxReasonLength {
		reason = string([]rune(reason)[:MaxReasonLength-1]) + "…"
	}
	return State{Action: Deny, Reason: reason}
}

// patternMap reads {pattern: state} in file order; what names a pattern in
// messages. A bad pattern entry is a deny for that pattern. ok is false
// (with an error: the caller's structure is wrong) when v is not an object;
// when true, no two patterns it returns are the same text.
func (p *parser) patternMap(v *jval, where, emptyKey string, what func(string) string) ([]PatternEntry, bool) {
	obj, ok := v.Object()
	if !ok {
		p.errorf(v.StartOffset(), "%s must be an object, not %s", where, kindName(v))
		return nil, false
	}
	members := obj.Members()
	dup := p.duplicates(members)
	distinct := true
	out := make([]PatternEntry, 0, len(members))
	for i := range members {
		m := &members[i]
		pat := literalString(&m.Name)
		line, _ := p.position(m.Name.StartOffset())
		var st State
		switch {
		case pat == "":
			st = p.problem(m.Name.StartOffset(), "%s", emptyKey)
		case dup[i]:
			distinct = false
			st = p.problem(m.Name.StartOffset(), "key %q appears twice in %s", pat, where)
		default:
			if a, ok := plainState(&m.Value); ok {
				st = State{Action: a} // the common case, without building what(pat)
			} else {
				st = p.state(&m.Value, what(pat), true)
			}
		}
		out = append(out, PatternEntry{Pattern: pat, State: st, Line: line})
	}
	return out, distinct
}

// plainState reads a state written as a valid string. Its plain twin is
// parser.state; TestPlainStateIsState keeps them equal.
func plainState(v *jval) (Action, bool) {
	if v.Kind() != '"' {
		return 0, false
	}
	// The literal as written, quotes included: no string is made for it.
	switch v.lit() {
	case `"allow"`:
		return Allow, true
	case `"ask"`:
		return Ask, true
	case `"deny"`:
		return Deny, true
	}
	a, err := ParseAction(literalString(v))
	return a, err == nil
}

// state reads "allow" | "ask" | "deny" or, where allowed, a deny with a
// reason: {"action": "deny", "reason": "…"}. A bad state is an entry
// problem: the deny it returns then carries a reason that says so.
func (p *parser) state(v *jval, what string, objectOK bool) State {
	if v.Kind() == '"' {
		s := literalString(v)
		a, err := ParseAction(s)
		if err != nil {
			return p.problem(v.StartOffset(), "invalid state %q for %s (want allow, ask or deny)", s, what)
		}
		return State{Action: a}
	}
	obj, ok := v.Object()
	if !objectOK || !ok {
		return p.problem(v.StartOffset(), "invalid state for %s: %s (want \"allow\", \"ask\", \"deny\" or {\"action\": \"deny\", \"reason\": \"…\"})", what, kindName(v))
	}
	dup := p.duplicates(obj.Members())
	st := State{}
	var bad *State
	fail := func(s State) {
		if bad == nil {
			bad = &s
		}
	}
	for i := range obj.Members() {
		f := &obj.Members()[i]
		name := literalString(&f.Name)
		switch {
		case dup[i]:
			fail(p.problem(f.Name.StartOffset(), "key %q appears twice in %s", name, what))
		case name == "action":
			if f.Value.Kind() != '"' || literalString(&f.Value) != "deny" {
				fail(p.problem(f.Value.StartOffset(), "the action of %s must be \"deny\" (an object state is a deny with a reason)", what))
				continue
			}
			st.Action = Deny
		case name == "reason":
			if f.Value.Kind() != '"' {
				fail(p.problem(f.Value.StartOffset(), "the reason of %s must be a string, not %s", what, kindName(&f.Value)))
				continue
			}
			st.Reason = literalString(&f.Value)
			if utf8.RuneCountInString(st.Reason) > MaxReasonLength {
				fail(p.problem(f.Value.StartOffset(), "the reason of %s is longer than %d characters", what, MaxReasonLength))
			}
		default:
			fail(p.problem(f.Name.StartOffset(), "unknown key '%s' in the state of %s (want action, reason)", name, what))
		}
	}
	if bad != nil {
		return *bad
	}
	if st.Action != Deny {
		return p.problem(v.StartOffset(), "the state of %s has no \"action\": \"deny\"", what)
	}
	return st
}
