package sandbox

import (
	"fmt"
	"io"
	"os"
	"sync"
)

// stdio is the child's standard files: the caller's own where they are
// files, else pipes copied to and from the caller's readers and writers.
type stdio struct {
	childFDs   [3]int
	closeAfter []*os.File // the child's ends, closed once it has them
	parent     []*os.File // the parent's ends
	copies     sync.WaitGroup
	nullF      *os.File
}

func newStdio(c Command) (*stdio, error) {
	s := &stdio{}
	null := func() (int, error) {
		if s.nullF == nil {
			f, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
			if err != nil {
				return -1, err
			}
			s.nullF = f
			s.closeAfter = append(s.closeAfter, f)
		}
		return int(s.nullF.Fd()), nil
	}
	var err error
	// Standard input.
	switch r := c.Stdin.(type) {
	case nil:
		s.childFDs[0], err = null()
	case *os.File:
		s.childFDs[0] = int(r.Fd())
	default:
		pr, pw, perr := os.Pipe()
		if perr != nil {
			err = perr
			break
		}
		s.childFDs[0] = int(pr.Fd())
		s.closeAfter = append(s.closeAfter, pr)
		s.parent = append(s.parent, pw)
		go func() {
			io.Copy(pw, r)
			pw.Close()
		}()
	}
	if err != nil {
		s.closeAll()
		return nil, fmt.Errorf("sandbox: standard input: %w", err)
	}
	for i, w := range []io.Writer{c.Stdout, c.Stderr} {
		switch w := w.(type) {
		case nil:
			s.childFDs[i+1], err = null()
		case *os.File:
			s.childFDs[i+1] = int(w.Fd())
		default:
			pr, pw, perr := os.Pipe()
			if perr != nil {
				err = perr
				break
			}
			s.childFDs[i+1] = int(pw.Fd())
			s.closeAfter = append(s.closeAfter, pw)
			s.parent = append(s.parent, pr)
			s.copies.Add(1)
			go func() {
				defer s.copies.Done()
				io.Copy(w, pr)
			}()
		}
		if err != nil {
			s.closeAll()
			return nil, fmt.Errorf("sandbox: standard output: %w", err)
		}
	}
	return s, nil
}

// childStarted closes the child's ends in the parent.
func (s *stdio) childStarted() {
	for _, f := range s.closeAfter {
		f.Close()
	}
	s.closeAfter = nil
}

// wait waits for the output copies (they end when every process holding
// the pipes has ended).
func (s *stdio) wait() { s.childStarted(); s.copies.Wait() }

func (s *stdio) closeAll() {
	s.wait()
	for _, f := range s.parent {
		f.Close()
	}
	s.parent = nil
}

func stderrOf(c Command) io.Writer {
	if c.Stderr == nil {
		return io.Discard
	}
	return c.Stderr
}
