// Package textdiff prints the difference of two texts as a unified diff,
// for showing an edit before it is made.
package textdiff

import (
	"fmt"
	"strings"
)

// maxCells bounds the line-by-line table; larger texts are shown whole.
const maxCells = 4 << 20

// Unified returns a unified diff of a and b by lines with three lines of
// context, "" when they are equal.
func Unified(a, b, nameA, nameB string) string {
	if a == b {
		return ""
	}
	la, lb := lines(a), lines(b)
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", nameA, nameB)
	if len(la)*len(lb) > maxCells {
		fmt.Fprintf(&out, "@@ -1,%d +1,%d @@\n", len(la), len(lb))
		for _, l := range la {
			out.WriteString("-" + l + "\n")
		}
		for _, l := range lb {
			out.WriteString("+" + l + "\n")
		}
		return out.String()
	}
	ops := script(la, lb)
	const context = 3
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		start := max(i-context, 0)
		end := i
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run-end > 2*context || run == len(ops) {
				end = min(end+context, len(ops))
				break
			}
			end = run
		}
		aStart, bStart, aN, bN := ops[start].a, ops[start].b, 0, 0
		for _, o := range ops[start:end] {
			if o.kind != '+' {
				aN++
			}
			if o.kind != '-' {
				bN++
			}
		}
		fmt.Fprintf(&out, "@@ -%d,%d +%d,%d @@\n", aStart+1, aN, bStart+1, bN)
		for _, o := range ops[start:end] {
			out.WriteByte(o.kind)
			out.WriteString(o.text + "\n")
		}
		i = end
	}
	return out.String()
}

func lines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

type op struct {
	kind byte // ' ', '-', '+'
	text string
	a, b int // line indexes in a and b where the op stands
}

// script is an edit script from a longest common subsequence.
func script(a, b []string) []op {
	n, m := len(a), len(b)
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var ops []op
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			ops = append(ops, op{' ', a[i], i, j})
			i, j = i+1, j+1
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, op{'-', a[i], i, j})
			i++
		default:
			ops = append(ops, op{'+', b[j], i, j})
			j++
		}
	}
	return ops
}
