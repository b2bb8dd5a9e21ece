package author

import (
	"strings"
	"testing"
)

func TestReadRecorded(t *testing.T) {
	log := strings.Join([]string{
		`{"event":"prompt","sessionId":"a","toolCallId":"c1","gate":"tool"}`,
		`{"event":"prompt_answer","sessionId":"a","toolCallId":"c1","gate":"tool","surface":"bash","value":"make","choice":"allow_once"}`,
		`{"event":"prompt_answer","sessionId":"b","toolCallId":"c1","gate":"tool","surface":"bash","value":"rm x","choice":"deny"}`,
		`not json`,
		`{"event":"decision","sessionId":"a","toolCallId":"c1","toolName":"bash","state":"ask","cwd":"/w","input":{"command":"make"}}`,
		`{"event":"decision","sessionId":"b","toolCallId":"c1","toolName":"bash","state":"ask","cwd":"/w","input":{"command":"rm x"}}`,
		`{"event":"decision","sessionId":"a","toolCallId":"input-1","state":"allow"}`,
		`{"event":"decision","sessionId":"a","toolCallId":"c2","toolName":"bash","state":"allow","cwd":"/w","input":{"truncated":true,"bytes":70000,"head":"x"}}`,
		`{"event":"decision","sessionId":"a","toolCallId":"c3","toolName":"read","state":"allow","input":{"path":"a"}}`,
	}, "\n")
	recs, err := ReadRecorded(strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 4 {
		t.Fatalf("%d calls, want 4: %+v", len(recs), recs)
	}
	a, b := recs[0], recs[1]
	if a.Line != 5 || len(a.Answers) != 1 || !a.Answers[0].Approved() || !a.Decidable {
		t.Errorf("session a's call: %+v", a)
	}
	if len(b.Answers) != 1 || b.Answers[0].Approved() || b.Answers[0].Value != "rm x" {
		t.Errorf("session b's call keeps its own answer: %+v", b)
	}
	if recs[2].Decidable || !recs[3].Decidable {
		t.Errorf("a truncated input is decidable, or one without cwd is not: %+v %+v", recs[2], recs[3])
	}
}
