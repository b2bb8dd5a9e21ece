package shell

import (
	"strings"
	"testing"
)

// TestNoStandInLeaks: the stand-in the parser reads for a carriage return
// never reaches an analysis: every unit's text, alternative spellings and
// words (which the policy's canonical matching reads), every path and the
// error carry the carriage return itself.
func TestNoStandInLeaks(t *testing.T) {
	fx := newFixture(t)
	cmds := []string{
		"ls \\\r\nrm x",
		"rm -r\r -f x",
		"a \r; rm -rf \r/tmp/x\r",
		"bash -c $'ls\\r#;rm x'",
		"cat <<E\r\nx\r\nE\r\nrm y\r\n",
	}
	for _, r := range allRows() {
		if strings.Contains(r.cmd, "\r") {
			cmds = append(cmds, fx.expand(r.cmd))
		}
	}
	sawArgCR := false
	for _, cmd := range cmds {
		a := Analyze(cmd, fx.options())
		leak := func(what, s string) {
			if strings.Contains(s, crStandIn) {
				t.Errorf("%q: %s %q holds the parser's stand-in for \\r", cmd, what, s)
			}
		}
		for _, u := range a.Units {
			leak("unit text", u.Text)
			for _, s := range u.Alts {
				leak("alternative", s)
			}
			for _, s := range u.Args {
				leak("word", s)
				sawArgCR = sawArgCR || strings.Contains(s, "\r")
			}
		}
		for _, p := range a.Paths {
			leak("path raw", p.Raw)
			leak("path value", p.Value)
			leak("path dir", p.Dir)
		}
		leak("error", a.Error)
	}
	if !sawArgCR {
		t.Fatal("no unit word carried a carriage return: the commands do not test what they should")
	}
}
