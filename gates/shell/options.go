package shell

import (
	"slices"
	"strings"
)

// opts describes a command's options well enough to tell option values from
// operands.
type opts struct {
	arg      string   // short options that take a value: "u" for "sudo -u root"
	optional string   // short options whose value, if any, is glued: "i" for "sed -i.bak"
	long     []string // long options that take a value when written without "="
	numeric  bool     // "-10" is an option (nice)
}

// option is one option read from a command line.
type option struct {
	name  string // "-u", "--user"
	value field
	has   bool // value is set
}

func hasOpt(list []option, names ...string) bool {
	return slices.ContainsFunc(list, func(o option) bool { return slices.Contains(names, o.name) })
}

// parseOpts reads options from the front of args, up to the first operand
// or "--", and returns them with the index of the first operand.
func parseOpts(o opts, args []field) ([]option, int) {
	var list []option
	i := 0
	for i < len(args) {
		if isDashDash(args[i]) {
			return list, i + 1
		}
		got, next, ok := readOption(o, args, i, list)
		if !ok {
			break
		}
		list, i = got, next
	}
	return list, i
}

// scanArgs reads options anywhere in args (GNU tools permute them) and
// returns the options and the operands. The operands are a window of args
// (capacity cut, so an append copies) while they stand together, options
// first, as they mostly do; only operands split by options are copied.
// Its plain twin is every operand copied into a new slice (scanArgsCopied
// in the test); TestScanArgsWindowIsCopy keeps them equal.
func scanArgs(o opts, args []field) ([]option, []field) {
	var list []option
	// Room for each option a word that looks like options holds ("-la"
	// holds two): the fields are large, and growing copies them.
	if n := optionRoom(args); n > 0 {
		list = make([]option, 0, n)
	}
	from, to := 0, 0 // the operands are args[from:to] while copied is nil
	var copied []field
	for i := 0; i < len(args); {
		if isDashDash(args[i]) {
			if copied == nil && from == to {
				return list, args[i+1 : len(args) : len(args)]
			}
			if copied == nil {
				copied = append(make([]field, 0, to-from+len(args)-i-1), args[from:to]...)
			}
			return list, append(copied, args[i+1:]...)
		}
		got, next, ok := readOption(o, args, i, list)
		if ok {
			list, i = got, next
			continue
		}
		switch {
		case copied != nil:
			copied = append(copied, args[i])
		case from == to:
			from, to = i, i+1
		case to == i:
			to++
		default:
			copied = append(make([]field, 0, to-from+len(args)-i), args[from:to]...)
			copied = append(copied, args[i])
		}
		i++
	}
	if copied != nil {
		return list, copied
	}
	if from == to {
		return list, nil
	}
	return list, args[from:to:to]
}

// optionRoom is how many options the words of args that look like options
// may hold: a letter each for "-abc", one for "--name".
func optionRoom(args []field) int {
	n := 0
	for _, f := range args {
		switch v := f.value; {
		case !f.known || len(v) < 2 || v[0] != '-':
		case v[1] == '-':
			n++
		default:
			n += len(v) - 1
		}
	}
	return n
}

func isDashDash(f field) bool { return f.known && f.value == "--" }

// readOption reads the option word at args[i], with the value it takes,
// appends them to list and returns the index after them. ok is false for an
// operand. A word only known at run time is an operand: the analysis cannot
// tell, and treating it as the command keeps it visible (and floored as
// dynamic).
func readOption(o opts, args []field, i int, list []option) (_ []option, next int, ok bool) {
	f := args[i]
	v := f.value
	if !f.known || len(v) < 2 || v[0] != '-' {
		return list, i, false
	}
	if strings.HasPrefix(v, "--") {
		name, _, hasValue := strings.Cut(v, "=")
		switch {
		case hasValue:
			return append(list, option{name, f.cut(len(name) + 1), true}), i + 1, true
		case slices.Contains(o.long, name) && i+1 < len(args):
			return append(list, option{name, args[i+1], true}), i + 2, true
		}
		return append(list, option{name: name}), i + 1, true
	}
	if o.numeric && strings.Trim(v[1:], "0123456789") == "" {
		return append(list, option{name: v}), i + 1, true
	}
	next = i + 1
	for j := 1; j < len(v); j++ {
		c := v[j]
		name := shortNames[c]
		switch {
		case strings.IndexByte(o.arg, c) >= 0 && j+1 < len(v):
			return append(list, option{name, f.cut(j + 1), true}), next, true
		case strings.IndexByte(o.arg, c) >= 0 && next < len(args):
			return append(list, option{name, args[next], true}), next + 1, true
		case strings.IndexByte(o.optional, c) >= 0 && j+1 < len(v):
			return append(list, option{name, f.cut(j + 1), true}), next, true
		}
		list = append(list, option{name: name})
	}
	return list, next, true
}

// shortNames are the names of the short options, "-a" for 'a', made once.
var shortNames = func() (t [256]string) {
	for c := range t {
		t[c] = "-" + string(rune(c))
	}
	return t
}()

// cut returns the field after its first n bytes, which are literal (an
// option name): "file" of "-ofile", "$DIR/x" of "--out=$DIR/x".
func (f field) cut(n int) field {
	src := f.raw
	if f.known {
		src = f.value
	}
	n = min(max(n, 0), len(src))
	prefix := src[:n]
	g := field{known: f.known, proc: f.proc, lits: strings.TrimPrefix(f.lits, prefix)}
	if f.known {
		g.value = src[n:]
		g.pat = escapeGlob(g.value)
	}
	if f.hasOperand && !f.noOperand && strings.HasPrefix(f.operand, prefix) {
		g.operand, g.hasOperand = f.operand[n:], true
	}
	if strings.HasPrefix(f.raw, prefix) && strings.HasPrefix(f.text, prefix) {
		g.raw, g.text = f.raw[n:], f.text[n:]
	} else {
		g.raw, g.text = g.value, g.value
	}
	return g
}
