package policy

import (
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/toolgate/toolgate/internal/filekind"
)

// MaxFileBytes bounds a policy file (and an agent file or mcp.json); a
// larger one is a broken file.
const MaxFileBytes = 4 << 20

// ReadFile reads a file toolgate is configured by: a policy file, an agent
// file or mcp.json. It is never read whole first and never blocks: the
// file, once symlinks are followed, must be a regular file of at most
// MaxFileBytes. It is opened without blocking (a FIFO swapped in after the
// stat cannot hang), checked again by its descriptor, and read through a
// limit (a file that grows meanwhile cannot exhaust memory). The error
// says in words what the file is instead.
func ReadFile(path string) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := regular(info); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openNoBlock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info, err = f.Stat(); err != nil {
		return nil, err
	}
	if err := regular(info); err != nil {
		return nil, err
	}
	data, err := readAll(io.LimitReader(f, MaxFileBytes+1), info.Size())
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileBytes {
		return nil, tooLarge()
	}
	return data, nil
}

func tooLarge() error {
	return fmt.Errorf("it is larger than %d bytes (4 MiB), so it is not read", MaxFileBytes)
}

// regular says why info is not a regular file of a readable size, or nil.
func regular(info fs.FileInfo) error {
	if kind := filekind.Of(info.Mode()); kind != "" {
		return fmt.Errorf("it is %s, not a regular file, so it is not read", kind)
	}
	if info.Size() > MaxFileBytes {
		return tooLarge()
	}
	return nil
}

// readAll is io.ReadAll starting with room for size bytes (the size the
// descriptor's stat gave; the read still goes to the end, whatever it is):
// a large policy is not copied again at every doubling of the buffer.
// io.ReadAll is its plain twin; TestReadAllAnySize keeps them equal.
func readAll(r io.Reader, size int64) ([]byte, error) {
	b := make([]byte, 0, min(max(size, 0), MaxFileBytes)+512)
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err != nil {
			if err == io.EOF {
				return b, nil
			}
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // grow
		}
	}
}
