package gates

import (
	"encoding/binary"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/toolgate/toolgate/gates/paths"
	"github.com/toolgate/toolgate/internal/onceseen"
	"github.com/toolgate/toolgate/policy"
)

// Evals remembers whole evaluations of calls that need no prompt, so that
// a host's repeated call (git status, reading the same file, the same
// grep) is not evaluated again: Evaluate gives the outcomes it remembers
// only for the same question, provably:
//
//   - the same key: everything of the call and the request Evaluate reads
//     but the tool call id (tool name, the input's bytes as sent, cwd,
//     home, agent dir and name, skills, MCP servers, infra dirs, protected
//     files, the shell command, workdir and its analysis's stamp, Value,
//     HasUI), built from the values themselves, length-prefixed, and
//     compared whole (a map's key);
//   - the same resolver: the same policy (a policy reloaded after an edit
//     is a new one) and the same session approvals, rule for rule;
//   - the same directory cache generation (a policy watch event starts a
//     new one);
//   - the same file system: every question the evaluation asked of it (and
//     of the directory cache) is asked again now and answered the same.
//
// Anything else evaluates afresh (and replaces what was remembered). A
// call is remembered from the second time it is seen on (the first time
// only its key is noted). A
// call whose evaluation reads something that cannot be keyed so (a
// request with other gates, a resolver that does not say what it answers
// from, an input not given as bytes, a shell analysis without a stamp) is
// never remembered. Outcomes carry nothing of the call they came from (no
// id, no time): the runner builds the answer and the audit record of each
// call afresh from them. Evals is safe for concurrent use; the zero value
// is ready; a nil *Evals remembers nothing. TestEvalsDecideAsEvaluate and
// TestEvalsSeeEveryChange keep it equal to Evaluate.
type Evals struct {
	mu sync.Mutex
	m  map[string]*evalEntry
	// bytes is about what the entries held take (keys and answers).
	bytes int
	// pols counts the entries of each policy: the entries of a policy
	// replaced since keep it in memory, so few policies are kept.
	pols map[*policy.Policy]int
	// seen are the hashes of the keys of calls evaluated once and not
	// remembered (seenBefore): a call is remembered the second time it is
	// seen, so that calls that never repeat cost no recording.
	seen onceseen.Table

	hits, misses atomic.Uint64

	// broken (tests only) breaks the memo on purpose, to show the tests
	// see it: 0 in use.
	broken breakKind
}

type breakKind uint8

const (
	breakNone       breakKind = iota
	breakNoReask              // a hit does not ask the file system again
	breakNoCwd                // the key leaves out the working directory
	breakNoIdentity           // the resolver's identity is not compared
	breakKeptAcross           // kept Dirs answers are trusted across generations
)

type evalEntry struct {
	size     int
	pol      *policy.Policy
	session  []*policy.Rule
	gen      uint64
	outcomes []Outcome
	asked    *paths.Questions
	kept     Kept // the host's, with these outcomes (Request.Kept)
}

// IdentifiedResolver is a Resolver that says what its every answer is a
// function of: one policy and the session approvals of one moment (a
// slice never changed in place).
type IdentifiedResolver interface {
	Resolver
	Identity() (p *policy.Policy, session []*policy.Rule)
}

// generationer is a DirCache that says the generation its answers are
// kept under.
type generationer interface{ Generation() uint64 }

// Bounds of an Evals: past maxEvals calls, about maxEvalBytes of entries
// or entries of maxEvalPolicy policies it starts over; a call whose key
// is longer than maxEvalKey, whose input is longer than maxEvalInput or
// whose entry would take more than maxEvalEntry is not kept. They keep it
// within the resident-memory budget (runtimecfg.MemoryLimit):
// the size is estimated high (an entry of an edit takes about 5.6 KB, of
// a read 3.1 KB, estimated 8.9 and 6.4), and a replaced policy (about 2
// MB of 10,000 rules) is kept alive by at most one other policy's
// entries.
const (
	maxEvals      = 1024
	maxEvalBytes  = 4 << 20
	maxEvalEntry  = 64 << 10
	maxEvalKey    = 8 << 10
	maxEvalInput  = 4 << 10
	maxEvalPolicy = 2
)

// Stats returns how many evaluations were taken from the memo and how
// many were made.
func (m *Evals) Stats() (hits, misses uint64) { return m.hits.Load(), m.misses.Load() }

// Evaluate is Evaluate(req), from what m remembers when it is provably
// the same question (see Evals). Remembered outcomes are shared by every
// call given them: the caller reads them (Request.Evaluated, NeedsPrompt,
// Run) and changes none.
func (m *Evals) Evaluate(req Request) ([]Outcome, *Outcome, error) {
	if m == nil {
		return Evaluate(req)
	}
	var buf [1024]byte
	key, ok := evalKey(buf[:0], req, m.broken)
	if !ok {
		return Evaluate(req)
	}
	ir := req.Resolver.(IdentifiedResolver) // evalKey checked
	pol, session := ir.Identity()
	var gen uint64
	if g, ok := req.Call.Dirs.(generationer); ok {
		gen = g.Generation()
	}
	// The generation is read once, before: same below compares it with
	// the entry's, and the Dirs' answers kept under it are then still
	// theirs (StillAnswered need not ask them again).
	m.mu.Lock()
	e := m.m[string(key)]
	m.mu.Unlock()
	if e != nil && m.same(e, pol, session, gen) && (m.broken == breakNoReask || e.asked.StillAnswered(dirsOf(req.Call), true)) {
		m.hits.Add(1)
		req.Call.remembered = e
		return e.outcomes[:len(e.outcomes):len(e.outcomes)], nil, nil
	}
	m.misses.Add(1)
	if e == nil && !m.seenBefore(key) {
		return Evaluate(req)
	}
	asked := &paths.Questions{}
	outcomes, failed, err := evaluate(req, asked)
	size := 2*len(key) + asked.Bytes() + 1024*len(outcomes)
	keep := err == nil && !asked.Over() && size <= maxEvalEntry && !NeedsPrompt(req, outcomes)
	m.mu.Lock()
	defer m.mu.Unlock()
	if old := m.m[string(key)]; old != nil {
		delete(m.m, string(key))
		m.bytes -= old.size
		if m.pols[old.pol]--; m.pols[old.pol] <= 0 {
			delete(m.pols, old.pol)
		}
	}
	if !keep {
		return outcomes, failed, err
	}
	if _, known := m.pols[pol]; m.m == nil || len(m.m) >= maxEvals || m.bytes+size > maxEvalBytes || !known && len(m.pols) >= maxEvalPolicy {
		// Evict simply: start over.
		m.m, m.bytes, m.pols = make(map[string]*evalEntry), 0, make(map[*policy.Policy]int)
	}
	m.m[string(key)] = &evalEntry{size: size, pol: pol, session: session, gen: gen, outcomes: slices.Clone(outcomes), asked: asked}
	m.bytes += size
	m.pols[pol]++
	return outcomes, failed, err
}

// seenBefore reports whether key was seen before (see onceseen.Table).
func (m *Evals) seenBefore(key []byte) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.seen.Again(key)
}

// same reports whether e was evaluated with this resolver and generation.
func (m *Evals) same(e *evalEntry, pol *policy.Policy, session []*policy.Rule, gen uint64) bool {
	if m.broken == breakNoIdentity {
		return e.gen == gen
	}
	if m.broken == breakKeptAcross {
		return e.pol == pol && slices.Equal(e.session, session)
	}
	return e.pol == pol && e.gen == gen && slices.Equal(e.session, session)
}

// dirsOf is the call's directory cache as the view asks it (nil when it
// has none).
func dirsOf(c *Call) interface {
	Canonical(dir string) (real string, ok, hit bool)
} {
	if c.Dirs == nil {
		return nil
	}
	return c.Dirs
}

// evalKey is everything Evaluate reads of req but the tool call id, the
// resolver and the file system, length-prefixed; false when req cannot be
// remembered.
func evalKey(b []byte, req Request, broken breakKind) ([]byte, bool) {
	c := req.Call
	if c == nil || c.RawInput == nil || len(c.RawInput) > maxEvalInput || !isToolGates(req.Gates) {
		return nil, false
	}
	if _, ok := req.Resolver.(IdentifiedResolver); !ok {
		return nil, false
	}
	if c.Shell != nil && c.Shell.Stamp == 0 {
		return nil, false
	}
	b = keyStr(b, c.ToolName)
	b = binary.AppendUvarint(b, uint64(len(c.RawInput)))
	b = append(b, c.RawInput...)
	if broken != breakNoCwd {
		b = keyStr(b, c.Cwd)
	}
	b = keyStr(b, c.Home)
	b = keyStr(b, c.AgentDir)
	b = keyStr(b, c.AgentName)
	b = binary.AppendUvarint(b, uint64(len(c.Skills)))
	for _, s := range c.Skills {
		b = keyStr(b, s.Name)
		b = keyStr(b, s.Path)
	}
	b = keyList(b, c.MCPServers)
	b = keyList(b, c.InfraDirs)
	b = keyList(b, c.Protected)
	b = keyStr(b, c.Value)
	if c.Shell != nil {
		b = append(b, 1)
		b = keyStr(b, c.Shell.Command)
		b = keyStr(b, c.Shell.Workdir)
		b = binary.AppendUvarint(b, c.Shell.Stamp)
	} else {
		b = append(b, 0)
	}
	if req.HasUI {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	if len(b) > maxEvalKey {
		return nil, false
	}
	return b, true
}

// keyStr appends s, length first.
func keyStr(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// keyList appends ss, count first.
func keyList(b []byte, ss []string) []byte {
	b = binary.AppendUvarint(b, uint64(len(ss)))
	for _, s := range ss {
		b = keyStr(b, s)
	}
	return b
}

// isToolGates reports whether gs is ToolGates itself (gates are functions,
// which no key can hold: only the one list is remembered).
func isToolGates(gs []Gate) bool {
	return len(gs) == len(ToolGates) && len(gs) > 0 && &gs[0] == &ToolGates[0]
}
