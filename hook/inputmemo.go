package hook

import (
	"encoding/binary"
	"errors"
	"sync"

	"github.com/toolgate/toolgate/internal/onceseen"
	"github.com/toolgate/toolgate/policy"
)

// errNotFast: the fast path leaves the call to the general path.
var errNotFast = errors.New("not a call for the fast path")

// inputMemo remembers the facts of the inputs of calls the fast path read
// (protocol.ScanToolCall), so that a repeated call's input is neither
// decoded nor checked again. The facts are a function of the tool name,
// the input's bytes, the policy (its shellTools) and the host, nothing
// else: an entry is keyed by the first two, compared whole, and the memo
// holds the entries of one policy and host (another starts it over).
// What it gives is shared by every call given it, which reads it and
// changes nothing. The zero value is ready; it is safe for concurrent use.
// TestInputMemoReadsAsBefore keeps what it gives equal to a fresh decode.
type inputMemo struct {
	mu    sync.Mutex
	pol   *policy.Policy
	host  string
	m     map[string]*inputFacts
	bytes int
	hits  uint64 // how many facts were given from m
	// seen notes the inputs read once: an input is kept from its second
	// sighting on, so inputs that never repeat keep nothing.
	seen onceseen.Table
}

// Bounds of an inputMemo: inputs longer than maxMemoInput are not kept;
// past maxInputs entries or about maxInputBytes it starts over. The size
// of an entry is estimated high, inputSize: its key, its copy of the
// input and the decoded input, which takes up to about 50 times its text
// (TestInputSizeIsHigh: an array of small objects, a map of a group of 8
// slots for every 8 bytes of text; what decoding allocates in all is
// counted, the garbage of a growing array too).
const (
	maxMemoInput  = 4 << 10
	maxInputs     = 512
	maxInputBytes = 2 << 20
)

// facts are the facts of the input raw (a call's params.input as
// ScanToolCall took it; it may be the reader's buffer, which is not kept)
// of tool name, under pol and host; errNotFast when raw does not decode.
func (im *inputMemo) facts(name string, raw []byte, pol *policy.Policy, host string) (*inputFacts, error) {
	var buf [512]byte
	key := binary.AppendUvarint(buf[:0], uint64(len(name)))
	key = append(append(key, name...), raw...)
	keep := len(raw) <= maxMemoInput
	if keep {
		im.mu.Lock()
		in := im.m[string(key)]
		if in != nil && (im.pol != pol || im.host != host) {
			in = nil
		}
		if in != nil {
			im.hits++
		}
		im.mu.Unlock()
		if in != nil {
			return in, nil
		}
	}
	in, err := freshFacts(name, raw, pol, host)
	if err != nil || !keep {
		return in, err
	}
	size := inputSize(len(key))
	im.mu.Lock()
	defer im.mu.Unlock()
	if !im.seen.Again(key) {
		return in, nil
	}
	if im.m == nil || im.pol != pol || im.host != host || len(im.m) >= maxInputs || im.bytes+size > maxInputBytes {
		im.m, im.bytes, im.pol, im.host = make(map[string]*inputFacts), 0, pol, host
	}
	im.m[string(key)] = in
	im.bytes += size
	return in, nil
}

// inputSize is the estimated size of an entry of a key of n bytes.
func inputSize(n int) int { return 64*n + 512 }
