package hook

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"
)

// mcpNames reads the MCP server names of AGENT_DIR/mcp.json (the keys of
// "mcpServers", or "mcp-servers"), re-reading the file when it changes.
// They feed the MCP target derivation; a broken file gives no names (the
// targets then use fewer server guesses, which never loosens a rule).
type mcpNames struct {
	mu    sync.Mutex
	mtime time.Time
	size  int64
	names []string
}

func (m *mcpNames) get(agentDir string) []string {
	path := filepath.Join(agentDir, "mcp.json")
	info, err := os.Stat(path)
	m.mu.Lock()
	defer m.mu.Unlock()
	if err != nil {
		m.names, m.mtime, m.size = nil, time.Time{}, 0
		return nil
	}
	if info.ModTime().Equal(m.mtime) && info.Size() == m.size {
		return m.names
	}
	m.mtime, m.size, m.names = info.ModTime(), info.Size(), nil
	if info.Size() > 8<<20 {
		return nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var doc map[string]json.RawMessage
	if json.Unmarshal(data, &doc) != nil {
		return nil
	}
	for _, key := range []string{"mcpServers", "mcp-servers"} {
		var servers map[string]json.RawMessage
		if raw, ok := doc[key]; ok && json.Unmarshal(raw, &servers) == nil {
			for name := range servers {
				m.names = append(m.names, name)
			}
		}
	}
	sort.Strings(m.names)
	return m.names
}

// mergeNames joins the host's names and the file's, without repeats.
func mergeNames(a, b []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, n := range append(append([]string(nil), a...), b...) {
		if n != "" && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}
