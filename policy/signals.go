package policy

import (
	"strconv"
	"strings"
)

// killSpec is kill's table: a signal is named by number or by name, with
// or without SIG, in any letter case, as -9, -KILL, -SIGKILL, -s 9,
// -s KILL, -n 9, --signal=9 or --signal KILL; all of them are read as
// -s=9, so that a rule written one way holds for every other.
func killSpec() *cmdSpec {
	s := opt("", "s", "signal=:-s", "")
	s.signals = true
	return s
}

// signalNumbers are the Linux signal numbers by name (without SIG).
var signalNumbers = map[string]int{
	"HUP": 1, "INT": 2, "QUIT": 3, "ILL": 4, "TRAP": 5, "ABRT": 6, "IOT": 6, "BUS": 7, "FPE": 8,
	"KILL": 9, "USR1": 10, "SEGV": 11, "USR2": 12, "PIPE": 13, "ALRM": 14, "TERM": 15, "STKFLT": 16,
	"CHLD": 17, "CLD": 17, "CONT": 18, "STOP": 19, "TSTP": 20, "TTIN": 21, "TTOU": 22, "URG": 23,
	"XCPU": 24, "XFSZ": 25, "VTALRM": 26, "PROF": 27, "WINCH": 28, "IO": 29, "POLL": 29, "PWR": 30,
	"SYS": 31,
}

// signalKey is a signal's canonical spelling: its number, or its name in
// upper case without SIG when it has no number here (RTMIN+1). ok is false
// for a word that names no signal.
func signalKey(v string) (string, bool) {
	if v == "" {
		return "", false
	}
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return strconv.Itoa(n), true
	}
	name := strings.TrimPrefix(strings.ToUpper(v), "SIG")
	if n, ok := signalNumbers[name]; ok {
		return strconv.Itoa(n), true
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !('A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '+' || c == '-') {
			return "", false
		}
	}
	return name, name != ""
}

// signalArgs rewrites kill's leading signal options as "-s KEY": -9,
// -KILL, -SIGKILL, -s X, -sX, -n X, --signal=X and --signal X. Other words
// (-l, -L, operands, a wildcard in a rule) are kept; the options end at
// the first operand or "--".
func signalArgs(args []string) []string {
	out := make([]string, 0, len(args)+1)
	for i := 0; i < len(args); i++ {
		w := args[i]
		if w == "--" || len(w) < 2 || w[0] != '-' {
			return append(out, args[i:]...)
		}
		var v string
		switch {
		case hasWild(w):
			out = append(out, w) // a rule's option pattern: read as written
			continue
		case w == "-s" || w == "-n" || w == "--signal":
			if i+1 >= len(args) {
				return append(out, w)
			}
			i++
			v = args[i]
		case strings.HasPrefix(w, "--signal="):
			v = w[len("--signal="):]
		case strings.HasPrefix(w, "--"):
			out = append(out, w)
			continue
		case (w[1] == 's' || w[1] == 'n') && len(w) > 2 && !isLetters(w[1:]):
			v = w[2:] // -s9, -nKILL… but not -stop, which is a name
		case w == "-l" || w == "-L":
			out = append(out, w)
			continue
		default:
			v = w[1:]
		}
		if k, ok := signalKey(v); ok {
			out = append(out, "-s", k)
		} else {
			out = append(out, "-s", v)
		}
	}
	return out
}
