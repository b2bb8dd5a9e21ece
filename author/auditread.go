package author

import (
	"bufio"
	"encoding/json"
	"io"
)

// Recorded is one tool call of an audit log: its decision record and the
// answers to the prompts asked for it.
type Recorded struct {
	Line       int // of the decision record
	SessionID  string
	ToolCallID string
	ToolName   string
	AgentName  string
	State      string
	Resolution string
	Cwd        string
	Input      json.RawMessage
	// Host is the hook host that recorded the call ("" for a protocol
	// host such as pi): its tool names and values.
	Host string
	// Decidable is false when the record lacks what deciding it again
	// needs: an input (one cut short for the log does not count). A
	// record without cwd is decided in the caller's working directory.
	Decidable bool
	Answers   []RecordedAnswer
}

// RecordedAnswer is a prompt_answer record.
type RecordedAnswer struct {
	Gate, Surface, Value, Choice string
}

// Approved reports whether the person allowed (once or for the session).
func (a RecordedAnswer) Approved() bool {
	return a.Choice == "allow_once" || a.Choice == "allow_session"
}

type auditRecord struct {
	Event      string          `json:"event"`
	SessionID  string          `json:"sessionId"`
	ToolCallID string          `json:"toolCallId"`
	ToolName   string          `json:"toolName"`
	AgentName  string          `json:"agentName"`
	State      string          `json:"state"`
	Resolution string          `json:"resolution"`
	Cwd        string          `json:"cwd"`
	Input      json.RawMessage `json:"input"`
	Gate       string          `json:"gate"`
	Surface    string          `json:"surface"`
	Value      string          `json:"value"`
	Choice     string          `json:"choice"`
	Host       string          `json:"host"`
}

// ReadRecorded reads the tool calls of an audit log in order; lines that
// are not records toolgate wrote are skipped.
func ReadRecorded(r io.Reader) ([]Recorded, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	pending := map[string][]RecordedAnswer{}
	var out []Recorded
	for line := 1; sc.Scan(); line++ {
		var rec auditRecord
		if json.Unmarshal(sc.Bytes(), &rec) != nil {
			continue
		}
		key := rec.SessionID + "\x00" + rec.ToolCallID
		switch rec.Event {
		case "prompt_answer":
			pending[key] = append(pending[key], RecordedAnswer{Gate: rec.Gate, Surface: rec.Surface, Value: rec.Value, Choice: rec.Choice})
		case "decision":
			if rec.ToolName == "" {
				continue // an input event
			}
			c := Recorded{Line: line, Host: rec.Host, SessionID: rec.SessionID, ToolCallID: rec.ToolCallID, ToolName: rec.ToolName,
				AgentName: rec.AgentName, State: rec.State, Resolution: rec.Resolution, Cwd: rec.Cwd, Input: rec.Input,
				Answers: pending[key]}
			delete(pending, key)
			var probe map[string]any
			c.Decidable = json.Unmarshal(rec.Input, &probe) == nil && probe != nil && probe["truncated"] != true
			out = append(out, c)
		}
	}
	return out, sc.Err()
}
